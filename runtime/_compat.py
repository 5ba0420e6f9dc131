"""Differences between the supported Python versions, in one place (exception notes on 3.10).

`add_note(exc, text)` is `exc.add_note(text)` (PEP 678, Python >= 3.11). Python 3.10 has no
`add_note`, and its traceback printing ignores `__notes__`; there the note is appended to
`exc.__notes__` all the same (code and tests read notes from there on every version, and
pytest's `raises(match=...)` matches them), and the `exceptiongroup` backport, a dependency on
3.10 only, makes tracebacks print the notes below the message, as Python 3.11 does. The
message itself (`str(exc)`, `exc.args`) is never changed: a user's exception keeps its own.
"""

from __future__ import annotations

import sys

HAS_ADD_NOTE = sys.version_info >= (3, 11)

if not HAS_ADD_NOTE:  # pragma: no cover - Python 3.10
    try:  # installs traceback printing that shows __notes__ (as Python 3.11 does)
        import exceptiongroup  # noqa: F401
    except ImportError:
        pass


def add_note(exc: BaseException, text: str) -> None:
    """Add the note `text` to `exc` (shown below its message when a traceback is printed)."""
    if not isinstance(text, str):
        raise TypeError(f"note must be a str, not {type(text).__name__}")
    if HAS_ADD_NOTE:
        exc.add_note(text)
        return
    notes = getattr(exc, "__notes__", None)  # pragma: no cover - Python 3.10
    if not isinstance(notes, list):
        notes = []
        try:
            exc.__notes__ = notes
        except (AttributeError, TypeError):  # an exception type that refuses new attributes
            return
    notes.append(text)


def renamed_code(code, name: str):
    """`code` with its name (and, on Python >= 3.11, its qualified name) set to `name`."""
    if hasattr(code, "co_qualname"):
        return code.replace(co_name=name, co_qualname=name)
    return code.replace(co_name=name)  # pragma: no cover - Python 3.10
