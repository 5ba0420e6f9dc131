"""Moves `set_loop_options(...)` calls out of loop bodies onto their loops."""

from __future__ import annotations

import ast

from autograph.pyct import anno, transformer


def _is_directive(stmt) -> bool:
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    func = stmt.value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name == "set_loop_options"


class _Directives(transformer.Transformer):
    statements_only = True

    def _loop(self, node):
        self.generic_visit(node)
        kept = []
        for s in node.body:
            if _is_directive(s):
                anno.setanno(node, anno.Basic.LOOP_OPTIONS, s.value.keywords)
            else:
                kept.append(s)
        node.body = kept or [ast.Pass()]
        return node

    visit_While = visit_For = _loop
    visit_ClassDef = transformer.Transformer.methods_only


def transform(node, ctx):
    return _Directives().visit(node)
