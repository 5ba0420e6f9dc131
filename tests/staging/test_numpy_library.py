"""Array-API extras, statistics and data-dependent shapes staged: the same dtype, shape and bits
as NumPy, with static and unknown dims; refusals name the function and the user's line."""

from __future__ import annotations

import numpy as np
import pytest
from _library_helpers import check, check_raises

import staging
from staging import errors

RNG = np.random.default_rng(7)
M = RNG.standard_normal((3, 4))
M32 = RNG.standard_normal((2, 3, 4)).astype(np.float32)
I = RNG.integers(-4, 5, (3, 4)).astype(np.int16)
V = RNG.standard_normal(6)
NANS = np.where(RNG.random((3, 4)) < 0.3, np.nan, M)
SORTED = np.sort(RNG.integers(0, 10, 8))
Z = (RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))).astype(np.complex64)

ONE_ARRAY = [
    (lambda x: np.tril(x), [M, M32, I, V]),
    (lambda x: np.triu(x, k=1), [M, M32, V]),
    (lambda x: np.tril(x, -1), [I]),
    (lambda x: np.tile(x, 2), [M, V]),
    (lambda x: np.tile(x, (2, 1, 3)), [M, I]),
    (lambda x: np.roll(x, 2), [M, V]),
    (lambda x: np.roll(x, (1, -1), axis=(0, 1)), [M, I]),
    (lambda x: np.flip(x), [M, M32]),
    (lambda x: np.flip(x, 1), [M, I]),
    (lambda x: np.flip(x, (0, 2)), [M32]),
    (lambda x: np.moveaxis(x, 0, -1), [M, M32]),
    (lambda x: np.moveaxis(x, (0, 1), (2, 0)), [M32]),
    (lambda x: np.pad(x, 1), [M, I, V]),
    (lambda x: np.pad(x, ((1, 2), (0, 3)), mode="reflect"), [M]),
    (lambda x: np.pad(x, (2, 1), constant_values=7), [I, V]),
    (lambda x: np.pad(x, 2, mode="edge"), [V]),
    (lambda x: np.count_nonzero(x), [I, M > 0]),
    (lambda x: np.count_nonzero(x, axis=1, keepdims=True), [I]),
    (lambda x: np.cumulative_sum(x), [V, I[0]]),
    (lambda x: np.cumulative_sum(x, axis=1, include_initial=True), [I]),
    (lambda x: np.cumulative_prod(x, axis=0, dtype=np.float32), [M, I]),
    (lambda x: np.diff(x), [M, I, V]),
    (lambda x: np.diff(x, n=2, axis=0), [M, I]),
    (lambda x: np.diff(x, prepend=0, append=[1.5]), [V]),
    (lambda x: np.real(x), [Z, M]),
    (lambda x: np.imag(x), [Z, M]),
    (lambda x: x.real + x.imag, [Z]),
    (lambda x: np.empty_like(x).shape, [M]),
    (lambda x: np.median(x), [M, I]),
    (lambda x: np.median(x, axis=1, keepdims=True), [M32]),
    (lambda x: np.percentile(x, 30), [M, I]),
    (lambda x: np.percentile(x, [10, 90], axis=0), [M]),
    (lambda x: np.quantile(x, 0.25, method="nearest"), [M, I]),
    (lambda x: np.quantile(x, [0.5], axis=(0, 2)), [M32]),
    # (weights are an input after `q`: its shape once went into the shape rule's `axis`)
    (lambda x: np.percentile(x, 50, weights=x * 0 + 1, method="inverted_cdf"), [M]),
    (lambda x: np.quantile(x, [0.2, 0.7], weights=x * x, method="inverted_cdf", axis=1), [M]),
    (lambda x: np.nansum(x), [NANS]),
    (lambda x: np.nanprod(x, axis=0), [NANS]),
    (lambda x: np.nanmean(x, 1), [NANS]),
    (lambda x: np.nanmax(x, axis=1), [NANS]),
    (lambda x: np.nanmin(x), [NANS, I]),
    (lambda x: np.nanargmax(x, axis=0), [NANS]),
    (lambda x: np.nanargmin(x), [NANS]),
    (lambda x: np.nanstd(x, ddof=1), [NANS]),
    (lambda x: np.nanvar(x, axis=0, keepdims=True), [NANS]),
    (lambda x: np.nancumsum(x), [NANS]),
    (lambda x: np.nancumprod(x, axis=1), [NANS]),
    (lambda x: np.nanmedian(x, axis=0), [NANS]),
    (lambda x: np.nanpercentile(x, 40), [NANS]),
    (lambda x: np.nanquantile(x, [0.1, 0.7], axis=1), [NANS]),
    (lambda x: np.ptp(x, axis=0), [M, I]),
    (lambda x: np.histogram(x), [M, I]),
    (lambda x: np.histogram(x, bins=4, range=(-1, 1)), [M]),
    (lambda x: np.histogram(x, bins=[-2, 0, 0.5, 3], density=True), [M]),
    (lambda x: np.histogram(x, bins="auto"), [V]),
    (lambda x: np.histogram(x, bins=3, weights=x * 2), [M]),
    (lambda x: np.isclose(x, 0.5), [M, I]),
    (lambda x: np.isclose(x, x + 1e-9, equal_nan=True), [NANS]),
    (lambda x: np.allclose(x, x), [M]),
    (lambda x: np.allclose(x, 2 * x), [M]),
    (lambda x: np.polyval([1.0, -2.0, 0.5], x), [M, I]),
    (lambda x: np.polyval(x, 2.0), [V]),
    (lambda x: np.interp(x, [-1.0, 0.0, 1.0], [0.0, 10.0, 5.0]), [M, I]),
    (lambda x: np.interp(x, [-1, 1], [1j, 2j], left=0), [V]),
    (lambda x: np.linspace(x, 2 * x, 5), [V]),
    (lambda x: np.linspace(0, x, 4, endpoint=False, axis=1), [M]),
    (lambda x: np.linspace(x[0], x[1], 7, dtype=np.float32), [V]),
    (lambda x: np.result_type(x, 1.0, np.int8), [I, M32]),
    (lambda x: np.can_cast(x, np.float64), [I, Z]),
    (lambda x: np.std(x, correction=1), [M]),
    (lambda x: np.var(x, axis=0, correction=2), [M]),
    (lambda x: np.unique_values(x), [I, M]),
    (lambda x: np.unique_counts(x), [I]),
    (lambda x: np.unique_inverse(x), [I]),
    (lambda x: np.unique_all(x), [I, NANS]),
    (lambda x: np.unique(x), [I]),
    (lambda x: np.unique(x, return_counts=True, return_index=True), [I]),
    (lambda x: np.unique(x, return_inverse=True, axis=0), [np.concatenate([I, I])]),
    (lambda x: np.nonzero(x), [I]),
    (lambda x: np.argwhere(x), [I]),
    (lambda x: x[x > 0], [M, I]),
    (lambda x: np.repeat(x, [1, 0, 3]), [I[0, :3]]),
    (lambda x: np.repeat(x, [2, 1, 0], axis=0), [M]),
]


@pytest.mark.parametrize("fn,inputs", ONE_ARRAY, ids=[str(i) for i in range(len(ONE_ARRAY))])
def test_one_array_functions(fn, inputs):
    for x in inputs:
        check(fn, x)


@pytest.mark.parametrize(
    "fn,args",
    [
        (np.take_along_axis, (M, np.argsort(M, axis=1), 1)),
        (lambda a, i: np.take_along_axis(a, i, axis=None), (V, np.argsort(V))),
        (lambda a, i: np.take_along_axis(a, i, 0), (M32, np.argsort(M32, axis=0)[:1])),
        (np.searchsorted, (SORTED, np.array([0, 3, 11]))),
        (lambda a, v: np.searchsorted(a, v, side="right"), (SORTED, I)),
        (lambda a, v: np.searchsorted(a, v, sorter=np.argsort(a)), (V, M)),
        (np.convolve, (V, M[0])),
        (lambda a, v: np.convolve(a, v, "same"), (V, I[0])),
        (lambda a, v: np.convolve(a, v, mode="valid"), (M[0], V)),
        (np.isclose, (M, M32)),
        (np.allclose, (M, M + 1e-12)),
        (np.interp, (V, SORTED.astype(float), V[:1].repeat(8))),
        (lambda a, b: np.broadcast_arrays(a, b), (M, V[:4])),
        (lambda a, b: np.broadcast_arrays(a[:, None], b), (V, I[0])),
        (lambda a, b: np.meshgrid(a, b), (V, M[0])),
        (lambda a, b: np.meshgrid(a, b, indexing="ij"), (V, I[0])),
        (lambda a, b: np.meshgrid(a, b, sparse=True), (V, M[0])),
        (lambda a, b: np.meshgrid(a, b, a, copy=False), (V[:2], M[0])),
        (lambda a, r: np.repeat(a, r), (I, np.arange(12) % 3)),
        (lambda a, r: np.repeat(a, r, axis=1), (M, np.array([1, 0, 2, 1]))),
        (lambda a, q: np.quantile(a, q), (M, np.array([0.2, 0.4]))),
        (lambda a, p: np.diff(a, prepend=p, axis=0), (M, I[:1])),
        (lambda a, p: np.diff(a, 2, append=p[0, 0]), (M, I)),
        (lambda a, p: np.diff(a, prepend=p, append=p), (I[0], M[0])),
        (lambda a, b: np.vecdot(a, b, axis=0), (M, I)),
    ],
)
def test_several_array_functions(fn, args):
    check(fn, *args)


def test_unstack_gives_one_view_per_index():
    check(lambda x: np.unstack(x), M, generalize=False)
    check(lambda x: np.unstack(x, axis=1), M32, generalize=False)


def test_empty_with_a_symbolic_size_has_numpys_dtype_and_shape():
    f = staging.function(lambda x: np.empty((x.shape[0], 2), np.int8))
    out = f(V)
    assert out.dtype == np.int8 and out.shape == (6, 2)


def test_unknown_dims_of_data_dependent_results():
    spec = staging.TensorSpec([None], np.int16)
    for fn, types in [
        (np.unique_values, "i16[?]"),
        (np.unique_counts, "i16[?], i64[?]"),
        (np.unique_inverse, "i16[?], i64[?]"),
        (lambda x: np.repeat(x, x), "i16[?]"),
    ]:
        text = str(staging.function(fn, autograph=False).get_concrete_function(spec).graph)
        assert types.split(", ")[0] in text


def test_writes_through_views_of_new_functions():
    def f(x):
        y = x.copy()
        v = np.flip(y, 0)
        v[0] = 99.0  # writes y[-1]
        w = np.moveaxis(y, 0, 1)
        w[0, 0] = -1.0  # writes y[0, 0]
        return y, v, w

    check(f, M)


def test_real_of_complex_is_a_view_writes_are_refused():
    def f(z):
        r = np.real(z)
        r[0] = 1.0
        return z

    with pytest.raises(errors.MutationError, match=r"test_numpy_library\.py:\d+"):
        staging.function(f)(Z.copy())


@pytest.mark.parametrize(
    "fn,arg,error",
    [
        (lambda x: np.linspace(0, x, 3, retstep=True), V, errors.UnsupportedOpError),
        (
            lambda x: np.unstack(x),
            staging.TensorSpec([None, 2], np.float64),
            errors.UnsupportedOpError,
        ),
        (
            lambda x: np.roll(x, x.shape[0] - 1),
            staging.TensorSpec([None], np.float64),
            errors.UnsupportedOpError,
        ),
        (lambda x: np.percentile(x, 50, overwrite_input=True), V, errors.UnsupportedOpError),
        (lambda x: np.histogram(x, bins=x[:3]), V, errors.UnsupportedOpError),
    ],
)
def test_refusals_name_the_function_and_the_line(fn, arg, error):
    f = staging.function(fn, autograph=False)
    with pytest.raises(error, match=r"test_numpy_library\.py:\d+"):
        f.get_concrete_function(arg) if isinstance(arg, staging.TensorSpec) else f(arg)


def test_refusal_names_the_parameter():
    f = staging.function(lambda x: np.histogram(x, bins=x[:3]), autograph=False)
    with pytest.raises(errors.UnsupportedOpError, match=r"np\.histogram with a symbolic `bins`"):
        f(V)


@pytest.mark.parametrize(
    "fn,args",
    [
        (lambda x: np.percentile(x, 150), (M,)),
        (lambda x: np.pad(x, -1), (M,)),
        (lambda x: np.diff(x, n=-1), (V,)),
        (lambda x: np.convolve(x, x[:0]), (V,)),
        (lambda x: np.tril(x), (np.float64(1.0),)),
        (lambda x: np.std(x, ddof=1, correction=1), (V,)),
        (lambda x: np.histogram(x, bins=0), (V,)),
        (lambda x: np.cumulative_sum(x), (M,)),
        (lambda x, i: np.take_along_axis(x, i, 0), (M, np.arange(6))),
    ],
)
def test_errors_are_numpys(fn, args):
    error = check_raises(fn, *args)
    where = str(error) + "\n".join(getattr(error, "__notes__", ()))  # (a note: eager's message)
    assert "test_numpy_library.py" in where
