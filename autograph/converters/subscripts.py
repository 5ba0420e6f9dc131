"""Items read with a computed key, `table[i]`, become `ag__.item(table, i)`:

    letter = alphabet[r]   ->  letter = ag__.item(alphabet, r)

A Python list, tuple, str or dict cannot take a symbolic key; `ag__.item` reads such an item
when the graph runs (staging.numpy_api.python_items) and is `table[i]` itself otherwise (an
array, a Python key). Keys written as constants, slices or tuples (`x[0]`, `x[1:]`, `x[i, j]`)
stay as written: a Python container is not read with them by a run-time value.
"""

from __future__ import annotations

import ast

from autograph.pyct import templates, transformer


def _computed(key) -> bool:
    """A key that is an expression evaluated when the line runs (a name, `i + 1`, a call)."""
    if isinstance(key, (ast.Constant, ast.Slice, ast.Tuple)):
        return False
    return not (isinstance(key, ast.UnaryOp) and isinstance(key.operand, ast.Constant))


class _Subscripts(transformer.Transformer):
    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load) and _computed(node.slice):
            return templates.replace_as_expression(
                "ag__.item(obj, key)", node, obj=node.value, key=node.slice
            )
        return node


def transform(node, ctx):
    return _Subscripts().visit(node)
