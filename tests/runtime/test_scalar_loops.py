"""Scalar loops run on Python numbers (runtime.scalar_loops): the staged answers, dtypes,
warnings and errors stay NumPy's, bit for bit, on ordinary and extreme inputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import staging
from runtime.options import options
from staging.functions.retracing import RetracingWarning


def bisection(lo, hi, tol):
    while hi - lo > tol:
        mid = (lo + hi) / 2
        if mid**3 - 2 * mid - 5 > 0:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps, n


def grow(x, factor, limit):
    # overflows to inf when factor is large: NumPy warns; so must the staged loop
    i = 0
    while x < limit and i < 12:
        x = x * factor + 0.5
        x = -(-x)
        i += 1
    return x, abs(x) ** 2


def shrink(x, y, k):
    i = 0
    while i < k:
        x = x / y  # y may be 0.0: NumPy warns and gives inf or nan, Python would raise
        y = y - 0.5
        i += 1
    return x, y


def wrap(n, m, k):
    i = 0
    while i < k:
        n = n * m - 7  # wraps around (and warns) when it leaves the dtype's range
        m = -m
        i += 1
    return n, m


def untouched(x, n):
    i = 0
    while i < n:
        if x > 100.0:
            x = x - 1.0
        i += 1
    return x


def _same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert type(got) is type(want), (got, want)
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (got, want)


def _run(f, args):
    """(result or exception type, [(warning category, message)])."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", RetracingWarning)  # (a staged function per parameter)
        try:
            result = f(*args)
        except Exception as exc:  # the staged function must raise what eager raises
            result = type(exc)
    return result, [(w.category, str(w.message)) for w in caught]


def _compare(fn, cases):
    staged = staging.function(fn)
    for args in cases:
        for _ in range(2):  # the trace, then the cached graph
            got, got_warnings = _run(staged, args)
            want, want_warnings = _run(fn, args)
            if isinstance(want, type):
                assert got is want, (args, got)
            else:
                _same(got, want)
            assert got_warnings == want_warnings, args
    return staged


F = np.float64
EXTREMES = [
    F(0.0),
    F(-0.0),
    F(1e-310),
    F(-3.5),
    F(2.5),
    F(1e300),
    F(-1e300),
    F(np.inf),
    F(-np.inf),
    F(np.nan),
]


def test_bisection_and_collatz_match_eager_and_run_unboxed():
    f = _compare(
        bisection,
        [
            (F(0.0), F(5.0), F(1e-12)),
            (F(-3.0), F(7.0), F(1e-6)),
            (F(2.0), F(1.0), F(0.1)),
            (F(0.0), F(np.inf), F(1.0)),
            (F(np.nan), F(1.0), F(0.1)),
            (F(-1e300), F(1e300), F(1e290)),
        ],
    )
    assert "float(v0)" in f.get_concrete_function(F(0.0), F(5.0), F(1e-12)).executable_source
    _compare(
        collatz,
        [(np.int64(27),), (np.int64(1),), (np.int64(837799),), (np.int32(97),), (np.int16(7),)],
    )


@pytest.mark.parametrize("factor", [F(1.5), F(1e200), F(-2.0), F(np.inf), F(0.0), F(np.nan)])
def test_float_overflow_and_non_finite_values_warn_as_eager(factor):
    _compare(grow, [(x, factor, F(1e306)) for x in EXTREMES[:8]])


def test_division_by_zero_warns_as_eager():
    _compare(
        shrink,
        [
            (F(1.0), F(1.0), np.int64(4)),
            (F(0.0), F(0.5), np.int64(3)),
            (F(-2.0), F(1.5), np.int64(5)),
            (F(1e308), F(0.75), np.int64(3)),
        ],
    )


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_integer_overflow_wraps_and_warns_as_eager(dtype):
    info = np.iinfo(dtype)
    cases = [
        (dtype(3), dtype(5), np.int64(3)),
        (dtype(info.max // 3), dtype(4), np.int64(4)),
        (dtype(info.min), dtype(-1), np.int64(2)),
        (dtype(info.max), dtype(info.max), np.int64(3)),
    ]
    _compare(wrap, cases)


def test_floating_point_errors_raise_under_errstate_as_eager():
    staged = staging.function(grow)
    args = (F(1.0), F(1e300), F(1e306))
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            grow(*args)
        with pytest.raises(FloatingPointError):
            staged(*args)


def test_a_loop_value_never_reassigned_comes_back_as_the_same_object():
    staged = staging.function(untouched)
    x = np.asarray(5.0)  # a 0-d array: eagerly returned as is when the loop never assigns it
    got = staged(x, np.int64(3))
    assert type(got) is np.ndarray and got.ndim == 0 and untouched(x, np.int64(3)) is x
    _compare(untouched, [(F(5.0), np.int64(3)), (F(103.0), np.int64(2)), (F(103.0), np.int64(0))])


def test_values_read_by_other_operations_stay_numpy_scalars():
    def f(x, n):
        i = 0
        while i < n:
            x = np.sqrt(x) + 1.0  # a ufunc call reads x: x stays a NumPy scalar
            staging.print(x)
            i += 1
        return x

    staged = staging.function(f)
    with options(unboxed_scalar_loops=False):
        boxed = staging.function(f)
        boxed(F(2.0), np.int64(3))
    assert (
        staged.get_concrete_function(F(2.0), np.int64(3)).executable_source
        == boxed.get_concrete_function(F(2.0), np.int64(3)).executable_source
    )
    _compare(f, [(F(2.0), np.int64(3)), (F(-1.0), np.int64(2))])


def test_unboxed_and_boxed_loops_agree_on_random_inputs():
    def mix(a, b, c):
        while a * a < c and b != 0.0:
            a = a * 1.25 - b / 3.0
            b = b * 0.5 - 1e-3 * a
        return a, b

    rng = np.random.default_rng(7)
    values = [F(v) for v in rng.standard_normal(30) * 10.0 ** rng.integers(-8, 8, 30)]
    cases = [(values[i], values[i + 1], abs(values[i + 2]) * F(1e6)) for i in range(0, 27, 3)]
    _compare(
        mix,
        cases
        + [(F(1.0), F(0.0), F(1.0)), (F(np.nan), F(1.0), F(1.0)), (F(1e200), F(1e200), F(np.inf))],
    )


def test_underflow_under_errstate_is_the_documented_difference():
    def shrink_to_subnormal(x, n):
        i = 0
        while i < n:
            x = x * 1e-200
            i += 1
        return x

    args = (F(1.0), np.int64(2))
    with np.errstate(under="raise"):
        with pytest.raises(FloatingPointError):
            shrink_to_subnormal(*args)
        assert staging.function(shrink_to_subnormal)(*args) == F(0.0)  # docs/limitations.md
        with options(unboxed_scalar_loops=False):
            boxed = staging.function(shrink_to_subnormal)
            with pytest.raises(FloatingPointError):
                boxed(*args)


def sum_positive(values):
    total = 0.0
    for x in values:
        if x <= 0:
            continue
        total += x
    return total


def sum_even(xs):
    total = 0
    for x in xs:
        if x % 2 != 0:
            continue
        total += x
    return total


def test_a_for_over_an_array_walks_its_elements_as_python_numbers():
    f = _compare(
        sum_positive,
        [
            (np.array([1.5, -2.0, 3.0, 0.0]),),
            (np.zeros(0),),
            (np.array([1e308, 1e308, -np.inf]),),
            (np.array([np.nan, 1.0]),),
            (np.linspace(-1.0, 1.0, 9),),
        ],
    )
    assert ".tolist()" in f.get_concrete_function(np.zeros(3)).executable_source
    _compare(
        sum_even,
        [
            (np.arange(1000),),
            (np.zeros(0, np.int64),),
            (np.array([2**62, 2**62, 2**62]),),
            (np.arange(-50, 50, dtype=np.int8),),
            (np.array([100, 100, 100], np.int8),),
        ],
    )


def test_an_element_read_by_other_operations_stays_a_numpy_scalar():
    def collect(xs):
        out = []
        total = np.float64(0.0)
        for x in xs:
            out.append(x)  # appended: NumPy scalars, as eagerly
            total = total + x
        return np.stack(out), total

    f = _compare(collect, [(np.array([1.0, 2.5, -3.0]),)])
    assert ".tolist()" not in f.get_concrete_function(np.zeros(3)).executable_source


def test_a_float_compared_with_a_huge_int_literal_stays_numpy():
    def count_below(x, n):
        i = 0
        below = 0
        while i < n:
            if x < 9007199254740993:  # 2**53 + 1: NumPy rounds it to 2**53
                below += 1
            x = x + 0.5
            i += 1
        return x, below

    _compare(count_below, [(F(9007199254740992.0), np.int64(3)), (F(1.0), np.int64(3))])


def _sum_even(xs):
    total = 0  # the Python 0 until an even element is added: `int | i64[]`
    for x in xs:
        if x % 2 != 0:
            continue
        total += x
    return total


def _float_accumulator(xs):
    total = 0.0  # `float | f64[]`
    for x in xs:
        if x > 0:
            total = total + x * 0.5
    return total


@pytest.mark.parametrize(
    "f, xs",
    [
        (_sum_even, np.arange(7, dtype=np.int64)),
        (_sum_even, np.array([1, 3, 5], dtype=np.int64)),  # never added to: the Python 0
        (_sum_even, np.zeros(0, dtype=np.int64)),
        (_float_accumulator, np.array([1.5, -2.0, 3.25])),
        (_float_accumulator, np.array([-1.0])),
        (_float_accumulator, np.zeros(0)),
    ],
)
def test_an_accumulator_that_starts_as_a_python_number_runs_unboxed_and_keeps_its_kind(f, xs):
    """A loop variable that is the Python number it started as until an iteration makes it a
    NumPy scalar runs as a Python number; after the loop it is the Python number when no
    iteration changed it (the same object) and the NumPy scalar otherwise, as eagerly."""
    staged = staging.function(f, input_signature=[staging.TensorSpec([None], xs.dtype)])
    source = staged.get_concrete_function()._compiled.source
    assert ".tolist()" in source  # the elements and the accumulator run as Python numbers
    got, want = staged(xs), f(xs)
    assert type(got) is type(want) and got == want
