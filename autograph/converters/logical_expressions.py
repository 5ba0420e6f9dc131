"""`and`, `or`, `not` and chained comparisons become `ag__.and_` / `or_` / `not_` calls.

The right operand is wrapped in a lambda so that it runs only when Python
would run it: `ag__.and_(x != 0, lambda: 12 // x > 2)`.

Where only the truth value of the result matters (the test of `if`, `while`,
`assert`, `a if c else b`, a comprehension's `if`, the operand of `not`), the
call is plain. Where the value itself is used and an operand may be something
other than a boolean, the call says so with `value=True`: the staged result
must then be one of the operands, as in Python (see operators.logical). Runs
after the jumps are lowered (they add `not flag` tests) and before control flow
is converted (which hides the tests in calls).
"""

from __future__ import annotations

import ast

from autograph.pyct import anno, templates, transformer


def _simple(node):
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, (ast.Name, ast.Constant))


def _always_bool(node) -> bool:
    """An expression whose value is a boolean whatever its operands: a comparison, `not`, a
    bool constant, or and/or of those."""
    if isinstance(node, ast.Compare) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    ):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, bool)
    if isinstance(node, ast.BoolOp):
        return all(_always_bool(v) for v in node.values)
    return False


class _Logical(transformer.Transformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def _test(self, node):
        """Converts an expression whose truth value only is used."""
        if isinstance(node, ast.BoolOp):
            return self._bool_op(node, value=False)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return self._not(node)
        if isinstance(node, ast.Compare):
            return self._compare(node, value=False)
        return self.visit(node)

    def visit_If(self, node):
        node.test = self._test(node.test)
        for field in ("body", "orelse"):
            setattr(node, field, self._statements(getattr(node, field)))
        return node

    visit_While = visit_If

    def visit_For(self, node):
        self.generic_visit(node)
        extra = anno.getanno(node, anno.Basic.EXTRA_TEST, None)  # set by the break converter
        if extra is not None:
            anno.setanno(node, anno.Basic.EXTRA_TEST, self._test(extra))
        return node

    def visit_Assert(self, node):
        node.test = self._test(node.test)
        if node.msg is not None:
            node.msg = self.visit(node.msg)
        return node

    def visit_IfExp(self, node):
        node.test = self._test(node.test)
        node.body = self.visit(node.body)
        node.orelse = self.visit(node.orelse)
        return node

    def visit_comprehension(self, node):
        node.target = self.visit(node.target)
        node.iter = self.visit(node.iter)
        node.ifs = [self._test(c) for c in node.ifs]
        return node

    def _statements(self, stmts):
        out = []
        for s in stmts:
            r = self.visit(s)
            out.extend(r if isinstance(r, list) else [r])
        return out

    def visit_BoolOp(self, node):
        return self._bool_op(node, value=True)

    def _bool_op(self, node, value):
        convert = self.visit if value else self._test
        values = [convert(v) for v in node.values]
        if value and not _always_bool(node):
            template = (
                "ag__.and_(a, lambda: b, value=True)"
                if isinstance(node.op, ast.And)
                else "ag__.or_(a, lambda: b, value=True)"
            )
        else:
            template = (
                "ag__.and_(a, lambda: b)"
                if isinstance(node.op, ast.And)
                else "ag__.or_(a, lambda: b)"
            )
        result = values[-1]
        for v in reversed(values[:-1]):
            result = templates.replace_as_expression(template, node, a=v, b=result)
        return result

    def visit_UnaryOp(self, node):
        if isinstance(node.op, ast.Not):
            return self._not(node)
        self.generic_visit(node)
        return node

    def _not(self, node):
        operand = self._test(node.operand)
        return templates.replace_as_expression("ag__.not_(a)", node, a=operand)

    def visit_Compare(self, node):
        return self._compare(node, value=True)

    def _compare(self, node, value):
        """A comparison; `value`: its result is used as a value, not only its truth."""
        self.generic_visit(node)
        if len(node.ops) == 1:
            return _equality(node) if value else _membership(node)
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
        result = _membership(pieces[-1])
        for piece in reversed(pieces[:-1]):
            result = templates.replace_as_expression(
                "ag__.and_(a, lambda: b)", node, a=_membership(piece), b=result
            )
        return result


def _equality(node):
    """`a == b` / `a != b` whose value is used become `ag__.eq(a, b)` / `ag__.not_eq(a, b)`:
    which operand is on the left decides the result's type (`1j == np.float64(1)` is a Python
    bool, `np.float64(1) == 1j` a NumPy one), and a symbolic right operand sees only the
    reflected call. Other comparisons as _membership."""
    if not isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
        return _membership(node)
    if any(
        isinstance(x, ast.Constant) and not isinstance(x.value, complex)
        for x in (node.left, node.comparators[0])
    ):
        return node  # (a literal other than a complex: Python's == gives what NumPy's would)
    if isinstance(node.ops[0], ast.Eq):
        template = "ag__.eq(a, b)"
    elif isinstance(node.ops[0], ast.NotEq):
        template = "ag__.not_eq(a, b)"
    else:
        return _membership(node)
    return templates.replace_as_expression(template, node, a=node.left, b=node.comparators[0])


def _membership(node):
    """`a in b` / `a not in b` (one operator) become `ag__.in_(a, b)` / `ag__.not_in(a, b)`:
    Python's `in` on concrete values, NumPy's `(b == a).any()` staged when `b` is a symbolic
    array (Python turns the result of `__contains__` into a bool, which a staged one cannot be).
    `a is None` / `a is not None` become `ag__.is_none(a)` / `ag__.is_not_none(a)`: staged
    for a value that is None on some paths."""
    if isinstance(node.ops[0], ast.In):
        template = "ag__.in_(a, b)"
    elif isinstance(node.ops[0], ast.NotIn):
        template = "ag__.not_in(a, b)"
    elif isinstance(node.ops[0], (ast.Is, ast.IsNot)) and _is_none(node.comparators[0]):
        template = "ag__.is_none(a)" if isinstance(node.ops[0], ast.Is) else "ag__.is_not_none(a)"
        return templates.replace_as_expression(template, node, a=node.left)
    elif isinstance(node.ops[0], (ast.Is, ast.IsNot)) and _is_none(node.left):
        template = "ag__.is_none(a)" if isinstance(node.ops[0], ast.Is) else "ag__.is_not_none(a)"
        return templates.replace_as_expression(template, node, a=node.comparators[0])
    else:
        return node
    return templates.replace_as_expression(template, node, a=node.left, b=node.comparators[0])


def _is_none(node) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def transform(node, ctx):
    return _Logical(ctx).visit(node)
