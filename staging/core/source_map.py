"""Maps generated (converted) source lines back to the user's file and line.

autograph registers each converted function's generated file name with the
user's file and the function's own lines (converted code keeps the user's line
numbers, so a record does not grow with the file), and unregisters it when the
converted code object dies; staging consults it when it records where a node
was created, and error messages use it so they name the user's code, not
generated code. The function's lines also serve tracebacks through linecache.
"""

from __future__ import annotations

import bisect
import linecache
import os
import sys
import weakref

# generated file name -> its record: (user file, last user line, the linecache lines). Lines
# of converted code carry the user's own line numbers, so a record is the same size for a
# function of a 10-line file and of a 10,000-line one.
_LINE_MAPS: dict[str, tuple[str, int, object]] = {}

# this project's packages: staging (two levels up from here), runtime and autograph beside it
STAGING_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_OWN_DIRS = tuple(
    os.path.normpath(os.path.join(STAGING_DIR, "..", package)) + os.sep
    for package in ("staging", "runtime", "autograph")
)


class FunctionLines:
    """The lines of a generated file as linecache serves them: line L is the user's line L
    for the lines of one function (first .. first + len(lines) - 1) and empty before them,
    without a list as long as the user's file."""

    __slots__ = ("first", "lines")

    def __init__(self, first: int, lines):
        self.first, self.lines = first, tuple(lines)

    def __len__(self):
        return self.first - 1 + len(self.lines)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("line index out of range")
        offset = index - (self.first - 1)
        return self.lines[offset] if offset >= 0 else ""

    def __iter__(self):
        return (self[i] for i in range(len(self)))


def register(filename: str, user_file: str, first: int, lines) -> object:
    """Declares that line L of generated code `filename` is line L of `user_file`, whose
    function occupies `lines` from line `first` on: lines the converter added map to the
    closest user line, and linecache shows the user's text for tracebacks through the
    generated code. Returns the record to pass to `unregister`."""
    served = FunctionLines(first, lines)
    record = (user_file, first + max(len(served.lines), 1) - 1, served)
    _LINE_MAPS[filename] = record
    linecache.cache[filename] = (sum(map(len, served.lines)), None, served, filename)
    return record


def unregister(filename: str, record) -> None:
    """Forgets generated code `filename` (when its code object is gone), if `record` is still
    what is registered under that name (a function converted again may have taken it)."""
    if _LINE_MAPS.get(filename) is record:
        del _LINE_MAPS[filename]
        cached = linecache.cache.get(filename)
        if cached is not None and len(cached) > 2 and cached[2] is record[2]:
            del linecache.cache[filename]


def lookup(filename: str, lineno: int) -> tuple[str, int] | None:
    """The user (file, line) a generated line stands for, or None if `filename` is not generated."""
    record = _LINE_MAPS.get(filename)
    if record is None or lineno is None or lineno < 1:
        return None
    return record[0], min(lineno, record[1])


def is_generated(filename: str) -> bool:
    return filename in _LINE_MAPS


def is_own_file(filename: str) -> bool:
    """True for this project's own modules (staging/, runtime/, autograph/)."""
    return filename.startswith(_OWN_DIRS) and filename not in _LINE_MAPS


def user_location(depth: int = 1) -> tuple[str, int] | None:
    """The innermost stack frame in user code, as (file, line), mapped through
    converted-code line tables. None when there is no user frame."""
    found = _find_user_frame(sys._getframe(depth))
    return found[1] if found else None


def user_frame(depth: int = 1):
    """The innermost stack frame in user code (generated code counts as the user's), or None."""
    found = _find_user_frame(sys._getframe(depth))
    return found[0] if found else None


def user_names(obj, outwards: bool = False) -> list[str]:
    """The names bound to `obj` (by identity) in the innermost user frame, or with `outwards`
    in the first user frame from there outwards that has any; for error messages."""
    found = _find_user_frame(sys._getframe(1))
    frame = found[0] if found else None
    while frame is not None:
        try:
            names = sorted(
                name
                for name, value in frame.f_locals.items()
                if value is obj and not name.startswith("ag__")
            )
        except Exception:  # noqa: BLE001  (a frame whose locals cannot be read)
            names = []
        if names or not outwards:
            return names
        frame = frame.f_back
    return []


# file name (not a generated one) -> whether its frames are the user's: not this project's own
# modules, NumPy's or the standard library's. A fact of the name alone. Bounded.
_USER_FILE: dict[str, bool] = {}
_MAX_USER_FILES = 4096


def _is_user_file(filename: str) -> bool:
    known = _USER_FILE.get(filename)
    if known is None:
        known = (
            not filename.startswith(_OWN_DIRS)
            and not filename.startswith("<frozen")
            and "/numpy/" not in filename
            and not _is_stdlib(filename)
        )
        if len(_USER_FILE) >= _MAX_USER_FILES:
            _USER_FILE.clear()
        _USER_FILE[filename] = known
    return known


def is_user_file(filename: str) -> bool:
    """Whether code of `filename` is the user's: converted code, or a file that is not this
    project's, NumPy's, the standard library's or an installed package's."""
    if filename in _LINE_MAPS:
        return True
    return _is_user_file(filename) and "-packages" not in filename


def _find_user_frame(frame):
    """(frame, (file, line)) of the innermost user frame from `frame` outwards, or None."""
    while frame is not None:
        filename = frame.f_code.co_filename
        table = _LINE_MAPS.get(filename)
        if table is not None:
            line = _line(frame)
            if line is not None and line >= 1:  # (lookup)
                return frame, (table[0], min(line, table[1]))
        elif _USER_FILE.get(filename) or (filename not in _USER_FILE and _is_user_file(filename)):
            return frame, (filename, _line(frame))
        frame = frame.f_back
    return None


_LINE_STARTS: dict = {}  # id(code object) -> (weak reference to it, line starts, lines)


def _line(frame) -> int:
    """frame.f_lineno, from a table made once per code object: Python decodes a code object's
    line table from its start on every f_lineno, which made recording the ops of a function
    of N lines take time N**2."""
    code = frame.f_code
    # (keyed by identity: hashing a code object hashes its bytecode, as slow as f_lineno)
    entry = _LINE_STARTS.get(id(code))
    if entry is None or entry[0]() is not code:
        starts, lines = [], []
        for start, _end, line in code.co_lines():
            starts.append(start)
            lines.append(line)
        key = id(code)
        entry = _LINE_STARTS[key] = (
            weakref.ref(code, lambda _, key=key: _LINE_STARTS.pop(key, None)),
            starts,
            lines,
        )
    _, starts, lines = entry
    i = bisect.bisect_right(starts, frame.f_lasti) - 1
    line = lines[i] if i >= 0 else None
    return line if line is not None else frame.f_lineno


def where() -> str:
    """'file:line: ' of the innermost user frame (see user_location), or '' when there is none:
    the prefix of every error message that points at user code."""
    loc = user_location(2)
    return f"{loc[0]}:{loc[1]}: " if loc else ""


def raised_at(error: BaseException) -> str:
    """'file:line: ' of the innermost user frame in `error`'s traceback (the user's line that
    raised it), or '' when it has none."""
    found = raised_location(error)
    return f"{found[0]}:{found[1]}: " if found else ""


def raised_location(error: BaseException) -> tuple[str, int] | None:
    """(file, line) of the innermost user frame in `error`'s traceback, or None."""
    found = None
    tb = error.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        table = _LINE_MAPS.get(filename)
        if table is not None:
            found = (table[0], min(tb.tb_lineno, table[1]))
        elif _is_user_file(filename):
            found = (filename, tb.tb_lineno)
        tb = tb.tb_next
    return found


_STDLIB = os.path.dirname(os.__file__) + os.sep


def _is_stdlib(filename: str) -> bool:
    return filename.startswith(_STDLIB) and "-packages" not in filename


def user_stacklevel() -> int:
    """warnings.warn stacklevel of the innermost frame outside staging/ (as seen from the caller)."""
    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_code.co_filename.startswith(STAGING_DIR):
        frame, level = frame.f_back, level + 1
    return level


def where_defined(func) -> str:
    """`file:line` of a function's definition (its qualified name when it has no code)."""
    code = getattr(func, "__code__", None)
    if code is None:
        return getattr(func, "__qualname__", repr(func))
    return f"{code.co_filename}:{code.co_firstlineno}"
