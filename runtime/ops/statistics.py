"""Statistics and numerics: median/percentile/quantile, the nan* reductions, histogram with
static bins, interp, convolve/correlate, polyval/polyfit, isclose/allclose, ptp, trapezoid,
average, cov/corrcoef, gradient, and elementwise helpers (nan_to_num, sinc, fix, i0, angle,
isposinf/isneginf, iscomplex/isreal, sort_complex, unwrap)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..registry import BOOL, add_vjps
from . import linalg_derivatives, statistics_derivatives, ufunc_derivatives
from ._calls import lower_by_name, register_call, same_shape, stand_in
from ._rules import as_index, known_prod, normalize_axes, normalize_axis, zero_of_either_sign
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


def _quantile(a, q, *weights, axis=None, keepdims=False, **attrs):
    """(the shape of `q`) + `a` reduced; `weights`, when given, is an input (NumPy checks its
    shape against `a`'s when it runs)."""
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


_func: Callable[..., Any]  # (NumPy functions of several signatures)
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
    register_call(
        _func.__name__,
        _func,
        reduced,
        lower_suspect=zero_of_either_sign if _func in (np.nanmax, np.nanmin) else None,
    )
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
register_call("allclose", np.allclose, _allclose, min_inputs=2, python_result=bool)


# -- more numerics: integrals, weighted means, covariances, gradients, fits ---------------------


def _trapezoid(shapes, dx=1.0, axis=-1):
    y, x = shapes["y"], shapes.get("x")
    if x is not None and len(x) > 1:
        y = broadcast(y, x)
    return reduced(y, normalize_axis(axis, len(y)) if y else axis)


def _compatible(a, b) -> bool:
    return len(a) == len(b) and all(p is None or q is None or p == q for p, q in zip(a, b))


def _average(shapes, axis=None, returned=False, keepdims=False):
    a, weights = shapes["a"], shapes.get("weights")
    if weights is not None and not _compatible(a, weights):
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        axes = axis if isinstance(axis, tuple) else (axis,)
        wanted = tuple(a[normalize_axis(ax, len(a))] for ax in axes)
        if not _compatible(weights, wanted):
            raise ValueError(
                "Shape of weights must be consistent with shape of a along specified axis."
            )
    out = reduced(a, axis, keepdims)
    return (out, out) if returned else (out,)


def _variables(shape, rowvar, what):
    """How many variables np.cov / np.corrcoef finds in an operand (None: unknown)."""
    if len(shape) > 2:
        raise ValueError(f"{what} has more than 2 dimensions")
    if len(shape) < 2:
        return 1
    return shape[0] if rowvar else shape[1]


def covariance_size(shapes, rowvar=True):
    """The number of variables of np.cov / np.corrcoef (None: unknown): their result is that
    square matrix, or a 0-d value for one variable."""
    first, second = ("m", "y") if "m" in shapes else ("x", "y")
    total = _variables(shapes[first], rowvar, "m")
    if second in shapes:
        more = _variables(shapes[second], rowvar, "y")
        total = None if total is None or more is None else total + more
    return total


def _covariance(shapes, rowvar=True, **attrs):
    n = covariance_size(shapes, rowvar)
    return () if n == 1 else (n, n)


def _gradient(f, *spacing, axis=None, edge_order=1):
    axes = normalize_axes(axis, len(f))
    if spacing and len(spacing) not in (1, len(axes)):
        raise TypeError("invalid number of arguments")
    for ax in axes:
        if f[ax] is not None and f[ax] < as_index(edge_order, "edge_order") + 1:
            raise ValueError(
                "Shape of array too small to calculate a numerical gradient, at least "
                "(edge_order + 1) elements are required."
            )
    return (tuple(f),) * len(axes)


def _gradient_probe(f, *spacing, **attrs):
    return [stand_in(t, dim=3) for t in (f, *spacing)]


def _gradient_kernel(f, *spacing, **attrs):
    result = np.gradient(f, *spacing, **attrs)
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def _lower_gradient(ctx, node, f, *spacing, **attrs):
    result = ctx.jnp.gradient(f, *spacing, **attrs)
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def _polyfit(shapes, deg, rcond=None):
    x, y = shapes["x"], shapes["y"]
    deg = as_index(deg, "deg")
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if len(x) != 1:
        raise TypeError("expected 1D vector for x")
    if x[0] == 0:
        raise TypeError("expected non-empty vector for x")
    if len(y) not in (1, 2):
        raise TypeError("expected 1D or 2D array for y")
    if None not in (x[0], y[0]) and x[0] != y[0]:
        raise TypeError("expected x and y to have same length")
    return (deg + 1,) + tuple(y[1:])


register_call(
    "trapezoid",
    np.trapezoid,
    _trapezoid,
    named=True,
    lower=lower_by_name("trapezoid"),
)
register_call(
    "average",
    np.average,
    _average,
    named=True,
    num_outputs=None,
    lower=lower_by_name("average", outputs=None),
)
for _name in ("cov", "corrcoef"):
    register_call(_name, getattr(np, _name), _covariance, named=True, lower=lower_by_name(_name))
register_call(
    "correlate", np.correlate, lambda a, v, mode="valid": _convolve(a, v, mode), min_inputs=2
)
register_call(
    "gradient",
    _gradient_kernel,
    _gradient,
    num_outputs=None,
    probe=_gradient_probe,
    doc="np.gradient(f, *spacing, axis, edge_order): one array per axis",
    lower=_lower_gradient,
)
register_call(
    "polyfit",
    np.polyfit,
    _polyfit,
    named=True,
    probe=lambda *types, deg, **attrs: [stand_in(t, dim=deg + 1) for t in types],
    lower=lower_by_name("polyfit"),
)
for _name in ("nan_to_num", "sinc", "i0", "isposinf", "isneginf", "iscomplex", "isreal"):
    register_call(_name, getattr(np, _name), same_shape)
# np.fix rounds toward zero (ceil below zero, floor above, -0.0 kept), as trunc does
register_call("fix", np.fix, same_shape, lower=lambda ctx, node, x: ctx.jnp.trunc(x))
register_call("angle", np.angle, same_shape, attr_kinds=(("deg", BOOL),))
register_call("sort_complex", np.sort_complex, same_shape)
register_call(
    "unwrap",
    np.unwrap,
    lambda p, axis=-1, **attrs: (normalize_axis(axis, len(p)), p)[1],
)
del _name
add_vjps(linalg_derivatives.STATISTICS_RULES)
add_vjps(ufunc_derivatives.ANGLE_RULES)
add_vjps(statistics_derivatives.RULES)
