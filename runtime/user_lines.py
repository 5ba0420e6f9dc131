"""Generated code compiled at the user's file and lines.

The executor's source is compiled so that each statement carries the file:line of the user's
code that created its node: a NumPy RuntimeWarning raised while a graph runs (divide by zero,
overflow, ...) is reported at the user's line with the user's source text, as eager NumPy
reports it, and a traceback through the graph shows the user's line. A code object has one
file name: the file most nodes come from ("the main file"); a statement whose node comes from
another file (a helper called from the staged function) carries the main-file line of the
statement before it.

Each position also records which generated line it came from, in `end_lineno`
(GENERATED_BASE + the generated line): end_lineno beyond lineno makes a position span lines,
for which tracebacks draw no carets; and generated_line() reads it back from a frame, so a
failure still names the exact node (several nodes share a user line).
"""

from __future__ import annotations

import collections
import sys
from types import CodeType

GENERATED_BASE = 1 << 24  # end_lineno = GENERATED_BASE + the generated line
MAX_MAPPED_LINES = 20_000  # beyond this, the generated names and lines are kept (compile cost)
_HAS_POSITIONS = sys.version_info >= (3, 11)  # code.co_positions (PEP 657)


def compile_at_user_lines(source: str, line_nodes: dict, fallback: str):
    """(code, filename): `source` compiled at the user's lines of `line_nodes` (generated line
    -> graph Node with a `location`), or as it is under the name `fallback` when no node has a
    location (a graph built by hand), the source is very long, or Python has no positions."""
    files = collections.Counter(node.location[0] for node in line_nodes.values() if node.location)
    if not files or not _HAS_POSITIONS or source.count("\n") > MAX_MAPPED_LINES:
        return compile(source, fallback, "exec"), fallback
    main = files.most_common(1)[0][0]
    user_line = _user_lines(source.count("\n") + 1, line_nodes, main)
    code = compile(source, main, "exec")
    return _relocated(code, user_line, main), main


def _relocated(code, user_line: list, main: str):
    """`code` (compiled from the generated source) with each instruction at the user's line
    user_line[generated line] and the generated line in its end line, nested code objects
    too: what compiling the source's syntax tree with those positions gives, without building
    the tree (parsing, walking and compiling a tree cost four times as much)."""
    consts = tuple(_relocated(c, user_line, main) if type(c) is CodeType else c for c in code.co_consts)
    count = len(user_line) - 1
    runs = [((end - start) // 2, (user_line[line], GENERATED_BASE + line)
             if line is not None and 0 < line <= count else None)
            for start, end, line in code.co_lines()]
    first = code.co_firstlineno
    first = user_line[first] if 1 <= first <= count else first
    return code.replace(co_consts=consts, co_filename=main, co_firstlineno=first,
                        co_linetable=_line_table(runs, first))


def _line_table(runs: list, first: int) -> bytes:
    """The location table (PEP 626/657 format of Python 3.11+) of `runs` of code units:
    (how many units, (line, end line) with columns 0, or None for no location). Each entry
    covers up to 8 code units: a header byte, then (long form) the line delta, the line span
    and the columns."""
    out = bytearray()
    append = out.append
    previous = first
    for units, position in runs:
        if position is None:
            while units > 0:
                append(0xF8 | (min(units, 8) - 1))  # 0x80 | 15 << 3: no location
                units -= 8
            continue
        line, end = position
        while units > 0:
            append(0xF0 | (min(units, 8) - 1))  # 0x80 | 14 << 3: the long form
            delta = line - previous
            value = (-delta << 1) | 1 if delta < 0 else delta << 1  # signed varint
            while value >= 64:
                append(0x40 | (value & 63))
                value >>= 6
            append(value)
            value = end - line
            while value >= 64:
                append(0x40 | (value & 63))
                value >>= 6
            append(value)
            out += b"\x01\x01"  # column 0 and end column 0, each + 1
            previous = line
            units -= 8
    return bytes(out)


def _user_lines(count: int, line_nodes: dict, main: str) -> list[int]:
    """[generated line] -> the main file's line to report for it."""
    first = min((node.location[1] for node in line_nodes.values()
                 if node.location and node.location[0] == main), default=1)
    lines = [first] * (count + 1)
    last = first
    for generated in range(1, count + 1):
        node = line_nodes.get(generated)
        if node is not None and node.location and node.location[0] == main:
            last = node.location[1]
        lines[generated] = last
    return lines


def generated_line(frame_code, lasti: int, tb_lineno: int) -> int:
    """The generated line a frame of compiled code was at (its instruction offset `lasti`)."""
    if not _HAS_POSITIONS:
        return tb_lineno
    for i, position in enumerate(frame_code.co_positions()):
        if i == lasti // 2:
            end = position[1]
            return end - GENERATED_BASE if end is not None and end > GENERATED_BASE else tb_lineno
    return tb_lineno
