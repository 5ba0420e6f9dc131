"""f-strings and `%` with a literal template become calls that format symbolic values when the
graph runs (staging.effects.formatting), with eager's text:

    f"x={x:.3f} {n!r}"   ->  ag__.fstring('x=', (x, '', '.3f'), ' ', (n, 'r', ''))
    "%d items" % n       ->  ag__.percent('%d items', n)

Each formatted value is a tuple (value, conversion, spec); a spec with fields of its own is an
`ag__.fstring` too. On Python values they give what Python gives, as a Python str.
"""

from __future__ import annotations

import ast

from autograph.pyct import templates, transformer

_CONVERSIONS = {-1: "", ord("s"): "s", ord("r"): "r", ord("a"): "a"}


def _constant(value, node):
    return ast.copy_location(ast.Constant(value=value), node)


class _Strings(transformer.Transformer):
    def visit_JoinedStr(self, node):
        self.generic_visit(node)
        parts = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                parts.append(self._formatted(value))
            else:
                parts.append(value)
        if not any(isinstance(p, ast.Tuple) for p in parts):
            text = "".join(p.value for p in parts)
            return _constant(text, node)
        call = templates.replace_as_expression("ag__.fstring()", node)
        call.args.extend(parts)
        return call

    def _formatted(self, value: ast.FormattedValue):
        spec = value.format_spec
        if spec is None:
            spec = _constant("", value)
        elif isinstance(spec, ast.JoinedStr):  # (a spec without fields stays a JoinedStr)
            spec = self.visit_JoinedStr(spec)
        conversion = _CONVERSIONS[value.conversion]
        return ast.copy_location(
            ast.Tuple(
                elts=[value.value, _constant(conversion, value), spec],
                ctx=ast.Load(),
            ),
            value,
        )

    def leave_BinOp(self, node):  # (after its operands: a long sum adds no frames)
        if (
            isinstance(node.op, ast.Mod)
            and isinstance(node.left, ast.Constant)
            and type(node.left.value) is str
        ):
            return templates.replace_as_expression(
                "ag__.percent(text, values)", node, text=node.left, values=node.right
            )
        return node


def transform(node, ctx):
    return _Strings().visit(node)
