"""Source-level clean-up of a generated graph function: assignments nothing reads.

Structured ops emit their loop bookkeeping for the general case (the bound of a loop over an
array, the counter's final value); when the loop is written as a Python `for` over the array
itself, nothing may read them. A line `vN = <expr>` whose expression is pure and cannot raise
(a literal, the length of an array known to have an axis) and whose name appears nowhere else
is dropped, with the line-to-node table moved to match.
"""

from __future__ import annotations

import re
from collections import Counter

_NAME = re.compile(r"\bv\d+\b")
_PURE = re.compile(r"^\s*(v\d+) = \(?(?:len\(v\d+\)|-?\d+|True|False|None)\)?$")


def drop_unread_assignments(lines: list[str], line_nodes: dict) -> None:
    """Removes, in place, the pure assignments whose target is never read (line_nodes: 1-based
    line number -> node, renumbered)."""
    counts = Counter(name for line in lines for name in _NAME.findall(line))
    dead = set()
    for i, line in enumerate(lines):
        match = _PURE.match(line)
        if match is not None and counts[match.group(1)] == 1:
            dead.add(i)
    if not dead:
        return
    kept, renumbered = [], {}
    for i, line in enumerate(lines):
        if i in dead:
            indent = len(line) - len(line.lstrip())
            following = lines[i + 1] if i + 1 < len(lines) else ""
            if not (
                kept
                and kept[-1].rstrip().endswith(":")
                and len(following) - len(following.lstrip()) < indent
            ):
                continue
            line = " " * indent + "pass"  # the only statement of its block
        kept.append(line)
        node = line_nodes.get(i + 1)
        if node is not None:
            renumbered[len(kept)] = node
    lines[:] = kept
    line_nodes.clear()
    line_nodes.update(renumbered)
