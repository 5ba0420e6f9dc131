"""`a if c else b` becomes `ag__.if_exp(c, lambda: a, lambda: b)`."""

from __future__ import annotations

from autograph.pyct import templates, transformer


class _ConditionalExpressions(transformer.Transformer):
    def visit_IfExp(self, node):
        self.generic_visit(node)
        return templates.replace_as_expression(
            "ag__.if_exp(test, lambda: body, lambda: orelse)",
            node,
            test=node.test,
            body=node.body,
            orelse=node.orelse,
        )


def transform(node, ctx):
    return _ConditionalExpressions().visit(node)
