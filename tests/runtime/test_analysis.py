"""Whole-graph facts (runtime.analysis) and the structured-op hooks they are computed through."""

from __future__ import annotations

import numpy as np
import pytest

import runtime.graph
import runtime.ops  # noqa: F401  (registers the NumPy ops)
import staging
from runtime import Graph, ListType, Node, TensorType, get_op
from runtime.analysis import (
    dead_after,
    last_uses,
    maybe_viewed,
    node_uses,
    outputs_sharing_state,
    replace_uses,
)
from runtime.core_ops import ARG

F64 = np.float64
I64 = np.int64


def t(shape=(3,), dtype=F64):
    return TensorType(dtype, shape)


def add(g, op, inputs, out_types, attrs=None, subgraphs=None):
    node = g.add_node(Node(op, inputs, attrs or {}, out_types, None, subgraphs))
    return node.outputs[0] if len(node.outputs) == 1 else node.outputs


def nested_cond():
    """f(p, x, y): w = exp x; c = cond p x { then(a): a * y * w (y, w read from outside) }
    { else(b): b }; return c"""
    g = Graph("f")
    p = g.add_input(t((), np.bool_), "p")
    x = g.add_input(t(), "x")
    y = g.add_input(t(), "y")
    w = add(g, "exp", [x], [t()])
    then = Graph("then")
    a = then.add_input(t())
    inner_then, inner_else = Graph("then"), Graph("else")  # reads a, and y from two levels up
    inner_then.outputs = [add(inner_then, "multiply", [a, y], [t()])]
    inner_else.outputs = [a]
    ay = add(then, "cond", [p], [t()], subgraphs={"then": inner_then, "else": inner_else})
    then.outputs = [add(then, "multiply", [ay, w], [t()])]
    other = Graph("else")
    other.outputs = [other.add_input(t())]
    c = add(g, "cond", [p, x], [t()], subgraphs={"then": then, "else": other})
    g.outputs = [c]
    return g, dict(p=p, x=x, y=y, w=w, a=a, ay=ay, c=c)


def test_node_uses_adds_outer_values_read_inside_subgraphs():
    g, v = nested_cond()
    uses = node_uses(g.nodes[1])
    assert uses[:2] == [v["p"], v["x"]]
    # then: the inner cond reads p, its branch reads y (outer) and a (the branch input);
    # a * w reads w (outer); inner values and branch inputs are not uses
    assert {id(u) for u in uses[2:]} == {id(v["p"]), id(v["y"]), id(v["w"])}
    assert node_uses(g.nodes[0]) == [v["x"]]


def test_last_uses_and_dead_values():
    g = Graph("f")
    x = g.add_input(t(), "x")
    a = add(g, "exp", [x], [t()])  # 0
    unused = add(g, "sin", [x], [t()])  # 1: never read
    b = add(g, "multiply", [a, 2.0], [t()])  # 2: last read of a
    s = add(g, "sum", [b], [t(())], {"axis": None})  # 3: last read of b; s is 0-d
    out = add(g, "add", [b, s], [t()])  # 4
    g.outputs = [out, x]
    last = last_uses(g)
    assert last[id(x)] == len(g.nodes)  # a graph output
    assert last[id(a)] == 2 and last[id(b)] == 4 and last[id(s)] == 4 and last[id(out)] == 5
    assert id(unused) not in last
    dead = dead_after(g)
    # arrays die at their last read (unused ones where they are made); 0-d values, the graph's
    # inputs and its outputs never
    assert dead == {1: [unused], 2: [a], 4: [b]}


def test_maybe_viewed():
    g = Graph("f")
    x = g.add_input(t(), "x")
    a = add(g, "exp", [x], [t()])
    b = add(g, "add", [a, 1.0], [t()])  # a ufunc reads a: no view
    r = add(g, "reshape", [b], [t((3, 1))], {"shape": (3, 1)})  # may view b
    lst = add(g, "list_new", [], [ListType(None)], {"element": None})
    body = Graph("then")
    body.outputs = [add(body, "negative", [a], [t()])]  # read inside a subgraph
    other = Graph("else")
    other.outputs = [a]
    c = add(g, "cond", [True], [t()], subgraphs={"then": body, "else": other})
    g.outputs = [r, c, lst]
    viewed = maybe_viewed(g)
    assert id(b) in viewed and id(a) in viewed and id(r) in viewed and id(c) in viewed
    assert id(x) not in viewed  # only ufuncs read it


def test_replace_uses_reaches_subgraphs_and_outputs():
    g, v = nested_cond()
    z = g.add_input(t(), "z")
    replace_uses(g, {v["y"]: z, v["c"]: v["x"]})
    assert g.outputs == [v["x"]]
    then = g.nodes[1].subgraphs["then"]
    assert then.nodes[0].subgraphs["then"].nodes[0].inputs == [v["a"], z]
    assert g.nodes[0].inputs == [v["x"]]  # untouched
    replace_uses(g, {})


# -- outputs sharing program state -------------------------------------------------


def shared(f, *args):
    return outputs_sharing_state(
        staging.function(f, autograph=False).get_concrete_function(*args).graph
    )


def test_variable_reads_and_their_views_share_state():
    v = staging.Variable(np.arange(6.0))
    assert shared(lambda: (v.read_value(), v.read_value() + 1.0)) == (0,)
    assert shared(lambda: (v.read_value().reshape(2, 3)[0], v.read_value().T)) == (0, 1)
    assert shared(lambda: np.expand_dims(np.squeeze(v.read_value()), 0)) == (0,)
    assert shared(lambda: (v.read_value() * 2.0, np.copy(v.read_value()))) == ()
    assert (
        shared(lambda: v.read_value() * 1.0) == ()
    )  # a returned x * 1.0 is a new array, as in NumPy


def test_state_through_cond_and_while():
    v = staging.Variable(np.arange(3.0))

    def through_cond(p):
        return staging.cond(p, lambda: v.read_value(), lambda: np.zeros(3))

    def through_cond_capture(p):
        state = v.read_value()
        return staging.cond(p, lambda: state[::1], lambda: np.zeros(3))

    def loop_init(n):
        return staging.while_loop(
            lambda i, x: i < n, lambda i, x: (i + 1, x * 2.0), (0, v.read_value())
        )[1]

    def loop_capture(n):
        state = v.read_value()
        return staging.while_loop(
            lambda i, x: i < n, lambda i, x: (i + 1, state), (0, np.zeros(3))
        )[1]

    def loop_fresh(n):
        return staging.while_loop(
            lambda i, x: i < n, lambda i, x: (i + 1, x * 2.0), (0, np.zeros(3))
        )[1]

    p, n = np.True_, np.int64(2)
    assert shared(through_cond, p) == (0,)
    assert shared(through_cond_capture, p) == (0,)
    assert shared(loop_init, n) == (0,)
    assert shared(loop_capture, n) == (0,)
    assert shared(loop_fresh, n) == ()


def test_state_swapped_between_loop_variables():
    v = staging.Variable(np.arange(3.0))

    def swap(n):
        return staging.while_loop(
            lambda i, a, b: i < n, lambda i, a, b: (i + 1, b, a), (0, np.zeros(3), v.read_value())
        )[1]

    f = staging.function(swap, autograph=False)
    assert shared(swap, np.int64(1)) == (0,)
    f(np.int64(1))[0] = 100.0  # must not write into the Variable
    assert v.numpy()[0] == 0.0


# -- structured ops ---------------------------------------------------------------


def test_structured_ops_declare_their_subgraphs_and_hooks():
    for name, labels in (("cond", ("then", "else")), ("while_loop", ("cond", "body"))):
        op = get_op(name)
        assert op.subgraphs == labels
        assert None not in (op.bind_subgraph, op.output_sources, op.emit, op.check)
        with pytest.raises(TypeError, match="output types follow from its subgraphs"):
            op.infer(t())
    assert get_op("add").subgraphs == () and get_op("add").emit is None
    assert get_op("reshape").may_alias_input and get_op("read_variable").may_alias_state
    assert not get_op("add").may_alias_input and not get_op("copy").may_alias_input


def test_stateful_is_asked_once_per_node(monkeypatch):
    # cond nested 30 deep, no stateful node: each node's op is looked up once (not 2**30 times)
    g = Graph("deep")
    p = g.add_input(t((), np.bool_), "p")
    inner = None
    for depth in range(30):
        then, other = Graph("then"), Graph("else")
        add(then, "negative", [1.0], [t(())])
        if inner is not None:
            then.add_node(inner)
        inner = Node("cond", [p], {}, [], subgraphs={"then": then, "else": other})
    g.add_node(inner)
    lookups = []
    real = runtime.graph.get_op
    monkeypatch.setattr(runtime.graph, "get_op", lambda name: lookups.append(name) or real(name))
    assert not g.nodes[0].stateful
    assert len(lookups) == 60
    assert not g.nodes[0].stateful and len(lookups) == 60  # kept


def test_a_structured_node_is_stateful_when_a_nested_node_is():
    printing = Node("print", [1.0], {"parts": (ARG,), "sep": " ", "end": "\n"}, [])
    inner_else = Graph("else")
    inner_else.add_node(printing)
    inner = Node("cond", [True], {}, [], subgraphs={"then": Graph("then"), "else": inner_else})
    body = Graph("body")
    body.add_node(inner)
    loop = Node(
        "while_loop", [], {"num_loop_vars": 0}, [], subgraphs={"cond": Graph("cond"), "body": body}
    )
    assert loop.stateful and inner.stateful
    assert not Node(
        "cond", [True], {}, [], subgraphs={"then": Graph("then"), "else": Graph("else")}
    ).stateful
