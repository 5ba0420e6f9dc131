"""The executor: runs graphs on NumPy inputs, returns 0-d results as NumPy scalars, frees
intermediates after their last use, and re-raises failures naming the node and the user's
file:line that created it."""

from __future__ import annotations

import gc
import sys
import weakref

import numpy as np
import pytest

import runtime.ops  # noqa: F401  (registers the NumPy ops)
import staging
from runtime import CompiledGraph, Graph, ListType, Node, TensorType, execute
from runtime.core_ops import ARG

F64 = np.float64
I64 = np.int64


def text(exc) -> str:
    """An exception's message and its notes (a run-time failure names the user's line in a note)."""
    return "\n".join([str(exc), *getattr(exc, "__notes__", ())])


def here():
    return (__file__, sys._getframe(1).f_lineno)


def t(shape=(), dtype=F64):
    return TensorType(dtype, shape)


def add(g, op, inputs, out_types, attrs=None, location=None, subgraphs=None):
    node = g.add_node(Node(op, inputs, attrs or {}, out_types, location, subgraphs))
    return node.outputs[0] if len(node.outputs) == 1 else node.outputs


# -- running ------------------------------------------------------------------


def test_runs_on_numpy_inputs_and_matches_numpy():
    g = Graph("f")
    x = g.add_input(t((None,)), "x")
    y = g.add_input(t((None,)), "y")
    s = add(g, "add", [x, y], [t((None,))])
    m = add(g, "multiply", [s, 3.0], [t((None,))])
    e = add(g, "exp", [m], [t((None,))])
    total = add(g, "sum", [e], [t()], {"axis": None})
    g.outputs = [e, total]
    run = CompiledGraph(g)
    rng = np.random.default_rng(1)
    for n in (0, 1, 5):
        a, b = rng.normal(size=n), rng.normal(size=n)
        out_e, out_total = run(a, b)
        np.testing.assert_array_equal(out_e, np.exp((a + b) * 3.0))
        assert out_total == np.sum(np.exp((a + b) * 3.0))
        assert out_e.dtype == F64
    assert execute(g, np.ones(2), np.ones(2))[1] == pytest.approx(2 * np.exp(6.0))


def test_inputs_are_not_modified():
    g = Graph("f")
    x = g.add_input(t((3,)), "x")
    a = add(g, "multiply", [x, 2.0], [t((3,))])
    b = add(g, "add", [a, 1.0], [t((3,))])
    c = add(g, "negative", [b], [t((3,))])
    g.outputs = [c]
    x_val = np.arange(3.0)
    (out,) = CompiledGraph(g)(x_val)
    np.testing.assert_array_equal(x_val, [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(out, -(np.arange(3.0) * 2 + 1))


def test_zero_d_results_are_what_numpy_returns():
    # NumPy returns a scalar from a reduction or a ufunc on 0-d values, a 0-d array from
    # np.reshape(x, ()) or np.array(5): the graph hands back the same kinds.
    g = Graph("f")
    x = g.add_input(t((4,)), "x")
    s = add(g, "sum", [x], [t()], {"axis": None})
    c = add(g, "const", [], [t((), I64)], {"value": np.array(5)})
    lt = add(g, "less", [s, 100.0], [t((), np.bool_)])
    y = g.add_input(t((1,)), "y")
    r = add(g, "reshape", [y], [t()], {"shape": ()})
    g.outputs = [s, c, lt, r]
    run = CompiledGraph(g)
    out = run(np.arange(4.0), np.ones(1))
    assert out == (6.0, 5, True, 1.0)
    assert type(out[0]) is np.float64 and type(out[2]) is np.bool_
    assert type(out[1]) is np.ndarray and out[1].shape == ()
    assert type(out[3]) is type(np.reshape(np.ones(1), ())) is np.ndarray
    out[1][()] = 7  # the caller owns the constant's copy
    assert run(np.arange(4.0), np.ones(1))[1] == 5


def test_zero_d_passthrough_input_is_returned_as_given():
    # Eager `def f(x): return x` hands back the very object it got (a 0-d array stays one);
    # the staged graph must agree with eager, so inputs pass through untouched.
    g = Graph("f")
    x = g.add_input(t(), "x")
    g.outputs = [x]
    given = np.array(2.5)
    (out,) = CompiledGraph(g)(given)
    assert out is given


def test_constant_outputs_are_copies():
    g = Graph("f")
    c = add(g, "const", [], [t((3,))], {"value": np.zeros(3)})
    g.outputs = [c]
    run = CompiledGraph(g)
    (first,) = run()
    first += 1
    (second,) = run()
    np.testing.assert_array_equal(second, np.zeros(3))


def test_cond_node_runs_one_branch():
    g = Graph("f")
    p = g.add_input(t((), np.bool_), "p")
    x = g.add_input(t((2,)), "x")
    then = Graph("then")
    tx = then.add_input(t((2,)))
    then.outputs = [add(then, "multiply", [tx, 10.0], [t((2,))])]
    other = Graph("else")
    ox = other.add_input(t((2,)))
    other.outputs = [add(other, "negative", [ox], [t((2,))])]
    out = add(g, "cond", [p, x], [t((2,))], subgraphs={"then": then, "else": other})
    g.outputs = [out]
    run = CompiledGraph(g)
    np.testing.assert_array_equal(run(np.True_, np.array([1.0, 2.0]))[0], [10.0, 20.0])
    np.testing.assert_array_equal(run(np.False_, np.array([1.0, 2.0]))[0], [-1.0, -2.0])


def test_while_loop_node_with_capture():
    # i, acc = 0, 0.0; while i < n: acc += x[i]*k; i += 1   (k captured)
    g = Graph("f")
    n = g.add_input(t((), I64), "n")
    x = g.add_input(t((None,)), "x")
    k = g.add_input(t(), "k")
    zero_i = add(g, "const", [], [t((), I64)], {"value": np.int64(0)})
    zero_f = add(g, "const", [], [t()], {"value": np.float64(0)})

    cond = Graph("cond")
    ci, cacc, cn, cx, ck = (
        cond.add_input(ty) for ty in (t((), I64), t(), t((), I64), t((None,)), t())
    )
    cond.outputs = [add(cond, "less", [ci, cn], [t((), np.bool_)])]
    body = Graph("body")
    bi, bacc, bn, bx, bk = (
        body.add_input(ty) for ty in (t((), I64), t(), t((), I64), t((None,)), t())
    )
    item = add(body, "getitem", [bx, bi], [t()], {"index": ("?",)})
    prod = add(body, "multiply", [item, bk], [t()])
    body.outputs = [add(body, "add", [bi, 1], [t((), I64)]), add(body, "add", [bacc, prod], [t()])]
    i_out, acc_out = add(
        g,
        "while_loop",
        [zero_i, zero_f, n, x, k],
        [t((), I64), t()],
        {"num_loop_vars": 2},
        subgraphs={"cond": cond, "body": body},
    )
    g.outputs = [i_out, acc_out]
    run = CompiledGraph(g)
    xs = np.array([1.0, 2.0, 3.0, 4.0])
    for count in range(5):
        i_val, acc_val = run(np.int64(count), xs, np.float64(0.5))
        assert i_val == count and type(i_val) is np.int64
        assert acc_val == pytest.approx(0.5 * xs[:count].sum())


def test_list_values():
    g = Graph("f")
    x = g.add_input(t((2,)), "x")
    lst = add(g, "list_new", [], [ListType(None)], {"element": None})
    lst = add(g, "list_write", [lst, 0, x], [ListType(t((2,)))], {"dynamic_size": True})
    doubled = add(g, "multiply", [x, 2.0], [t((2,))])
    lst = add(g, "list_write", [lst, 1, doubled], [ListType(t((2,)))], {"dynamic_size": True})
    size = add(g, "list_size", [lst], [t((), I64)])
    stacked = add(
        g, "list_stack", [lst], [t((None, 2))], {"dtype": np.dtype(F64), "element_shape": (2,)}
    )
    g.outputs = [size, stacked]
    size_val, stacked_val = CompiledGraph(g)(np.array([1.0, 2.0]))
    assert size_val == 2
    np.testing.assert_array_equal(stacked_val, [[1.0, 2.0], [2.0, 4.0]])


# -- freeing intermediates ----------------------------------------------------


def test_source_deletes_intermediates_after_last_use():
    g = Graph("f")
    x = g.add_input(t((3,)), "x")
    a = add(g, "exp", [x], [t((3,))])
    b = add(g, "sum", [a], [t()], {"axis": None})
    c = add(g, "sin", [x], [t((3,))])
    d = add(g, "transpose", [c], [t((3,))])
    g.outputs = [b, d]
    source = CompiledGraph(g).source
    lines = source.splitlines()
    # `a` (v1) dies right after the sum, before `c` is computed; c (v3) after the cos
    sum_line = next(i for i, line in enumerate(lines) if "v2 = " in line)
    assert lines[sum_line + 1].strip() == "del v1"
    cos_line = next(i for i, line in enumerate(lines) if "v4 = " in line)
    assert lines[cos_line + 1].strip() == "del v3"
    # inputs and outputs are never deleted
    assert "del v0" not in source and "del v4" not in source


def test_intermediate_is_freed_before_later_nodes_run():
    """Observed from inside the graph: a py_function takes a weakref to an intermediate array;
    a later py_function finds it dead (the graph dropped it after its last use)."""
    refs = []
    alive_later = []

    def keep_ref(a):
        refs.append(weakref.ref(a))
        return np.float64(a.sum())

    def check(s):
        gc.collect()
        alive_later.append(refs[-1]() is not None)
        return s

    g = Graph("f")
    x = g.add_input(t((1000,)), "x")
    big = add(g, "exp", [x], [t((1000,))])
    s = add(g, "py_function", [big], [t()], {"func": keep_ref, "out_types": t()})
    s2 = add(g, "py_function", [s], [t()], {"func": check, "out_types": t()})
    g.outputs = [s2]
    (out,) = CompiledGraph(g)(np.zeros(1000))
    assert out == 1000.0
    assert alive_later == [False]


def test_in_place_reuse_never_changes_a_view():
    """A buffer the executor recycles in place must not be visible through a view of it."""
    g = Graph("f")
    x = g.add_input(t((4,)), "x")
    y = add(g, "multiply", [x, 2.0], [t((4,))])
    view = add(g, "getitem", [y], [t((3,))], {"index": ("1:",)})
    z = add(g, "add", [y, 1.0], [t((4,))])
    g.outputs = [view, z]
    view_val, z_val = CompiledGraph(g)(np.arange(4.0))
    np.testing.assert_array_equal(z_val, [1.0, 3.0, 5.0, 7.0])
    np.testing.assert_array_equal(view_val, [2.0, 4.0, 6.0])


def test_in_place_reuse_never_changes_a_list_element():
    g = Graph("f")
    x = g.add_input(t((2,)), "x")
    y = add(g, "multiply", [x, 2.0], [t((2,))])
    lst = add(g, "list_new", [], [ListType(None)], {"element": None})
    lst = add(g, "list_write", [lst, 0, y], [ListType(t((2,)))], {"dynamic_size": True})
    z = add(g, "add", [y, 1.0], [t((2,))])
    stacked = add(
        g, "list_stack", [lst], [t((None, 2))], {"dtype": np.dtype(F64), "element_shape": (2,)}
    )
    g.outputs = [stacked, z]
    stacked_val, z_val = CompiledGraph(g)(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(z_val, [3.0, 5.0])
    np.testing.assert_array_equal(stacked_val, [[2.0, 4.0]])


# -- error attribution (raw graphs) ---------------------------------------------


def test_failure_names_node_and_location():
    g = Graph("my_graph")
    x = g.add_input(t((3,)), "x")
    i = g.add_input(t((), I64), "i")
    loc = here()
    item = add(g, "getitem", [x, i], [t()], {"index": ("?",)}, location=loc)
    g.outputs = [item]
    run = CompiledGraph(g)
    assert run(np.arange(3.0), np.int64(2))[0] == 2.0
    with pytest.raises(IndexError) as info:
        run(np.arange(3.0), np.int64(7))
    err = info.value
    assert type(err) is IndexError and "out of bounds" in str(err)  # NumPy's own error, untouched
    (note,) = err.__notes__
    assert note.startswith(f"{loc[0]}:{loc[1]}: ")
    assert "getitem" in note and "'my_graph'" in note


def test_failure_inside_a_loop_body_names_the_inner_node():
    g = Graph("f")
    n = g.add_input(t((), I64), "n")
    x = g.add_input(t((2,)), "x")
    zero = add(g, "const", [], [t((), I64)], {"value": np.int64(0)})
    cond = Graph("cond")
    ci, cn, cx = (cond.add_input(ty) for ty in (t((), I64), t((), I64), t((2,))))
    cond.outputs = [add(cond, "less", [ci, cn], [t((), np.bool_)])]
    body = Graph("body")
    bi, bn, bx = (body.add_input(ty) for ty in (t((), I64), t((), I64), t((2,))))
    loc = here()
    add(body, "getitem", [bx, bi], [t()], {"index": ("?",)}, location=loc)
    inner = body.nodes[-1].outputs[0]
    body.outputs = [add(body, "add", [bi, 1], [t((), I64)])]
    add(
        g,
        "while_loop",
        [zero, n, x],
        [t((), I64)],
        {"num_loop_vars": 1},
        subgraphs={"cond": cond, "body": body},
    )
    # keep the read alive: print it each iteration
    body.nodes.append(Node("print", [inner], {"parts": (ARG,), "sep": " ", "end": "\n"}, []))
    g.outputs = []
    run = CompiledGraph(g)
    with pytest.raises(IndexError) as info:
        run(np.int64(5), np.zeros(2))
    (note,) = info.value.__notes__
    assert f"test_executor.py:{loc[1]}" in note and "getitem" in note


def test_failed_assert_is_an_assertion_error():
    g = Graph("f")
    c = g.add_input(t((), np.bool_), "c")
    x = g.add_input(t(), "x")
    loc = here()
    g.add_node(Node("assert", [c, x], {"parts": ("x was", ARG)}, [], loc))
    g.outputs = [x]
    run = CompiledGraph(g)
    assert run(np.True_, np.float64(1.0)) == (1.0,)
    with pytest.raises(AssertionError) as info:
        run(np.False_, np.float64(-3.0))
    assert type(info.value) is AssertionError and str(info.value) == "x was -3.0"
    assert f"test_executor.py:{loc[1]}" in info.value.__notes__[0]


def test_exceptions_of_python_callbacks_reach_the_caller_as_themselves():
    class Unusual(Exception):
        def __init__(self, code, detail):
            super().__init__(code, detail)
            self.code, self.detail = code, detail

    def boom(v):
        raise Unusual(7, "boom from python")

    g = Graph("f")
    x = g.add_input(t(), "x")
    loc = here()
    y = add(g, "py_function", [x], [t()], {"func": boom, "out_types": t()}, location=loc)
    g.outputs = [y]
    with pytest.raises(Unusual) as info:
        CompiledGraph(g)(np.float64(1.0))
    assert type(info.value) is Unusual and (info.value.code, info.value.detail) == (
        7,
        "boom from python",
    )
    (note,) = info.value.__notes__
    assert f"test_executor.py:{loc[1]}" in note and "py_function" in note


# -- error attribution through staging ---------------------------------------


def test_staged_out_of_bounds_index_names_user_line():
    @staging.function(autograph=False)
    def pick(x, i):
        return x[i] * 2.0  # the failing line

    line = pick.python_function.__code__.co_firstlineno + 2
    assert pick(np.arange(3.0), np.int64(1)) == 2.0
    with pytest.raises(IndexError) as info:
        pick(np.arange(3.0), np.int64(10))
    (note,) = info.value.__notes__
    assert f"test_executor.py:{line}" in note and "getitem" in note


def test_staged_py_function_failure_names_user_line():
    def reciprocal(v):
        if v == 0:
            raise ZeroDivisionError("reciprocal of zero")
        return 1.0 / v

    @staging.function(autograph=False)
    def f(x):
        return staging.py_function(reciprocal, [x], np.float64) + 1.0

    line = f.python_function.__code__.co_firstlineno + 2
    assert f(np.float64(4.0)) == 1.25
    with pytest.raises(ZeroDivisionError) as info:
        f(np.float64(0.0))
    assert "reciprocal of zero" in text(info.value)
    assert f"test_executor.py:{line}" in text(info.value)
    assert "py_function" in text(info.value)
