"""jit_compile=True gives NumPy's numbers: docs/jax.md's "Numeric contract", one test per row.

- Float ufuncs with an exact IEEE result, np.clip and np.round: bit for bit eager's (signed
  zeros included, NaN-ness) on every pair of special values, as arrays and as NumPy scalars.
- Divisions by a broadcast value (a scalar, a row of sums): XLA's reciprocal rewrite is undone.
- Sorts: the stable kinds are XLA's stable sort; the default kind's ties, the sign of a zero
  that max/min/fmax/fmin/clip/sort pick among zeros of both signs run on the interpreter.
- Float32/float16 sums, products, means, variances, products of matrices: within the stated
  bound of eager (accumulated in float64); float cumsum/cumprod and var/std/mean of float16
  bit for bit.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import staging
from runtime.ops.elementwise import UFUNCS, numpy_min_max_follow_one_rule

pytest.importorskip("jax")

from runtime.jax_lowering.catalog import lowering_status  # noqa: E402

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.5, -2.5, 0.5, -0.5, 3.0, -3.0]
SPECIAL += [1e-300, 7.0, -7.0, 1e300, 1e-30, -1e-30, 0.125, -0.15, 2.675, 1234.5678]
FLOATS = (np.float64, np.float32)

# ufuncs whose value is the C library's (libm) transcendental function: XLA's own approximation
# differs in the last bits (docs/jax.md: rtol=1e-6); their special values are compared below
TRANSCENDENTAL = frozenset(
    "arccos arccosh arcsin arcsinh arctan arctan2 arctanh cbrt cos cosh deg2rad degrees exp "
    "exp2 expm1 float_power hypot log log10 log1p log2 logaddexp logaddexp2 power rad2deg sin "
    "sinh tan tanh".split()
)


def _compiled(func):
    return staging.function(func, jit_compile=True)


def _same_bits(got, want) -> np.ndarray:
    """Per element: the same bits (the same NaN-ness for NaNs, whose sign NumPy's paths do not
    agree on either)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    if got.dtype.kind not in "fc":
        return got == want
    if got.dtype.kind == "c":
        return _same_bits(got.real, want.real) & _same_bits(got.imag, want.imag)
    nan_got, nan_want = np.isnan(got), np.isnan(want)
    unsigned = f"u{got.itemsize}"
    return (nan_got == nan_want) & (nan_got | (got.view(unsigned) == want.view(unsigned)))


def _grid(n, dtype):
    values = np.array(SPECIAL, dtype=dtype)
    return [c.ravel() for c in np.meshgrid(*([values] * n), indexing="ij")]


def _outputs(result):
    return result if isinstance(result, tuple) else (result,)


def _assert_bitwise(func, columns, tolerant=False):
    """`func` compiled gives eager's bits on the columns as arrays, and on each row as NumPy
    scalars (NumPy's scalar paths); `tolerant`: only special values bitwise (non-finite or
    zero results), others within rtol=1e-6."""
    with np.errstate(all="ignore"):
        eager = _outputs(func(*columns))
    staged = _compiled(func)
    for got, want in zip(_outputs(staged(*columns)), eager):
        _check(got, want, columns, tolerant)
    for i in range(len(columns[0])):
        row = [c.dtype.type(c[i]) for c in columns]
        with np.errstate(all="ignore"):
            want_row = _outputs(func(*row))
        for got, want in zip(_outputs(staged(*row)), want_row):
            assert type(got) is type(want), (row, got, want)
            _check(got, want, [np.array([v]) for v in row], tolerant)


def _check(got, want, columns, tolerant):
    same = _same_bits(got, want)
    if tolerant:
        want_a = np.asarray(want)
        if want_a.dtype.kind == "f":  # (and zeros of either sign: libm's power(-0.0, 0.5))
            close = np.isclose(np.asarray(got), want_a, rtol=1e-6, atol=0)
            same = same | (np.isfinite(want_a) & close)
    bad = np.flatnonzero(~np.atleast_1d(same))
    assert not bad.size, [
        (tuple(float(c[i]) for c in columns), np.ravel(want)[i], np.ravel(got)[i]) for i in bad[:5]
    ]


def _float_ufuncs():
    for name, ufunc in sorted(UFUNCS.items()):
        if ufunc.signature or lowering_status(name) != "lowered":
            continue
        if any(all(c in "fd" for c in t.split("->")[0]) for t in ufunc.types):
            yield name


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.__name__)
@pytest.mark.parametrize("name", list(_float_ufuncs()))
def test_float_ufuncs_give_eagers_bits_on_special_values(name, dtype):
    ufunc = UFUNCS[name]
    columns = _grid(ufunc.nin, dtype)
    if name == "power":  # (NumPy's scalar power of -inf differs from its array loop)
        columns = [c[~np.isinf(columns[0])] for c in columns]
    _assert_bitwise(lambda *xs: ufunc(*xs), columns, tolerant=name in TRANSCENDENTAL)


def test_numpys_maximum_and_minimum_follow_one_rule_here():
    assert (
        numpy_min_max_follow_one_rule()
    )  # (else the lowering keeps XLA's, and the sweep above says so)


def modulo_of_negation(x):
    return (-x) % 1.0, np.mod(-x, 1.0)


def maximum_with_negation(x):
    return np.maximum(x, -x), np.minimum(x, -x)


def divmod_operator(x, y):
    return divmod(x, y), x // y, x % y


def clip_both(x, lo, hi):
    return np.clip(x, lo, hi)


def clip_one_bound(x, lo):
    return np.clip(x, lo, None), np.clip(x, None, lo), x.clip(max=lo)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.__name__)
@pytest.mark.parametrize(
    "func, arity",
    [
        (modulo_of_negation, 1),
        (maximum_with_negation, 1),
        (divmod_operator, 2),
        (clip_both, 3),
        (clip_one_bound, 2),
        (lambda x: np.sign(x), 1),
        (lambda x: np.abs(x), 1),
        (lambda x: abs(x), 1),
        (lambda x: np.fix(x), 1),
        (lambda x: np.modf(x), 1),
        (lambda x: np.copysign(1.0, x), 1),
        (lambda x, y: np.fmax(x, y), 2),
        (lambda x, y: np.fmin(x, y), 2),
    ],
    ids=lambda v: getattr(v, "__name__", None) or "",
)
def test_signed_zeros_and_specials_are_eagers(func, arity, dtype):
    columns = _grid(arity, dtype)
    if arity == 3:
        columns = [c[::7] for c in columns]
    _assert_bitwise(func, columns)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.__name__)
@pytest.mark.parametrize("decimals", [0, 1, 2, 3, -1, -2])
def test_round_is_numpys_multiply_rint_divide(decimals, dtype):
    values = np.concatenate(
        [np.array(SPECIAL), np.random.default_rng(decimals + 5).normal(0, 1e3, 2000)]
    ).astype(dtype)
    _assert_bitwise(lambda x: np.round(x, decimals), [values])


def test_examples_of_the_issue():
    x = np.array([0.0, -0.0, 1.0])
    got = _compiled(lambda x: (np.maximum(x, -x), np.mod(-x, 1.0)))(x)
    assert np.signbit(got[0]).tolist() == [True, False, False]  # eager: [-0., 0., 1.]
    assert np.signbit(got[1]).tolist() == [False, False, False]  # eager: [0., 0., 0.]


@pytest.mark.parametrize("dtype", FLOATS + (np.float16,), ids=lambda d: d.__name__)
def test_divisions_by_a_broadcast_value_are_correctly_rounded(dtype):
    rng = np.random.default_rng(1)
    x = (rng.random(100_000) * 1000 - 500).astype(dtype)
    m = rng.random((300, 300)).astype(dtype)
    sums = m.sum(axis=1, keepdims=True)
    cases = [
        (lambda x: x / 10.0, (x,)),
        (lambda x, d: x / d, (x, dtype(7.0))),
        (lambda m, s: m / s, (m, sums)),
        (lambda x: x / len(x), (x,)),
        (lambda x: np.true_divide(x, 3.0), (x,)),
        (lambda x: x // 0.7, (x,)),
        (lambda x: divmod(x, 3.0), (x,)),
    ]
    for func, args in cases:
        for got, want in zip(_outputs(_compiled(func)(*args)), _outputs(func(*args))):
            assert _same_bits(got, want).all()


# --- sorting ------------------------------------------------------------------------------------


def _ran_on_interpreter(staged, *args) -> bool:
    return staged.get_concrete_function(*args)._compiled._interpreter is not None


RNG = np.random.default_rng(0)
INTS_WITH_TIES = RNG.integers(0, 5, 60)
FLOATS_WITH_TIES = RNG.choice(np.array([0.0, -0.0, 1.0, np.nan, -1.0, 2.0, -np.nan]), 48)
DISTINCT = RNG.permutation(240).astype(np.float64) - 100.5


@pytest.mark.parametrize(
    "func",
    [
        lambda x: np.argsort(x, kind="stable"),
        lambda x: np.argsort(x, kind="mergesort"),
        lambda x: np.argsort(x, stable=True),
        lambda x: np.sort(x, kind="stable"),
        lambda x: np.argsort(x.reshape(6, -1), axis=0, kind="stable"),
        lambda x: np.argsort(x.reshape(6, -1), axis=None, kind="stable"),
        lambda x: np.lexsort((x, x % 2)),
        lambda x: np.lexsort(np.stack([x, x > 1])),
    ],
)
@pytest.mark.parametrize(
    "values", [INTS_WITH_TIES, FLOATS_WITH_TIES, DISTINCT], ids=["ints", "floats", "distinct"]
)
def test_stable_sorts_are_numpys_order_without_a_rerun(func, values):
    staged = _compiled(func)
    for _ in range(2):
        assert _same_bits(staged(values), func(values)).all()
    assert not _ran_on_interpreter(staged, values)


@pytest.mark.parametrize(
    "func",
    [
        lambda x: np.argsort(x),
        lambda x: x.argsort(),
        lambda x: np.argsort(x.reshape(6, -1), axis=0),
        lambda x: np.sort(x),
        lambda x: np.sort(x.reshape(6, -1), axis=0),
    ],
)
@pytest.mark.parametrize(
    "values", [INTS_WITH_TIES, FLOATS_WITH_TIES, DISTINCT], ids=["ints", "floats", "distinct"]
)
def test_default_sorts_give_eagers_order_rerunning_on_ties(func, values):
    staged = _compiled(func)
    for _ in range(2):
        assert _same_bits(staged(values), func(values)).all()
    ties = values is not DISTINCT
    sorts_values = "sort(" in str(func.__code__.co_names) or "sort" in func.__code__.co_names
    if values is DISTINCT or (sorts_values and values is INTS_WITH_TIES):
        assert not _ran_on_interpreter(staged, values)  # (no tie NumPy could order otherwise)
    elif ties and not sorts_values:
        assert _ran_on_interpreter(staged, values)


@pytest.mark.parametrize(
    "values", [np.zeros(0), np.ones(1), np.array([np.nan]), np.array([np.nan, np.nan])]
)
def test_sorts_of_few_elements(values):
    for func in (np.argsort, np.sort, lambda x: np.argsort(x, kind="stable")):
        assert _same_bits(_compiled(func)(values), func(values)).all()


@pytest.mark.parametrize(
    "func",
    [np.max, np.min, np.nanmax, np.nanmin, lambda x: np.max(x, axis=0), np.argmax, np.argmin],
    ids=lambda f: getattr(f, "__name__", "axis"),
)
@pytest.mark.parametrize(
    "values",
    [
        np.array([0.0, -0.0] * 20).reshape(4, 10),
        np.array([-0.0, 0.0] * 20).reshape(10, 4),
        np.array([[0.0, -1.0], [-0.0, np.nan]]),
        np.array([[3.0, 3.0], [1.0, 3.0]]),
    ],
)
def test_max_min_of_zeros_of_both_signs_and_ties_are_eagers(func, values):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = func(values)
        got = _compiled(func)(values)
    assert _same_bits(got, want).all()


# --- sums, products, scans ----------------------------------------------------------------------

N = 1_000_000
NEAR_ONE = (1 + (RNG.random(N) - 0.5) * 1e-3).astype(np.float32)
CANCELLING = np.concatenate([RNG.random(N // 2) * 1e4, -RNG.random(N // 2) * 1e4])
CANCELLING = RNG.permutation(CANCELLING).astype(np.float32)
POSITIVE = (RNG.random(N) * 10).astype(np.float32)
EPS32 = float(np.finfo(np.float32).eps)


def _sum_bound(n: int, magnitude: float) -> float:
    """docs/jax.md: |jit - eager| <= (ceil(log2 n) + 16) * eps * sum|x| + ulp: jit is the sum
    rounded from float64 (within an ulp of the exact sum), eager NumPy's pairwise float32 sum
    (blocks of 128 summed in 8 lanes, then pairwise)."""
    return (math.ceil(math.log2(max(n, 2))) + 16) * EPS32 * magnitude


@pytest.mark.parametrize("x", [NEAR_ONE, CANCELLING, POSITIVE], ids=["near1", "cancel", "pos"])
def test_float32_sums_and_means_are_within_the_bound(x):
    exact = math.fsum(x.astype(np.float64))
    magnitude = float(np.abs(x.astype(np.float64)).sum())
    for func, scale in ((np.sum, 1), (np.mean, len(x))):
        got, want = _compiled(func)(x), func(x)
        assert type(got) is type(want)
        assert abs(float(got) - exact / scale) <= EPS32 * abs(exact / scale) + 1e-12 * magnitude
        assert abs(float(got) - float(want)) <= _sum_bound(len(x), magnitude) / scale


def test_float32_sums_along_an_axis_are_within_the_bound():
    m = CANCELLING.reshape(1000, 1000)
    for axis in (0, 1):
        got, want = _compiled(lambda m: m.sum(axis=axis))(m), m.sum(axis=axis)
        exact = m.astype(np.float64).sum(axis=axis)
        magnitude = np.abs(m.astype(np.float64)).sum(axis=axis)
        assert np.all(np.abs(got - exact) <= EPS32 * np.abs(exact) + 1e-12 * magnitude)
        # NumPy sums a strided axis row by row: its bound is n * eps * sum|x|
        assert np.all(np.abs(got - want) <= 1000 * EPS32 * magnitude)


def test_float32_products_are_the_float64_product_rounded():
    got, want = _compiled(np.prod)(NEAR_ONE), np.prod(NEAR_ONE)
    exact = np.prod(NEAR_ONE.astype(np.float64))
    assert abs(got - exact) <= EPS32 * abs(exact)
    # NumPy multiplies in float32 in its own order: within n * eps of the exact product
    assert abs(float(got) - float(want)) <= N * EPS32 * abs(exact)
    assert abs(float(got) - float(want)) < 1e-4  # (XLA's float32 product was 1.4e-3 off)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.complex64])
@pytest.mark.parametrize("func", [np.cumsum, np.cumprod, lambda x: np.cumsum(x, axis=0)])
def test_float_scans_are_numpys_sequential_scan(func, dtype):
    values = POSITIVE[:200_000] if func is not np.cumprod else NEAR_ONE[:200_000]
    x = values.astype(dtype).reshape(1000, 200)
    assert _same_bits(_compiled(func)(x), func(x)).all()


@pytest.mark.parametrize(
    "x", [np.zeros(0, np.float32), np.array([-0.0, 0.0], np.float32), np.array([np.nan, 1.0])]
)
def test_scans_of_edge_values(x):
    for func in (np.cumsum, np.cumprod):
        assert _same_bits(_compiled(func)(x), func(x)).all()


@pytest.mark.parametrize("func", [np.var, np.std, np.mean, np.sum])
def test_float16_statistics_are_numpys_steps(func):
    overflowing = (RNG.random(10_000) * 100).astype(np.float16)  # (a float16 sum of inf)
    small = (RNG.random(1000) - 0.5).astype(np.float16)
    for x in (overflowing, small, small.reshape(10, 100)):
        with np.errstate(all="ignore"):
            want = func(x)
            got = _compiled(func)(x)
        assert type(got) is type(want) and _same_bits(got, want).all(), (got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.complex64])
@pytest.mark.parametrize("func", [np.var, np.std, lambda x: np.var(x, axis=1, ddof=1)])
def test_variances_follow_numpys_steps(func, dtype):
    x = (POSITIVE[:30_000].reshape(100, 300) * 100).astype(dtype)
    got, want = _compiled(func)(x), func(x)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=4 * float(np.finfo(got.dtype).eps))


# --- products of matrices ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "func",
    [
        lambda a, b: a @ b,
        np.dot,
        lambda a, b: np.einsum("ij,jk->ik", a, b),
        lambda a, b: np.tensordot(a, b, axes=1),
        lambda a, b: np.inner(a, b.T),
        lambda a, b: np.vdot(a[0], b[:, 0]),
        lambda a, b: np.linalg.norm(a),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_float32_products_are_within_the_bound(func, dtype):
    a = (RNG.random((60, 300)) - 0.5).astype(dtype)
    b = (RNG.random((300, 40)) - 0.5).astype(dtype)
    got, want = _compiled(func)(a, b), func(a, b)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    exact = func(a.astype(np.float64), b.astype(np.float64))
    magnitude = func(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))
    eps = float(np.finfo(dtype).eps)
    # jit: within an ulp of the exact products; eager (BLAS, NumPy's float16 loops, which
    # accumulate in float16 for np.dot): within k * eps * sum|a||b|, k = 300 the summed length
    assert np.all(np.abs(got - exact) <= eps * np.abs(exact) + 1e-12 * magnitude)
    assert np.all(np.abs(got - want) <= 300 * eps * magnitude)


def test_subnormals_are_flushed_to_zero():
    """docs/jax.md's last row: a documented difference (XLA's CPU mode), checked so that the
    row changes when XLA's does."""
    x = np.array([5e-324, -5e-324, 1e-310, 1.0])
    got = _compiled(lambda x: x * 2.0)(x)
    assert got.tolist() == [0.0, -0.0, 0.0, 2.0]
    assert (x * 2.0).tolist() == [1e-323, -1e-323, 2e-310, 2.0]


def test_multiply_then_add_is_contracted_within_its_bound():
    """docs/jax.md's row on contraction: XLA fuses `x * a + b` into one fused multiply-add
    (rounded once, where NumPy rounds the product and then the sum), with no switch to turn it
    off; the result is within an ulp of eager's (one rounding instead of two). Checked so that
    the row changes when XLA's behaviour does."""
    x = np.random.default_rng(5).random(100_000)
    a, b = np.float64(1.0001), np.float64(0.5)
    got = _compiled(lambda x, a: x * a + b)(x, a)
    want = x * a + b
    assert (got != want).any()  # (contracted: when this fails, XLA no longer contracts)
    assert np.all(np.abs(got - want) <= np.spacing(np.abs(want)))
