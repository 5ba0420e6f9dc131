"""NumPy's floating-point error state (`np.errstate`, `np.seterr`), read cheaply.

NumPy keeps the state in force in a context variable of its own, one object per setting (a new
object each time the state is set, never changed afterwards). Reading that object takes about
25 ns where `np.geterr()` takes about 1 us, so the compiled backends test its identity against a
state they have already examined (`current() is DEFAULT`: nothing set), and call
`np.geterr()` only when it is another one. Where NumPy keeps the state elsewhere, `current()`
is None and the callers always ask `np.geterr()`.
"""

from __future__ import annotations


def _variable():
    try:
        from numpy._core import umath  # noqa: PLC0415 - NumPy's own module, read once

        return umath._extobj_contextvar
    except (ImportError, AttributeError):  # pragma: no cover - another NumPy layout
        return None


_VARIABLE = _variable()

# the state in force now (an object compared by identity), or None where it cannot be read
current = _VARIABLE.get if _VARIABLE is not None else (lambda: None)

# the state at import: NumPy's default (no errstate, no seterr); None where it cannot be read
DEFAULT = current()


def is_default() -> bool:
    """Whether the state in force is surely NumPy's default (False where it cannot be told)."""
    return DEFAULT is not None and current() is DEFAULT
