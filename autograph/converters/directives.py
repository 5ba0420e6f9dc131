"""Moves `set_loop_options(...)` calls out of loop bodies onto their loops."""

from __future__ import annotations

import gast


def _is_directive(stmt) -> bool:
    if not (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)):
        return False
    func = stmt.value.func
    name = func.attr if isinstance(func, gast.Attribute) else getattr(func, "id", None)
    return name == "set_loop_options"


class _Directives(gast.NodeTransformer):
    def _loop(self, node):
        self.generic_visit(node)
        kept = []
        for s in node.body:
            if _is_directive(s):
                node.ag_loop_options = s.value.keywords
            else:
                kept.append(s)
        node.body = kept or [gast.Pass()]
        return node

    visit_While = visit_For = _loop


def transform(node, ctx):
    return _Directives().visit(node)
