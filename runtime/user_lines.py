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

Python 3.10 has no positions (only line numbers): there the source is also compiled at its
generated lines, and when both compilations give the same instructions (line numbers do not
change them, except in rare NOP placements), each instruction's generated line is read from
that second compilation; otherwise the code keeps its generated lines, as for a long source.
"""

from __future__ import annotations

import ast
import collections
import dis
import sys
import types
import weakref
from types import CodeType

GENERATED_BASE = 1 << 24  # end_lineno = GENERATED_BASE + the generated line
MAX_MAPPED_LINES = 20_000  # beyond this, the generated names and lines are kept (compile cost)
_HAS_POSITIONS = sys.version_info >= (3, 11)  # code.co_positions (PEP 657)


def compile_at_user_lines(source: str, line_nodes: dict, fallback: str):
    """(code, filename): `source` compiled at the user's lines of `line_nodes` (generated line
    -> graph Node with a `location`), or as it is under the name `fallback` when no node has a
    location (a graph built by hand) or the source is very long."""
    files = collections.Counter(node.location[0] for node in line_nodes.values() if node.location)
    if not files or source.count("\n") > MAX_MAPPED_LINES:
        return compile(source, fallback, "exec"), fallback
    main = files.most_common(1)[0][0]
    user_line = _user_lines(source.count("\n") + 1, line_nodes, main)
    if _HAS_POSITIONS:
        return _relocated(compile(source, main, "exec"), user_line, main), main
    # Python 3.10 (no positions): the syntax tree compiled at the user's lines, its
    # instructions matched with a compilation at the generated lines
    tree = ast.parse(source)
    for n in ast.walk(tree):
        generated = getattr(n, "lineno", None)
        if generated is not None:  # (a node with a position: its class declares none)
            line = user_line[generated]
            positions = {"lineno": line, "end_lineno": line, "col_offset": 0, "end_col_offset": 0}
            for name, value in positions.items():
                setattr(n, name, value)
    code = compile(tree, main, "exec")
    plain = compile(source, fallback, "exec")
    if not _remember_generated_lines(code, plain):
        return plain, fallback
    return code, main


def _relocated(code, user_line: list, main: str):
    """`code` (compiled from the generated source) with each instruction at the user's line
    user_line[generated line] and the generated line in its end line, nested code objects
    too: what compiling the source's syntax tree with those positions gives, without building
    the tree (parsing, walking and compiling a tree cost four times as much)."""
    consts = tuple(
        _relocated(c, user_line, main) if type(c) is CodeType else c for c in code.co_consts
    )
    count = len(user_line) - 1
    runs = _runs(code, count)
    first = code.co_firstlineno
    first = user_line[first] if 1 <= first <= count else first
    return code.replace(
        co_consts=consts,
        co_filename=main,
        co_firstlineno=first,
        co_linetable=_line_table(runs, user_line, first),
    )


def _runs(code, count: int) -> list:
    """[code units, generated line or None] of `code`: its co_lines() ranges, consecutive ones of
    one line merged, lines outside 1..count as None."""
    runs: list[list] = []  # [units, line]
    append = runs.append
    last: list | None = None
    runs_line = -1
    for start, end, line in code.co_lines():
        if line is not None and not 0 < line <= count:
            line = None
        if line == runs_line and last is not None:
            last[0] += (end - start) >> 1
        else:
            last = [(end - start) >> 1, line]
            append(last)
            runs_line = line
    return runs


def _varint(value: int) -> bytes:
    """`value` (>= 0) in the line table's variable-length form: 6 bits a byte, low bits first."""
    out = bytearray()
    while value >= 64:
        out.append(0x40 | (value & 63))
        value >>= 6
    out.append(value)
    return bytes(out)


_SIGNED = {
    delta: _varint((-delta << 1) | 1 if delta < 0 else delta << 1) for delta in range(-256, 257)
}


def _line_table(runs: list, user_line: list, first: int) -> bytes:
    """The location table (PEP 626/657 format of Python 3.11+) of `runs` of code units:
    [how many units, generated line or None for no location], each unit at (user_line[line],
    GENERATED_BASE + line) with columns 0. Each entry covers up to 8 code units: a header
    byte, then (long form) the line delta, the line span and the columns."""
    out: list[bytes] = []
    append = out.append
    previous = first
    for units, generated in runs:
        if generated is None:
            while units > 0:
                append(b"%c" % (0xF8 | (min(units, 8) - 1)))  # 0x80 | 15 << 3: no location
                units -= 8
            continue
        line = user_line[generated]
        delta = line - previous
        signed = _SIGNED.get(delta)
        if signed is None:
            signed = _varint((-delta << 1) | 1 if delta < 0 else delta << 1)
        span = GENERATED_BASE + generated - line
        if 1 << 24 <= span < 1 << 30:  # (_varint(span) without its loop: 5 bytes, or 4)
            tail = bytes(
                (
                    0x40 | (span & 63),
                    0x40 | ((span >> 6) & 63),
                    0x40 | ((span >> 12) & 63),
                    0x40 | ((span >> 18) & 63),
                    span >> 24,
                    1,
                    1,
                )
            )
        elif 1 << 18 <= span:
            tail = bytes(
                (
                    0x40 | (span & 63),
                    0x40 | ((span >> 6) & 63),
                    0x40 | ((span >> 12) & 63),
                    span >> 18,
                    1,
                    1,
                )
            )
        else:
            tail = _varint(span) + b"\x01\x01"  # columns 0 and 0, + 1
        if units <= 8:  # 0x80 | 14 << 3: the long form
            append(b"%c%b%b" % (0xF0 | (units - 1), signed, tail))
        else:
            append(b"\xf7%b%b" % (signed, tail))
            units -= 8
            more = b"\xf7\x00" + tail
            while units > 8:
                append(more)
                units -= 8
            append(b"%c\x00%b" % (0xF0 | (units - 1), tail))
        previous = line
    return b"".join(out)


def _user_lines(count: int, line_nodes: dict, main: str) -> list[int]:
    """[generated line] -> the main file's line to report for it."""
    first = min(
        (
            node.location[1]
            for node in line_nodes.values()
            if node.location and node.location[0] == main
        ),
        default=1,
    )
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
    if not _HAS_POSITIONS:  # pragma: no cover - Python 3.10
        lines = _GENERATED_LINES.get(id(frame_code))
        return lines.get(lasti, tb_lineno) if lines is not None else tb_lineno
    for i, position in enumerate(frame_code.co_positions()):
        if i == lasti // 2:
            end = position[1]
            return end - GENERATED_BASE if end is not None and end > GENERATED_BASE else tb_lineno
    return tb_lineno


# Python 3.10: id(code compiled at user lines) -> {instruction offset: generated line}
_GENERATED_LINES: dict[int, dict[int, int]] = {}


def _remember_generated_lines(code, plain) -> bool:
    """Records the generated line of every instruction of `code` and its nested code objects,
    read from `plain` (the same source compiled at its generated lines): the instructions of the
    two are the same but for the NOPs that keep line events (and the jump targets they shift).
    False when they differ otherwise."""
    pairs = [(code, plain)]
    tables = []
    for at_user, at_generated in pairs:
        table = _aligned_lines(at_user, at_generated)
        if table is None or len(at_user.co_consts) != len(at_generated.co_consts):
            return False
        tables.append((at_user, table))
        pairs.extend(
            (a, b)
            for a, b in zip(at_user.co_consts, at_generated.co_consts)
            if isinstance(a, types.CodeType) and isinstance(b, types.CodeType)
        )
    for at_user, table in tables:
        _GENERATED_LINES[id(at_user)] = table
        weakref.finalize(at_user, _GENERATED_LINES.pop, id(at_user), None)
    return True


def _aligned_lines(at_user, at_generated) -> dict[int, int] | None:
    """{offset in at_user: the generated line of the same instruction in at_generated}."""
    mine = [i for i in dis.get_instructions(at_user) if i.opname != "NOP"]
    theirs = [i for i in dis.get_instructions(at_generated) if i.opname != "NOP"]
    if len(mine) != len(theirs):
        return None
    lines = {}
    line = at_generated.co_firstlineno
    for a, b in zip(mine, theirs):
        jump = b.opcode in dis.hasjrel or b.opcode in dis.hasjabs
        if a.opname != b.opname or (not jump and a.arg != b.arg):
            return None
        line = b.starts_line or line
        lines[a.offset] = line
    return lines


def share_generated_lines(renamed, code) -> None:
    """`renamed` (a copy of `code` under another name) has the generated lines `code` has."""
    lines = _GENERATED_LINES.get(id(code))
    if lines is not None:  # pragma: no cover - Python 3.10
        _GENERATED_LINES[id(renamed)] = lines
        weakref.finalize(renamed, _GENERATED_LINES.pop, id(renamed), None)
