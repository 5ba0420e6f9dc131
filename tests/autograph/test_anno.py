"""Node annotations go through the typed accessor only; the conversion context is fixed once built."""

import ast
import copy
import dataclasses
import enum
import textwrap

import pytest

from autograph.converters import break_statements, directives
from autograph.converters.context import ConversionContext
from autograph.impl import conversion
from autograph.pyct import anno, naming
from autograph.pyct.static_analysis import definitions, liveness

SOURCE = textwrap.dedent("""
    def f(x, n):
        total = 0
        for i in range(n):
            if x > i:
                y = i
                break
            total += i
        while total < n:
            total += 1
        return total
""")


def _parse():
    fn = ast.parse(SOURCE).body[0]
    loop, if_, while_ = fn.body[1], fn.body[1].body[0], fn.body[2]
    return fn, loop, if_, while_


def _undeclared_attributes(tree):
    return {
        (type(n).__name__, name)
        for n in ast.walk(tree)
        for name in vars(n)
        if name not in n._fields and name not in n._attributes and name != anno._FIELD
    }


def test_set_get_has():
    node = ast.Pass()
    assert not anno.hasanno(node, anno.Static.LIVE_IN)
    assert anno.getanno(node, anno.Static.LIVE_IN, None) is None
    with pytest.raises(KeyError):
        anno.getanno(node, anno.Static.LIVE_IN)
    anno.setanno(node, anno.Static.LIVE_IN, frozenset({"x"}))
    assert anno.hasanno(node, anno.Static.LIVE_IN)
    assert anno.getanno(node, anno.Static.LIVE_IN) == {"x"}
    assert not anno.hasanno(node, anno.Static.LIVE_OUT)


def test_unknown_keys_are_rejected():
    class Other(enum.Enum):
        LIVE_IN = 1

    node = ast.Pass()
    for key in ("LIVE_IN", "ag_live_in", Other.LIVE_IN, None):
        with pytest.raises(TypeError, match="unknown annotation key"):
            anno.setanno(node, key, 1)
        with pytest.raises(TypeError, match="unknown annotation key"):
            anno.getanno(node, key, None)
        with pytest.raises(TypeError, match="unknown annotation key"):
            anno.hasanno(node, key)
    assert vars(node) == {}


def test_a_shallow_copy_does_not_share_later_annotations():
    node = ast.For()
    anno.setanno(node, anno.Basic.LOOP_OPTIONS, [])
    twin = copy.copy(node)
    anno.setanno(twin, anno.Basic.EXTRA_TEST, ast.Constant(value=True))
    assert anno.hasanno(twin, anno.Basic.LOOP_OPTIONS)
    assert not anno.hasanno(node, anno.Basic.EXTRA_TEST)


def test_analyses_annotate_through_the_accessor_only():
    fn, loop, if_, while_ = _parse()
    liveness.analyze(fn)
    definitions.analyze(fn)
    assert _undeclared_attributes(fn) == set()
    assert anno.getanno(loop, anno.Static.LIVE_OUT) == {"total", "n"}
    assert anno.getanno(if_, anno.Static.LIVE_OUT) == {"total", "n", "x", "i"}
    assert anno.getanno(while_, anno.Static.LIVE_IN) == {"total", "n"}
    assert anno.getanno(loop, anno.Static.DEFINED_IN) == {"x", "n", "total"}
    # i and y are locals of the loop body function, dead after the loop: the converted
    # function never binds them.
    assert anno.getanno(while_, anno.Static.DEFINED_IN) == {"x", "n", "total"}
    statement_keys = (anno.Static.LIVE_IN, anno.Static.LIVE_OUT, anno.Static.DEFINED_IN)
    for node in (loop, if_, while_):
        assert all(isinstance(anno.getanno(node, key), frozenset) for key in statement_keys)


def test_converters_annotate_through_the_accessor_only():
    fn = ast.parse(
        SOURCE.replace("total += 1", "set_loop_options(maximum_iterations=3)\n        total += 1")
    ).body[0]
    ctx = ConversionContext(
        entity=None,
        namespace={},
        freevars=frozenset(),
        name_order={},
        bound=frozenset(),
        features=frozenset(),
        namer=naming.Namer.for_tree(fn),
    )
    fn = directives.transform(fn, ctx)
    fn = break_statements.transform(fn, ctx)
    assert _undeclared_attributes(fn) == set()
    loop, while_ = fn.body[2], fn.body[3]
    assert ast.unparse(anno.getanno(loop, anno.Basic.EXTRA_TEST)) == "not break_"
    assert [k.arg for k in anno.getanno(while_, anno.Basic.LOOP_OPTIONS)] == ["maximum_iterations"]


def _converted_example(x):
    for i in range(x):
        x = x + i
    return x


def test_conversion_context_declares_every_field_and_is_frozen():
    _, ctx = conversion._transform(_converted_example)
    names = [f.name for f in dataclasses.fields(ctx)]
    assert names == [
        "entity",
        "namespace",
        "freevars",
        "name_order",
        "bound",
        "features",
        "namer",
        "direct_calls",
    ]
    for name in names + ["globals_declared", "anything"]:
        with pytest.raises(AttributeError):
            setattr(ctx, name, None)
    assert isinstance(ctx.bound, frozenset) and isinstance(ctx.features, frozenset)
    with pytest.raises(TypeError):
        ctx.name_order["x"] = 0
