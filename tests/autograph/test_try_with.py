"""`try` and `with` in converted code: allowed around control flow; entered and caught while
tracing; refused where staged code inside would make that differ from Python."""

import contextlib
import math
import re
import warnings

import numpy as np
import pytest
from conftest import f64, i64

import autograph
from staging import errors

HERE = __file__


def return_in_context_manager(x):
    with contextlib.nullcontext():
        if x > 0:
            if x < 5:
                with contextlib.nullcontext():
                    return x
            else:
                return x * x
        else:
            return x * x * x


def continue_in_try_finally(x):
    z = 0
    while x > 0:
        x = x - 1
        try:
            if x < 5:
                continue
            z = z + 1
        finally:
            z = z + 10
    return z


def break_in_context_manager(x):
    z = 0
    while x > 0:
        with contextlib.nullcontext():
            x = x - 1
            if x < 5:
                break
            z = z + 1
    return z


def return_in_finally(x):
    try:
        return 2
    finally:
        if x > 0:
            return 1
        else:
            return 0


def return_in_try_finally(x):
    try:
        if x > 0:
            return 1
        return 0
    finally:
        x = x + 1


def trace_time_error_caught(x, table):
    try:
        scale = table["scale"]
    except KeyError:
        scale = 2.0
    if x > 0:
        x = x * scale
    return x


def handler_that_staged_code_cannot_reach(x):
    try:
        y = x * 2.0
        if y > 1.0:
            y = y - 1.0
    except KeyError:
        y = 0.0
    return y


@pytest.mark.parametrize(
    "f, inputs",
    [
        (return_in_context_manager, [i64(v) for v in (-2, 3, 7)]),
        (continue_in_try_finally, [i64(v) for v in (0, 4, 10)]),
        (break_in_context_manager, [i64(v) for v in (0, 4, 10)]),
        (return_in_finally, [i64(1), i64(-1)]),
        (return_in_try_finally, [i64(1), i64(-1)]),
        (trace_time_error_caught, [(f64(1.0), {}), (f64(1.0), {"scale": 3.0}), (f64(-1.0), {})]),
        (handler_that_staged_code_cannot_reach, [f64(0.2), f64(3.0)]),
    ],
)
def test_try_and_with_around_control_flow(same_as_eager, f, inputs):
    for args in inputs:
        args = args if isinstance(args, tuple) else (args,)
        assert autograph.convert(f)(*args) == f(*args)
    same_as_eager(f, *inputs)


def test_converted_form():
    code = autograph.to_code(trace_time_error_caught)
    assert "    def try_body(scale):\n        scale = table['scale']\n" in code
    assert "    def except_(error_, scale):\n        scale = 2.0\n" in code
    assert (
        "scale, = ag__.try_stmt(try_body, ((lambda: KeyError, except_),), (scale,), ('scale',))"
        in code
    )
    assert "with ag__.context(ag__.call(contextlib.nullcontext)):" in autograph.to_code(
        break_in_context_manager
    )


class Recorder:
    def __init__(self):
        self.events = []

    def __enter__(self):
        self.events.append("enter")
        return self

    def __exit__(self, *exc):
        self.events.append("exit")
        return False


def test_context_manager_runs_while_tracing():
    staging = pytest.importorskip("staging")
    recorder = Recorder()

    @staging.function
    def f(x):
        with recorder as r:
            if x > 0:
                x = x * 2.0
        return x, len(r.events)

    assert f(f64(1.0))[0] == 2.0 and f(f64(-1.0))[0] == -1.0
    assert recorder.events == ["enter", "exit"]  # once, while tracing


def staged_error_caught(x):
    y = 0
    try:
        if x > 1:
            raise ValueError("negative")
        y = 1
    except ValueError:
        pass
    return y


def staged_code_in_broad_try(x):
    try:
        y = x * 2.0
    except Exception:
        y = 0.0
    return y


def symbolic_value_to_float(x):
    try:
        v = math.frexp(x)[0]  # library code that needs a concrete number
    except TypeError:
        v = 0.0
    return v


def test_a_try_catches_what_only_the_graph_decides_when_it_runs(same_as_eager):
    # the `raise` in the staged `if` and an overflow of `x * 2.0` under np.errstate(all="raise")
    # are caught when the graph runs, on the calls that raise them, as eagerly
    same_as_eager(staged_error_caught, i64(2), i64(0))
    staged = same_as_eager(staged_code_in_broad_try, f64(1.0), f64(1e308))
    with np.errstate(all="raise"):
        same_as_eager(staged_code_in_broad_try, f64(1.0), f64(1e308), staged=staged)


def cholesky_or_nan(a):
    try:
        factor = np.linalg.cholesky(a)
    except np.linalg.LinAlgError:  # what the staged op raises when the graph runs
        return float("nan")
    return np.diag(factor)


@pytest.mark.parametrize("a", [np.eye(2), np.zeros((2, 2))])
def test_try_catching_linalg_errors_of_staged_ops_is_staged(a):
    """The clause runs when the graph's cholesky raises (a staged try: docs/semantics.md)."""
    staging = pytest.importorskip("staging")
    staged, eager = staging.function(cholesky_or_nan)(a), cholesky_or_nan(a)
    assert repr(staged) == repr(eager)


def test_a_refusal_is_never_swallowed_by_an_except_clause():
    staging = pytest.importorskip("staging")
    assert symbolic_value_to_float(f64(4.0)) == 0.5
    with pytest.raises(errors.SymbolicValueError) as e:
        staging.function(symbolic_value_to_float)(f64(2.0))
    assert f"{HERE}:{symbolic_value_to_float.__code__.co_firstlineno + 2}:" in str(e.value)


def errstate_concrete(x):
    with np.errstate(divide="ignore"):
        inf = np.float64(1.0) / np.float64(0.0)
    return x + inf


def errstate_staged(x):
    with np.errstate(divide="raise"):
        y = 1.0 / x
    return y


def catch_warnings_staged(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = np.log(x)
    return y


def suppress_staged(x):
    with contextlib.suppress(FloatingPointError):
        x = x / 0.0
    return x


def suppress_refusal(x):
    with contextlib.suppress(TypeError):
        return math.frexp(x)[0]
    return -1.0


def test_numpy_run_time_contexts_without_staged_code_inside(same_as_eager):
    same_as_eager(errstate_concrete, f64(1.0))


def test_errstate_around_staged_code_applies_when_the_graph_runs():
    staging = pytest.importorskip("staging")
    f = staging.function(errstate_staged)
    assert f(f64(4.0)) == errstate_staged(f64(4.0)) == 0.25
    with pytest.raises(FloatingPointError):
        errstate_staged(f64(0.0))
    with pytest.raises(
        FloatingPointError
    ):  # was refused: "`with np.errstate(...)` around staged operations"
        f(f64(0.0))
    assert np.geterr()["divide"] == "warn"  # the scope ends with the call, raising or not


def errstate_call_staged(x):
    with np.errstate(call=print, divide="call"):
        y = 1.0 / x
    return y


@pytest.mark.parametrize(
    "f, name",
    [
        (errstate_call_staged, "np.errstate"),
        (catch_warnings_staged, "warnings.catch_warnings"),
        (suppress_staged, "contextlib.suppress"),
    ],
)
def test_numpy_run_time_contexts_around_staged_code_are_refused(f, name):
    staging = pytest.importorskip("staging")
    with pytest.raises(errors.UnsupportedConstructError) as e:
        staging.function(f)(f64(1.0))
    line = f.__code__.co_firstlineno + 1
    assert str(e.value).startswith(f"{HERE}:{line}: `with {name}(...)` around staged operations")


def test_suppress_does_not_swallow_a_refusal():
    staging = pytest.importorskip("staging")
    with pytest.raises(errors.SymbolicValueError):
        staging.function(suppress_refusal)(f64(1.0))


def test_with_of_a_non_context_manager_is_a_type_error():
    def f(x):
        with 3:
            return x

    # Python >= 3.11 raises TypeError ("does not support the context manager protocol"),
    # 3.10 AttributeError("__enter__"): the converted function raises what Python raises
    with pytest.raises((TypeError, AttributeError)) as eager:
        f(1)
    with pytest.raises(type(eager.value), match=re.escape(str(eager.value))):
        autograph.convert(f)(1)


def refusal_inside_staged_if(x):
    try:
        if x > 0:
            y = x
        else:
            y = (x, x)
    except TypeError:
        y = 0.0
    return y


def test_a_refusal_from_a_staged_branch_keeps_its_own_message():
    staging = pytest.importorskip("staging")
    with pytest.raises(errors.BranchMismatchError) as e:
        staging.function(refusal_inside_staged_if)(f64(1.0))
    assert "'y'" in str(e.value)
