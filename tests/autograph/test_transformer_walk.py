"""autograph.pyct.transformer: the walk of generic_visit visits nodes in the order recursion
would, replaces and splices what visit_ methods return, calls leave_ methods after a node's
children, and goes through a chain of thousands of nested nodes at the default recursion limit
(a long sum is a chain of nested BinOp nodes)."""

from __future__ import annotations

import ast
import sys
import textwrap

import pytest

from autograph.pyct import transformer

SOURCE = textwrap.dedent(
    """
    def f(x, *args, k=1, **kw):
        y = [a + b for a, b in zip(x, args) if a > b]
        while x and not k:
            try:
                x = {x: (lambda q: q - 1)(x)}[x]
            except (ValueError, KeyError) as e:
                raise RuntimeError(f"{e!r:>10}") from e
            finally:
                k += x if y else -x
        with open(x) as handle, other():
            return handle.read()[1:2, ...], {**kw, "z": x @ y}
    """
)


class _Order(ast.NodeVisitor):
    def __init__(self):
        self.seen = []

    def generic_visit(self, node):
        self.seen.append(type(node).__name__)
        super().generic_visit(node)


def _reference_order(tree):
    order = _Order()
    order.visit(tree)
    return [n for n in order.seen if n not in _SKIPPED]


# (contexts and operators: the fast walk never visits them)
_SKIPPED = {
    cls.__name__
    for cls in (ast.Load, ast.Store, ast.Del)
    + tuple(ast.operator.__subclasses__())
    + tuple(ast.unaryop.__subclasses__())
    + tuple(ast.cmpop.__subclasses__())
    + tuple(ast.boolop.__subclasses__())
}


def _recording(base):
    seen = []

    class Recorder(base):
        pass

    def visit_any(self, node):
        seen.append(type(node).__name__)
        return self.generic_visit(node) if base is transformer.Visitor else _generic(self, node)

    def _generic(self, node):
        self.generic_visit(node)
        return node

    for cls in {type(n) for n in ast.walk(ast.parse(SOURCE))}:
        setattr(Recorder, "visit_" + cls.__name__, visit_any)
    return Recorder, seen


@pytest.mark.parametrize("base", [transformer.Visitor, transformer.Transformer])
def test_nodes_are_visited_in_the_order_recursion_gives(base):
    recorder, seen = _recording(base)
    tree = ast.parse(SOURCE)
    recorder().visit(tree)
    assert seen == _reference_order(ast.parse(SOURCE))


def _chain(depth):
    """`y = x + x + ... + x`, built without parsing (building it from text recurses)."""
    value = ast.Name(id="x", ctx=ast.Load())
    for _ in range(depth - 1):
        value = ast.BinOp(left=value, op=ast.Add(), right=ast.Name(id="x", ctx=ast.Load()))
    target = ast.Name(id="y", ctx=ast.Store())
    return ast.Module(body=[ast.Assign(targets=[target], value=value)], type_ignores=[])


@pytest.mark.parametrize("base", [transformer.Visitor, transformer.Transformer])
def test_a_chain_deeper_than_the_recursion_limit(base):
    depth = 5 * sys.getrecursionlimit()
    names = []

    class Names(base):
        def visit_Name(self, node):
            names.append(node.id)
            return node

    tree = _chain(depth)
    Names().visit(tree)
    assert len(names) == depth + 1  # (and `y`)


def test_leave_methods_run_after_the_children_and_replace_the_node():
    depth = 3 * sys.getrecursionlimit()
    order = []

    class Fold(transformer.Transformer):
        def visit_Name(self, node):
            order.append("name")
            return ast.Constant(value=1)

        def leave_BinOp(self, node):
            order.append("binop")
            assert isinstance(node.left, ast.Constant) and isinstance(node.right, ast.Constant)
            return ast.Constant(value=node.left.value + node.right.value)

    tree = Fold().visit(_chain(depth))
    assert isinstance(tree.body[0].value, ast.Constant)
    assert tree.body[0].value.value == depth
    assert order[:3] == ["name", "name", "name"] and order[-1] == "binop"


def test_visit_methods_splice_lists_and_drop_nodes():
    class Statements(transformer.Transformer):
        def visit_Expr(self, node):
            return None  # dropped

        def visit_Pass(self, node):
            return [ast.Break(), ast.Continue()]  # spliced

    tree = ast.parse("while x:\n    f()\n    pass\n    g = 1\n")
    Statements().visit(tree)
    assert [type(s).__name__ for s in tree.body[0].body] == ["Break", "Continue", "Assign"]


def test_a_subclass_may_not_override_visit():
    with pytest.raises(TypeError, match="overrides visit"):

        class Wrong(transformer.Transformer):
            def visit(self, node):
                return node
