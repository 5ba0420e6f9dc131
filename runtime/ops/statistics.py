"""Statistics and numerics: median/percentile/quantile, the nan* reductions, histogram with
static bins, interp, convolve, polyval, isclose/allclose, ptp."""

from __future__ import annotations

import numpy as np

from ._calls import register_call
from ._rules import as_index, known_prod, normalize_axes, normalize_axis
from .elementwise import broadcast


def reduced(shape, axis=None, keepdims=False, **ignored):
    """The shape of a reduction of `shape` over `axis` (None: all axes)."""
    if isinstance(axis, list):
        axis = tuple(axis)
    axes = normalize_axes(axis, len(shape))
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _one_axis(name):
    def shape(a, axis=None, keepdims=False):
        if isinstance(axis, tuple):
            raise TypeError(f"{name}: axis must be an int or None, got {axis!r}")
        if axis is not None:
            normalize_axis(axis, len(a))
        return reduced(a, axis, keepdims)

    return shape


def _scan(a, axis=None, dtype=None):
    if axis is None:
        return (known_prod(a),)
    normalize_axis(axis, len(a))
    return a


def _quantile(a, q, axis=None, keepdims=False, **attrs):
    return tuple(q) + reduced(a, axis, keepdims)


def _histogram(a, *weights, bins=10, range=None, density=None):  # noqa: A002
    if weights and None not in weights[0] and None not in a and weights[0] != a:
        raise ValueError("weights should have the same shape as a.")
    if isinstance(bins, str):
        return (None,), (None,)  # the number of bins depends on the data
    if isinstance(bins, (tuple, np.ndarray)):
        if np.ndim(bins) != 1 or len(bins) < 1:
            raise ValueError("`bins` must be 1d, when an array")
        return (len(bins) - 1,), (len(bins),)
    bins = as_index(bins, "bins")
    if bins < 1:
        raise ValueError("`bins` must be positive, when an integer")
    return (bins,), (bins + 1,)


def _interp(x, xp, fp, **attrs):
    for s, what in ((xp, "xp"), (fp, "fp")):
        if len(s) != 1:
            raise ValueError(
                f"{what} must be one-dimensional"
                if what == "fp"
                else "Data points must be 1-D sequences"
            )
    if xp[0] is not None and fp[0] is not None and xp[0] != fp[0]:
        raise ValueError("fp and xp are not of the same length.")
    return x


def _convolve(a, v, mode="full"):
    for s in (a, v):
        if len(s) > 1:
            raise ValueError("object too deep for desired array")
    n = a[0] if a else 1
    m = v[0] if v else 1
    for d, what in ((n, "a"), (m, "v")):
        if d == 0:
            raise ValueError(f"{what} cannot be empty")
    if n is None or m is None:
        return (None,)
    mode = {0: "valid", 1: "same", 2: "full"}.get(mode, mode)
    if mode == "full":
        return (n + m - 1,)
    if mode == "same":
        return (max(n, m),)
    if mode == "valid":
        return (max(n, m) - min(n, m) + 1,)
    raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")


def _polyval(p, x):
    if len(p) == 0:
        raise ValueError("polyval: the coefficients must be an array of at least one dimension")
    return broadcast(x, p[1:])


def _isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return broadcast(a, b)


def _allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    broadcast(a, b)
    return ()


for _func in (
    np.median,
    np.nanmedian,
    np.nansum,
    np.nanprod,
    np.nanmean,
    np.nanmax,
    np.nanmin,
    np.nanstd,
    np.nanvar,
    np.ptp,
):
    register_call(_func.__name__, _func, reduced)
for _func in (np.nanargmax, np.nanargmin):
    register_call(_func.__name__, _func, _one_axis(_func.__name__))
for _func in (np.nancumsum, np.nancumprod):
    register_call(_func.__name__, _func, _scan)
for _func in (np.percentile, np.quantile, np.nanpercentile, np.nanquantile):
    register_call(_func.__name__, _func, _quantile, arrays=("a", "q", "weights"), min_inputs=2)
del _func

register_call(
    "histogram",
    np.histogram,
    _histogram,
    arrays=("a", "weights"),
    num_outputs=2,
    unlowerable="jax.numpy.histogram differs from NumPy's in its bin edges' rounding; keep the "
    "interpreter",
)
register_call("interp", np.interp, _interp, min_inputs=3)
register_call("convolve", np.convolve, _convolve, min_inputs=2)
register_call("polyval", np.polyval, _polyval, min_inputs=2)
register_call("isclose", np.isclose, _isclose, min_inputs=2)
register_call("allclose", np.allclose, _allclose, min_inputs=2)
