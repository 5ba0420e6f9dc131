"""`and`, `or`, `not` and chained comparisons become `ag__.and_` / `or_` / `not_` calls.

The right operand is wrapped in a lambda so that it runs only when Python
would run it: `ag__.and_(x != 0, lambda: 12 // x > 2)`.
"""

from __future__ import annotations

import ast

from autograph.pyct import templates, transformer


def _simple(node):
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, (ast.Name, ast.Constant))


class _Logical(transformer.Transformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        template = ("ag__.and_(a, lambda: b)" if isinstance(node.op, ast.And)
                    else "ag__.or_(a, lambda: b)")
        result = node.values[-1]
        for value in reversed(node.values[:-1]):
            result = templates.replace_as_expression(template, node, a=value, b=result)
        return result

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return templates.replace_as_expression("ag__.not_(a)", node, a=node.operand)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1:
            return node
        # a < b < c: evaluate b once (a walrus when it is not a plain name), stop early like Python.
        operands = [node.left] + list(node.comparators)
        pieces = []
        left = operands[0]
        for i, op in enumerate(node.ops):
            right = operands[i + 1]
            if i < len(node.ops) - 1 and not _simple(right):
                tmp = self.ctx.namer.new("cmp_")
                bound = ast.NamedExpr(target=templates.name(tmp, ast.Store()), value=right)
                pieces.append(ast.Compare(left=left, ops=[op], comparators=[bound]))
                left = templates.name(tmp)
            else:
                pieces.append(ast.Compare(left=left, ops=[op], comparators=[right]))
                left = right
        result = pieces[-1]
        for piece in reversed(pieces[:-1]):
            result = templates.replace_as_expression("ag__.and_(a, lambda: b)", node, a=piece, b=result)
        return result


def transform(node, ctx):
    return _Logical(ctx).visit(node)
