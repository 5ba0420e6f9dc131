"""An error raised while a staged branch is traced is raised when the graph runs and takes that
branch, as Python raises it only when the branch runs: staged equals eager on both paths."""

from __future__ import annotations

import numpy as np
import pytest

import staging


def outcome(func, *args):
    try:
        return "returned", func(*args)
    except Exception as error:  # noqa: BLE001 - the type is compared
        return "raised", type(error)


def write_into_missing_key(a):
    x = {"a": {"a": a}}
    if x["a"]["a"] > 0:
        x["b"]["a"] = 1  # KeyError, only when the branch runs
    return x


def xor_of_a_float(x, y):
    if x > 0:
        r = y ^ 1  # TypeError for a float y, only when the branch runs
    else:
        r = y * 2.0
    return r


def index_past_the_end(x, v):
    return v[5] if x > 0 else v[0]  # IndexError, only when the first value is taken


def divide_by_python_zero(x, n):
    if x > 0:
        return 1 / n  # ZeroDivisionError for n == 0, only when the branch runs
    return 0.5


CASES = [
    (write_into_missing_key, (np.int32(0),)),
    (write_into_missing_key, (np.int32(3),)),
    (xor_of_a_float, (np.float64(-1.0), np.float64(2.0))),
    (xor_of_a_float, (np.float64(1.0), np.float64(2.0))),
    (index_past_the_end, (np.float64(-1.0), np.arange(3.0))),
    (index_past_the_end, (np.float64(1.0), np.arange(3.0))),
    (divide_by_python_zero, (np.float64(-1.0), 0)),
    (divide_by_python_zero, (np.float64(1.0), 0)),
]


@pytest.mark.parametrize("func, args", CASES, ids=lambda v: getattr(v, "__name__", None))
def test_error_of_a_staged_branch_is_raised_when_that_branch_runs(func, args):
    eager = outcome(func, *args)
    staged_f = staging.function(func)
    for _ in range(2):  # the trace, then a cache hit
        staged = outcome(staged_f, *args)
        if eager[0] == "raised":
            assert staged == eager
        else:
            assert staged[0] == "returned"
            np.testing.assert_equal(staged[1], eager[1])


def run_time_error_names_the_line(x):
    d = {}
    if x > 0:
        d["missing"] += 1
    return x


def test_the_run_time_error_names_the_users_line_in_a_note():
    with pytest.raises(KeyError) as eager:
        run_time_error_names_the_line(np.float64(1.0))
    for _ in range(2):  # the trace, then a cache hit
        with pytest.raises(KeyError) as info:
            staging.function(run_time_error_names_the_line)(np.float64(1.0))
        assert str(info.value) == str(eager.value) and info.value.args == eager.value.args
        first = run_time_error_names_the_line.__code__.co_firstlineno
        notes = "\n".join(getattr(info.value, "__notes__", []))
        assert f"{__file__}:{first + 3}: raised while running `" in notes


def both_branches_raise(x):
    if x > 0:
        raise ValueError("positive")
    else:
        raise ValueError("not positive")


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_when_both_branches_raise_the_error_is_raised_while_tracing(x):
    # Eagerly every call raises; staged, the first branch's error is raised while tracing (a
    # branch of each type would be raised by the first type: see docs/limitations.md).
    assert outcome(both_branches_raise, np.float64(x)) == ("raised", ValueError)
    assert outcome(staging.function(both_branches_raise), np.float64(x)) == ("raised", ValueError)


def _compares_complex(a):
    v = 1.0j
    return 0 if v < 1 else 0  # TypeError in Python, on every call


def raises_after_a_loop_that_may_return(n, y):
    k = 0
    while k < 3:
        k += 1
        if n:
            if y:
                break
        else:
            return 0, 0
    d = {"a": _compares_complex(n)}  # after a staged loop: runs where the loop did not return
    return n, n


def test_an_error_after_a_staged_return_that_never_sets_the_value_is_raised_as_eagerly():
    staging = pytest.importorskip("staging")
    args = (1, np.array(2, dtype=np.uint8))
    with pytest.raises(TypeError):
        raises_after_a_loop_that_may_return(*args)
    with pytest.raises(
        TypeError, match="not supported between instances of 'complex' and 'int'"
    ) as info:
        staging.function(raises_after_a_loop_that_may_return)(*args)
    assert not isinstance(info.value, staging.errors.UndefinedNameError)
