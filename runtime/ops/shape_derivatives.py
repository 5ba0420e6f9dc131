"""Vector-Jacobian products of the shape ops, indexing and selection (OpDef.vjp; the rule
convention is runtime.ops.ufunc_derivatives'). A view's cotangent is put back in the shape of
what it views; `x[index]`'s is added into zeros at the index (repeated indices add up)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def _reshape(ctx, g, out, x, *sizes, shape):
    return (ctx.reshape_like(g, x),) + (None,) * len(sizes)


def _same_shape(ctx, g, out, x, *rest, **attrs):
    return (ctx.reshape_like(g, x),) + (None,) * len(rest)


def _transpose(ctx, g, out, x, axes=None):
    if axes is None:
        return (np.transpose(g),)
    return (np.transpose(g, tuple(np.argsort(axes))),)


def _broadcast_to(ctx, g, out, x, *sizes, shape):
    return (ctx.sum_to(g, x),) + (None,) * len(sizes)


def _where(ctx, g, out, cond, x, y):
    # the untaken side gets an exact zero: no NaN of the other side's derivative reaches it
    zero = np.zeros_like(g)
    return (
        None,
        ctx.sum_to(np.where(cond, g, zero), x) if ctx.wants(1) else None,
        ctx.sum_to(np.where(cond, zero, g), y) if ctx.wants(2) else None,
    )


def _clip(ctx, g, out, x, *limits, bounds="min_max"):
    ctx.real_only(x, "np.clip")
    inside = np.ones_like(g, dtype=bool)
    lo, hi = {"min_max": (0, 1), "min": (0, None), "max": (None, 0), "none": (None, None)}[bounds]
    if lo is not None:
        inside = inside & (x >= limits[lo])
    if hi is not None:
        inside = inside & (x <= limits[hi])
    zero = np.zeros_like(g)
    grads = [ctx.sum_to(np.where(inside, g, zero), x) if ctx.wants(0) else None]
    if lo is not None:
        below = (x < limits[lo]) if hi is None else (x < limits[lo]) & (x <= limits[hi])
        grads.append(ctx.sum_to(np.where(below, g, zero), limits[lo]) if ctx.wants(1) else None)
    if hi is not None:
        above = x > limits[hi]
        grads.append(
            ctx.sum_to(np.where(above, g, zero), limits[hi]) if ctx.wants(len(grads)) else None
        )
    return tuple(grads)


def _astype(ctx, g, out, x, dtype, scalar=False):
    return (ctx.cast_like(g, x),)


def _identity(ctx, g, out, x, *rest, **attrs):
    return (g,) + (None,) * len(rest)


def _concatenate(ctx, g, out, *xs, axis=0, dtype=None):
    if axis is None:
        g = np.reshape(g, (-1,))
        axis = 0
    grads, start = [], 0
    for i, x in enumerate(xs):
        size = ctx.dim(x, axis if axis is not None else 0)
        stop = start + size
        if ctx.wants(i):
            part = g[(slice(None),) * (axis % ctx.ndim(out)) + (slice(start, stop),)]
            grads.append(ctx.reshape_like(part, x))
        else:
            grads.append(None)
        start = stop
    return tuple(grads)


def _stack(ctx, g, out, *xs, axis=0, dtype=None):
    axis = axis % ctx.ndim(out)
    return tuple(g[(slice(None),) * axis + (i,)] if ctx.wants(i) else None for i in range(len(xs)))


def _getitem(ctx, g, out, x, *inputs, index):
    return (ctx.op("scatter_add", x, g, *inputs, index=index),) + (None,) * len(inputs)


def _take_along_axis(ctx, g, out, arr, indices, axis=-1):
    """arr[the aranges of the other axes, indices]: g added into zeros at those places."""
    if axis is None:
        flat = np.reshape(arr, (-1,))
        return (ctx.reshape_like(ctx.op("scatter_add", flat, g, indices, index=("?",)), arr), None)
    nd = ctx.ndim(arr)
    axis = axis % nd
    keys = [
        indices
        if k == axis
        else np.reshape(np.arange(ctx.dim(arr, k)), tuple(-1 if j == k else 1 for j in range(nd)))
        for k in range(nd)
    ]
    return (ctx.op("scatter_add", arr, g, *keys, index=("?",) * nd), None)


def _setitem(ctx, g, out, x, value, *inputs, index):
    gx = gv = None
    if ctx.wants(0):
        gx = ctx.op("setitem", g, 0.0, *inputs, index=index)
    if ctx.wants(1):
        gv = ctx.sum_to(ctx.op("getitem", g, *inputs, index=index), value)
    return (gx, gv) + (None,) * len(inputs)


def _trace(ctx, g, out, x, offset=0, axis1=0, axis2=1, dtype=None):
    if ctx.ndim(x) != 2 or offset != 0:
        return (ctx.unsupported("trace of other than the main diagonal of a matrix"),)
    eye = np.eye(ctx.dim(x, 0), ctx.dim(x, 1), dtype=bool)
    return (np.where(eye, ctx.broadcast_like(g, x), 0.0),)


def _outer(ctx, g, out, a, b):
    return (
        ctx.reshape_like(g @ np.ravel(b), a) if ctx.wants(0) else None,
        ctx.reshape_like(np.ravel(a) @ g, b) if ctx.wants(1) else None,
    )


def _dot(ctx, g, out, a, b):
    if ctx.ndim(a) <= 2 and ctx.ndim(b) <= 2 and ctx.ndim(a) and ctx.ndim(b):
        return ctx.rule_of("matmul")(ctx, g, out, a, b)
    if not ctx.ndim(a) or not ctx.ndim(b):
        return ctx.rule_of("multiply")(ctx, g, out, a, b)
    return (ctx.unsupported("np.dot of arrays of more than 2 dimensions"), None)


SHAPE_RULES: dict[str, Callable] = {
    "reshape": _reshape,
    "squeeze": _same_shape,
    "expand_dims": _same_shape,
    "transpose": _transpose,
    "broadcast_to": _broadcast_to,
    "where": _where,
    "clip": _clip,
    "astype": _astype,
    "copy": _identity,
    "concatenate": _concatenate,
    "stack": _stack,
    "trace": _trace,
}
INDEXING_RULES: dict[str, Callable] = {"getitem": _getitem, "setitem": _setitem}
ARRAY_RULES: dict[str, Callable] = {"take_along_axis": _take_along_axis}
PRODUCT_RULES: dict[str, Callable] = {"outer": _outer, "dot": _dot}
