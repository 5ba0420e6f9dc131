"""`continue` is removed: the rest of the loop body moves into the other branch of its `if`,
or, when that is impossible, runs under `if not continue_`.

A `continue` in the `else:` clause of an inner loop belongs to the enclosing loop: it is
lowered there, and the inner loop counts as a statement that may jump (its `else:` runs
unless the inner loop breaks).
"""

from __future__ import annotations

import ast
import copy

from autograph.pyct import anno, jumps, transformer


def _is_continue(stmt):
    return isinstance(stmt, ast.Continue)


def _inner_loop(loop, lowering):
    """An inner loop inside the body being lowered: only its `else:` clause can hold a
    `continue` of the enclosing loop (its body's continues are its own, lowered already)."""
    if not jumps.contains(loop.orelse, ast.Continue, loops=False):
        return [loop], jumps.NEVER
    loop = copy.copy(loop)
    loop.orelse, status = lowering.block(loop.orelse)
    if status == jumps.NEVER:
        return [loop], jumps.NEVER
    # The else clause is skipped when the inner loop breaks.
    breaks = jumps.contains(loop.body, ast.Break, loops=False)
    return [loop], jumps.MAYBE if breaks or status == jumps.MAYBE else jumps.ALWAYS


class _Continues(transformer.Transformer):
    statements_only = True

    def __init__(self, ctx):
        self.ctx = ctx

    def _loop(self, node):
        self.generic_visit(node)
        if not jumps.contains(node.body, ast.Continue, loops=False):
            return node
        flag = None

        def _jump(flag_name, stmt=None):
            jump = jumps.assign(flag_name, True, stmt)
            anno.setanno(jump, anno.Basic.LOWERED_JUMP, "continue")
            return jump

        def make_jump(stmt, flagged):
            return [_jump(flag, stmt)] if flagged else []

        try:
            body, _ = jumps.Lowering(_is_continue, make_jump, None, loops=_inner_loop).block(
                node.body
            )
        except jumps.NeedFlag:
            flag = self.ctx.namer.new("continue_")
            body, _ = jumps.Lowering(_is_continue, make_jump, flag, True, _inner_loop).block(
                node.body
            )
            body.insert(0, jumps.assign(flag, False, node))
        node.body = body or [ast.Pass()]
        return node

    visit_While = visit_For = _loop
    visit_ClassDef = transformer.Transformer.methods_only

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        return node


def transform(node, ctx):
    return _Continues(ctx).visit(node)
