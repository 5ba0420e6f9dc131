"""Items read with a computed key, `table[i]`, become `ag__.item(table, i)`:

    letter = alphabet[r]   ->  letter = ag__.item(alphabet, r)

A Python list, tuple, str or dict cannot take a symbolic key; `ag__.item` reads such an item
when the graph runs (staging.numpy_api.python_items) and is `table[i]` itself otherwise (an
array, a Python key). A slice with a computed bound is one too:

    rest = left[i:]  ->  rest = ag__.item(left, ag__.slice(i, None))

(`ag__.slice` is the builtin; `x[slice(a, b)]` is `x[a:b]`). Keys written as constants, slices
of constants or tuples (`x[0]`, `x[1:]`, `x[i, j]`) stay as written: a Python container is not
read with them by a run-time value.
"""

from __future__ import annotations

import ast

from autograph.pyct import templates, transformer


def _computed(key) -> bool:
    """A key that is an expression evaluated when the line runs (a name, `i + 1`, a call), or
    a slice with such a bound (`i:`, `:mid`)."""
    if isinstance(key, ast.Slice):
        return any(b is not None and _computed(b) for b in (key.lower, key.upper, key.step))
    if isinstance(key, (ast.Constant, ast.Tuple)):
        return False
    return not (isinstance(key, ast.UnaryOp) and isinstance(key.operand, ast.Constant))


def _slice_call(key: ast.Slice):
    """`ag__.slice(lower, upper[, step])` for the slice `lower:upper[:step]`."""
    lower, upper = (ast.Constant(None) if b is None else b for b in (key.lower, key.upper))
    if key.step is None:
        return templates.replace_as_expression(
            "ag__.slice(lower, upper)", key, lower=lower, upper=upper
        )
    return templates.replace_as_expression(
        "ag__.slice(lower, upper, step)", key, lower=lower, upper=upper, step=key.step
    )


class _Subscripts(transformer.Transformer):
    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load) and _computed(node.slice):
            key = node.slice
            if isinstance(key, ast.Slice):
                key = _slice_call(key)
            return templates.replace_as_expression(
                "ag__.item(obj, key)", node, obj=node.value, key=key
            )
        return node


def transform(node, ctx):
    return _Subscripts().visit(node)
