"""Vector-Jacobian products of the order statistics and the nan-reductions of
runtime.ops.statistics (OpDef.vjp; the rule convention is runtime.ops.ufunc_derivatives').

- median, quantile, percentile (method "linear", NumPy's default) and their nan* forms: the
  result interpolates two elements of the sorted slice, at the virtual index q (n - 1) (n: the
  slice's length, or its count of non-NaN elements): weight 1 - t to the lower one, t to the
  upper one (an even median: 1/2 each). The weights are put back through the sort's
  permutation as np.sort's rule does (a stable argsort: tied elements are equal, so which of
  them gets the weight does not change the gradient; JAX's sort gives it to the same one). A
  slice whose result is NaN (median of a slice holding a NaN, a nan* one of an all-NaN slice)
  gets no gradient, as in JAX. The gradient in q is the slope (upper - lower) (n - 1).
- nansum, nanmean, nanvar, nanstd, nanprod, nancumsum: the rules of sum, mean, var, std, prod,
  cumsum over the non-NaN elements; a NaN element gets zero. nanmax and nanmin: max's rule (a
  NaN is never the result). ptp: max's rule minus min's. nan_to_num: 1 where x is finite, 0
  where it was replaced.
Other methods of quantile, and weights, are refused.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .reduction_derivatives import _axes, _cumsum, _extreme, _prod, _spread


def _to_last(ctx, x, axis):
    """x with the reduced axes moved to the end and made one (the last): (that array, a
    function putting an array of its shape back in x's)."""
    nd = ctx.ndim(x)
    axes = _axes(ctx, x, axis)
    if axis is None or len(axes) == nd and nd != 1:
        return np.reshape(x, (-1,)), lambda a: ctx.reshape_like(a, x)
    if len(axes) == 1:
        return np.moveaxis(x, axes[0], -1), lambda a: np.moveaxis(a, -1, axes[0])
    kept = [a for a in range(nd) if a not in axes]
    dims = [ctx.static_dim(x, a) for a in kept]
    if None in dims:
        ctx.unsupported(
            "a quantile over several axes of an array whose shape is known only at run time"
        )
    moved = np.moveaxis(x, axes, tuple(range(nd - len(axes), nd)))

    def back(a):
        return np.moveaxis(ctx.reshape_like(a, moved), tuple(range(nd - len(axes), nd)), axes)

    return np.reshape(moved, tuple(dims) + (-1,)), back


def _g_to_last(ctx, g, x, axis, keepdims: bool, q_ndim: int):
    """The cotangent of a quantile (shape q's + the reduced shape) with a last axis of 1
    standing for the reduced one, as _to_last lays x out."""
    if not keepdims:
        return g[..., None]
    nd = ctx.ndim(x)
    axes = _axes(ctx, x, axis)
    lead = tuple(range(q_ndim))
    kept = tuple(q_ndim + a for a in range(nd) if a not in axes)
    shape = [ctx.dim(g, i) for i in lead + kept]
    return np.reshape(np.transpose(g, lead + kept + tuple(q_ndim + a for a in axes)), (*shape, -1))


def _interpolation(ctx, xs, q, nan: bool):
    """(lower one-hot, upper one-hot, t, count) over the sorted last axis of xs for each q
    (q's dims first), method "linear"."""
    n = ctx.dim(xs, -1)
    missing = np.isnan(xs)
    if nan:
        count = np.sum(~missing, axis=-1, keepdims=True)
    else:
        count = np.where(np.any(missing, axis=-1, keepdims=True), 0, n)  # (a NaN result)
    q = np.reshape(q, np.shape(q) + (1,) * ctx.ndim(xs))
    index = q * (count - 1)
    lower = np.floor(index)
    t = index - lower
    upper = np.minimum(lower + 1, count - 1)
    position = np.arange(n)
    return position == lower, position == upper, t, count


def _quantile_vjp(ctx, g, a, q, axis, keepdims: bool, form: tuple, of_q: bool):
    """The cotangents of a and (`of_q`) q of a linear-interpolation quantile at q * scale,
    form = (nan, scale): over the non-NaN elements (nan*), q a percentage (scale 0.01)."""
    nan, scale = form
    ctx.real_only(a, "a quantile or median")
    xs, back = _to_last(ctx, a, axis)
    order = np.argsort(xs, axis=-1, stable=True)
    places = np.argsort(order, axis=-1, stable=True)
    fraction = q * scale
    lower, upper, t, count = _interpolation(ctx, xs, fraction, nan)
    q_ndim = ctx.ndim(q)
    gl = _g_to_last(ctx, g, a, axis, keepdims, q_ndim)
    weights = np.where(lower, 1.0 - t, 0.0) + np.where(upper, t, 0.0)
    weights = np.where(count > 0, weights, 0.0)  # (a NaN result: no gradient)
    lead = tuple(range(q_ndim))
    sorted_ct = np.sum(gl * weights, axis=lead) if lead else gl * weights
    ga = back(np.take_along_axis(sorted_ct, places, axis=-1)) if ctx.wants(0) else None
    gq = None
    if of_q and ctx.wants(1):
        ordered = np.take_along_axis(xs, order, axis=-1)
        rise = np.sum(np.where(upper, ordered, 0.0) - np.where(lower, ordered, 0.0), axis=-1)
        slope = np.where(count[..., 0] > 1, rise * (count[..., 0] - 1) * scale, 0.0)
        gq = np.sum(gl[..., 0] * slope, axis=tuple(range(q_ndim, ctx.ndim(slope))))
        gq = ctx.reshape_like(gq, q)
    return ga, gq


def _quantile_rule(nan: bool, scale: float) -> Callable:
    def vjp(ctx, g, out, a, q, *weights, axis=None, keepdims=False, method="linear", **ignored):
        if weights or method != "linear":
            ctx.unsupported(f"a quantile with method={method!r} or weights")
        found = _quantile_vjp(ctx, g, a, q, axis, keepdims, (nan, scale), of_q=True)
        return found + (None,) * len(weights)

    return vjp


def _median_rule(nan: bool) -> Callable:
    def vjp(ctx, g, out, a, axis=None, keepdims=False, **ignored):
        return (_quantile_vjp(ctx, g, a, 0.5, axis, keepdims, (nan, 1.0), of_q=False)[0],)

    return vjp


def _valid(x):
    return ~np.isnan(x)


def _nansum(ctx, g, out, x, axis=None, keepdims=False, **ignored):
    return (np.where(_valid(x), _spread(ctx, g, x, axis, keepdims), 0.0),)


def _count(ctx, x, axis):
    return np.sum(_valid(x), axis=_axes(ctx, x, axis) or None, keepdims=True)


def _nanmean(ctx, g, out, x, axis=None, keepdims=False, **ignored):
    count = np.maximum(_count(ctx, x, axis), 1)
    return (np.where(_valid(x), _spread(ctx, g, x, axis, keepdims) / count, 0.0),)


def _nanvar(ctx, g, out, x, axis=None, keepdims=False, ddof=0, **ignored):
    ctx.real_only(x, "np.nanvar")
    axes = _axes(ctx, x, axis) or None
    valid = _valid(x)
    count = _count(ctx, x, axis)
    mean = np.sum(np.where(valid, x, 0.0), axis=axes, keepdims=True) / np.maximum(count, 1)
    centred = np.where(valid, x - mean, 0.0)
    scale = np.where(count > ddof, 2.0 / np.maximum(count - ddof, 1), 0.0)
    return (_spread(ctx, g, x, axis, keepdims) * centred * scale,)


def _nanstd(ctx, g, out, x, axis=None, keepdims=False, ddof=0, **ignored):
    unused = (g == 0) | ~(out > 0)  # (no 0 / 0 from a zero or NaN deviation)
    g = np.where(unused, 0.0, g) / (2.0 * np.where(unused, 1.0, out))
    return _nanvar(ctx, g, out, x, axis, keepdims, ddof)


def _nanprod(ctx, g, out, x, axis=None, keepdims=False, **ignored):
    valid = _valid(x)
    (found,) = _prod(ctx, g, out, np.where(valid, x, 1.0), axis, keepdims)
    return (np.where(valid, found, 0.0),)


def _nancumsum(ctx, g, out, x, axis=None, **ignored):
    (found,) = _cumsum(ctx, g, out, x, axis)
    return (np.where(_valid(x), found, 0.0),)


def _nan_extreme(ctx, g, out, x, axis=None, keepdims=False, **ignored):
    return _extreme(ctx, g, out, x, axis, keepdims)  # (a NaN is never equal to the result)


def _ptp(ctx, g, out, x, axis=None, keepdims=False, **ignored):
    high = np.max(x, axis=axis, keepdims=keepdims)
    low = np.min(x, axis=axis, keepdims=keepdims)
    (up,) = _extreme(ctx, g, high, x, axis, keepdims)
    (down,) = _extreme(ctx, g, low, x, axis, keepdims)
    return (up - down,)


def _nan_to_num(ctx, g, out, x, *rest, **attrs):
    """1 where x is finite, 0 where a NaN or an infinity was replaced (each part of a complex
    x on its own)."""
    if not ctx.is_complex(x):
        return (np.where(np.isfinite(x), g, 0.0),) + (None,) * len(rest)
    real = np.where(np.isfinite(np.real(x)), np.real(g), 0.0)
    imag = np.where(np.isfinite(np.imag(x)), np.imag(g), 0.0)
    return (real + 1j * imag,) + (None,) * len(rest)


RULES: dict[str, Callable] = {
    "nan_to_num": _nan_to_num,
    "median": _median_rule(nan=False),
    "nanmedian": _median_rule(nan=True),
    "quantile": _quantile_rule(nan=False, scale=1.0),
    "nanquantile": _quantile_rule(nan=True, scale=1.0),
    "percentile": _quantile_rule(nan=False, scale=0.01),
    "nanpercentile": _quantile_rule(nan=True, scale=0.01),
    "nansum": _nansum,
    "nanmean": _nanmean,
    "nanvar": _nanvar,
    "nanstd": _nanstd,
    "nanprod": _nanprod,
    "nancumsum": _nancumsum,
    "nanmax": _nan_extreme,
    "nanmin": _nan_extreme,
    "ptp": _ptp,
}
