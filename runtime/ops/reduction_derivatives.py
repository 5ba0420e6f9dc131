"""Vector-Jacobian products of reductions and scans (OpDef.vjp; the rule convention is
runtime.ops.ufunc_derivatives').

A reduction's cotangent is broadcast back over the reduced axes (`ctx.broadcast_like`, which
reads shapes when the graph runs). max/min send it to the first element equal to the result
along the reduced axis, the one np.argmax/np.argmin picks; over several axes at once it is
split among the equal elements.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def _axes(ctx, x, axis) -> tuple:
    nd = ctx.ndim(x)
    if axis is None:
        return tuple(range(nd))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return tuple(sorted(a % nd for a in axes)) if nd else ()


def _spread(ctx, g, x, axis, keepdims):
    """The cotangent `g` of a reduction of `x` over `axis`, broadcast back to x's shape."""
    axes = _axes(ctx, x, axis)
    if not keepdims and axes:
        g = np.expand_dims(g, axes)
    return ctx.broadcast_like(g, x)


def _sum(ctx, g, out, x, axis=None, keepdims=False, dtype=None):
    return (_spread(ctx, g, x, axis, keepdims),)


def _mean(ctx, g, out, x, axis=None, keepdims=False, dtype=None):
    return (_spread(ctx, g, x, axis, keepdims) / ctx.count(x, out),)


def _prod(ctx, g, out, x, axis=None, keepdims=False, dtype=None):
    """d prod / d x_i is the product of the others: out / x_i where no factor is zero; where
    one is, the product of the nonzero ones for that factor and 0 for the others (no 0 / 0)."""
    axes = _axes(ctx, x, axis) or None
    zero = x == 0
    zeros = np.sum(zero, axis=axes, keepdims=True)
    others = np.prod(np.where(zero, 1.0, x), axis=axes, keepdims=True)  # (the nonzero ones)
    safe = np.where(zero, 1.0, x)
    derivative = np.where(
        zero, np.where(zeros == 1, others, 0.0), np.where(zeros == 0, others / safe, 0.0)
    )
    return (_spread(ctx, g, x, axis, keepdims) * derivative,)


def _extreme(ctx, g, out, x, axis=None, keepdims=False):
    ctx.real_only(x, "a maximum or minimum")
    equal = x == _spread(ctx, out, x, axis, keepdims)
    axes = _axes(ctx, x, axis)
    if len(axes) == 1:  # the first equal element along the axis
        chosen = equal & (np.cumsum(equal, axis=axes[0]) == 1)
    elif len(axes) == ctx.ndim(x) and axes:  # the first in C order: the flat array's
        flat = np.reshape(equal, (-1,))
        chosen = ctx.reshape_like(flat & (np.cumsum(flat) == 1), x)
    else:
        share = _spread(ctx, np.sum(equal, axis=axes, keepdims=keepdims), x, axis, keepdims)
        return (_spread(ctx, g, x, axis, keepdims) * equal / share,)
    return (_spread(ctx, g, x, axis, keepdims) * chosen,)


def _var(ctx, g, out, x, axis=None, keepdims=False, dtype=None, ddof=0):
    centred = x - np.mean(x, axis=_axes(ctx, x, axis) or None, keepdims=True)
    if ctx.is_complex(x):  # (the mean of |x - mean|^2: conj(x - mean) per unit of |.|^2)
        centred = np.conjugate(centred)
    scale = 2.0 / (ctx.count(x, out) - ddof)
    return (_spread(ctx, g, x, axis, keepdims) * centred * scale,)


def _std(ctx, g, out, x, axis=None, keepdims=False, dtype=None, ddof=0):
    # (where the cotangent is exactly zero, none flows: no 0 / 0 from a zero deviation)
    unused = g == 0
    return _var(
        ctx,
        np.where(unused, 0.0, g) / (2.0 * np.where(unused, 1.0, out)),
        out,
        x,
        axis,
        keepdims,
        dtype,
        ddof,
    )


def _sort(ctx, g, out, x, axis=-1, kind=None, stable=None):
    """np.sort: each element's cotangent is that of the place it was sorted to (the inverse of
    a stable argsort's permutation; tied elements are equal, so which of them goes where does not
    change the gradient)."""
    if axis is None:
        flat = np.reshape(x, (-1,))
        return (ctx.reshape_like(_sort(ctx, g, out, flat, axis=0)[0], x),)
    order = np.argsort(x, axis=axis, stable=True)
    places = np.argsort(order, axis=axis, stable=True)
    return (np.take_along_axis(g, places, axis=axis),)


def _reversed(x, axis):
    return x[(slice(None),) * axis + (slice(None, None, -1),)]


def _cumsum(ctx, g, out, x, axis=None, dtype=None):
    if axis is None:
        return (ctx.reshape_like(_reversed(np.cumsum(_reversed(g, 0)), 0), x),)
    axis = axis % ctx.ndim(x)
    return (_reversed(np.cumsum(_reversed(g, axis), axis=axis), axis),)


RULES: dict[str, Callable] = {
    "sum": _sum,
    "mean": _mean,
    "prod": _prod,
    "max": _extreme,
    "min": _extreme,
    "var": _var,
    "std": _std,
    "cumsum": _cumsum,
    "sort": _sort,
}
