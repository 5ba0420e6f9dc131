"""The graph verifier (runtime.verify): each kind of broken graph is rejected with a
message naming the node, its file:line and the problem; every staged graph passes."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import runtime.ops  # noqa: F401  (registers the NumPy ops)
import staging
from autograph.golden import concrete_function, discover_cases
from runtime import Graph, InvalidGraphError, ListType, Node, TensorType, Value, verify
from runtime.core_ops import ARG
from runtime.optimize import optimize
from runtime.options import get_options, options, set_options

F64 = np.float64
I64 = np.int64
GOLDEN = discover_cases(Path(__file__).resolve().parents[2] / "golden")


def here():
    return (__file__, sys._getframe(1).f_lineno)


def t(shape=(), dtype=F64):
    return TensorType(dtype, shape)


def add(g, op, inputs, out_types, attrs=None, location=None, subgraphs=None):
    node = g.add_node(Node(op, inputs, attrs or {}, out_types, location, subgraphs))
    return node.outputs[0] if len(node.outputs) == 1 else node.outputs


def rejects(graph, *fragments) -> InvalidGraphError:
    with pytest.raises(InvalidGraphError) as info:
        verify(graph)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)
    return info.value


def cond_graph(then_out=None):
    """f(p, x) = cond p x { then(a): a * 10 } { else(b): -b }"""
    g = Graph("f")
    p = g.add_input(t((), np.bool_), "p")
    x = g.add_input(t((2,)), "x")
    then = Graph("then")
    tx = then.add_input(t((2,)))
    then.outputs = (
        [add(then, "multiply", [tx, 10.0], [t((2,))])] if then_out is None else then_out(then, tx)
    )
    other = Graph("else")
    ox = other.add_input(t((2,)))
    other.outputs = [add(other, "negative", [ox], [t((2,))])]
    g.outputs = [
        add(g, "cond", [p, x], [t((2,))], location=here(), subgraphs={"then": then, "else": other})
    ]
    return g


def while_graph():
    """i = 0; while i < n: i = i + 1 (n captured)"""
    g = Graph("loop")
    n = g.add_input(t((), I64), "n")
    zero = add(g, "const", [], [t((), I64)], {"value": np.int64(0)})
    cond = Graph("cond")
    ci, cn = cond.add_input(t((), I64)), cond.add_input(t((), I64))
    cond.outputs = [add(cond, "less", [ci, cn], [t((), np.bool_)])]
    body = Graph("body")
    bi, _ = body.add_input(t((), I64)), body.add_input(t((), I64))
    body.outputs = [add(body, "add", [bi, 1], [t((), I64)])]
    g.outputs = [
        add(
            g,
            "while_loop",
            [zero, n],
            [t((), I64)],
            {"num_loop_vars": 1},
            here(),
            subgraphs={"cond": cond, "body": body},
        )
    ]
    return g


# -- valid graphs ---------------------------------------------------------------


def test_valid_graphs_pass():
    for g in (cond_graph(), while_graph()):
        verify(g)


def test_a_subgraph_may_read_a_value_of_an_enclosing_graph_defined_before_the_node():
    def then_out(then, tx):
        return [add(then, "multiply", [tx, then_outer[0]], [t((2,))])]

    then_outer = []
    g = Graph("f")
    p = g.add_input(t((), np.bool_), "p")
    x = g.add_input(t((2,)), "x")
    scale = add(g, "exp", [x], [t((2,))])
    then_outer.append(scale)
    then = Graph("then")
    tx = then.add_input(t((2,)))
    then.outputs = then_out(then, tx)
    other = Graph("else")
    other.add_input(t((2,)))
    other.outputs = [x]
    g.outputs = [add(g, "cond", [p, x], [t((2,))], subgraphs={"then": then, "else": other})]
    verify(g)


def test_list_values_and_stateful_ops_pass():
    g = Graph("lists")
    x = g.add_input(t((2,)), "x")
    lst = add(g, "list_new", [], [ListType(None)], {"element": None})
    lst = add(g, "list_write", [lst, 0, x], [ListType(t((2,)))], {"dynamic_size": True})
    g.add_node(Node("print", [x], {"parts": (ARG,), "sep": " ", "end": "\n"}, []))
    g.outputs = [
        add(g, "list_stack", [lst], [t((None, 2))], {"dtype": np.dtype(F64), "element_shape": (2,)})
    ]
    verify(g)


@pytest.mark.parametrize("case", GOLDEN, ids=[c.name for c in GOLDEN])
def test_every_golden_graph_verifies(case):
    func, specs = case.load()
    verify(concrete_function(func, specs).graph)


# -- broken graphs ----------------------------------------------------------------


def test_unknown_op():
    g = Graph("f")
    x = g.add_input(t(), "x")
    loc = here()
    g.outputs = [add(g, "no_such_op", [x], [t()], location=loc)]
    err = rejects(
        g,
        f"test_verify.py:{loc[1]}: ",
        "invalid graph 'f'",
        "`b:f64[] = no_such_op a`",
        "no op named 'no_such_op'",
    )
    assert err.node is g.nodes[0] and err.location == loc


def test_value_defined_twice():
    g = Graph("f")
    x = g.add_input(t(), "x")
    node = Node("negative", [x], {}, [t()], here())
    g.add_node(node)
    g.add_node(node)
    g.outputs = [node.outputs[0]]
    rejects(g, "`b:f64[] = negative a`", "output 0 is defined twice (SSA)")


def test_output_with_another_producer():
    g = Graph("f")
    x = g.add_input(t(), "x")
    node = g.add_node(Node("negative", [x], {}, [t()], here()))
    node.outputs[0].index = 3
    g.outputs = [node.outputs[0]]
    rejects(g, "negative a", "output 0 names another producer or index (3)")


def test_graph_input_with_a_producer():
    g = Graph("f")
    x = g.add_input(t(), "x")
    x.producer = Node("negative", [], {}, [])
    rejects(g, "the graph in f", "input 0 has a producer (negative)")


def test_use_of_an_undefined_value():
    g = Graph("f")
    stray = Value(t())
    loc = here()
    g.outputs = [add(g, "negative", [stray], [t()], location=loc)]
    err = rejects(
        g,
        f"test_verify.py:{loc[1]}: ",
        "`b:f64[] = negative a` in f: input 0 is not defined before its use here",
    )
    assert err.node is g.nodes[0]


def test_use_before_definition():
    g = Graph("f")
    x = g.add_input(t(), "x")
    first = g.add_node(Node("negative", [x], {}, [t()]))
    second = g.add_node(Node("exp", [x], {}, [t()]))
    first.inputs = [second.outputs[0]]
    g.outputs = [first.outputs[0]]
    rejects(g, "negative a` in f: input 0 is not defined")


def test_graph_output_not_defined():
    g = Graph("f")
    g.add_input(t(), "x")
    g.outputs = [Value(t())]
    err = rejects(g, "the graph in f: output 0 of the graph is not defined")
    assert err.node is None


def test_subgraph_value_used_after_the_node():
    g = cond_graph()
    inner = g.nodes[0].subgraphs["then"].nodes[0].outputs[0]
    g.outputs = [inner]
    rejects(g, "the graph in f: output 0 of the graph is not defined")


def test_value_of_the_other_branch():
    g = cond_graph()
    then_value = g.nodes[0].subgraphs["then"].nodes[0].outputs[0]
    g.nodes[0].subgraphs["else"].nodes[0].inputs = [then_value]
    rejects(g, "negative a` in f > cond else: input 0 is not defined")


def test_subgraph_reads_a_value_defined_after_its_node():
    g = cond_graph()
    later = add(g, "exp", [g.inputs[1]], [t((2,))])
    g.nodes[0].subgraphs["then"].nodes[0].inputs[1] = later
    rejects(g, "multiply a b` in f > cond then: input 1 is not defined")


def test_output_types_differ_from_the_rule():
    g = Graph("f")
    x = g.add_input(t((3,)), "x")
    loc = here()
    g.outputs = [add(g, "add", [x, 1.0], [t((3,), np.float32)], location=loc)]
    rejects(
        g,
        f"test_verify.py:{loc[1]}: ",
        "`b:f32[3] = add a 1.0`",
        "output types (f32[3]) do not match the op's rule: (f64[3])",
    )


def test_recorded_types_may_be_less_specific_than_the_rule():
    # folding keeps the node's type: argwhere gives i64[?,1], its folded constant holds 2 rows
    def f(x):
        return x + np.argwhere(staging.constant(np.array([0, 1, 2])))

    with options(verify_graphs=True):
        graph = staging.function(f, autograph=False).get_concrete_function(np.int64(1)).graph
    assert "i64[?,1] = const [[1],[2]]" in str(graph)
    g = Graph("f")
    x = g.add_input(t((3,)), "x")
    g.outputs = [add(g, "exp", [x], [t((None,))])]
    verify(g)
    g.nodes[0].outputs[0].type = t((None, 3))
    rejects(g, "output types (f64[?,3]) do not match the op's rule: (f64[3])")


def test_type_acceptance():
    from runtime.types import accepts

    assert accepts(t((None,)), t((3,))) and not accepts(t((3,)), t((None,)))
    assert not accepts(t((3,)), t((3,), np.float32)) and not accepts(t(()), ListType(None))
    assert accepts(ListType(t((None,))), ListType(t((2,)))) and accepts(
        ListType(t((2,))), ListType(None)
    )
    assert accepts(ListType(None), ListType(t((2,)))) and not accepts(
        ListType(t((2,))), ListType(t((3,)))
    )


def test_rule_rejects_the_inputs():
    g = Graph("f")
    x = g.add_input(t((3,)), "x")
    y = g.add_input(t((4,)), "y")
    g.outputs = [add(g, "add", [x, y], [t((3,))])]
    rejects(
        g,
        "add a b",
        "its op's type rule rejects the inputs (ValueError: operands could not be broadcast",
    )


def test_subgraphs_on_an_op_without_them():
    g = Graph("f")
    x = g.add_input(t(), "x")
    g.outputs = [add(g, "negative", [x], [t()], subgraphs={"then": Graph("then")})]
    rejects(g, "has subgraphs ['then'], op 'negative' takes []")


def test_missing_subgraph():
    g = cond_graph()
    del g.nodes[0].subgraphs["else"]
    rejects(g, "cond a b", "has subgraphs ['then'], op 'cond' takes ['else', 'then']")


def test_cond_branch_arity():
    g = cond_graph()
    g.nodes[0].subgraphs["else"].add_input(t())
    rejects(g, "`c:f64[2] = cond a b` in f: subgraph 'else' has 2 inputs, the node binds 1")


def test_cond_branch_input_type():
    g = cond_graph()
    g.nodes[0].subgraphs["then"].inputs[0].type = t((3,))
    rejects(g, "input 0 of subgraph 'then' is f64[3], the node binds f64[2]")


def test_cond_branch_result_type():
    g = cond_graph(lambda then, tx: [add(then, "sum", [tx], [t()], {"axis": None})])
    rejects(g, "subgraph 'then' gives f64[] for output 0, declared f64[2]")


def test_cond_branch_result_count():
    g = cond_graph(lambda then, tx: [])
    rejects(g, "subgraph 'then' gives 0 values for 1 outputs")


def test_cond_predicate_type():
    g = cond_graph()
    g.inputs[0].type = t()
    rejects(g, "the predicate (input 0) must be a bool scalar")


def test_branch_result_may_be_more_specific_than_the_output():
    g = cond_graph()
    g.nodes[0].outputs[0].type = t((None,))
    verify(g)


def test_while_body_result_type():
    g = while_graph()
    body = g.nodes[1].subgraphs["body"]
    body.outputs = [add(body, "astype", [body.inputs[0]], [t()], {"dtype": np.dtype(F64)})]
    loc = g.nodes[1].location
    rejects(
        g,
        f"test_verify.py:{loc[1]}: ",
        "`c:i64[] = while_loop a b num_loop_vars=1` in loop: "
        "subgraph 'body' gives f64[] for output 0, declared i64[]",
    )


def test_while_cond_must_give_a_bool():
    g = while_graph()
    cond = g.nodes[1].subgraphs["cond"]
    cond.outputs = [cond.inputs[0]]
    rejects(g, "subgraph 'cond' must return one bool scalar")


def test_while_subgraph_arity():
    g = while_graph()
    g.nodes[1].subgraphs["cond"].add_input(t())
    rejects(g, "subgraph 'cond' has 3 inputs, the node binds 2")


def test_while_initial_value_type():
    g = while_graph()
    g.nodes[0].outputs[0].type = t()
    g.nodes[0].attrs["value"] = np.float64(0.0)
    rejects(g, "the initial value gives f64[] for output 0, declared i64[]")


def test_while_num_loop_vars():
    g = while_graph()
    g.nodes[1].attrs["num_loop_vars"] = 5
    rejects(g, "num_loop_vars=5 does not fit its 2 inputs")


def test_nested_subgraph_location_in_message():
    g = while_graph()
    body = g.nodes[1].subgraphs["body"]
    body.nodes[0].inputs = [Value(t((), I64)), 1]
    rejects(g, "`b:i64[] = add a 1` in loop > while_loop body: input 0 is not defined")


# -- the option ---------------------------------------------------------------------


def test_optimize_verifies_when_the_option_is_on():
    def broken():
        g = Graph("f")
        x = g.add_input(t((3,)), "x")
        g.outputs = [add(g, "exp", [x], [t((3,), np.float32)])]
        return g

    with options(verify_graphs=True):
        with pytest.raises(InvalidGraphError, match="do not match the op's rule"):
            optimize(broken())
    with options(verify_graphs=False):
        optimize(broken())
    with pytest.raises(InvalidGraphError):
        optimize(broken(), dict(get_options(), verify_graphs=True))


def test_option_is_a_bool_and_on_in_the_test_suite():
    assert get_options()["verify_graphs"] is True  # tests/conftest.py
    with pytest.raises(TypeError, match="'verify_graphs' must be True or False"):
        set_options(verify_graphs="yes")
