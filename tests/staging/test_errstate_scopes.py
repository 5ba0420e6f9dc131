"""`with np.errstate(...)` in a staged function: the operations staged inside run under that
error state when the graph runs (runtime.graph.Node.scope), and only they; staged results,
warnings and errors are compared with the eager function's on the same inputs."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import staging
from staging import errors


def eager_and_staged(f, *args):
    """(kind, value) of the eager call and of the staged call: ("ok", result) or
    ("raised", exception type), with warnings turned into errors."""
    out = []
    for fn in (f, staging.function(f)):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            try:
                out.append(("ok", fn(*args)))
            except Exception as exc:  # noqa: BLE001 - compared below
                out.append(("raised", type(exc)))
    return out


def same(f, *args):
    (ek, ev), (sk, sv) = eager_and_staged(f, *args)
    assert ek == sk, (ev, sv)
    if ek == "raised":
        assert issubclass(sv, ev)
    else:
        np.testing.assert_array_equal(sv, ev)
        assert np.asarray(sv).dtype == np.asarray(ev).dtype


def same_expression_in_and_out(x):
    a = np.float64(1.0) / x  # the caller's state
    with np.errstate(divide="raise"):
        b = np.float64(1.0) / x  # the same op: not merged with the one above
    return a, b


def quiet_log(x):
    with np.errstate(all="ignore"):
        return np.log(x) / x


def nested(x):
    with np.errstate(all="raise"):
        with np.errstate(divide="ignore"):
            a = 1.0 / x  # divide ignored, by the inner scope
        b = np.sqrt(x - 1.0)  # invalid raises, by the outer one
    return a + b


def around_control_flow(x, n):
    with np.errstate(divide="raise", invalid="ignore"):
        total = x * 0.0
        for i in range(n):
            if x[i] > 0:
                total = total + 1.0 / x[i]
            else:
                total = total + np.sqrt(x[i] - 1.0)  # nan, quietly
    return total


def scalar_loop(lo, hi, n):
    with np.errstate(divide="raise"):
        k = 0
        while k < n:  # a loop on Python floats (runtime.scalar_loops)
            mid = (lo + hi) / 2.0
            if 1.0 / (mid - 1.0) > 0:
                hi = mid
            else:
                lo = mid
            k += 1
    return lo, hi


def unused_result(x):
    with np.errstate(divide="raise"):
        y = 1.0 / x  # nothing reads y: eagerly it raises all the same
    return x


@pytest.mark.parametrize("x", [4.0, 0.0])
def test_the_scope_applies_to_the_operations_inside_only(x):
    assert eager_and_staged(same_expression_in_and_out, np.float64(x))[1][0] == (
        "raised" if x == 0 else "ok"
    )
    with np.errstate(divide="ignore"):  # outside the scope: the caller's state
        same(same_expression_in_and_out, np.float64(x))


@pytest.mark.parametrize("x", [np.array([0.0, 1.0, -1.0]), np.float64(0.0), np.float64(2.0)])
def test_ignore_silences_warnings_that_the_graph_would_give(x):
    same(quiet_log, x)


@pytest.mark.parametrize("x", [0.0, 0.5, 2.0])
def test_nested_scopes_combine_as_numpy_does(x):
    same(nested, np.float64(x))


@pytest.mark.parametrize("x", [[1.0, 2.0, -3.0], [0.0, 1.0, 1.0], [2.0, -1.0, 4.0]])
@pytest.mark.parametrize("n", [0, 2, 3])
def test_a_scope_around_staged_if_and_for(x, n):
    same(around_control_flow, np.array(x), np.int64(n))


@pytest.mark.parametrize("hi", [3.0, 2.0])
def test_a_scope_around_an_unboxed_scalar_loop(hi):
    same(scalar_loop, np.float64(0.0), np.float64(hi), np.int64(5))


def test_an_unused_result_inside_a_raising_scope_still_raises():
    same(unused_result, np.float64(0.0))
    same(unused_result, np.float64(2.0))


def test_the_callers_error_state_is_left_as_it_was():
    before = np.geterr()
    f = staging.function(same_expression_in_and_out)
    with pytest.raises(FloatingPointError), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (the division outside the scope warns)
        f(np.float64(0.0))
    assert np.geterr() == before
    with np.errstate(over="raise"):
        f(np.float64(3.0))
        assert np.geterr()["over"] == "raise"


def test_the_generated_code_shows_the_scope():
    source = (
        staging.function(same_expression_in_and_out)
        .get_concrete_function(np.float64(1.0))
        .executable_source
    )
    assert source.count("divide='raise'") == 1


def test_jit_compile_and_save_refuse_a_scope(tmp_path):
    with pytest.raises(NotImplementedError, match="np.errstate"):
        staging.function(unused_result, jit_compile=True)(np.float64(2.0))
    f = staging.function(unused_result)
    f(np.float64(2.0))
    with pytest.raises(errors.SaveError, match="np.errstate"):
        staging.save(f, os.fspath(tmp_path / "f.stg"))
