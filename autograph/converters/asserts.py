"""`assert test, msg` becomes `ag__.assert_stmt(test, lambda: msg)`: staged when `test` is symbolic."""

from __future__ import annotations

from autograph.pyct import templates, transformer


class _Asserts(transformer.Transformer):
    statements_only = True

    def visit_Assert(self, node):
        if node.msg is None:
            return templates.replace("ag__.assert_stmt(test)", node, test=node.test)
        return templates.replace(
            "ag__.assert_stmt(test, lambda: msg)", node, test=node.test, msg=node.msg
        )


def transform(node, ctx):
    return _Asserts().visit(node)
