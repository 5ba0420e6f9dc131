"""Which names a function writes items of (`out[i] = v`), and which names it takes views from
for them (`row = out[i]`, then `row[j] = v`): the arrays whose NumPy objects made while tracing
may have to become staged values (staging.state.concrete_arrays)."""

from __future__ import annotations

import ast

from autograph.pyct import transformer


def item_write_bases(target) -> set:
    """The names whose items the assignment target writes: `out` for `out[i]`, `out[i][j]` or
    `(a, out[i])`."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(item_write_bases(e) for e in target.elts))
    if isinstance(target, ast.Starred):
        return item_write_bases(target.value)
    if not isinstance(target, ast.Subscript):
        return set()
    base = target.value
    while isinstance(base, (ast.Subscript, ast.Attribute)):
        base = base.value
    return {base.id} if isinstance(base, ast.Name) else set()


def _targets(n) -> list:
    if isinstance(n, ast.Assign):
        return n.targets
    if isinstance(n, (ast.AnnAssign, ast.AugAssign, ast.For)):
        return [n.target]
    return []


def _statements(stmts):
    """Every statement of `stmts` and of the blocks inside them (nested functions included):
    the targets looked for here are statements', so expressions are not walked."""
    stack = list(reversed(stmts))
    while stack:
        n = stack.pop()
        yield n
        fields = transformer.statement_fields(n.__class__)
        if not fields:
            continue
        inner = []
        for f in fields:  # body, orelse, finalbody, then the handlers' and cases' bodies
            for s in getattr(n, f, None) or ():
                inner.extend((s,) if isinstance(s, ast.stmt) else s.body)
        stack.extend(reversed([s for s in inner if isinstance(s, ast.stmt)]))


def written_items(stmts) -> set:
    """The names whose items `stmts` (nested functions included) write."""
    found = set()
    for n in _statements(stmts):
        for target in _targets(n):
            found.update(item_write_bases(target))
    return found


def view_assignment(n):
    """(target name, base name) for `t = b[key]`, else None."""
    if (
        isinstance(n, ast.Assign)
        and len(n.targets) == 1
        and isinstance(n.targets[0], ast.Name)
        and isinstance(n.value, ast.Subscript)
        and isinstance(n.value.value, ast.Name)
    ):
        return n.targets[0].id, n.value.value.id
    return None


def written_through(stmts) -> set:
    """The names whose items `stmts` write, and the names views are taken from into such names
    (`row = out[i]` where `row`'s items are written: `out` too), to a fixpoint."""
    found = written_items(stmts)
    views = [v for n in _statements(stmts) if (v := view_assignment(n))]
    while True:
        more = {base for target, base in views if target in found} - found
        if not more:
            return found
        found |= more


def viewed_bases(stmts, written: set) -> set:
    """The names of `written` that `stmts` take views from (`t = b[key]`)."""
    found = set()
    for n in _statements(stmts):
        view = view_assignment(n)
        if view and view[1] in written:
            found.add(view[1])
    return found
