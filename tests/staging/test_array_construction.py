"""np.array / np.asarray / np.stack of symbolic values and of lists built by staged loops give
what eager NumPy gives: its dtype discovery, shapes, and its result (or error) for an empty list."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import staging
from staging import errors

RNG = np.random.default_rng(11)
A = RNG.uniform(-2, 2, size=(3, 4))
F32 = A.astype(np.float32)
I8 = RNG.integers(-5, 6, size=(3, 4)).astype(np.int8)


def text(exc) -> str:
    """An exception's message and its notes (where a failure names the user's line)."""
    return "\n".join([str(exc), *getattr(exc, "__notes__", ())])


def same(got, expected):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            same(g, e)
        return
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got, expected)
    np.testing.assert_array_equal(got, expected)


def staged_equals_eager(fn, *args):
    """`fn` converted and staged returns what it returns eagerly, or raises the same exception type."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's warnings (mean of an empty list) in both runs
        try:
            expected = fn(*args)
        except Exception as exc:  # noqa: BLE001  (the exception type is what we compare)
            with pytest.raises(type(exc)) as info:
                staging.function(fn)(*args)
            return info.value
        same(staging.function(fn)(*args), expected)
    return expected


# --- np.array of lists holding symbolic values ----------------------------------------------------

ARRAY_CASES = {
    "scalars": lambda x: np.array([x[0, 0], x[1, 1]]),
    "with a Python float": lambda x: np.array([x[0, 0], 2.0]),
    "with a Python int": lambda x: np.array([x[0, 0], 300]),
    "with a NumPy scalar": lambda x: np.array([x[0, 0], np.float16(1)]),
    "with a bool": lambda x: np.array([x[0, 0], True]),
    "with a complex": lambda x: np.array([x[0, 0], 1j]),
    "rows": lambda x: np.array([x[0], x[2]]),
    "nested": lambda x: np.array([[x[0, 0], 1.5], [2, x[1, 1]]]),
    "row and list": lambda x: np.array([x[0], [1, 2, 3, 4]]),
    "row and array": lambda x: np.array((x[0], np.arange(4))),
    "dtype": lambda x: np.array([x[0, 0], 2.7], dtype=np.int32),
    "dtype overflow": lambda x: np.array([x[0, 0], 300], dtype=np.int8),
    "ndmin": lambda x: np.array([x[0, 0], 1], ndmin=3),
    "inhomogeneous": lambda x: np.array([x[0], x[0, :2]]),
    "asarray": lambda x: np.asarray([x[0, 0], x[0, 1]], dtype=np.float64),
    "of a tensor": lambda x: np.array(x, dtype=np.float32),
    "asarray of a tensor": lambda x: np.asarray(x),
    "stack with numbers": lambda x: np.stack([x[0, 0], 2.0]),
    "stack rows": lambda x: np.stack([x[0], x[1]], axis=1),
    "operand list": lambda x: x[0] + [x[1, 0], 1.0, 2.0, 3.0],
}


@pytest.mark.parametrize("name", sorted(ARRAY_CASES))
@pytest.mark.parametrize("x", [A, F32, I8], ids=["f64", "f32", "i8"])
def test_np_array_of_symbolic_values_matches_numpy(name, x):
    staged_equals_eager(ARRAY_CASES[name], x)


def test_np_array_copies_and_asarray_does_not():
    def f(x):
        y = x.copy()
        a = np.asarray(y)
        b = np.array(y)
        c = np.array(y, copy=None)
        y[0] = 7
        return a, b, c

    staged_equals_eager(f, A)

    def no_copy(x):
        return np.array([x[0, 0], x[0, 1]], copy=False)

    staged_equals_eager(no_copy, A)


def test_object_arrays_are_refused():
    def f(x):
        return np.array([x[0, 0], None])

    with pytest.raises(errors.UnsupportedOpError, match="object array") as info:
        staging.function(f)(A)
    assert f"test_array_construction.py:{f.__code__.co_firstlineno + 1}" in text(info.value)


def test_unsupported_arguments_when_converting_a_staged_list():
    def f(x, n):
        out = []
        for i in range(n):
            out.append(x[0] * i)
        return np.array(out, ndmin=3)

    with pytest.raises(errors.UnsupportedOpError, match="ndmin=3") as info:
        staging.function(f)(A, np.int64(2))
    assert f"test_array_construction.py:{f.__code__.co_firstlineno + 4}" in text(info.value)


def test_the_graph_is_one_stack():
    def f(x):
        return np.array([x[0, 0], x[1, 1], 2.0])

    text = str(staging.function(f).get_concrete_function(F32).graph)
    assert (
        "stack" in text and text.count("astype") == 2
    )  # two f32 scalars, promoted with a Python float


# --- lists built by staged loops -------------------------------------------------------------------


def euler(y0, n):
    ys = []
    y = y0
    for i in range(n):
        y = y + 0.1 * y
        ys.append(y)
    return np.stack(ys)


def collect_scalars(x, n):
    out = []
    for i in range(n):
        out.append(x[0, 0] * i)
    return np.array(out)


def collect_rows(x, n):
    out = []
    for i in range(n):
        out.append(x[0] * i)
    return np.array(out)


def collect_with_dtype(x, n):
    out = []
    for i in range(n):
        out.append(x[0, 0] * i)
    return np.array(out, dtype=np.float32), np.asarray(out)


def stack_axis(x, n):
    out = []
    for i in range(n):
        out.append(x[0] * i)
    return np.stack(out, axis=1)


def never_appended(x, n):
    out = []
    for i in range(n):
        out = out
    return np.array(out)


def reduce_list(x, n):
    out = []
    for i in range(n):
        out.append(x[0, 0] * i)
    return np.sum(out), np.mean(out), np.max(np.asarray(out) + 1.0) if n > 0 else np.float64(0.0)


@pytest.mark.parametrize(
    "fn", [euler, collect_scalars, collect_with_dtype, stack_axis, never_appended, reduce_list]
)
@pytest.mark.parametrize("n", [0, 1, 3])
def test_lists_built_by_staged_loops_convert_like_numpy(fn, n):
    staged_equals_eager(fn, A[0] if fn is euler else A, np.int64(n))


def test_euler_of_zero_steps_raises_as_eager():
    f = staging.function(euler)
    same(f(A[0], np.int64(2)), euler(A[0], np.int64(2)))
    with pytest.raises(ValueError, match="need at least one array to stack") as info:
        f(A[0], np.int64(0))
    assert f"test_array_construction.py:{euler.__code__.co_firstlineno + 6}" in text(info.value)


def test_np_array_of_an_empty_list_of_rows_is_a_clear_run_time_error():
    f = staging.function(collect_rows)
    same(f(A, np.int64(2)), collect_rows(A, np.int64(2)))
    assert collect_rows(A, np.int64(0)).shape == (0,)  # eagerly: float64, shape (0,)
    with pytest.raises(ValueError, match=r"float64 array of shape \(0,\)") as info:
        f(A, np.int64(0))
    assert f"test_array_construction.py:{collect_rows.__code__.co_firstlineno + 4}" in text(
        info.value
    )

    def mean_rows(x, n):
        out = []
        for i in range(n):
            out.append(x[0] * i)
        return np.mean(
            out, axis=0
        )  # eagerly nan for an empty list: a scalar, not the traced f64[4]

    with pytest.raises(ValueError, match="an empty list converted to an array") as info:
        staging.function(mean_rows)(A, np.int64(0))
    assert f"test_array_construction.py:{mean_rows.__code__.co_firstlineno + 4}" in text(info.value)


def test_tensor_array_stack_keeps_its_empty_result():
    @staging.function(autograph=False)
    def f(x):
        return staging.TensorArray(np.float64, dynamic_size=True, element_shape=(2,)).stack() + x

    assert f(np.float64(1.0)).shape == (0, 2)


# --- a staged list holds values; a Python list holds the arrays themselves --------------------------


def append_then_write(y0, n):
    ys = []
    y = y0.copy()
    for i in range(n):
        ys.append(y)
        y += 1.0
    return np.stack(ys)


def write_then_append(y0, n):
    ys = []
    y = y0.copy()
    for i in range(n):
        y += 1.0
        ys.append(y)
    return np.stack(ys)


def read_then_write(y0, n):
    ys = []
    for i in range(n):
        ys.append(y0 * i)
    first = ys[0]
    first[0] = 7.0
    return np.stack(ys)


@pytest.mark.parametrize(
    "fn,line,what",
    [
        (append_then_write, 5, "appended to a list at"),
        (write_then_append, 5, "appended to a list inside a staged loop"),
        (read_then_write, 5, "read from a list at"),
    ],
)
def test_writes_a_staged_list_would_see_eagerly_are_refused(fn, line, what):
    # Eagerly every element of `ys` is the same array (or the list sees the write).
    with pytest.raises(errors.MutationError, match="the list holds the array itself") as info:
        staging.function(fn)(A[0], np.int64(3))
    assert what in text(info.value) and ("'y'" in text(info.value) or "'first'" in text(info.value))
    assert f"test_array_construction.py:{fn.__code__.co_firstlineno + line}" in text(info.value)


def test_appending_copies_or_rebinding_is_fine():
    def rebinding(y0, n):
        ys = []
        y = y0.copy()
        for i in range(n):
            y = y + 1.0
            ys.append(y)
        return np.stack(ys)

    def copying(y0, n):
        ys = []
        y = y0.copy()
        for i in range(n):
            y += 1.0
            ys.append(y.copy())
        return np.stack(ys)

    for fn in (rebinding, copying):
        staged_equals_eager(fn, A[0], np.int64(3))
