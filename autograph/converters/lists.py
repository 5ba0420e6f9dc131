"""`lst.append(x)` / `lst.pop()` inside loops become `ag__.list_append` / `ag__.list_pop`,
so a staged loop can carry the list as loop state (a TensorArray underneath)."""

from __future__ import annotations

import ast

from autograph.pyct import templates, transformer


def _list_call(node, method):
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == method and isinstance(node.func.value, ast.Name)
            and not node.keywords)


class _Lists(transformer.Transformer):
    statements_only = True

    def __init__(self):
        self.loop_depth = 0

    def _loop(self, node):
        self.loop_depth += 1
        self.generic_visit(node)
        self.loop_depth -= 1
        return node

    visit_While = visit_For = _loop
    visit_ClassDef = transformer.Transformer.methods_only

    def visit_FunctionDef(self, node):
        depth, self.loop_depth = self.loop_depth, 0
        self.generic_visit(node)
        self.loop_depth = depth
        return node

    def visit_Expr(self, node):
        if self.loop_depth and _list_call(node.value, "append") and len(node.value.args) == 1:
            return templates.replace("lst = ag__.list_append(lst, x)", node,
                                     lst=node.value.func.value.id, x=node.value.args[0])
        if self.loop_depth and _list_call(node.value, "pop") and not node.value.args:
            return templates.replace("lst, _ = ag__.list_pop(lst)", node,
                                     lst=node.value.func.value.id)
        return node

    def visit_Assign(self, node):
        if (self.loop_depth and len(node.targets) == 1 and _list_call(node.value, "pop")
                and not node.value.args):
            return templates.replace("lst, target = ag__.list_pop(lst)", node,
                                     lst=node.value.func.value.id, target=node.targets[0])
        return node


def transform(node, ctx):
    return _Lists().visit(node)
