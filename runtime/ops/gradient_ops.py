"""The ops gradient graphs are made of, besides NumPy's: a cotangent summed back to the shape of
the value it is the gradient of (undoing a broadcast), broadcast to it (undoing a reduction),
scattered into zeros at an index (undoing `x[index]`), and `stop_gradient`.

Each takes the value it is shaped after (`like`) as an input, so shapes known only when the
graph runs are read then. Each is linear in its first input; its own rule (OpDef.vjp) is the
others', so a gradient graph can be differentiated again.
"""

from __future__ import annotations

import numpy as np

from ..registry import register_op
from ..types import TensorType, kinds
from ._rules import dtype_of, shape_of
from .indexing import _key_builder


def _shape_of_like(like) -> tuple:
    """The shape of values of type `like` (a value of several kinds: its one shape)."""
    shapes = {shape_of(k) if isinstance(k, TensorType) else () for k in kinds(like)}
    if len(shapes) != 1:
        raise TypeError(f"a gradient's shape follows a value of several shapes: {like}")
    return shapes.pop()


def _float_of(t) -> np.dtype:
    dtype = dtype_of(t)
    return dtype if dtype.kind in "fc" else np.dtype(np.float64)


def _like_infer(a, like):
    return TensorType(_float_of(a), _shape_of_like(like))


def _summed_to(xp, a, shape: tuple):
    """`a` (an array of the array module `xp`: NumPy, jax.numpy) summed to `shape`."""
    if a.shape == shape:
        return a
    lead = a.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and a.shape[lead + i] != 1
    )
    return xp.reshape(xp.sum(a, axis=axes, keepdims=True) if axes else a, shape)


def sum_to_like(a, like):
    """`a` summed over the axes along which it was broadcast from `like`'s shape."""
    return _summed_to(np, np.asarray(a), np.shape(like))


def broadcast_like(a, like):
    """`a` broadcast to `like`'s shape (a copy: gradients are written into)."""
    return np.array(np.broadcast_to(a, np.shape(like)))


def _sum_to_vjp(ctx, g, out, a, like):
    return (ctx.op("broadcast_like", g, a), None)


def _broadcast_vjp(ctx, g, out, a, like):
    return (ctx.op("sum_to_like", g, a), None)


register_op(
    "sum_to_like",
    infer=_like_infer,
    raises="never",
    lower=lambda ctx, node, a, like: _summed_to(ctx.jnp, ctx.jnp.asarray(a), ctx.jnp.shape(like)),
    vjp=_sum_to_vjp,
    doc="a summed over the axes it was broadcast along from like's shape (a gradient)",
)(sum_to_like)
register_op(
    "broadcast_like",
    infer=_like_infer,
    raises="never",
    lower=lambda ctx, node, a, like: ctx.jnp.broadcast_to(a, ctx.jnp.shape(like)),
    vjp=_broadcast_vjp,
    doc="a broadcast to like's shape (a gradient)",
)(broadcast_like)


def make_scatter_kernel(index):
    build = _key_builder(index)[0]

    def scatter_add(like, g, *inputs):
        """Zeros shaped as `like` with `g` added at `like[index]` (repeated indices add up)."""
        dtype = np.result_type(np.asarray(g).dtype, np.float16)
        out = np.zeros(np.shape(like), dtype)
        np.add.at(out, build(inputs), g)
        return out

    return scatter_add


def _scatter_infer(like, g, *inputs, index):
    return TensorType(_float_of(g), _shape_of_like(like))


def _scatter_vjp(ctx, ct, out, like, g, *inputs, index):
    read = ctx.op("getitem", ct, *inputs, index=index)
    return (None, ctx.sum_to(read, g)) + (None,) * len(inputs)


def _lower_scatter(ctx, node, like, g, *inputs, index):
    jnp = ctx.jnp
    zeros = jnp.zeros(jnp.shape(like), jnp.result_type(g, jnp.float16))
    return zeros.at[_key_builder(index)[0](inputs)].add(g)


register_op(
    "scatter_add",
    infer=_scatter_infer,
    lower=_lower_scatter,
    make_kernel=make_scatter_kernel,
    index_inputs=2,
    vjp=_scatter_vjp,
    doc="zeros shaped as like with g added at like[index] (the gradient of x[index])",
)(lambda like, g, *inputs, index: make_scatter_kernel(index)(like, g, *inputs))


register_op(
    "stop_gradient",
    infer=lambda x: x,
    expr="{0}",
    weak_results=True,
    raises="never",
    may_alias_input=True,
    lower=lambda ctx, node, x: ctx.jax.lax.stop_gradient(x),
    vjp=lambda ctx, g, out, x: (None,),
    doc="x itself; no gradient flows through it (staging.stop_gradient)",
)(lambda x: x)


def reshape_like(a, like):
    """`a` reshaped to `like`'s shape (the gradient of a reshape, squeeze or expand_dims)."""
    return np.reshape(a, np.shape(like))


def _reshape_vjp(ctx, g, out, a, like):
    return (ctx.op("reshape_like", g, a), None)


register_op(
    "reshape_like",
    infer=_like_infer,
    lower=lambda ctx, node, a, like: ctx.jnp.reshape(a, ctx.jnp.shape(like)),
    may_alias_input=True,
    vjp=_reshape_vjp,
    doc="a reshaped to like's shape (a gradient)",
)(reshape_like)
