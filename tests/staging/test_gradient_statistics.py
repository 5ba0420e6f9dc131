"""Gradients of median, quantile, percentile, the nan-reductions, ptp, nan_to_num and
take_along_axis: against central finite differences, and where the value holds NaN or ties,
against what the rules promise (docs/gradients.md)."""

from __future__ import annotations

import numpy as np
import pytest
from _gradient_check import assert_close, numeric_gradient

import staging
from staging import errors

RNG = np.random.default_rng(5)
X = RNG.normal(size=(3, 4))
WITH_NAN = X.copy()
WITH_NAN[0, 1] = np.nan
WITH_NAN[2, :] = np.nan


def _weights(shape):
    return np.arange(1.0, 1.0 + np.prod(shape, dtype=int)).reshape(shape)


def _check(f, *args, argnum=0, rtol=1e-6):
    expected = numeric_gradient(f, args, argnum)
    actual = staging.grad(f, argnums=argnum)(*args)
    assert_close(actual, expected, rtol=rtol)
    return actual


CASES = [
    ("median", {}),
    ("median", {"axis": 0}),
    ("median", {"axis": 1, "keepdims": True}),
    ("median", {"axis": (0, 1)}),
    ("median", {"axis": (1, 0), "keepdims": True}),
    ("quantile", {"q": 0.3}),
    ("quantile", {"q": np.array([0.1, 0.5, 0.95]), "axis": 1}),
    ("quantile", {"q": np.array([0.0, 0.7]), "axis": 0, "keepdims": True}),
    ("percentile", {"q": np.array([25.0, 90.0]), "axis": -1}),
    ("nanmedian", {"axis": 1}),
    ("nanquantile", {"q": np.array([0.2, 0.9]), "axis": 0}),
    ("nanpercentile", {"q": 40.0}),
    ("nansum", {"axis": 0}),
    ("nanmean", {"axis": 1}),
    ("nanvar", {}),
    ("nanvar", {"axis": 0, "ddof": 1}),
    ("nanstd", {"axis": 1}),
    ("nanprod", {"axis": 1}),
    ("nancumsum", {"axis": 1}),
    ("nanmax", {"axis": 0}),
    ("nanmin", {}),
    ("ptp", {"axis": 1}),
    ("ptp", {}),
]


def _target(name, kwargs):
    func = getattr(np, name)
    weights = _weights(np.shape(func(X, **kwargs)))

    def f(x):
        return np.sum(np.nan_to_num(func(x, **kwargs)) * weights)

    return f


@pytest.mark.parametrize(("name", "kwargs"), CASES)
def test_rule_matches_finite_differences(name, kwargs):
    _check(_target(name, kwargs), X)


@pytest.mark.filterwarnings("ignore:All-NaN slice:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:Mean of empty slice:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:Degrees of freedom:RuntimeWarning")
@pytest.mark.parametrize(("name", "kwargs"), [c for c in CASES if c[0].startswith("nan")])
def test_nan_elements_get_no_gradient_and_the_others_the_rule_of_the_rest(name, kwargs):
    """A NaN element gets 0; the others what the reduction of the non-NaN ones gives them
    (finite differences moving only the finite elements)."""
    f = _target(name, kwargs)
    found = staging.grad(f)(WITH_NAN)
    assert np.all(np.isfinite(found))
    assert np.all(found[np.isnan(WITH_NAN)] == 0.0)
    finite = ~np.isnan(WITH_NAN)

    def on_finite(values):
        x = WITH_NAN.copy()
        x[finite] = values
        return f(x)

    assert_close(found[finite], numeric_gradient(on_finite, (WITH_NAN[finite],)))


def test_a_slice_whose_median_is_nan_gets_no_gradient():
    found = staging.grad(lambda x: np.sum(np.nan_to_num(np.median(x, axis=1))))(WITH_NAN)
    assert np.array_equal(found[0], np.zeros(4)) and np.array_equal(found[2], np.zeros(4))
    assert found[1].sum() == 1.0 and np.count_nonzero(found[1]) == 2


def test_median_of_ties_splits_as_sort_does():
    """An even count averages the two middle elements of the stable sort; tied elements are
    equal, and the weight goes where np.sort's rule sends it (as jax.grad of jnp.median)."""
    g = staging.grad(lambda x: np.median(x))
    assert g(np.array([1.0, 2.0, 2.0, 3.0])).tolist() == [0.0, 0.5, 0.5, 0.0]
    assert g(np.array([2.0, 2.0, 2.0])).tolist() == [0.0, 1.0, 0.0]
    assert g(np.array([3.0, 1.0, 2.0, 2.0, 1.0, 3.0])).tolist() == [0, 0, 0.5, 0.5, 0, 0]
    assert g(np.array([5.0])).tolist() == [1.0]


def test_gradient_in_q():
    for name, q in (
        ("quantile", np.array([0.1, 0.55, 0.95])),
        ("percentile", np.array([10.0, 55.0, 95.0])),
        ("nanquantile", np.array([0.3, 0.8])),
    ):
        func = getattr(np, name)

        def f(x, q):
            return np.sum(func(x, q, axis=1) * _weights((len(q), 3)))

        _check(f, X, q, argnum=1)
        _check(f, X, q, argnum=0)


def test_second_order_through_median_and_sort():
    slope = staging.grad(lambda x: np.sum(np.median(x, axis=0) ** 3))
    _check(lambda x: np.sum(slope(x) * np.arange(4.0)), X, rtol=1e-5)
    by_sort = staging.grad(lambda x: np.sum(np.sort(x, axis=1) ** 3 * np.arange(4.0)))
    _check(lambda x: np.sum(by_sort(x) * x), X, rtol=1e-5)


def test_take_along_axis_and_nan_to_num():
    index = np.array([[0, 0, 2], [1, 3, 3], [2, 1, 0]])  # (repeated indices add up)
    _check(lambda x: np.sum(np.take_along_axis(x, index, axis=1) ** 2 * _weights((3, 3))), X)
    _check(lambda x: np.sum(np.take_along_axis(x, np.array([[0], [2]]), axis=0) ** 2), X)
    _check(lambda x: np.sum(np.take_along_axis(x, np.array([0, 5, 5, -1]), axis=None) ** 2), X)
    weights = np.array([2.0, 3.0, 4.0, 5.0])
    found = staging.grad(lambda x: np.sum(np.nan_to_num(x, posinf=1.0) * weights))(
        np.array([1.0, np.inf, np.nan, 2.0])
    )
    assert found.tolist() == [2.0, 0.0, 0.0, 5.0]


def test_other_quantile_methods_are_refused_naming_the_line():
    def lower(x):
        return np.quantile(x, 0.3, method="lower")

    with pytest.raises(errors.GradientError, match="method='lower'") as info:
        staging.grad(lower)(X)
    assert f"test_gradient_statistics.py:{lower.__code__.co_firstlineno + 1}" in str(info.value)


def test_nancumprod_has_no_rule_and_is_refused_naming_the_line():
    def f(x):
        return np.sum(np.nancumprod(x))

    with pytest.raises(errors.GradientError, match="nancumprod has no gradient rule") as info:
        staging.grad(f)(X)
    assert f"test_gradient_statistics.py:{f.__code__.co_firstlineno + 1}" in str(info.value)


def test_gradients_of_median_and_sort_run_under_jit_compile():
    pytest.importorskip("jax")

    def f(x):
        return np.median(x) + np.sum(np.quantile(x, [0.2, 0.7])) + np.sum(np.sort(x) * x)

    g = staging.grad(f)
    compiled = staging.function(g, jit_compile=True)
    x = np.array([0.3, -1.2, 2.0, 0.7, 0.1, 0.7])
    np.testing.assert_allclose(np.asarray(compiled(x)), g(x), rtol=1e-12)
