"""0-d ndarrays against NumPy scalars (staging.kinds.forms): a graph types both as (dtype, ()), and
they differ where Python writes in place. `x += 1` writes into a 0-d array (every name bound
to it sees the write) and rebinds a name bound to a NumPy scalar; `x[()] = v` and `out=x` need
the array. Staged results are compared with the eager function's on the same inputs: same
Python type (ndarray or NumPy scalar), dtype and value, and the same identities among the
results; or a clear refusal where one graph cannot give both answers."""

from __future__ import annotations

import numpy as np
import pytest

import staging
from staging import errors

pytestmark = pytest.mark.filterwarnings("ignore::staging.RetracingWarning")  # each test stages anew


def run(f, *args):
    """The result of f(*args), or the type of the exception it raised."""
    try:
        return f(*args)
    except Exception as exc:  # noqa: BLE001 - compared by the caller
        return type(exc)


def agree(f, *args):
    """Staged f gives eager f's answer on `args` (copies: eagerly f may write into them)."""
    eager = run(f, *[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
    staged = run(
        staging.function(f), *[np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
    )
    if isinstance(eager, type):
        assert isinstance(staged, type) and issubclass(staged, eager), (staged, eager)
        return staged
    results = (eager, staged) if isinstance(eager, tuple) else ((eager,), (staged,))
    for e, s in zip(*results):
        assert type(s) is type(e), (s, e)
        assert np.asarray(s).dtype == np.asarray(e).dtype, (s, e)
        np.testing.assert_array_equal(s, e)
    for i, e in enumerate(results[0]):  # which results are the same object
        for j, e2 in enumerate(results[0]):
            assert (results[1][i] is results[1][j]) == (e is e2), (i, j)
    return staged


ARGS = [(np.bool_(True), np.int64(n)) for n in (0, 1, 3)] + [(np.bool_(False), np.int64(2))]


# -- values computed in the function ---------------------------------------------------


def where_written_in_place(c, n):
    s = np.where(c, 1.5, 0.5)
    t = s
    s *= 2
    return s, t


def where_written_in_a_loop(c, n):
    s = np.where(c, 1.5, 0.5)
    t = s
    for i in range(n):
        s *= 2
    return s, t


def asarray_of_a_scalar_written(c, n):
    y = np.asarray(n * 2)
    z = y
    y += 1
    return y, z


def array_with_dtype_written(c, n):
    y = np.array(n * 2, dtype=np.float32)
    y -= 0.5
    return y


def rebinding_in_the_loop_then_writing(c, n):
    s = np.where(c, 1.0, 2.0)
    for i in range(n):
        s = s * 2  # a NumPy scalar from the first iteration on
    s += 1  # the array when the loop ran zero times: MIXED, refused below
    return s


def same_kind_on_both_branches(c, n):
    if c:
        s = np.where(c, n, 0)
    else:
        s = np.asarray(n)
    s += 1
    return s


def scalar_copy_written(c, n):
    y = (n * 2).copy()  # a NumPy scalar's copy() is a NumPy scalar
    z = y
    y += 1
    return y, z


@pytest.mark.parametrize("args", ARGS)
@pytest.mark.parametrize(
    "f",
    [
        where_written_in_place,
        where_written_in_a_loop,
        asarray_of_a_scalar_written,
        array_with_dtype_written,
        same_kind_on_both_branches,
        scalar_copy_written,
    ],
)
def test_writes_into_computed_zero_d_arrays_agree(f, args):
    agree(f, *args)


def test_an_array_that_passed_through_a_loop_written_in_place_keeps_its_aliases():
    s, t = staging.function(where_written_in_a_loop)(np.bool_(True), np.int64(3))
    assert type(s) is np.ndarray and s is t and s == 12.0


def test_writing_into_a_value_that_is_an_array_on_some_paths_only_is_refused():
    def f(c, x):
        if c:
            y = np.where(c, x, x)
        else:
            y = x * 2
        y += 1
        return y

    with pytest.raises(errors.MutationError) as info:
        staging.function(f)(np.bool_(True), np.float64(2.0))
    message = str(info.value)
    assert "test_zero_d_arrays.py" in message and "'y'" in message
    assert "0-d array on some paths and a NumPy scalar on others" in message
    assert "y = y + ..." in message and "np.asarray(y)" in message


def test_a_loop_whose_body_rebinds_its_array_is_traced_with_both_kinds():
    # The first trace of the body assumes the array the loop starts with; the body makes a
    # NumPy scalar of it, so the loop is traced again, and the write after it is refused.
    with pytest.raises(errors.MutationError, match="'s'"):
        staging.function(rebinding_in_the_loop_then_writing)(np.bool_(True), np.int64(2))


def test_a_write_in_the_body_of_a_loop_that_rebinds_is_refused():
    def f(c, n):
        s = np.where(c, 1.0, 2.0)
        for i in range(n):
            s += 1  # into the array on the first iteration, rebinding afterwards
            s = s * 1
        return s

    with pytest.raises(errors.MutationError, match="some paths"):
        staging.function(f)(np.bool_(True), np.int64(2))


@pytest.mark.differs_on("numba", "its results are new NumPy scalars, never the same object")
def test_scalar_writes_still_rebind():
    def f(x, n):
        s = x * 1.0
        prev = s
        for i in range(n):
            s += x
        return s, prev

    agree(f, np.float64(1.5), np.int64(3))
    agree(f, np.float64(1.5), np.int64(0))


# -- item assignment and out= ------------------------------------------------------------


def test_item_assignment_into_a_numpy_scalar_raises_as_eagerly():
    def f(x):
        y = x * 1.0
        y[()] = 5.0
        return y

    assert agree(f, np.float64(2.0)) is TypeError
    with pytest.raises(TypeError, match="'numpy.float64' object does not support item assignment"):
        staging.function(f)(np.float64(2.0))

    def g(x):
        y = np.where(x > 0, x, 0.0)
        y[()] = 5.0
        return y

    agree(g, np.float64(2.0))


def test_out_into_a_numpy_scalar_raises_as_eagerly():
    def f(x):
        y = x * 1.0
        np.add(y, 1.0, out=y)
        return y

    assert agree(f, np.float64(2.0)) is TypeError

    def g(x):
        y = np.asarray(x * 1.0)
        np.add(y, 1.0, out=y)
        return y

    agree(g, np.float64(2.0))


# -- arguments ---------------------------------------------------------------------------


def test_a_zero_d_array_argument_is_written_and_a_scalar_one_rebinds():
    def f(x):
        x += 1
        return x

    g = staging.function(f)
    assert g(np.float64(2.0)) == 3.0 and type(g(np.float64(2.0))) is np.float64
    x = np.array(2.0)
    assert g(x) is x and x == 3.0  # as eagerly: the caller's 0-d array is written


def test_zero_d_arrays_and_scalars_share_a_trace_that_does_not_write_into_them():
    traces = []

    def f(x):
        traces.append(1)
        return x * 2

    g = staging.function(f)
    g(np.float64(1.0))
    g(np.array(1.0))
    g(np.float64(2.0))
    assert len(traces) == 1


def test_a_trace_that_writes_into_an_argument_serves_only_its_kind():
    traces = []

    def f(x):
        traces.append(1)
        y = x
        y += 1
        return y

    g = staging.function(f)
    assert g(np.float64(1.0)) == 2.0
    x = np.array(1.0)
    assert g(x) is x and x == 2.0
    assert g(np.float64(5.0)) == 6.0 and type(g(np.float64(5.0))) is np.float64
    assert len(traces) == 2


def test_a_concrete_function_takes_both_kinds():
    g = staging.function(lambda x: x + 1)
    cf = g.get_concrete_function(np.float64(1.0))
    assert cf(np.array(2.0)) == 3.0 and cf(np.float64(2.0)) == 3.0


# -- loops on Python numbers ("unboxed") keep the objects they pass through -------------------


def loop_returning_its_argument(x, n):
    k = 0
    while k < n:
        k += 1
        if k < 5:
            return x
    return x


def loop_passing_a_capture_through(x, n):
    k = 0
    v = x * 2
    while k < n:
        k += 1
        v = x
    return v


def loop_swapping(a, b, n):
    for i in range(n):
        a, b = b, a
    return a, b


@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("x", [np.array(3, np.int8), np.int8(3), np.array(2.5), np.float64(2.5)])
def test_scalar_loops_keep_zero_d_arrays(x, n):
    agree(loop_returning_its_argument, x, np.int32(n))
    agree(loop_passing_a_capture_through, x, np.int32(n))
    agree(
        loop_swapping,
        x,
        x.dtype.type(7) if isinstance(x, np.ndarray) else np.asarray(7, x.dtype),
        np.int32(n),
    )


def test_an_input_signature_trace_that_writes_into_its_argument_serves_one_kind():
    traces = []

    def f(x):
        traces.append(1)
        x -= 1
        return x

    g = staging.function(f, input_signature=[staging.TensorSpec([], np.float64)])
    assert type(g(np.float64(3.0))) is np.float64
    x = np.array(3.0)
    assert g(x) is x and x == 2.0 and len(traces) == 2
    h = staging.function(lambda x: x * 2, input_signature=[staging.TensorSpec([], np.float64)])
    assert h(np.array(3.0)) == 6.0 and h(np.float64(3.0)) == 6.0
    assert h.experimental_get_tracing_count() == 1


def complex_meets_float64(z, y):
    u = np.sum(np.array([y, y]))  # a float64 scalar, whatever y is
    return z != y, z == y, z / y, z * y, z + y, z - y, z**y, z * u, (1 - 2j) / u


def test_a_python_complex_meets_a_zero_d_array_as_numpy_and_a_scalar_as_python():
    # complex's own operators take a np.float64 (a float subclass): Python results; a 0-d
    # array leaves them to NumPy: NumPy results (seed 263: `z != y` gave True, not np.True_).
    f = staging.function(complex_meets_float64)
    for y in (np.array(0.5), np.float64(0.5), np.array(-2.0), np.float64(3.0)):
        eager, staged = complex_meets_float64(1 - 1j, y), f(1 - 1j, y)
        assert [type(v) for v in staged] == [type(v) for v in eager], y
        assert all(np.array_equal(s, e) for s, e in zip(staged, eager))
    on_array, on_scalar = (
        complex_meets_float64(1j, np.array(1.0)),
        complex_meets_float64(1j, np.float64(1)),
    )
    assert type(on_array[0]) is np.bool_ and type(on_array[4]) is np.complex128
    assert type(on_scalar[0]) is bool and type(on_scalar[4]) is complex
