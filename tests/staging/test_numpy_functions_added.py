"""NumPy functions staged beyond the core (diag, array_equal, flatnonzero, delete, bincount,
trapezoid, cov, split, ...): the same dtype, shape, bits and Python type as NumPy, with static
and unknown dims, on the interpreter and the JAX backend; refusals and NumPy's errors name the
user's line."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from _library_helpers import assert_identical, check, check_raises

import staging
from staging import errors

RNG = np.random.default_rng(11)
V = RNG.standard_normal(5)
M = RNG.standard_normal((3, 4))
I = RNG.integers(-3, 6, (2, 3))
COUNTS = np.array([0, 3, 1, 1, 0, 7])
SQUARE = np.array([[4.0, 1.0], [1.0, 3.0]])
WITH_ZEROS = np.array([0.0, 0.0, 1.5, 0.0, -2.0, 0.0])
NANS = np.array([np.nan, 1.0, np.inf, -np.inf, 0.5])
EMPTY = np.zeros(0)

ONE_ARRAY = [
    (lambda x: np.diag(x), [V, M, I, EMPTY]),
    (lambda x: np.diag(x, 1), [V, M]),
    (lambda x: np.diag(x, -2), [V, M, I]),
    (lambda x: np.diag(x, 7), [M]),
    (lambda x: np.diagflat(x), [V, I]),
    (lambda x: np.diagflat(x, -1), [I]),
    (lambda x: np.vander(x), [V, I[0]]),
    (lambda x: np.vander(x, 3, increasing=True), [V]),
    (lambda x: np.kron(x, x), [V, I]),
    (lambda x: np.kron(x, 2 * x[:2]), [M]),
    (lambda x: np.inner(x, x), [V, M, I]),
    (lambda x: np.vdot(x, x), [V, M]),
    (lambda x: np.linalg.cond(x), [SQUARE]),
    (lambda x: np.linalg.cond(x, "fro"), [SQUARE]),
    (lambda x: np.linalg.multi_dot([x, x.T, x]), [M]),
    (lambda x: np.linalg.multi_dot([x[0], x.T, x, x[0]]), [M]),
    (lambda x: np.linalg.multi_dot([x, x.T]), [M]),
    (lambda x: np.array_equal(x, x), [M, V, NANS, EMPTY]),
    (lambda x: np.array_equal(x, x, equal_nan=True), [NANS]),
    (lambda x: np.array_equal(x, x[:2]), [M]),
    (lambda x: np.array_equal(x, x + 1), [I]),
    (lambda x: np.array_equiv(x, x[0]), [M, I]),
    (lambda x: np.isin(x, [1, 3]), [I]),
    (lambda x: np.isin(x, x[:2], invert=True), [V]),
    (lambda x: np.union1d(x, x + 1), [V, I]),
    (lambda x: np.intersect1d(x, x[::2]), [V]),
    (lambda x: np.setdiff1d(x, x[:2]), [V]),
    (lambda x: np.setxor1d(x, x + 1), [I]),
    (lambda x: np.bincount(x), [COUNTS, COUNTS[:0]]),
    (lambda x: np.bincount(x, weights=x * 0.5, minlength=10), [COUNTS]),
    (lambda x: np.digitize(x, [-0.5, 0.0, 0.5]), [V, M]),
    (lambda x: np.digitize(x, [3, 1], right=True), [I]),
    (lambda x: np.flatnonzero(x), [I, WITH_ZEROS, EMPTY]),
    (lambda x: np.delete(x, 1), [V, M]),
    (lambda x: np.delete(x, -1, axis=1), [M]),
    (lambda x: np.delete(x, [0, -1, 0], axis=0), [M]),
    (lambda x: np.delete(x, slice(1, 3), 1), [M]),
    (lambda x: np.delete(x, []), [V]),
    (lambda x: np.delete(x, [True, False, True, False, False]), [V]),
    (lambda x: np.insert(x, 1, 9.0), [V]),
    (lambda x: np.insert(x, [1, 2], [7, 8]), [V]),
    (lambda x: np.insert(x, 1, 5, axis=1), [M, I]),
    (lambda x: np.insert(x, 0, [[1], [2]], axis=1), [I]),
    (lambda x: np.append(x, x), [V, M]),
    (lambda x: np.append(x, [1.5, 2.5]), [I]),
    (lambda x: np.append(x, x, axis=0), [M]),
    (lambda x: np.extract(x > 0, x), [V, M]),
    (lambda x: np.compress([True, False, True], x, axis=0), [M]),
    (lambda x: np.compress(x[0] > 0, x, axis=1), [M]),
    (lambda x: np.trim_zeros(x), [WITH_ZEROS, EMPTY]),
    (lambda x: np.trim_zeros(x, "b"), [WITH_ZEROS]),
    (lambda x: np.partition(x, 2), [V, M]),
    (lambda x: np.partition(x, (0, 2), axis=0), [M]),
    (lambda x: np.argpartition(x, 1), [V]),
    (lambda x: np.lexsort((x, -x)), [V]),
    (lambda x: np.lexsort((x[0], x[1] > 0)), [I]),
    (lambda x: np.lexsort(x), [M, I]),
    (lambda x: np.unravel_index(x, (3, 4)), [np.array([1, 5, 11])]),
    (lambda x: np.unravel_index(x, (3, 4), order="F"), [np.array([[0, 7]])]),
    (lambda x: np.select([x > 0.5, x < -0.5], [x, -x], 7), [V, M]),
    (lambda x: np.select([x > 0, x < 0], [x, 2.5]), [I]),
    (lambda x: np.trapezoid(x), [V, M, EMPTY]),
    (lambda x: np.trapezoid(x, dx=0.5, axis=0), [M]),
    (lambda x: np.trapezoid(x, x=np.arange(5.0) ** 2), [V]),
    (lambda x: np.average(x), [V, M, I]),
    (lambda x: np.average(x, axis=1, weights=[1, 2, 3, 4]), [M]),
    (lambda x: np.average(x, axis=0, keepdims=True), [M]),
    (lambda x: np.average(x, weights=x * x, returned=True), [V]),
    (lambda x: np.correlate(x, x[:2]), [V]),
    (lambda x: np.correlate(x, x, "full"), [V]),
    (lambda x: np.gradient(x), [V, M]),
    (lambda x: np.gradient(x, 2.0, axis=1), [M]),
    (lambda x: np.gradient(x, np.arange(5.0) ** 2, edge_order=2), [V]),
    (lambda x: np.polyfit(np.arange(5.0), x, 2), [V]),
    (lambda x: np.polyfit(np.arange(3.0), x, 1), [M[:, :2]]),
    (lambda x: np.nan_to_num(x), [NANS, V]),
    (lambda x: np.nan_to_num(x, nan=-1.0, posinf=9.0), [NANS]),
    (lambda x: np.sinc(x), [V, I]),
    (lambda x: np.fix(x * 1.5), [V, I]),
    (lambda x: np.i0(x), [V]),
    (lambda x: np.isposinf(x), [NANS]),
    (lambda x: np.isneginf(x), [NANS]),
    (lambda x: np.angle(x), [V, V + 1j * V[::-1]]),
    (lambda x: np.angle(x, deg=True), [V]),
    (lambda x: np.iscomplex(x), [V, V + 0j]),
    (lambda x: np.isreal(x), [V + 1j * (V > 0)]),
    (lambda x: np.sort_complex(x), [V, I[0]]),
    (lambda x: np.unwrap(x * 3), [V, M]),
    (lambda x: np.atleast_1d(x), [V, M]),
    (lambda x: np.atleast_2d(x), [V, M]),
    (lambda x: np.atleast_3d(x), [V, M]),
    (lambda x: np.atleast_1d(x, x[0]), [V]),
    (lambda x: np.column_stack((x, x, 2 * x)), [V]),
    (lambda x: np.column_stack((x, x)), [M]),
    (lambda x: np.dstack((x, x)), [V, M]),
    (lambda x: np.fliplr(x), [M, I]),
    (lambda x: np.flipud(x), [V, M]),
    (lambda x: np.rot90(x), [M, I]),
    (lambda x: np.rot90(x, 2), [M]),
    (lambda x: np.rot90(x, -1), [M]),
    (lambda x: np.rot90(x, 4, axes=(1, 0)), [M]),
    (lambda x: tuple(np.split(x, [1, 3])), [V]),
    (lambda x: tuple(np.array_split(x, [2], axis=1)), [M]),
    (lambda x: tuple(np.vsplit(x, [1])), [M]),
    (lambda x: np.logspace(x[0], x[1], 4), [V]),
    (lambda x: np.logspace(0, x, 3, base=2.0, endpoint=False), [V]),
    (lambda x: np.geomspace(x[1] + 3, x[2] + 3, 3), [V]),
    (lambda x: np.resize(x, (2, 7)), [V, I]),
    (lambda x: np.resize(x, 3), [M]),
]


@pytest.mark.parametrize("fn,inputs", ONE_ARRAY, ids=[str(i) for i in range(len(ONE_ARRAY))])
def test_staged_as_numpy_computes_it(fn, inputs):
    for x in inputs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check(fn, x)
            # the Python type too: NumPy's bool of array_equal, a tuple of split's parts
            expected = fn(x)
            got = staging.function(fn, autograph=False)(x)
            assert type(got) is type(expected)


KNOWN_SIZES = [
    # the result's rank depends on a dim (cov of a matrix: a 0-d value for one variable), or
    # the number of results does (split into sections): refused with unknown dims (a vector is
    # one variable whatever its length), staged with known ones
    (lambda x: np.cov(x), [M, V]),
    (lambda x: np.cov(x, rowvar=False, ddof=0), [M]),
    (lambda x: np.cov(x, aweights=np.arange(1.0, 5.0)), [M]),
    (lambda x: np.cov(x, x * 2), [V]),
    (lambda x: np.corrcoef(x), [M, M[:1]]),
    (lambda x: np.corrcoef(x, x * 2), [V]),
    (lambda x: tuple(np.split(x, 2, axis=1)), [M]),
    (lambda x: tuple(np.array_split(x, 3)), [V]),
    (lambda x: tuple(np.hsplit(x, 2)), [M, np.arange(4)]),
]


@pytest.mark.parametrize("fn,inputs", KNOWN_SIZES, ids=[str(i) for i in range(len(KNOWN_SIZES))])
def test_staged_with_known_sizes(fn, inputs):
    for x in inputs:
        check(fn, x, generalize=x.ndim == 1 and "split" not in inspect.getsource(fn))
        if x.ndim == 1 and "split" not in inspect.getsource(fn):
            continue
        with pytest.raises(errors.UnsupportedOpError, match=r"test_numpy_functions_added\.py:\d+"):
            spec = staging.TensorSpec((None,) * x.ndim, x.dtype)
            staging.function(fn, autograph=False).get_concrete_function(spec)


@pytest.mark.parametrize(
    "fn,args",
    [
        (lambda x, i: np.delete(x, i), (V, np.int64(3))),
        (lambda x, i: np.delete(x, i), (V, np.array([0, 2]))),
        (lambda x, i: np.delete(x, i > 0), (V, V)),
        (lambda x, i: np.delete(x, i, axis=1), (M, np.int64(-1))),
        (lambda x, i: np.insert(x, i, 7.0), (V, np.int64(2))),
        (lambda x, i: np.insert(x, i, [7.0, 8.0]), (V, np.array([0, 5]))),
        (lambda x, i: np.partition(x, i), (V, np.int64(2))),
        (lambda a, b: np.array_equal(a, b), (M, M.copy())),
        (lambda a, b: np.array_equal(a, b), (M, M[::-1])),
        (lambda a, b: np.isin(a, b), (I, np.array([0, 2]))),
        (lambda a, w: np.bincount(a, w), (COUNTS, np.arange(6.0))),
        (lambda a, w: np.average(a, weights=w), (V, np.arange(1.0, 6.0))),
        (lambda a, b: np.kron(a, b), (I, M)),
        (lambda a, b: np.trapezoid(a, b), (V, np.arange(5.0))),
        (lambda a, b: np.linalg.lstsq(a, b), (M.T, np.arange(4.0))),
        (lambda a, b: np.linalg.lstsq(a, b, rcond=None), (M, np.ones((3, 2)))),
        (lambda a, b: np.select([a > 0], [b]), (V, np.arange(5))),
    ],
)
def test_symbolic_second_arguments(fn, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(fn, *args)


def test_python_types_of_the_results():
    def f(x):
        return np.array_equal(x, x), np.array_equiv(x, x[0]), np.allclose(x, x), np.iscomplexobj(x)

    expected = f(M)
    got = staging.function(f)(M)
    assert got == expected and [type(v) for v in got] == [bool] * 4
    # a Python bool added to a Python int is a Python int, as eagerly
    g = staging.function(lambda x: np.array_equal(x, x) + 1)
    assert g(M) == 2 and type(g(M)) is int
    assert "bool" in str(g.get_concrete_function(M).graph)


def test_diag_of_a_matrix_is_a_read_only_view():
    def write_diag(x):
        d = np.diag(x)
        d[0] = 1.0
        return d

    with pytest.raises(ValueError):
        write_diag(M.copy())
    with pytest.raises(ValueError, match="read-only"):
        staging.function(write_diag)(M.copy())


def test_views_of_new_functions_write_through():
    def f(x):
        y = x.copy()
        np.fliplr(y)[0, 0] = 100.0  # y[0, -1]
        np.atleast_2d(y[0])[0, 1] = -1.0  # y[0, 1]
        np.split(y, [1])[1][0, 0] = 7.0  # y[1, 0]
        return y

    check(f, M, generalize=False)


def test_identity_of_a_symbolic_size_in_converted_code():
    def f(x):
        return np.identity(x.shape[0]), np.identity(len(x), dtype=np.int8)

    for x in (V, M):
        assert_identical(staging.function(f)(x), f(x))
    spec = staging.TensorSpec([None], np.float64)
    assert_identical(staging.function(f).get_concrete_function(spec)(V), f(V))


@pytest.mark.parametrize(
    "fn,args",
    [
        (lambda x: np.diag(x), (np.ones((2, 2, 2)),)),
        (lambda x: np.diag(x), (np.float64(1.0),)),
        (lambda x: np.delete(x, 7), (V,)),
        (lambda x: np.delete(x, [True, False]), (V,)),
        (lambda x: np.insert(x, 9, 1.0), (V,)),
        (lambda x: np.bincount(x), (M,)),
        (lambda x: np.bincount(x), (I,)),
        (lambda x: np.bincount(x, minlength=-1), (COUNTS,)),
        (lambda x: np.vander(x), (M,)),
        (lambda x: np.inner(x, x.T), (M,)),
        (lambda x: np.vdot(x, x[:2]), (V,)),
        (lambda x: np.linalg.lstsq(x, x[:2]), (M,)),
        (lambda x: np.linalg.lstsq(x[0], x[0]), (M,)),
        (lambda x: np.linalg.multi_dot([x, x, x]), (M,)),
        (lambda x: np.linalg.multi_dot([x]), (M,)),
        (lambda x: np.average(x, weights=[1.0, 2.0]), (M,)),
        (lambda x: np.average(x, axis=1, weights=[1.0, 2.0]), (M,)),
        (lambda x: np.cov(np.ones((2, 2, 2)) * x), (V[:2],)),
        (lambda x: np.gradient(x[:1]), (V,)),
        (lambda x: np.polyfit(x, x, -1), (V,)),
        (lambda x: np.polyfit(x, x[:2], 1), (V,)),
        (lambda x: np.fliplr(x), (V,)),
        (lambda x: np.flipud(x), (np.float64(1.0),)),
        (lambda x: np.rot90(x, axes=(0, 0)), (M,)),
        (lambda x: np.rot90(x, axes=(0, 2)), (M,)),
        (lambda x: np.split(x, 2), (V,)),
        (lambda x: np.split(x, 0), (V,)),
        (lambda x: np.array_split(x, 0), (V,)),
        (lambda x: np.vsplit(x, 2), (V,)),
        (lambda x: np.select([x > 0], [x, x]), (V,)),
        (lambda x: np.select([x], [x]), (V,)),
        (lambda x: np.select([], []), (V,)),
        (lambda x: np.resize(x, (-1, 2)), (V,)),
        (lambda x: np.lexsort(()), (V,)),
        (lambda x: np.unravel_index(x, (2, 2)), (V,)),
    ],
)
def test_errors_are_numpys(fn, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_raises(fn, *args)


@pytest.mark.parametrize(
    "fn,message",
    [
        (lambda x: np.nan_to_num(x, copy=False), r"np\.nan_to_num\(\.\.\., copy=False\)"),
        (lambda x: np.polyfit(x, x, 1, full=True), r"np\.polyfit\(\.\.\., full=\.\.\.\)"),
        (lambda x: np.intersect1d(x, x, return_indices=True), r"return_indices"),
        (lambda x: np.diag(x, x.shape[0] - 6), r"a symbolic k"),
        (lambda x: np.split(x, x.shape[0] // 2), r"a symbolic sections"),
    ],
)
def test_refusals_name_the_function_and_the_line(fn, message):
    spec = staging.TensorSpec([None], np.float64)
    with pytest.raises(errors.UnsupportedOpError, match=message) as refused:
        staging.function(fn, autograph=False).get_concrete_function(spec)
    assert "test_numpy_functions_added.py:" in str(refused.value)


JAX_CASES = [
    (lambda x: np.diag(x, 1), V),
    (lambda x: np.diagflat(x), V),
    (lambda x: np.vander(x, 3), V),
    (lambda x: np.kron(x, x), V),
    (lambda x: np.inner(x, x), M),
    (lambda x: np.vdot(x, x), M),
    (lambda x: np.array_equal(x, x), M),
    (lambda x: np.array_equiv(x, x[0]), M),
    (lambda x: np.isin(x, np.array([1.0, 3.0])), V),
    (lambda x: np.digitize(x, np.array([-0.5, 0.5])), V),
    (lambda x: np.correlate(x, x[:2]), V),
    (lambda x: np.sinc(x), V),
    (lambda x: np.fix(x * 1.5), V),
    (lambda x: np.i0(x), V),
    (lambda x: np.isposinf(x), NANS),
    (lambda x: np.angle(x), V),
    (lambda x: np.sort_complex(x), V),
    (lambda x: np.unwrap(x * 3), V),
    (lambda x: np.resize(x, (2, 7)), V),
    (lambda x: np.logspace(x[0], x[1], 4), V),
    (lambda x: np.nan_to_num(x), NANS),
    (lambda x: np.linalg.cond(x), SQUARE),
    (lambda x: np.trapezoid(x, dx=0.5, axis=0), M),
    (lambda x: np.average(x, axis=1, weights=np.array([1.0, 2, 3, 4])), M),
    (lambda x: np.average(x, weights=x * x, returned=True), V),
    (lambda x: np.cov(x), M),
    (lambda x: np.corrcoef(x, x * 2), V),
    (lambda x: np.gradient(x), M),
    (lambda x: np.linalg.multi_dot([x, x.T, x]), M),
    (lambda x: np.lexsort((x, -x)), V),
    (lambda x: np.unravel_index(x, (3, 4)), np.array([1, 5, 11])),
    (lambda x: np.select([x > 0.5, x < -0.5], [x, -x], 7), V),
    (lambda x: np.rot90(x), M),
    (lambda x: np.column_stack((x, x)), V),
]


@pytest.mark.parametrize("fn,x", JAX_CASES, ids=[str(i) for i in range(len(JAX_CASES))])
def test_jax_backend_computes_what_the_interpreter_does(fn, x):
    pytest.importorskip("jax")
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = staging.function(fn, autograph=False)(x)
        got = staging.function(fn, autograph=False, jit_compile=True)(x)
    assert type(got) is type(expected)
    for g, e in zip(got, expected) if isinstance(expected, tuple) else [(got, expected)]:
        assert type(g) is type(e) and np.asarray(g).dtype == np.asarray(e).dtype
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    "fn,x",
    [
        (lambda x: np.bincount(x), COUNTS),
        (lambda x: np.delete(x, 1), V),
        (lambda x: np.partition(x, 2), V),
        (lambda x: np.linalg.lstsq(x, x[:, 0]), M),
        (lambda x: np.flatnonzero(x), V),
    ],
)
def test_jax_backend_refuses_what_it_cannot_compute_alike(fn, x):
    pytest.importorskip("jax")
    with pytest.raises(NotImplementedError, match=r"test_numpy_functions_added\.py:\d+") as error:
        staging.function(fn, autograph=False, jit_compile=True)(x)
    assert type(error.value).__name__ == "LoweringError"


def test_saved_and_loaded_with_their_attributes(tmp_path):
    def f(x, i):
        return (
            np.delete(x, slice(1, 3)),
            np.insert(x, 1, 2.0),
            np.bincount(i, minlength=3),
            np.average(x, returned=True),
            np.angle(x, deg=True),
            np.lexsort((x, -x)),
            np.unravel_index(i, 7),
            np.partition(x, 1),
            np.polyfit(x, x, 1),
            np.trim_zeros(x, "b"),
            np.resize(x, (2, 3)),
            np.logspace(x[0], x[1], 3, base=2.0),
            np.delete(x, i[0]),
            np.cov(np.stack([x, x * x])),
            np.array_equal(x, x),
        )

    x, i = np.arange(1.0, 6.0), np.array([1, 2])
    path = tmp_path / "f.stg"
    staging.save(staging.function(f), str(path), signatures=[(x, i)])
    got, expected = staging.load(str(path))(x, i), f(x, i)
    for g, e in zip(got, expected):
        assert_identical(g, e)
    assert type(got[-1]) is bool
