"""Item assignment and in-place operators on symbolic arrays give what eager NumPy gives: the
write is visible through every reference and view of the array, and writes that cannot be
staged faithfully are refused at trace time naming the user's line."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import staging
from staging import TensorSpec, errors, numpy_api

RNG = np.random.default_rng(5)
A = RNG.uniform(-2, 2, size=(3, 4))
I = RNG.integers(-5, 6, size=(3, 4)).astype(np.int32)


def text(exc) -> str:
    """An exception's message and its notes (where a failure names the user's line)."""
    return "\n".join([str(exc), *getattr(exc, "__notes__", ())])


def line_of(func, offset):
    return f"test_item_assignment.py:{func.__code__.co_firstlineno + offset}"


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def same(got, expected):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            same(g, e)
        return
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got, expected)
    np.testing.assert_array_equal(got, expected)


def staged_equals_eager(fn, *args, generalize=True, autograph=False):
    """`fn` staged (also traced with every dim unknown) returns what it returns eagerly, or raises
    the same exception type; the caller's arrays are never modified."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = fn(*_copies(args))
    except Exception as exc:  # noqa: BLE001  (the exception type is what we compare)
        with pytest.raises(type(exc)):
            staging.function(fn, autograph=autograph)(*args)
        return exc
    before = _copies(args)
    sf = staging.function(fn, autograph=autograph)
    runs = [sf]
    if generalize:
        specs = [
            TensorSpec((None,) * a.ndim, a.dtype) if isinstance(a, np.ndarray) else a for a in args
        ]
        runs.append(sf.get_concrete_function(*specs))
    for run in runs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            same(run(*args), expected)
    for a, b in zip(args, before):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
    return expected


# --- x[key] = value --------------------------------------------------------------------------

KEYS = [
    0,
    -1,
    (1, 2),
    slice(1, 3),
    (slice(None), 0),
    (Ellipsis, 1),
    (None, 0),
    (),
    Ellipsis,
    [0, 2],
    ([0, 2], [1, 3]),
    (slice(None), [3, 0, 3]),
    np.array([True, False, True]),
    A > 0,
    (1, A[1] > 0),
    (slice(None, None, -1), slice(1, None, 2)),
]


@pytest.mark.parametrize("key", range(len(KEYS)))
@pytest.mark.parametrize(
    "value",
    [
        7,
        -2.5,
        True,
        np.float32(1.25),
        np.array([1.0, 2.0, 3.0, 4.0]),
        np.array([[5], [6], [7]]),
        300,
        np.nan,
    ],
)
@pytest.mark.parametrize("x", [A, I, I.astype(np.int8), A > 0])
def test_setitem_matches_numpy(x, key, value):
    key = KEYS[key]

    def f(x, v):
        y = x.copy()
        y[key] = v
        return y

    def g(x):  # a Python number stays a literal (NEP 50: 300 into int8 raises)
        y = x.copy()
        y[key] = value
        return y

    if type(value) in (int, float, bool):
        staged_equals_eager(g, x)
    else:
        staged_equals_eager(f, x, value, generalize=False)


def test_complex_into_real_warns_at_run_time_as_numpy_does():
    def f(x, v):
        y = x.copy()
        y[0] = v
        return y

    v = np.array([1 + 2j, 3j, 1, 2j])
    with pytest.warns(np.exceptions.ComplexWarning):
        expected = f(A, v)
    staged = staging.function(f, autograph=False)
    with pytest.warns(np.exceptions.ComplexWarning):
        same(staged(A, v), expected)

    def g(x):
        y = x.copy()
        y[0] = 1j  # a Python complex into a float array: NumPy raises TypeError
        return y

    assert isinstance(staged_equals_eager(g, A), TypeError)


def test_setitem_with_symbolic_index_and_value():
    def f(x, i, j, v):
        y = x.copy()
        y[i] = v[0]
        y[:, j:] = v[1]
        y[x > 1] = v.sum()
        y[[i, 0], [j, j]] = v[:2]
        return y

    staged_equals_eager(f, A, np.int64(2), np.int64(1), np.array([9.0, 8.0, 7.0]))


def test_setitem_value_lists_are_converted_to_the_arrays_dtype():
    def f(x):
        y = x.copy()
        y[0, :2] = [x[1, 1], 2.7]
        y[1] = [0, 1, 2, 3]
        return y

    staged_equals_eager(f, I)
    staged_equals_eager(f, A)

    def too_deep(x):
        y = x.copy()
        y[0] = [[1, 2, 3, 4]]
        return y

    staged_equals_eager(too_deep, A)


def test_setitem_shape_errors_at_trace_time_name_the_line():
    def f(x):
        y = x.copy()
        y[0:2] = np.ones(3)
        return y

    exc = staged_equals_eager(f, A)
    assert isinstance(exc, ValueError)
    with pytest.raises(ValueError, match="could not broadcast") as info:
        staging.function(f, autograph=False).get_concrete_function(TensorSpec((3, 4), np.float64))
    assert line_of(f, 2) in text(info.value)


def test_functional_setitem_leaves_its_input_alone():
    @staging.function(autograph=False)
    def f(x):
        y = numpy_api.setitem(x, 0, 5.0)
        z = numpy_api.setitem(np.zeros(3), slice(1, None), x[:2])  # a NumPy array as the base
        return x, y, z

    x, y, z = f(np.ones(3))
    same(x, np.ones(3))
    same(y, np.array([5.0, 1.0, 1.0]))
    same(z, np.array([0.0, 1.0, 1.0]))
    with pytest.raises(TypeError, match="does not support item assignment"):
        staging.function(lambda x: numpy_api.setitem(np.float64(1.0), (), x), autograph=False)(
            np.float64(2.0)
        )


# --- aliasing: references and views --------------------------------------------------------------


def test_every_reference_sees_the_write():
    def f(x):
        y = x.copy()
        z = y
        z[0] = 5
        return y, z

    staged_equals_eager(f, A)


VIEW_CASES = {
    "slice": lambda y: y[1:3],
    "row": lambda y: y[0],
    "strided": lambda y: y[::-1, 1::2],
    "newaxis": lambda y: y[None, 1],
    "ellipsis": lambda y: y[..., 2],
    "symbolic bound": lambda y: y[y.shape[0] - 2 :],
    "transpose": lambda y: y.T,
    "transpose axes": lambda y: np.transpose(y, (1, 0)),
    "swapaxes": lambda y: y.swapaxes(0, 1),
    "expand_dims": lambda y: np.expand_dims(y, 1),
    "squeeze": lambda y: y[:1].squeeze(0),
    "view of a view": lambda y: y[1:].T[1:3],
    "asarray": lambda y: np.asarray(y),
    "astype no copy": lambda y: y.astype(y.dtype, copy=False),
}


@pytest.mark.parametrize("name", sorted(VIEW_CASES))
def test_writing_a_view_writes_its_base_and_other_views(name):
    make = VIEW_CASES[name]

    def f(x):
        y = x.copy()
        v = make(y)
        other = y[1]
        v[...] = 0.5
        v[0] = -1
        return y, v, other

    def g(x):  # a write into the base reaches a view made before it
        y = x.copy()
        v = make(y)
        y[1] = 3
        y += 1
        return v, y

    staged_equals_eager(f, A, autograph=True)  # converted code routes np.asarray to staging
    staged_equals_eager(g, A, autograph=True)


def test_copies_do_not_share_memory():
    def f(x):
        y = x.copy()
        a = y[[0, 2]]  # advanced indexing: a copy
        b = y[y > 0]  # a mask: a copy
        c = y.flatten()  # always a copy
        d = np.array(y)  # a copy
        e = y[0, 1]  # one element: a scalar
        a[0] = 9
        b[0] = 9
        c[0] = 9
        d[0] = 9
        y[0, 1] = 100
        return y, a, b, c, d, e

    staged_equals_eager(f, A, autograph=True)


def test_a_0d_index_array_copies_and_a_symbolic_integer_index_is_a_view():
    def f(x, i):
        y = x.copy()
        a = y[np.array(1)]  # a 0-d integer array index: a copy in NumPy
        b = y[i]  # a NumPy integer (here an argument): a view
        a[0] = 50
        b[1] = 60
        return y, a, b

    staged_equals_eager(f, A, np.int64(2))


def test_in_place_on_a_selection():
    def f(x):
        y = x.copy()
        y[0] += 1  # a view: written in place, then assigned back
        y[[1, 2], 0] *= 2  # a copy, assigned back by Python
        y[2, 3] -= 5  # a scalar: Python falls back to y[2, 3] = y[2, 3] - 5
        y[..., 1:] /= 4
        return y

    staged_equals_eager(f, A)


def test_0d_values_are_scalars_for_in_place_operators():
    def f(x):
        s = x.sum()
        t = s
        s += 1
        u = x[0, 0]
        w = u
        u *= 3
        return s, t, u, w

    staged_equals_eager(f, A)


# --- in-place operators, out=, sort, fill ----------------------------------------------------


@pytest.mark.parametrize(
    "op", ["+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=", "<<=", ">>=", "@="]
)
@pytest.mark.parametrize(
    "x,other",
    [
        (A, 2),
        (A, 1.5),
        (I, 2),
        (I, 1.5),
        (I, A),
        (I.astype(np.int8), 300),
        (I.astype(np.uint8), np.int8(1)),
        (A, A[0]),
        (A, np.ones((2, 3, 4))),
        (A[:, :3], np.eye(3)),
        (A > 0, True),
    ],
)
def test_in_place_operators_match_numpy(op, x, other):
    ns = {}
    exec(f"def f(x, o):\n    y = x.copy()\n    z = y\n    y {op} o\n    return y, z\n", ns)  # noqa: S102
    exec(f"def g(x):\n    y = x.copy()\n    y {op} {other!r}\n    return y\n", ns)  # noqa: S102
    if type(other) in (int, float, bool):
        staged_equals_eager(ns["g"], x)
    else:
        staged_equals_eager(ns["f"], x, other, generalize=False)


def test_in_place_casting_error_is_numpys_and_names_the_line():
    def f(x):
        y = x.copy()
        y += 1.5
        return y

    with pytest.raises(np._core._exceptions._UFuncOutputCastingError) as info:
        staging.function(f, autograph=False)(I)
    assert isinstance(info.value, TypeError) and "same_kind" in text(info.value)
    assert line_of(f, 2) in text(info.value)


def test_ufunc_out_writes_in_place():
    def f(x):
        y = x.copy()
        r = np.add(y, 1, out=y)
        np.multiply(x, 2, out=y[1])
        return y, r is y

    staged_equals_eager(f, A)

    def into_numpy_array(x):
        a = np.zeros(4)
        a += x[0]
        return a

    with pytest.raises(errors.UnsupportedOpError, match="a = a \\+ t") as info:
        staging.function(into_numpy_array, autograph=False)(A)
    assert line_of(into_numpy_array, 2) in text(info.value) and "np.add" in text(info.value)


def test_read_only_views_raise_like_numpy():
    for write in (lambda v: v.__setitem__(0, 1.0), lambda v: v.__iadd__(1.0)):

        def f(x, write=write):
            y = x.copy()
            write(np.broadcast_to(y[0], (2, 4)))
            write(np.diagonal(y))
            return y

        assert isinstance(staged_equals_eager(f, A), ValueError)
        with pytest.raises(ValueError, match="read-only") as info:
            staging.function(f, autograph=False)(A)
        assert f"test_item_assignment.py:{write.__code__.co_firstlineno}:" in text(
            info.value
        )  # the write

    def g(x):  # a read-only view still sees writes into its base
        y = x.copy()
        b = np.broadcast_to(y[0], (2, 4))
        d = y.diagonal()
        y[0, 0] = 50
        return b, d

    staged_equals_eager(g, A)


def test_sort_and_fill_in_place():
    def f(x):
        y = x.copy()
        z = y[1]
        y.sort(axis=0)
        w = y.copy()
        w.fill(2)
        z2 = y[:, 0]
        z2.sort()
        return y, z, w

    staged_equals_eager(f, A)
    for fill in (300, np.nan, 2.7):
        staged_equals_eager(
            lambda x, fill=fill: (lambda y: (y.fill(fill), y)[1])(x.copy()), I.astype(np.int8)
        )
    staged_equals_eager(lambda x: (lambda y: (y.fill(x[0]), y)[1])(x.copy()), A)
    with pytest.raises(TypeError):
        staging.function(lambda x: x.copy().sort(axis=None), autograph=False)(A)


# --- reshape: a view or a copy ---------------------------------------------------------------------


def test_writing_through_a_reshape_is_refused():
    def f(x):
        y = x.copy()
        r = y.reshape(4, 3)
        r[0] = 1
        return y

    with pytest.raises(errors.MutationError, match="reshape") as info:
        staging.function(f, autograph=False)(A)
    assert line_of(f, 3) in text(info.value) and "'r'" in text(info.value)


def test_reading_a_reshape_after_its_base_was_written_is_refused():
    def f(x):
        y = x.copy()
        r = np.ravel(y)
        y[0] = 1
        return r.sum()

    with pytest.raises(errors.MutationError, match="reshape") as info:
        staging.function(f, autograph=False)(A)
    assert line_of(f, 4) in text(info.value) and line_of(f, 3) in text(info.value)
    assert (
        str(info.value).split(": ", 1)[1].startswith("'r' is the result of a reshape/ravel made at")
    )

    def fine(x):  # reshape after the write, or copy the reshape before it
        y = x.copy()
        r = y.reshape(-1).copy()
        y[0] = 1
        return y.reshape(-1), r

    staged_equals_eager(fine, A)


# --- arguments -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "write",
    [
        "x[0] = 1",
        "x += 1",
        "x[1:][0] = 1",
        "x.T[0] += 1",
        "x.sort()",
        "x.fill(0)",
        "np.add(x, 1, out=x)",
    ],
)
def test_writing_into_an_argument_writes_the_callers_array(write):
    ns = {"np": np}
    exec(compile(f"def f(x):\n    {write}\n    return x\n", __file__, "exec"), ns)  # noqa: S102
    eager_x, staged_x = A.copy()[::-1], A.copy()[::-1]
    eager = ns["f"](eager_x)
    staged = staging.function(ns["f"], autograph=False)(staged_x)
    np.testing.assert_array_equal(staged_x, eager_x)
    assert staged is staged_x and eager is eager_x  # `return x` gives the caller's array


def test_writing_into_a_copy_of_an_argument_is_fine():
    def f(x):
        x = x.copy()
        x[0] = 1
        x += 1
        return x

    staged_equals_eager(f, A)


def test_in_place_operators_on_a_0d_argument_rebind_the_name():
    def f(x):
        y = x
        x += 1
        return x, y

    staged_equals_eager(f, np.float64(2.0), generalize=False)


# --- writes inside staged control flow -------------------------------------------------------------


def test_writing_an_outer_array_inside_a_staged_if_merges_the_write():
    def f(x):
        y = x.copy()
        v = y[1:]  # a view: it sees the write too
        if x[0, 0] > 0:
            y[0] = 5
            y[2, 1] += 10
        return y, v

    for a in (A, -A):
        staged_equals_eager(f, a, generalize=False, autograph=True)


def test_writing_an_outer_array_inside_a_staged_loop_carries_the_write():
    def f(x, n):
        y = x.copy()
        for i in range(n):
            y[i] = y[i] * 2 + i
            if y[i, 0] > 4:
                y[i, 1] = -1
        return y

    for n in (0, 1, 3):
        staged_equals_eager(f, A, np.int64(n), generalize=False, autograph=True)


def test_writes_inside_staged_control_flow_to_rebound_names_work():
    def f(x, n):
        y = x.copy()
        if x[0, 0] > 0:
            y = y.copy()
            y[0] = 5
        for i in range(n):
            y = y.copy()
            y[i] += 1
        z = x.copy()
        for i in range(n):
            z += 1  # an augmented assignment makes z a loop variable
            z[i] = 0
        return y, z

    for a in (A, -A):
        staged_equals_eager(f, a, np.int64(2), generalize=False, autograph=True)


def test_an_unused_write_of_a_non_finite_float_into_an_integer_array_raises_as_eagerly():
    def f(x, y):
        v = -(x >> 3)
        v[-1] = 0.5 / (2 // y)  # inf when 2 // y is 0: OverflowError eagerly, though v is unused
        return y * 2

    x = np.array([True, True])
    with pytest.raises(OverflowError):
        f(x, np.float64(2.5))
    with pytest.raises(OverflowError):
        staging.function(f)(x, np.float64(2.5))
    assert staging.function(f)(x, np.float64(0.5)) == f(x, np.float64(0.5))


def test_an_unused_write_of_a_wider_integer_that_does_not_fit_raises_as_eagerly():
    def f(x, i):
        v = x.astype(np.int8)
        v[0] = x[i]  # OverflowError eagerly when x[i] does not fit int8
        return x[0]

    x = np.array([3, 5, 300])
    with pytest.raises(OverflowError):
        f(x, 2)
    with pytest.raises(OverflowError):
        staging.function(f)(x, 2)
    assert staging.function(f)(x, 1) == f(x, 1)
