"""What the `except` clauses of a converted `try` may see of its body's assignments.

A staged clause starts from the state before the `try` (the graph cannot stop its body half
way through and hand the clause the names as they were then). That is what Python's clause sees
of every name the body assigns only in its last lines: the statement that may raise last, when
it binds its names after it has run (an assignment), and the ones after it, which cannot raise
(`ok = True`, `retval_ = x`). A name the body assigns earlier is `unsettled`: a clause that
reads it (or leaves it as the body set it) is refused while tracing when the body changed it.
`writes_early`: the body may write items, attributes or arrays (or call a method, which may)
before its last lines.
"""

from __future__ import annotations

import ast

from autograph.pyct import anno, transformer
from autograph.pyct.static_analysis import activity


def _simple_value(value) -> bool:
    if isinstance(value, (ast.Constant, ast.Name)):
        return True
    return isinstance(value, (ast.Tuple, ast.List)) and all(_simple_value(e) for e in value.elts)


def _name_targets(targets) -> bool:
    return all(
        isinstance(t, ast.Name)
        or isinstance(t, (ast.Tuple, ast.List))
        and all(isinstance(e, ast.Name) for e in t.elts)
        for t in targets
    )


def _cannot_raise(s) -> bool:
    """`ok = True`, `retval_ = (x, y)`, `pass`: binds names to values it cannot fail to make."""
    if isinstance(s, ast.Pass):
        return True
    return isinstance(s, ast.Assign) and _name_targets(s.targets) and _simple_value(s.value)


def _binds_last(s) -> bool:
    """A statement that binds its names only after everything in it has run."""
    if isinstance(s, ast.Assign):
        return _name_targets(s.targets)
    if isinstance(s, (ast.AugAssign, ast.AnnAssign)):
        return isinstance(s.target, ast.Name)
    return isinstance(s, ast.Expr)


def late_start(body) -> int:
    """The index of the body's first late statement (see the module docstring)."""
    i = len(body) - 1
    while i >= 0 and _cannot_raise(body[i]):
        i -= 1
    return i if i >= 0 and _binds_last(body[i]) else i + 1


def _writes(stmts, local_names) -> bool:
    """Whether the statements write an item or attribute, or call a method of a local object
    (which may write it: `x.sort()`)."""
    for s in stmts:
        for n in transformer.walk(s):
            if isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(
                n.ctx, (ast.Store, ast.Del)
            ):
                return True
            if (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and isinstance(n.func.value, ast.Name)
                and n.func.value.id in local_names
            ):
                return True
    return False


def _needed(handler_body, outputs, names, jump_live) -> set:
    """The names of `names` a clause reads before it assigns them, or gives back unassigned
    (`outputs` it does not surely assign) to code that reads them: after a clause that jumps
    (a lowered `continue`, `break` or `return`: anno LOWERED_JUMP), only what is live where it
    jumps to (`jump_live`: kind -> names)."""
    assigned, first, live = set(), set(), set(outputs)
    for s in handler_body:
        first |= activity.read(s) - assigned
        if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and _binds_last(s):
            assigned |= activity.modified(s)
        jump = anno.getanno(s, anno.Basic.LOWERED_JUMP, None)
        if jump is not None and jump in jump_live:
            live &= jump_live[jump]
    return (first | (live - assigned)) & set(names)


def analyze(node, outputs, names, local_names=frozenset(), jump_live=None) -> tuple:
    """(unsettled names a clause needs, writes_early) of a converted Try (see the module
    docstring); `outputs`, `names`: its state's outputs and all its names; `local_names`: the
    names the function binds (its objects, whose methods may write them); `jump_live`: what is
    live where a lowered jump of a clause goes (see _needed)."""
    late = late_start(node.body)
    early = node.body[:late]
    needed = set()
    for h in node.handlers:
        needed |= _needed(h.body, outputs, names, jump_live or {})
    unsettled = activity.modified(early) & needed
    for s in node.body[late:]:  # a late statement that is not simple binds inside itself
        if not _binds_last(s) and not _cannot_raise(s):
            unsettled |= activity.modified(s) & needed
    return unsettled, _writes(early, local_names)
