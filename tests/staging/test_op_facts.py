"""Staging asks an op's OpDef, never its name: a test op registered with a fact is treated as the
fact says, and one without it is not (each OpDef field that staging reads, with the module that
reads it)."""

from __future__ import annotations

import numpy as np
import pytest

import staging  # noqa: F401  (registers the ops of the staging layer)
from runtime import Graph, Node, TensorType, registry
from runtime.registry import INT, AttrKind, OpDef
from staging.control_flow import raising
from staging.core.recording import FuncGraph, building, record
from staging.functions import argument_writes
from staging.kinds import forms
from staging.saving import attrs as saved_attrs
from staging.saving.graphs import GraphDecoder, GraphEncoder, SaveRefusal
from staging.saving.values import Decoder, Encoder, FormatError
from staging.state import aliasing, stale_values

F64 = TensorType(np.float64, ())
VECTOR = TensorType(np.float64, (3,))


@pytest.fixture
def test_op(monkeypatch):
    """register(**fields): registers op "fact_op" (x -> x, of x's type) with those fields for
    one test."""

    def register(**fields) -> str:
        op = OpDef("fact_op", lambda *xs, **attrs: xs[0], lambda *ts, **attrs: ts[0], **fields)
        monkeypatch.setitem(registry._REGISTRY, "fact_op", op)
        return "fact_op"

    return register


def _graph_with(op: str, input_type=VECTOR, attrs=None):
    g = Graph("g")
    x = g.add_input(input_type)
    node = Node(op, [x], dict(attrs or {}), [input_type])
    g.add_node(node)
    g.outputs = [node.outputs[0]]
    return g, x, node


# -- user_error and python_errors: staging.control_flow.raising ----------------------------------


def test_a_node_there_to_raise_comes_before_later_errors(test_op):
    g, _, _ = _graph_with(test_op(user_error=True))
    assert raising._has_checks(g)


def test_a_node_of_an_op_that_raises_nothing_by_design_does_not(test_op):
    g, _, _ = _graph_with(test_op())
    assert not raising._has_checks(g)


def test_python_errors_count_only_where_an_input_may_be_a_python_number(test_op):
    name = test_op(python_errors=(ZeroDivisionError,))
    assert raising._has_checks(_graph_with(name, TensorType.python_scalar(int))[0])
    assert not raising._has_checks(_graph_with(name, TensorType(np.int64, ()))[0])


def test_a_check_inside_a_subgraph_counts(test_op):
    inner, _, _ = _graph_with(test_op(user_error=True))
    outer = Graph("outer")
    node = Node("cond", [], {}, [])
    node.subgraphs = {"then": inner, "else": Graph("else")}
    outer.add_node(node)
    assert raising._has_checks(outer)


# -- constant: what a constant node is ------------------------------------------------------------


def test_a_constant_op_is_known_by_its_constant_hook(test_op):
    name = test_op(constant=lambda node: node.attrs["value"])
    fg = FuncGraph("f")
    with building(fg):
        (truth,) = record(name, [], {"value": True}, output_types=[TensorType(np.bool_, ())])
        other = record("logical_not", [record("const", [], {"value": np.False_})])
    assert raising.constant_truth(truth._value)
    assert not raising.constant_truth(other._value)  # (a computed value: unknown)


def test_a_constant_runs_outside_an_errstate_scope(test_op):
    name = test_op(constant=lambda node: node.attrs["value"])
    fg = FuncGraph("f")
    fg.scope = (("divide", "raise"),)
    with building(fg):
        record(name, [], {"value": 1.0}, output_types=[F64])
        record("negative", [fg.add_input(F64)])
    constant, computed = fg.graph.nodes
    assert constant.scope is None and computed.scope == fg.scope


# -- zero_d_result: staging.kinds.forms ---------------------------------------------------------


@pytest.mark.parametrize("form, kind", [("scalar", forms.SCALAR), ("array", forms.ARRAY)])
def test_the_form_of_a_zero_d_result_is_the_ops(test_op, form, kind):
    name = test_op(zero_d_result=form, stateful=True)  # (stateful: else it would be probed)
    fg = FuncGraph("f")
    with building(fg):
        x = fg.add_input(F64)
        y = record(name, [x])
    assert forms.kind_of(y) == kind


def test_without_a_form_a_stateful_op_gives_a_scalar(test_op):
    name = test_op(stateful=True)
    fg = FuncGraph("f")
    with building(fg):
        y = record(name, [fg.add_input(F64)])
    assert forms.kind_of(y) == forms.SCALAR


def test_a_constant_has_its_values_form(test_op):
    name = test_op(constant=lambda node: node.attrs["value"])
    fg = FuncGraph("f")
    with building(fg):
        (array,) = record(name, [], {"value": np.array(1.0)}, output_types=[F64])
        (scalar,) = record(name, [], {"value": np.float64(1.0)}, output_types=[F64])
    assert forms.kind_of(array) == forms.ARRAY
    assert forms.kind_of(scalar) == forms.SCALAR


# -- writes_input: staging.functions.argument_writes --------------------------------------------


def test_a_graph_writes_its_arguments_when_a_node_writes_its_input(test_op):
    assert argument_writes.writes_arguments(_graph_with(test_op(writes_input=True))[0])
    assert not argument_writes.writes_arguments(_graph_with(test_op())[0])


# -- views_input: staging.state.stale_values ------------------------------------------------------


def test_an_in_place_write_follows_values_back_through_views(test_op):
    seen = []
    name = test_op(views_input=lambda node: seen.append(node) or node.attrs["view"])
    _, x, view = _graph_with(name, attrs={"view": True})
    assert x in list(stale_values.sources(view.outputs[0]))
    assert seen == [view]
    _, x, copy = _graph_with(name, attrs={"view": False})
    assert x not in list(stale_values.sources(copy.outputs[0]))


def test_an_op_without_the_hook_makes_copies(test_op):
    _, x, node = _graph_with(test_op())
    assert list(stale_values.sources(node.outputs[0])) == [node.outputs[0]]


# -- view_update: staging.state.aliasing ----------------------------------------------------------


def test_a_write_into_a_view_reaches_its_base_through_the_ops_update(test_op):
    calls = []

    def update(base, view, extra, attrs, base_shape, view_shape):
        calls.append((base_shape, view_shape, extra, attrs))
        return "negative", [view], {}

    name = test_op(view_update=update)
    fg = FuncGraph("f")
    with building(fg):
        base = fg.add_input(VECTOR)
        view = fg.add_input(VECTOR)
        new_base = aliasing._unapply((name, (), {"k": 1}), base, view)
    assert calls == [((3,), (3,), (), {"k": 1})]
    node = new_base._value.producer
    assert node.op == "negative" and node.inputs == [view._value]


# -- unsaveable, attr_kinds, check_attrs: staging.saving --------------------------------------------


def _encoder():
    return GraphEncoder(Encoder([], lambda v: 0, lambda f: 0))


def test_a_node_of_an_unsaveable_op_is_refused_naming_why(test_op):
    name = test_op(unsaveable="it holds a Python object: pass the value in")
    g, _, _ = _graph_with(name)
    with pytest.raises(SaveRefusal, match="it holds a Python object: pass the value in"):
        _encoder().graph(g)
    document = {"op": name, "inputs": [], "attrs": {}, "outputs": [], "subgraphs": []}
    decoder = GraphDecoder(Decoder(None, None, None))
    with pytest.raises(FormatError, match=r"op 'fact_op' cannot be loaded \(it holds a Python"):
        decoder.node({**document, "location": None}, 0, "node 0")


def test_a_saveable_op_is_saved(test_op):
    g, _, _ = _graph_with(test_op())
    assert _encoder().graph(g)["nodes"][0]["op"] == "fact_op"


def test_an_op_says_what_its_attributes_hold_where_the_vocabulary_differs(test_op):
    name = test_op(attr_kinds=(("axis", INT), ("mode", AttrKind("a colour", lambda v: v == "red"))))
    assert saved_attrs.problem(name, {"axis": 1, "mode": "red"}, 1) is None
    assert saved_attrs.problem(name, {"axis": (0, 1)}, 1) == (
        "attribute 'axis' must be an int, not tuple (0, 1)"
    )  # (the vocabulary's `axis` takes a tuple of axes)
    assert saved_attrs.problem(name, {"mode": "blue"}, 1) == (
        "attribute 'mode' must be a colour, not str 'blue'"
    )
    assert (
        saved_attrs.problem(name, {"surprise": 1}, 1) == "op 'fact_op' has no attribute 'surprise'"
    )


def test_an_op_checks_its_attributes_against_its_inputs(test_op):
    name = test_op(check_attrs=lambda attrs, n: None if attrs["n"] == n else f"{n} inputs")
    assert saved_attrs.problem(name, {"n": 2}, 2) is None
    assert saved_attrs.problem(name, {"n": 2}, 3) == "3 inputs"


def test_a_structured_ops_attributes_are_its_rules_parameters():
    assert saved_attrs.problem("cond", {}, 1) is None
    assert saved_attrs.problem("cond", {"num_loop_vars": 1}, 1) == (
        "op 'cond' has no attribute 'num_loop_vars'"
    )
    assert saved_attrs.problem("while_loop", {}, 1) == "it lacks attribute(s) 'num_loop_vars'"
    assert saved_attrs.problem("while_loop", {"num_loop_vars": 1}, 1) is None
    assert saved_attrs.problem("try_finally", {}, 1) is None
    assert saved_attrs.problem("try_except", {"catch": (ValueError,)}, 1) == (
        "op 'try_except' has no attribute 'catch'"  # (no kind: a file holds no such classes)
    )
