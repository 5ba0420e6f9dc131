"""`break` becomes `break_ = True`, tested by the loop condition; the loop's `else:` clause
becomes `if not break_:` after the loop (or plain code after it when there is no break)."""

from __future__ import annotations

import ast

from autograph.pyct import anno, jumps, transformer


def _is_break(stmt):
    return isinstance(stmt, ast.Break)


class _Breaks(transformer.Transformer):
    statements_only = True

    def __init__(self, ctx):
        self.ctx = ctx

    def _loop(self, node):
        self.generic_visit(node)
        orelse, node.orelse = node.orelse, []
        if not jumps.contains(node.body, ast.Break, loops=False):
            return [node] + orelse
        flag = self.ctx.namer.new("break_")

        def _jump(flag_name, stmt=None):
            jump = jumps.assign(flag_name, True, stmt)
            anno.setanno(jump, anno.Basic.LOWERED_JUMP, "break")
            return jump

        def make_jump(stmt, flagged):
            return [_jump(flag, stmt)]

        try:
            body, _ = jumps.Lowering(_is_break, make_jump, flag).block(node.body)
        except jumps.NeedFlag:
            body, _ = jumps.Lowering(_is_break, make_jump, flag, True).block(node.body)
        node.body = body or [ast.Pass()]
        not_broken = jumps.not_(jumps.load(flag))
        if isinstance(node, ast.While):
            node.test = ast.BoolOp(op=ast.And(), values=[not_broken, node.test])
        else:
            anno.setanno(node, anno.Basic.EXTRA_TEST, not_broken)
        out = [jumps.assign(flag, False, node), node]
        if orelse:
            out.append(jumps.make_if(jumps.not_(jumps.load(flag)), orelse, [], node))
        return out

    visit_While = visit_For = _loop
    visit_ClassDef = transformer.Transformer.methods_only


def transform(node, ctx):
    return _Breaks(ctx).visit(node)
