"""Differences between the supported Python and NumPy versions, in one place.

`add_note(exc, text)` is `exc.add_note(text)` (PEP 678, Python >= 3.11). Python 3.10 has no
`add_note`, and its traceback printing ignores `__notes__`; there the note is appended to
`exc.__notes__` all the same (code and tests read notes from there on every version, and
pytest's `raises(match=...)` matches them), and the `exceptiongroup` backport, a dependency on
3.10 only, makes tracebacks print the notes below the message, as Python 3.11 does. The
message itself (`str(exc)`, `exc.args`) is never changed: a user's exception keeps its own.
"""

from __future__ import annotations

import inspect
import sys

# (version tests are spelled out in full below, so that a type checker reads them)
if sys.version_info < (3, 11):  # pragma: no cover - Python 3.10
    try:  # installs traceback printing that shows __notes__ (as Python 3.11 does)
        import exceptiongroup  # noqa: F401
    except ImportError:
        pass


def add_note(exc: BaseException, text: str) -> None:
    """Add the note `text` to `exc` (shown below its message when a traceback is printed)."""
    if not isinstance(text, str):
        raise TypeError(f"note must be a str, not {type(text).__name__}")
    if sys.version_info >= (3, 11):
        exc.add_note(text)
        return
    notes = getattr(exc, "__notes__", None)  # pragma: no cover - Python 3.10
    if not isinstance(notes, list):
        notes = []
        try:
            setattr(exc, "__notes__", notes)  # (no such attribute before Python 3.11)
        except (AttributeError, TypeError):  # an exception type that refuses new attributes
            return
    notes.append(text)


def renamed_code(code, name: str):
    """`code` with its name (and, on Python >= 3.11, its qualified name) set to `name`."""
    if hasattr(code, "co_qualname"):
        return code.replace(co_name=name, co_qualname=name)
    from .user_lines import share_generated_lines  # pragma: no cover - Python 3.10

    renamed = code.replace(co_name=name)
    share_generated_lines(renamed, code)  # the lines of a code compiled at the user's lines
    return renamed


# NumPy < 2.3 gives some of its C functions no signature (inspect.signature raises
# ValueError); these are their signatures as NumPy 2.0 to 2.2 document them.
_NUMPY_SIGNATURES = {
    "arange": "(start_or_stop, /, stop=None, step=1, *, dtype=None, device=None, like=None)",
    "array": "(object, dtype=None, *, copy=True, order='K', subok=False, ndmin=0, like=None)",
    "asarray": "(a, dtype=None, order=None, *, device=None, copy=None, like=None)",
    "can_cast": "(from_, to, casting='safe')",
    "concatenate": "(arrays, /, axis=0, out=None, *, dtype=None, casting='same_kind')",
    "dot": "(a, b, out=None)",
    "empty": "(shape, dtype=None, order='C', *, device=None, like=None)",
    "empty_like": "(prototype, /, dtype=None, order='K', subok=True, shape=None, *, device=None)",
    "result_type": "(*arrays_and_dtypes)",
    "where": "(condition, x=None, y=None, /)",
    "zeros": "(shape, dtype=None, order='C', *, device=None, like=None)",
}
_SIGNATURES: dict = {}


def signature(func) -> inspect.Signature:
    """inspect.signature(func), also for the NumPy functions that have none before NumPy 2.3."""
    try:
        return inspect.signature(func)
    except ValueError:
        name = getattr(func, "__name__", None)
        if getattr(func, "__module__", None) != "numpy" or name not in _NUMPY_SIGNATURES:
            raise
    if name not in _SIGNATURES:
        namespace: dict = {}
        exec(f"def {name}{_NUMPY_SIGNATURES[name]}: pass", namespace)  # noqa: S102 (our own text)
        _SIGNATURES[name] = inspect.signature(namespace[name])
    return _SIGNATURES[name]
