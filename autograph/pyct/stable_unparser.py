"""ast.unparse with one output on every supported Python (3.10 to 3.13): Python 3.11's.

The standard library's unparser changed between versions: 3.10 puts parentheses around a
tuple that is an assignment or loop target (`(a, b) = v`) and writes `lambda :`; 3.12 and
later (PEP 701) reuse the enclosing quote inside f-string replacement fields
(`f'{', '.join(x)}'`, which 3.10 and 3.11 cannot even parse). Converted code (`to_code`,
golden files) must not depend on the Python that produced it, so the few methods that differ
are written here once, with 3.11's output; everything else is the standard library's.
"""

from __future__ import annotations

import ast

_Precedence = ast._Precedence
_ALL_QUOTES = ("'", '"', '"""', "'''")


class StableUnparser(ast._Unparser):
    """The standard library's unparser, its version-dependent methods fixed to 3.11's output."""

    def __init__(self, *, in_fstring_field: bool = False):
        super().__init__()
        # Inside an f-string replacement field: string literals avoid backslashes (and the
        # f-string's quote is chosen around them), as Python < 3.12 requires.
        self.in_fstring_field = in_fstring_field

    def _captured(self, node) -> str:
        """The text `node` unparses to, without writing it."""
        saved, self._source = self._source, []
        try:
            self.traverse(node)
            return "".join(self._source)
        finally:
            self._source = saved

    # -- tuples as targets, `:=`, `lambda` (Python 3.10 differs) --

    def visit_Tuple(self, node):
        with self.delimit_if(
            "(", ")", not node.elts or self.get_precedence(node) > _Precedence.TUPLE
        ):
            self.items_view(self.traverse, node.elts)

    def visit_Assign(self, node):
        self.set_precedence(_Precedence.TUPLE, *node.targets)
        super().visit_Assign(node)

    def _for_helper(self, fill, node):
        self.set_precedence(_Precedence.TUPLE, node.target)
        super()._for_helper(fill, node)

    def visit_NamedExpr(self, node):
        # 3.11 parenthesizes `:=` wherever it is not itself at NAMED_EXPR precedence (which
        # nothing sets): always. 3.10 has no NAMED_EXPR and leaves it bare in tuples.
        with self.delimit("(", ")"):
            self.set_precedence(_Precedence.ATOM, node.target, node.value)
            self.traverse(node.target)
            self.write(" := ")
            self.traverse(node.value)

    def visit_Lambda(self, node):
        with self.require_parens(_Precedence.TEST, node):
            arguments = self._captured(node.args)
            self.write("lambda " + arguments if arguments else "lambda")
            self.write(": ")
            self.set_precedence(_Precedence.TEST, node.body)
            self.traverse(node.body)

    # -- f-strings (Python >= 3.12 differs) --

    def _write_constant(self, value):
        if self.in_fstring_field and isinstance(value, str):
            self._write_str_avoiding_backslashes(value)
        else:
            super()._write_constant(value)

    def visit_JoinedStr(self, node):
        self.write("f")
        if self.in_fstring_field:  # an f-string nested in a replacement field
            self._write_str_avoiding_backslashes(self._fstring_body(node))
            return
        # Escaped whitespace is allowed in the literal parts (f"{x}\n"), not in the fields.
        parts = [
            (self._fstring_body(value), isinstance(value, ast.Constant)) for value in node.values
        ]
        quotes = list(_ALL_QUOTES)
        written = []
        for text, literal in parts:
            text, usable = self._str_literal_helper(
                text, quote_types=quotes, escape_special_whitespace=literal
            )
            if set(usable).isdisjoint(quotes):  # no one quote suits every part: repr, in '''
                quotes = ["'''"]
                written = [repr('"' + text)[2:-1] for text, _ in parts]
                break
            written.append(text)
            quotes = usable
        self.write(f"{quotes[0]}{''.join(written)}{quotes[0]}")

    def _fstring_body(self, node) -> str:
        """The text of an f-string part (literal text with braces doubled, or a field)."""
        if isinstance(node, ast.JoinedStr):  # the f-string itself, or a format spec
            return "".join(self._fstring_body(value) for value in node.values)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value.replace("{", "{{").replace("}", "}}")
        if isinstance(node, ast.FormattedValue):
            return self._fstring_field(node)
        raise ValueError(f"Unexpected node inside JoinedStr, {node!r}")

    def _fstring_field(self, node) -> str:
        inner = type(self)(in_fstring_field=True)
        inner.set_precedence(_Precedence.TEST.next(), node.value)
        expr = inner.visit(node.value)
        if "\\" in expr:
            raise ValueError("Unable to avoid backslash in f-string expression part")
        text = "{" + (" " if expr.startswith("{") else "") + expr  # "{ {" keeps two braces apart
        if node.conversion != -1:
            text += f"!{chr(node.conversion)}"
        if node.format_spec:
            text += ":" + self._fstring_body(node.format_spec)
        return text + "}"

    def visit_FormattedValue(self, node):  # only reached for a field outside a JoinedStr
        self.write("f")
        self._write_str_avoiding_backslashes(self._fstring_field(node))
