"""staging.print, staging.assert_true, staging.py_function and staging.constant."""

from __future__ import annotations

import numpy as np
import pytest
from _staging_helpers import assert_same

import staging
from staging import TensorSpec


def text(exc) -> str:
    """An exception's message and its notes (a run-time failure names the user's line in a note)."""
    return "\n".join([str(exc), *getattr(exc, "__notes__", ())])


def line_below(func, offset):
    return func.__code__.co_firstlineno + offset


# -- print --------------------------------------------------------------------------

PRINT_INPUTS = [
    np.float64(1.0),
    np.float64(0.1) + np.float64(0.2),
    np.float32(1 / 3),
    np.int64(-7),
    np.True_,
    np.arange(3.0),
    np.arange(12).reshape(3, 4),
    np.linspace(0, 1, 7).astype(np.float32),
    np.array([1e-10, 1e10]),
    np.array([[True, False]]),
    np.arange(2000.0),  # summarised by NumPy's threshold
    np.array([np.nan, -np.inf]),
]


@pytest.mark.parametrize("value", PRINT_INPUTS, ids=lambda v: f"{type(v).__name__}{np.shape(v)}")
def test_staged_print_matches_python_print(value, capsys):
    def show(x):
        staging.print("value:", x, "doubled", x * 2, "shape", np.shape(x), sep=" | ", end=" <\n")
        return x

    f = staging.function(show, autograph=False)
    f(value)
    staged = capsys.readouterr().out
    print("value:", value, "doubled", value * 2, "shape", np.shape(value), sep=" | ", end=" <\n")
    expected = capsys.readouterr().out
    assert staged == expected
    show(value)  # eager staging.print is Python's print
    assert capsys.readouterr().out == expected


def test_staged_print_runs_on_every_call(capsys):
    @staging.function(autograph=False)
    def f(x):
        staging.print("x =", x)
        staging.print("sum:", x.sum())
        return x + 1

    for i in range(3):
        f(np.full(2, float(i)))
    assert capsys.readouterr().out == (
        "x = [0. 0.]\nsum: 0.0\nx = [1. 1.]\nsum: 2.0\nx = [2. 2.]\nsum: 4.0\n"
    )
    assert f.tracing_count == 1


def test_staged_print_in_loop_and_branch_in_program_order(capsys):
    def g(n):
        def body(i):
            staging.cond(
                i % 2 == 0, lambda: staging.print("even", i), lambda: staging.print("odd", i)
            )
            return (i + 1,)

        staging.print("start")
        staging.while_loop(lambda i: i < n, body, (np.int64(0),))
        staging.print("end")
        return n

    f = staging.function(g, autograph=False)
    f(np.int64(3))
    staged = capsys.readouterr().out
    g(np.int64(3))
    assert staged == capsys.readouterr().out == "start\neven 0\nodd 1\neven 2\nend\n"


def test_staged_print_of_variable_and_python_objects(capsys):
    v = staging.Variable(np.array([1, 2]))

    @staging.function(autograph=False)
    def f(x):
        staging.print(v, {"k": 1}, None, 2.5, x)
        v.assign_add(np.ones(2, np.int64))

    f(np.float64(0.5))
    f(np.float64(0.5))
    assert capsys.readouterr().out == "[1 2] {'k': 1} None 2.5 0.5\n[2 3] {'k': 1} None 2.5 0.5\n"


def test_eager_print_of_leaked_tensor_is_an_error():
    leaked = []

    @staging.function(autograph=False)
    def f(x):
        leaked.append(x * 2)
        return x

    f(np.float64(1.0))
    with pytest.raises(staging.errors.LeakedTensorError) as info:
        staging.print(leaked[0])
    assert "test_debugging.py:" in text(info.value)


# -- assert_true ------------------------------------------------------------------------


def check_positive(x):
    staging.assert_true(np.all(x > 0), "x must be positive")
    return np.log(x)


def test_staged_assert_passes_and_fails():
    f = staging.function(check_positive, autograph=False)
    x = np.array([1.0, 2.0])
    assert_same(f(x), check_positive(x))
    with pytest.raises(AssertionError) as info:
        f(np.array([1.0, -2.0]))
    message = text(info.value)
    assert "x must be positive" in message
    assert f"test_debugging.py:{line_below(check_positive, 1)}" in message
    assert type(info.value) is AssertionError  # as eagerly
    with pytest.raises(AssertionError, match="x must be positive"):  # eagerly the same error type
        check_positive(np.array([1.0, -2.0]))
    assert f.tracing_count == 1


def test_staged_assert_with_tensor_message_and_no_message():
    @staging.function(autograph=False)
    def f(x):
        staging.assert_true(x < 10, x)
        staging.assert_true(x > 0)
        return x

    assert f(np.int64(5)) == 5
    with pytest.raises(AssertionError) as info:
        f(np.int64(12))
    assert str(info.value) == "12"  # the message eager Python's assert gives
    assert info.value.__notes__[0].startswith(f"{__file__}:{line_below(f.python_function, 2)}: ")
    with pytest.raises(AssertionError) as info:
        f(np.int64(-1))
    assert f"test_debugging.py:{line_below(f.python_function, 3)}" in text(info.value)


def test_assert_stays_in_graph_even_if_unused():
    @staging.function(autograph=False)
    def f(x):
        staging.assert_true(x.sum() > 0, "never removed")
        return np.float64(0.0)

    with pytest.raises(AssertionError, match="never removed"):
        f(-np.ones(2))


def test_assert_on_non_scalar_is_a_trace_error():
    @staging.function(autograph=False)
    def f(x):
        staging.assert_true(x > 0)
        return x

    with pytest.raises(staging.errors.SymbolicValueError, match="all") as info:
        f(np.ones(2))
    assert f"test_debugging.py:{line_below(f.python_function, 2)}" in text(info.value)


def test_eager_assert_true():
    staging.assert_true(True, "fine")
    staging.assert_true(np.True_)
    with pytest.raises(AssertionError, match="^boom$"):
        staging.assert_true(np.False_, "boom")
    with pytest.raises(AssertionError):
        staging.assert_true(0)


def test_assert_in_loop_runs_every_iteration():
    @staging.function(autograph=False)
    def f(x):
        def body(i):
            staging.assert_true(x[i] != 0, "zero element")
            return (i + 1,)

        return staging.while_loop(lambda i: i < x.shape[0], body, (np.int64(0),))[0]

    assert f(np.array([1.0, 2.0, 3.0])) == 3
    with pytest.raises(AssertionError, match="zero element") as info:
        f(np.array([1.0, 0.0, 3.0]))
    assert f"test_debugging.py:{line_below(f.python_function, 3)}" in text(info.value)


# -- py_function ----------------------------------------------------------------------------


def test_py_function_staged_matches_eager():
    calls = []

    def py_median(a):
        calls.append(type(a))
        return np.median(a)

    def g(x):
        return staging.py_function(py_median, [x * 2], np.float64) + 1

    f = staging.function(g, autograph=False)
    for x in (np.arange(5.0), np.array([3.0, 1.0])):
        assert_same(f(x), g(x))
    # at run time the Python function sees NumPy values, on every call
    assert calls == [np.ndarray] * 4


def test_py_function_several_outputs_and_specs():
    def split(a):
        return a[: len(a) // 2], np.int64(len(a))

    def g(x):
        head, n = staging.py_function(split, [x], [TensorSpec([None], np.float64), np.int64])
        return head * 2, n

    f = staging.function(g, autograph=False)
    for x in (np.arange(4.0), np.arange(7.0)):
        assert_same(f(x), g(x))
    assert f.tracing_count == 2


def test_py_function_output_cast_to_tout():
    @staging.function(autograph=False)
    def f(x):
        return staging.py_function(lambda a: int(a) * 2, [x], np.float32)

    out = f(np.int64(3))
    assert out == 6.0 and type(out) is np.float32


def test_py_function_shape_mismatch_names_user_line():
    @staging.function(autograph=False)
    def f(x):
        return staging.py_function(lambda a: a[:1], [x], TensorSpec([2], np.float64))

    with pytest.raises(ValueError, match="shape") as info:
        f(np.arange(3.0))
    assert f"test_debugging.py:{line_below(f.python_function, 2)}" in text(info.value)


def test_py_function_exception_keeps_its_type_and_names_user_line():
    def fails(a):
        raise KeyError("no such key")

    @staging.function(autograph=False)
    def f(x):
        return staging.py_function(fails, [x], np.float64)

    with pytest.raises(KeyError) as info:
        f(np.float64(1.0))
    assert "no such key" in text(info.value)
    assert f"test_debugging.py:{line_below(f.python_function, 2)}" in text(info.value)


def test_py_function_is_not_removed_when_unused():
    log = []

    @staging.function(autograph=False)
    def f(x):
        staging.py_function(lambda a: log.append(float(a)) or 0.0, [x], np.float64)
        return x

    f(np.float64(1.0))
    f(np.float64(2.0))
    assert log == [1.0, 2.0]


# -- constant -------------------------------------------------------------------------------


def test_constant_eager_and_staged():
    assert_same(staging.constant([1, 2], dtype=np.float32), np.array([1, 2], np.float32))
    assert type(staging.constant(3)) is np.int64

    def g(x):
        c = staging.constant([1.0, 2.0])
        return x + c, staging.constant(x, dtype=np.float32)

    f = staging.function(g, autograph=False)
    x = np.array([3.0, 4.0])
    assert_same(f(x), g(x))
    assert "const" in str(f.get_concrete_function(x).graph)


def test_py_function_eager_checks_like_staged():
    def pair(a, b):
        return a + b, a - b

    out = staging.py_function(
        pair,
        [np.ones(2), np.ones(2)],
        (TensorSpec([None], np.float32), TensorSpec([2], np.float64)),
    )
    assert isinstance(out, list) and len(out) == 2
    assert_same(out[0], np.full(2, 2.0, np.float32))
    assert_same(out[1], np.zeros(2))
    # the first output is declared 0-d but is an array: an error eagerly, as in a graph
    with pytest.raises(ValueError, match="shape") as info:
        staging.py_function(pair, [1.0, np.ones(2)], [np.float64, TensorSpec([2], np.float64)])
    assert "test_debugging.py:" in text(info.value)
    with pytest.raises(ValueError, match="returned 1 values"):
        staging.py_function(lambda a: (a,), [1.0], [np.float64, np.float64])
    single = staging.py_function(lambda a: a * 2, [np.float32(1.5)], np.float64)
    assert single == 3.0 and type(single) is np.float64


def test_error_types_exported():
    e = staging.errors
    for name in (
        "StagingError",
        "ConversionError",
        "UnsupportedConstructError",
        "UndefinedNameError",
        "SymbolicValueError",
        "UnsupportedOpError",
        "LeakedTensorError",
        "RecursionInTraceError",
        "LoopVariableError",
        "BranchMismatchError",
        "ExecutionError",
    ):
        assert issubclass(getattr(e, name), e.StagingError)
    assert issubclass(e.SymbolicValueError, TypeError)
    assert issubclass(e.UndefinedNameError, NameError)
    assert issubclass(e.RecursionInTraceError, RecursionError)
