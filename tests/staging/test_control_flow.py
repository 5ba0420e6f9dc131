"""staging.cond and staging.while_loop: staged in a trace, plain Python on concrete values."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from _staging_helpers import assert_same

import staging
from staging import TensorSpec

RNG = np.random.default_rng(7)


def lines_below(func, offset):
    return func.__code__.co_firstlineno + offset


# -- cond ----------------------------------------------------------------------------


def relu_or_neg(x):
    return staging.cond(x.sum() > 0, lambda: np.maximum(x, 0.0) * 2, lambda: -x)


def test_cond_staged_matches_eager():
    f = staging.function(relu_or_neg, autograph=False)
    for x in (np.array([1.0, -0.5, 2.0]), np.array([-1.0, 0.5, -2.0]), RNG.normal(size=3)):
        assert_same(f(x), relu_or_neg(x))  # eager: cond on a concrete np.bool_
    assert f.tracing_count == 1
    assert "cond" in str(f.get_concrete_function(np.ones(3)).graph)


def test_cond_traces_both_branches_once():
    log = []

    def then():
        log.append("then")
        return np.float64(1.0)

    def other():
        log.append("else")
        return np.float64(2.0)

    @staging.function(autograph=False)
    def f(p):
        return staging.cond(p, then, other)

    assert f(np.True_) == 1.0 and f(np.False_) == 2.0 and f(np.True_) == 1.0
    assert log == ["then", "else"]


def test_cond_on_concrete_value_runs_python_branch_only():
    log = []

    @staging.function(autograph=False)
    def f(x, flag):
        return staging.cond(
            flag, lambda: log.append("t") or x + 1, lambda: log.append("e") or x - 1
        )

    assert f(np.float64(1.0), True) == 2.0
    assert log == ["t"]
    assert "cond" not in str(f.get_concrete_function(np.float64(1.0), True).graph)
    assert staging.cond(np.False_, lambda: 1, lambda: 2) == 2  # eager, outside any trace


def test_cond_nested_structures_and_passthrough():
    Out = collections.namedtuple("Out", "value count")

    def g(x, k):
        def then():
            return {"out": Out(x * 2, k + 1), "tag": "same"}

        def other():
            return {"out": Out(x - 1, k), "tag": "same"}

        return staging.cond(x.sum() > 0, then, other)

    f = staging.function(g, autograph=False)
    for x in (np.ones(2), -np.ones(2)):
        for k in (np.int64(3), np.int64(-1)):
            out = f(x, k)
            assert_same(out, g(x, k))
            assert isinstance(out["out"], Out) and out["tag"] == "same"


def test_cond_joins_shapes_and_weak_scalars():
    def g(x):
        # branch results of shape (2,) and (3,): the merged value has an unknown dim
        return staging.cond(x[0] > 0, lambda: x[:2], lambda: x), staging.cond(
            x[0] > 0, lambda: 1, lambda: x[1]
        )

    f = staging.function(g, autograph=False)
    cf = f.get_concrete_function(TensorSpec([3], np.float64))
    assert cf.structured_outputs[0] == TensorSpec((None,), np.float64)
    # the Python 1 stays the Python 1 on its path: the output is of two kinds
    assert str(cf.structured_outputs[1]) == "TensorSpec(int | f64[])"
    for x in (np.array([1.0, 2.0, 3.0]), np.array([-1.0, 2.0, 3.0])):
        staged = f(x)
        eager = g(x)
        np.testing.assert_array_equal(staged[0], eager[0])
        assert staged[1] == eager[1] and type(staged[1]) is type(eager[1])


def test_cond_structure_mismatch_is_a_clear_error():
    @staging.function(autograph=False)
    def f(x):
        return staging.cond(x > 0, lambda: (x, x), lambda: x)

    with pytest.raises(staging.errors.BranchMismatchError) as info:
        f(np.float64(1.0))
    assert "different structures" in str(info.value)
    assert f"test_control_flow.py:{lines_below(f.python_function, 2)}" in str(info.value)


def test_cond_of_branches_of_two_dtypes_gives_the_branch_takens_value():
    def g(x, i):
        return staging.cond(x > 0, lambda: x, lambda: i, names=["result"])

    f = staging.function(g, autograph=False)
    for x in (np.float64(1.0), np.float64(-1.0)):
        staged, eager = f(x, np.int64(2)), g(x, np.int64(2))
        assert type(staged) is type(eager) and staged == eager


def test_cond_of_a_list_and_an_array_names_the_output():
    @staging.function(autograph=False)
    def f(x):
        return staging.cond(x > 0, lambda: x, lambda: [x], names=["result"])

    with pytest.raises(staging.errors.BranchMismatchError) as info:
        f(np.float64(1.0))
    message = str(info.value)
    assert "'result'" in message or "output" in message
    assert "test_control_flow.py:" in message


def test_cond_leaf_kind_mismatch_names_the_output():
    @staging.function(autograph=False)
    def f(x):
        return staging.cond(x > 0, lambda: x, lambda: print)  # (a function: no graph value)

    with pytest.raises(staging.errors.BranchMismatchError) as info:
        f(np.float64(1.0))
    assert "'output[0]'" in str(info.value) and "print" in str(info.value)
    assert "test_control_flow.py:" in str(info.value)


def test_cond_on_a_non_scalar_is_an_error():
    @staging.function(autograph=False)
    def f(x):
        return staging.cond(x > 0, lambda: x, lambda: -x)

    with pytest.raises(staging.errors.SymbolicValueError, match="any|all") as info:
        f(np.ones(3))
    assert "test_control_flow.py:" in str(info.value)


def test_cond_captures_outer_tensors_and_nests():
    def g(x, y):
        def then():
            return staging.cond(y > 0, lambda: x * y, lambda: x + y)

        return staging.cond(x.sum() > 0, then, lambda: x - y)

    f = staging.function(g, autograph=False)
    for x in (np.ones(2), -np.ones(2)):
        for y in (np.float64(3.0), np.float64(-3.0)):
            assert_same(f(x, y), g(x, y))
    assert f.tracing_count == 1


# -- while_loop -------------------------------------------------------------------------


def collatz_steps(n):
    def body(n, steps):
        n = staging.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1)
        return n, steps + 1

    return staging.while_loop(lambda n, steps: n > 1, body, (n, np.int64(0)))[1]


def test_while_loop_staged_matches_eager():
    f = staging.function(collatz_steps, autograph=False)
    for n in (1, 6, 7, 27):
        assert_same(f(np.int64(n)), collatz_steps(np.int64(n)))
    assert f.tracing_count == 1
    text = str(f.get_concrete_function(np.int64(1)).graph)
    assert "while_loop" in text and "cond" in text


def test_while_loop_body_traced_once_and_runs_many_times():
    log = []

    def body(i, acc):
        log.append("body")
        return i + 1, acc + i

    @staging.function(autograph=False)
    def f(n):
        return staging.while_loop(lambda i, acc: i < n, body, (np.int64(0), np.int64(0)))

    assert f(np.int64(10)) == (10, 45)
    assert f(np.int64(0)) == (0, 0)
    assert log == ["body"]


def test_while_loop_nested_loop_vars():
    State = collections.namedtuple("State", "total history")

    def g(x, n):
        def cond(i, state, extra):
            return i < n

        def body(i, state, extra):
            return (
                i + 1,
                State(state.total + x[i], {"last": x[i], "sq": state.history["sq"] + x[i] ** 2}),
                extra,
            )

        init = State(np.float64(0), {"last": np.float64(np.nan), "sq": np.float64(0)})
        return staging.while_loop(cond, body, (np.int64(0), init, "untouched"))

    f = staging.function(g, autograph=False)
    x = RNG.normal(size=5)
    for n in (0, 3, 5):
        out = f(x, np.int64(n))
        expected = g(x, np.int64(n))
        assert out[0] == expected[0] and out[2] == "untouched"
        assert isinstance(out[1], State)
        assert out[1].total == pytest.approx(expected[1].total)
        np.testing.assert_allclose(out[1].history["last"], expected[1].history["last"])
        assert out[1].history["sq"] == pytest.approx(expected[1].history["sq"])


def test_while_loop_list_of_loop_vars_returns_list():
    @staging.function(autograph=False)
    def f(n):
        return staging.while_loop(
            lambda i, a: i < n, lambda i, a: [i + 1, a * 2], [np.int64(0), np.int64(1)]
        )

    out = f(np.int64(5))
    assert isinstance(out, list) and out == [5, 32]
    assert staging.while_loop(lambda i: i < 3, lambda i: i + 1, [0]) == [3]


def test_while_loop_single_var_body_may_return_bare_value():
    @staging.function(autograph=False)
    def f(x):
        return staging.while_loop(lambda v: v < 100, lambda v: v * 3, (x,))

    assert f(np.int64(2)) == (162,)
    assert staging.while_loop(lambda v: v < 100, lambda v: v * 3, (2,)) == (162,)


def test_maximum_iterations_staged_and_eager():
    def g(x, limit):
        return staging.while_loop(
            lambda i, v: v < 1000,
            lambda i, v: (i + 1, v * 2),
            (np.int64(0), x),
            maximum_iterations=limit,
        )

    f = staging.function(g, autograph=False)
    for x in (np.float64(1.0), np.float64(300.0), np.float64(5000.0)):
        for limit in (3, 20):
            assert_same(f(x, limit), g(x, limit))
    # a symbolic limit
    h = staging.function(g, autograph=False)
    for limit in (0, 2, 50):
        assert_same(h(np.float64(1.0), np.int64(limit)), g(np.float64(1.0), np.int64(limit)))
    assert h.tracing_count == 1


def test_while_loop_captures_outer_tensors():
    def g(x, step):
        return staging.while_loop(lambda v: v.sum() < 10, lambda v: v + step, (x,))[0]

    f = staging.function(g, autograph=False)
    for step in (np.float64(0.5), np.float64(3.0)):
        assert_same(f(np.zeros(2), step), g(np.zeros(2), step))


def test_loop_var_shape_change_is_generalised():
    def grow(n):
        def body(i, v):
            return i + 1, np.concatenate([v, v[-1:] * 2])

        return staging.while_loop(lambda i, v: i < n, body, (np.int64(0), np.ones(1)))

    f = staging.function(grow, autograph=False)
    cf = f.get_concrete_function(np.int64(0))
    assert cf.structured_outputs[1] == TensorSpec((None,), np.float64)
    for n in (0, 1, 4):
        assert_same(f(np.int64(n)), grow(np.int64(n)))
    assert f.tracing_count == 1


def test_a_loop_variable_that_changes_dtype_is_what_the_last_iteration_made_it():
    def g(n):
        return staging.while_loop(
            lambda i, acc: i < n,
            lambda i, acc: (i + 1, acc / 2),
            (np.int64(0), np.int64(100)),
            names=["i", "acc"],
        )

    f = staging.function(g, autograph=False)
    for n in (0, 3):  # int64 after no iteration, float64 after one
        staged, eager = f(np.int64(n)), g(np.int64(n))
        assert repr(staged) == repr(eager)


def test_a_nested_loop_variable_that_changes_dtype_is_what_the_last_iteration_made_it():
    def g(n):
        return staging.while_loop(
            lambda i, d: i < n,
            lambda i, d: (i + 1, {"x": d["x"] * 0.5}),
            (np.int64(0), {"x": np.int32(1)}),
        )

    f = staging.function(g, autograph=False)
    for n in (0, 3):
        assert repr(f(np.int64(n))) == repr(g(np.int64(n)))


def test_a_loop_variable_that_becomes_a_list_is_refused_naming_it():
    @staging.function(autograph=False)
    def f(n):
        return staging.while_loop(
            lambda i, d: i < n, lambda i, d: (i + 1, [d]), (np.int64(0), np.int32(1))
        )

    with pytest.raises(staging.errors.LoopVariableError, match=r"'loop_vars\[1\]'") as info:
        f(np.int64(3))
    assert "test_control_flow.py:" in str(info.value)


def test_python_number_loop_var_may_widen():
    def g(n):
        return staging.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc + 0.5), (0, 0))

    f = staging.function(g, autograph=False)
    out, eager = f(np.int64(3)), g(np.int64(3))
    assert out == eager == (3, 1.5)
    assert (
        [type(v) for v in out] == [type(v) for v in eager] == [int, float]
    )  # Python numbers stay so


def test_loop_structure_change_is_an_error():
    @staging.function(autograph=False)
    def f(n):
        return staging.while_loop(
            lambda i, v: i < n, lambda i, v: (i + 1, (v, v)), (np.int64(0), np.ones(2))
        )

    with pytest.raises(staging.errors.LoopVariableError, match="structure") as info:
        f(np.int64(3))
    assert "test_control_flow.py:" in str(info.value)


def test_loop_body_wrong_arity_is_an_error():
    @staging.function(autograph=False)
    def f(n):
        return staging.while_loop(lambda i, v: i < n, lambda i, v: i + 1, (np.int64(0), np.ones(2)))

    with pytest.raises(staging.errors.LoopVariableError, match="2 loop variables") as info:
        f(np.int64(3))
    assert "test_control_flow.py:" in str(info.value)


def test_nested_while_loops():
    def g(n):
        def outer_body(i, total):
            inner = staging.while_loop(
                lambda j, s: j < i, lambda j, s: (j + 1, s + j), (np.int64(0), np.int64(0))
            )
            return i + 1, total + inner[1]

        return staging.while_loop(lambda i, total: i < n, outer_body, (np.int64(0), np.int64(0)))[1]

    f = staging.function(g, autograph=False)
    for n in (0, 1, 5, 8):
        assert_same(f(np.int64(n)), g(np.int64(n)))


def test_while_loop_eager_on_concrete_values():
    i, acc = staging.while_loop(lambda i, acc: i < 4, lambda i, acc: (i + 1, acc * 2), (0, 1))
    assert (i, acc) == (4, 16)
    i, acc = staging.while_loop(
        lambda i, acc: True, lambda i, acc: (i + 1, acc * 2), (0, 1), maximum_iterations=3
    )
    assert (i, acc) == (3, 8)
