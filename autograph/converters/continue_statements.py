"""`continue` is removed: the rest of the loop body moves into the other branch of its `if`,
or, when that is impossible, runs under `if not continue_`."""

from __future__ import annotations

import ast

from autograph.pyct import jumps, transformer


def _is_continue(stmt):
    return isinstance(stmt, ast.Continue)


class _Continues(transformer.Transformer):
    statements_only = True

    def __init__(self, ctx):
        self.ctx = ctx

    def _loop(self, node):
        self.generic_visit(node)
        if not jumps.contains(node.body, ast.Continue, loops=False):
            return node
        flag = None

        def make_jump(stmt, flagged):
            return [jumps.assign(flag, True, stmt)] if flagged else []

        try:
            body, _ = jumps.Lowering(_is_continue, make_jump, None).block(node.body)
        except jumps.NeedFlag:
            flag = self.ctx.namer.new("continue_")
            body, _ = jumps.Lowering(_is_continue, make_jump, flag, True).block(node.body)
            body.insert(0, jumps.assign(flag, False, node))
        node.body = body or [ast.Pass()]
        return node

    visit_While = visit_For = _loop

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        return node


def transform(node, ctx):
    return _Continues(ctx).visit(node)
