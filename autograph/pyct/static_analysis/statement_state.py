"""The state of a converted if/while/for/try: the names its body functions use.

The functions are an `if`'s branches, a loop's body, a `try`'s body and `except` clauses. Which names they take, give back, reach through the enclosing function's cells, or write
as global/nonlocal.

Read by the control-flow converter, which writes the body functions, and by the definitions
analysis, which must know which names a body function binds. Needs the liveness
annotations of the statement.
"""

from __future__ import annotations

import ast
import dataclasses

from autograph.pyct import anno, transformer
from autograph.pyct.static_analysis import activity


@dataclasses.dataclass(frozen=True)
class State:
    outputs: frozenset
    """Ordinary names the statement gives back: modified in a body and live after it (for a
    loop, live at its head)."""

    inputs: frozenset
    """Ordinary names passed to the body functions: the outputs, and for an `if` also the
    names a branch modifies after reading them first."""

    cells: frozenset
    """Cell variables of the function (read by a nested function or lambda) modified in a
    body: the body functions declare them nonlocal, so every write reaches the cell."""

    merged_cells: frozenset
    """The cells whose values a staged statement merges (through get_state/set_state): those
    live after it or possibly assigned before it."""

    outer: frozenset
    """Names the user declared global/nonlocal that a body writes."""

    def locals_of(self, body, bindings=activity.modified) -> set:
        """Names a body function binds locally (its own variables, not passed in); `bindings`
        works out the names statements bind (activity.modified, or a memo of it)."""
        return bindings(body) - self.cells - self.outer


def _parts(node) -> list:
    """The statements of an If/While/For/Try node's branches, body or clauses."""
    if isinstance(node, ast.If):
        return node.body + node.orelse
    if isinstance(node, ast.Try):  # (its body and clauses: converted ones have no else/finally)
        return node.body + [s for h in node.handlers for s in h.body]
    return node.body


def calls(stmts) -> bool:
    """Whether `stmts` call anything."""
    return any(n.__class__ is ast.Call for s in stmts for n in transformer.walk(s))


def of(node, cells, declared, helpers=frozenset(), bindings=activity.modified) -> State:
    """The state of an If/While/For/Try node; `cells`: the function's cell variables,
    `declared`: its global/nonlocal names, `helpers`: the cell variables functions nested in it
    assign through `nonlocal` (a body that calls anything may call one of them, and then
    modifies them too). A Try is one the control-flow converter makes into functions: a body
    and `except` clauses, which take and give the state as an If's branches. `bindings` works
    out the names statements bind (activity.modified, or a memo of it)."""
    parts = _parts(node)
    modified = bindings(parts)
    if isinstance(node, ast.For):
        modified |= activity.modified(node.target)
    if helpers and calls(parts):
        modified |= helpers
    live_in = anno.getanno(node, anno.Static.LIVE_IN)
    live_out = anno.getanno(node, anno.Static.LIVE_OUT)
    defined = anno.getanno(node, anno.Static.DEFINED_IN, frozenset())
    outer = modified & declared
    cell_names = (modified & cells) - declared
    ordinary = modified - declared - cell_names
    if isinstance(node, (ast.If, ast.Try)):
        outputs = ordinary & live_out
        inputs = outputs | (ordinary & live_in)
        merged = cell_names & (live_out | defined)
    else:
        # For a loop, live_in is the loop head: the values carried from one iteration to the next.
        # A name read only on a path that jumped (the lowered `if not continue_:` after a
        # `continue`) is not one of them.
        live_in = live_in - anno.getanno(node, anno.Static.SOURCE_DEAD_AT_HEAD, frozenset())
        outputs = ordinary & (live_in | live_out)
        inputs = outputs
        merged = cell_names & (live_in | live_out | defined)
    return State(
        frozenset(outputs),
        frozenset(inputs),
        frozenset(cell_names),
        frozenset(merged),
        frozenset(outer),
    )
