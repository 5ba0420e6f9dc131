"""Errors name the user's file:line and the offending name; unsupported constructs are refused."""

import numpy as np
import pytest

import autograph
from staging import errors

HERE = __file__


def gen(n):
    for i in range(n):
        yield i


def maybe_undefined(x):
    if x > 0:
        y = 1
    return y


def test_generator_refused():
    with pytest.raises(errors.UnsupportedConstructError) as e:
        autograph.to_code(gen)
    assert f"{HERE}:14" in str(e.value) and "yield" in str(e.value)


def test_try_around_staged_control_flow_is_staged_when_a_clause_may_catch():
    # Its `except` clause cannot catch what the staged `if` raises (a comparison and a
    # constant raise nothing): the `try` runs as its body. With a clause that may catch what
    # the body raises when the graph runs, a body that assigns `x` before a line that may
    # raise is refused: the clause would see `x` as it was before the `try`.
    staging = pytest.importorskip("staging")

    def f(x):
        try:
            if x > 0:
                x = 1
        except ValueError:
            pass
        return x

    def g(x):
        try:
            x = x * 2
            x = np.log(x)
        except FloatingPointError:
            pass
        return x

    assert autograph.convert(f)(5) == 1
    assert staging.function(f)(np.int64(5)) == 1 and staging.function(f)(np.int64(-5)) == -5
    with pytest.raises(errors.UnsupportedConstructError) as e:
        staging.function(g)(np.float64(5.0))
    assert str(e.value).startswith(
        f"{HERE}:{g.__code__.co_firstlineno + 1}: this `try` is staged (its `except` clause may "
        f"catch an error raised when the graph runs), and its body assigns 'x' before a later "
        f"line that may raise"
    )


def test_undefined_name_native():
    assert autograph.convert(maybe_undefined)(1) == 1
    with pytest.raises(errors.UndefinedNameError) as e:
        autograph.convert(maybe_undefined)(-1)
    assert "'y'" in str(e.value)


def test_undefined_name_staged():
    # Assigned in one branch of a staged `if`: defined when that branch ran, else reading it
    # raises UnboundLocalError at run time, at the reading line, as in Python.
    staging = pytest.importorskip("staging")
    staged = staging.function(maybe_undefined)
    assert staged(np.int64(1)) == 1
    with pytest.raises(errors.UndefinedNameError) as e:
        staged(np.int64(-1))
    assert isinstance(e.value, UnboundLocalError)
    assert "cannot access local variable 'y'" in str(e.value) and f"{HERE}:20: " in str(e.value)


def loop_only(n):
    i = 0
    while i < n:
        last = i
        i += 1
    return last


def test_defined_only_in_staged_loop():
    # A name first assigned in a staged loop is carried out of it when the loop ran; when it
    # ran zero times, reading it raises UnboundLocalError as in Python (here at run time).
    staging = pytest.importorskip("staging")
    assert autograph.convert(loop_only)(3) == 2
    staged = staging.function(loop_only)
    assert staged(np.int64(3)) == 2
    with pytest.raises(UnboundLocalError):
        loop_only(0)
    with pytest.raises(errors.UndefinedNameError) as e:
        staged(np.int64(0))
    assert "'last' is assigned only inside this staged `while` loop, which ran zero times" in str(
        e.value
    )
    assert str(e.value).startswith(f"{HERE}:{loop_only.__code__.co_firstlineno + 2}: ")


COUNT = 0


def writes_global(x):
    global COUNT
    if x > 0:
        COUNT = COUNT + 1
    return x


def test_global_write_in_staged_branch():
    staging = pytest.importorskip("staging")
    with pytest.raises(errors.UnsupportedConstructError) as e:
        staging.function(writes_global)(np.int64(1))
    line = writes_global.__code__.co_firstlineno + 2
    assert "'COUNT'" in str(e.value) and f"{HERE}:{line}" in str(e.value)


def test_error_in_user_code_points_to_user_line():
    def f(x):
        if x > 0:
            return x + "a"
        return x

    import traceback

    with pytest.raises(TypeError) as e:
        autograph.convert(f)(1)
    frames = traceback.extract_tb(e.value.__traceback__)
    assert any(
        fr.lineno == f.__code__.co_firstlineno + 2 and 'x + "a"' in (fr.line or "") for fr in frames
    )


def structure_changes_in_loop(x):
    s = {"a": x}
    while x > 0:
        s = x * 7.0
        x = x - 1
    return s


def structure_differs_in_branches(x):
    if x > 0:
        y = (x, (x, x))
    else:
        y = (x, x)
    return y


def test_structure_mismatch_names_the_element():
    staging = pytest.importorskip("staging")
    with pytest.raises(errors.LoopVariableError) as e:
        staging.function(structure_changes_in_loop)(np.float64(1.0))
    line = structure_changes_in_loop.__code__.co_firstlineno + 2
    assert f"{HERE}:{line}:" in str(e.value)
    assert (
        "loop variable 's': a dict with keys ['a'] before the loop, a tensor f64[] after an "
        "iteration"
    ) in str(e.value)
    with pytest.raises(errors.BranchMismatchError) as e:
        staging.function(structure_differs_in_branches)(np.float64(1.0))
    line = structure_differs_in_branches.__code__.co_firstlineno + 1
    assert f"{HERE}:{line}:" in str(e.value)
    assert "'y[1]' different structures: a tuple of 2 in the true branch and a tensor f64[]" in str(
        e.value
    )
