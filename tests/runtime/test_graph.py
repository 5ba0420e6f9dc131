"""The graph IR and its text form: structure, naming, attrs, subgraphs, determinism."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import runtime.ops  # noqa: F401  (registers the NumPy ops)
from runtime import Graph, ListType, Node, TensorType, Value, format_graph
from runtime.core_ops import ARG
from runtime.graph import _letters, format_attr, node_text
from runtime.types import broadcast_shapes, dtype_from_name, dtype_short_name

F64 = np.float64


def here():
    """(this file, the caller's line): a node location as staging would record it."""
    return (__file__, sys._getframe(1).f_lineno)


def simple_graph(name="f"):
    g = Graph(name)
    x = g.add_input(TensorType(F64, (None, 3)), "x")
    y = g.add_input(TensorType(np.int64, ()), "y")
    m = g.add_node(Node("multiply", [x, 2.0], {}, [TensorType(F64, (None, 3))], here()))
    s = g.add_node(Node("sum", [m.outputs[0]], {"axis": 1}, [TensorType(F64, (None,))], here()))
    a = g.add_node(Node("add", [s.outputs[0], y], {}, [TensorType(F64, (None,))], here()))
    g.outputs = [a.outputs[0], y]
    return g


# -- types ------------------------------------------------------------------


def test_tensor_type_text_and_equality():
    t = TensorType(F64, (None, 3))
    assert str(t) == "f64[?,3]"
    assert str(TensorType(np.bool_, ())) == "bool[]"
    assert str(TensorType(np.int32, (2,))) == "i32[2]"
    assert t == TensorType("float64", [None, 3])
    assert hash(t) == hash(TensorType(F64, (None, 3)))
    assert t != TensorType(np.float32, (None, 3))
    assert dtype_short_name(np.complex128) == "c128"
    assert dtype_from_name("f32") == np.float32 and dtype_from_name("float32") == np.float32
    with pytest.raises(AttributeError):
        t.shape = (1,)


def test_tensor_type_subtyping():
    general, specific = TensorType(F64, (None,)), TensorType(F64, (3,))
    assert general.is_supertype_of(specific)
    assert not specific.is_supertype_of(general)
    assert not general.is_supertype_of(TensorType(np.float32, (3,)))
    assert not general.is_supertype_of(TensorType(F64, (3, 1)))
    assert general.accepts_shape((7,)) and not specific.accepts_shape((4,))
    assert specific.most_specific_common_supertype(TensorType(F64, (4,))) == general
    assert specific.most_specific_common_supertype(TensorType(F64, (3,))) == specific
    assert specific.most_specific_common_supertype(TensorType(np.int64, (3,))) is None
    assert specific.most_specific_common_supertype(TensorType(F64, (3, 3))) is None


@pytest.mark.parametrize("bad", [(-1,), (1.5,), (True,), None])
def test_invalid_shapes_rejected(bad):
    with pytest.raises(TypeError):
        TensorType(F64, bad)


def test_broadcast_shapes_with_unknown_dims():
    assert broadcast_shapes((None, 3), (3,)) == (None, 3)
    assert broadcast_shapes((1, 3), (4, 1)) == (4, 3)
    assert broadcast_shapes((None,), (1,)) == (None,)
    assert broadcast_shapes((), (2, 2)) == (2, 2)
    with pytest.raises(ValueError, match="cannot be broadcast"):
        broadcast_shapes((2,), (3,))


# -- text form --------------------------------------------------------------


def test_letters_like_jaxpr():
    assert [_letters(i) for i in (0, 1, 25, 26, 27)] == ["a", "b", "z", "ba", "bb"]


def test_text_form_exact():
    assert str(simple_graph()) == (
        "f(a:f64[?,3], b:i64[]) {\n"
        "  c:f64[?,3] = multiply a 2.0\n"
        "  d:f64[?] = sum c axis=1\n"
        "  e:f64[?] = add d b\n"
        "  return (e, b)\n"
        "}"
    )


def test_text_form_with_locations_names_this_file():
    text = simple_graph().format(locations=True)
    lines = text.splitlines()
    assert lines[1].startswith("  c:f64[?,3] = multiply a 2.0  # test_graph.py:")
    assert all("# test_graph.py:" in line for line in lines[1:4])
    # without locations no file name appears
    assert "test_graph.py" not in str(simple_graph())


def test_text_form_is_deterministic():
    # Two graphs built the same way (different Value objects, ids) print identically.
    assert str(simple_graph()) == str(simple_graph())
    assert format_graph(simple_graph()) == str(simple_graph())


def test_single_output_has_trailing_comma_and_no_output_graph():
    g = Graph("one")
    x = g.add_input(TensorType(F64, ()), "x")
    g.outputs = [x]
    assert str(g) == "one(a:f64[]) {\n  return (a,)\n}"
    g2 = Graph("none")
    g2.add_node(Node("print", [], {"parts": ("hi",), "sep": " ", "end": "\n"}, []))
    assert str(g2) == "none() {\n  print end='\\n' parts=('hi',) sep=' '\n  return ()\n}"


def test_attrs_sorted_and_formatted():
    g = Graph("g")
    x = g.add_input(TensorType(F64, (4,)), "x")
    n = g.add_node(Node("getitem", [x], {"index": ("1:3",)}, [TensorType(F64, (2,))]))
    c = g.add_node(
        Node(
            "astype",
            [n.outputs[0]],
            {"dtype": np.dtype(np.float32)},
            [TensorType(np.float32, (2,))],
        )
    )
    g.outputs = [c.outputs[0]]
    text = str(g)
    assert "b:f64[2] = getitem a index=('1:3',)" in text
    assert "c:f32[2] = astype b dtype=float32" in text


def test_const_text_inlines_value():
    g = Graph("k")
    c1 = g.add_node(Node("const", [], {"value": np.arange(3.0)}, [TensorType(F64, (3,))]))
    c2 = g.add_node(Node("const", [], {"value": np.int64(7)}, [TensorType(np.int64, ())]))
    big = np.arange(100)
    c3 = g.add_node(Node("const", [], {"value": big}, [TensorType(np.int64, (100,))]))
    g.outputs = [c1.outputs[0], c2.outputs[0], c3.outputs[0]]
    lines = str(g).splitlines()
    assert lines[1] == "  a:f64[3] = const [0.,1.,2.]"
    assert lines[2] == "  b:i64[] = const 7"
    # large constants are summarised on one line, never printed in full
    assert lines[3].startswith("  c:i64[100] = const [") and "..." in lines[3]
    assert len(lines[3]) < 60
    assert "\n" not in format_attr(np.zeros((20, 20)))


def test_format_attr_kinds():
    assert format_attr(np.dtype(np.int32)) == "int32"
    assert format_attr(np.float64) == "float64"
    assert format_attr(np.float32(1.5)) == "1.5"
    assert format_attr((1,)) == "(1,)"
    assert format_attr([1, 2]) == "[1,2]"
    assert format_attr(slice(1, None)) == "1:"
    assert format_attr(slice(None, 5, 2)) == ":5:2"
    assert format_attr(ARG) == "_"

    def some_func():
        pass

    assert format_attr(some_func) == "test_format_attr_kinds.<locals>.some_func"

    class Named:
        def __graph_repr__(self):
            return "counter"

    assert format_attr(Named()) == "counter"


def test_subgraphs_printed_nested_with_shared_names():
    g = Graph("h")
    p = g.add_input(TensorType(np.bool_, ()), "p")
    x = g.add_input(TensorType(F64, ()), "x")
    then = Graph("then")
    tx = then.add_input(TensorType(F64, ()))
    neg = then.add_node(Node("negative", [tx], {}, [TensorType(F64, ())]))
    then.outputs = [neg.outputs[0]]
    other = Graph("else")
    ox = other.add_input(TensorType(F64, ()))
    other.outputs = [ox]
    cond = g.add_node(
        Node("cond", [p, x], {}, [TensorType(F64, ())], subgraphs={"then": then, "else": other})
    )
    g.outputs = [cond.outputs[0]]
    assert str(g) == (
        "h(a:bool[], b:f64[]) {\n"
        "  c:f64[] = cond a b\n"
        "    then(d:f64[]) {\n"
        "      e:f64[] = negative d\n"
        "      return (e,)\n"
        "    }\n"
        "    else(f:f64[]) {\n"
        "      return (f,)\n"
        "    }\n"
        "  return (c,)\n"
        "}"
    )
    assert [n.op for n in g.walk()] == ["cond", "negative"]


def test_list_type_text():
    assert str(ListType(None)) == "list[?]"
    assert str(ListType(TensorType(F64, (2,)))) == "list[f64[2]]"
    assert ListType(TensorType(F64, ())) == ListType(TensorType(F64, ()))
    assert ListType(None) != ListType(TensorType(F64, ()))


def test_node_text_for_errors():
    g = simple_graph()
    add = g.nodes[2]
    assert node_text(add) == "c:f64[?] = add a b"
    assert node_text(g.nodes[1]) == "b:f64[?] = sum a axis=1"


def test_undefined_value_is_visible_in_text():
    g = Graph("bad")
    stray = Value(TensorType(F64, ()))
    n = g.add_node(Node("negative", [stray], {}, [TensorType(F64, ())]))
    g.outputs = [n.outputs[0]]
    assert "negative <undefined>" in str(g)


def test_node_stateful_property():
    g = Graph("s")
    x = g.add_input(TensorType(F64, ()), "x")
    pr = Node("print", [x], {"parts": (ARG,), "sep": " ", "end": "\n"}, [])
    assert pr.stateful
    assert not Node("negative", [x], {}, [TensorType(F64, ())]).stateful
    body = Graph("then")
    body.add_node(pr)
    empty = Graph("else")
    c = Node("cond", [x], {}, [], subgraphs={"then": body, "else": empty})
    assert c.stateful
    pure = Node("cond", [x], {}, [], subgraphs={"then": Graph("then"), "else": Graph("else")})
    assert not pure.stateful
