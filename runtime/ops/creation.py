"""Array creation: zeros/ones/full/eye/arange with static or symbolic sizes, and the *_like ops.

Shape attrs hold ints, or None for a dim supplied by the next integer scalar input. Scalar attrs
of eye/arange hold a number, or "?" for a value supplied by the next input.
"""

from __future__ import annotations

import math

import numpy as np

from ..numba_backend import arrays as numba_arrays
from ..registry import add_vjps, register_op
from ..types import TensorType
from ._rules import check_type, dtype_of, result_dtype, shape_of
from .elementwise import broadcast
from .shape_ops import check_dynamic_sizes, fill_dynamic

_F64 = np.dtype(np.float64)


def _check_shape(op, shape, sizes):
    shape = tuple(shape)
    check_dynamic_sizes(op, shape, sizes)
    for d in shape:
        if d is not None and (not isinstance(d, int) or isinstance(d, bool)):
            raise TypeError(f"{op}: shape entries must be ints, got {d!r}")
        if d is not None and d < 0:
            raise ValueError("negative dimensions are not allowed")
    return shape


# --- *_like ----------------------------------------------------------------------------------


def _like_infer(op):
    def infer(x, dtype=None):
        check_type(x, f"{op} input")
        return TensorType(dtype_of(x) if dtype is None else np.dtype(dtype), shape_of(x))

    return infer


@register_op(
    "zeros_like",
    infer=_like_infer("zeros_like"),
    fresh_result=True,
    numba_lower=lambda ctx, node: numba_arrays.like(ctx, node, "zeros"),
    doc="np.zeros_like(x, dtype)",
)
def zeros_like(x, dtype=None):
    return np.zeros_like(x, dtype=dtype)


@register_op(
    "ones_like",
    infer=_like_infer("ones_like"),
    fresh_result=True,
    numba_lower=lambda ctx, node: numba_arrays.like(ctx, node, "ones"),
    doc="np.ones_like(x, dtype)",
)
def ones_like(x, dtype=None):
    return np.ones_like(x, dtype=dtype)


def full_like_infer(x, fill_value, dtype=None):
    check_type(x, "full_like input")
    check_type(fill_value, "full_like fill value")
    shape = shape_of(x)
    if broadcast(shape_of(fill_value), shape) != shape and None not in shape:
        raise ValueError(
            f"could not broadcast fill value of shape {shape_of(fill_value)} into shape {shape}"
        )
    return TensorType(dtype_of(x) if dtype is None else np.dtype(dtype), shape)


@register_op(
    "full_like", infer=full_like_infer, fresh_result=True, doc="np.full_like(x, fill_value, dtype)"
)
def full_like(x, fill_value, dtype=None):
    return np.full_like(x, fill_value, dtype=dtype)


# --- zeros / ones / full ---------------------------------------------------------------------


def _sized_infer(op):
    def infer(*sizes, shape, dtype=_F64):
        shape = _check_shape(op, shape, sizes)
        return TensorType(_F64 if dtype is None else np.dtype(dtype), shape)

    return infer


def _sized_kernel(func):
    def make_kernel(shape, dtype=_F64):
        shape = tuple(shape)
        if None not in shape:
            return lambda: func(shape, dtype=dtype)
        return lambda *sizes: func(fill_dynamic(shape, sizes), dtype=dtype)

    return make_kernel


@register_op(
    "zeros",
    infer=_sized_infer("zeros"),
    make_kernel=_sized_kernel(np.zeros),
    fresh_result=True,
    numba_lower=lambda ctx, node: numba_arrays.sized(ctx, node, "zeros", node.inputs),
    doc="np.zeros(shape, dtype); None dims come from integer scalar inputs",
)
def zeros(*sizes, shape, dtype=_F64):
    return np.zeros(fill_dynamic(tuple(shape), sizes), dtype=dtype)


@register_op(
    "ones",
    infer=_sized_infer("ones"),
    make_kernel=_sized_kernel(np.ones),
    fresh_result=True,
    numba_lower=lambda ctx, node: numba_arrays.sized(ctx, node, "ones", node.inputs),
    doc="np.ones(shape, dtype); None dims come from integer scalar inputs",
)
def ones(*sizes, shape, dtype=_F64):
    return np.ones(fill_dynamic(tuple(shape), sizes), dtype=dtype)


def full_infer(fill_value, *sizes, shape, dtype=None):
    check_type(fill_value, "full fill value")
    shape = _check_shape("full", shape, sizes)
    fshape = shape_of(fill_value)
    if fshape and None not in shape and broadcast(fshape, shape) != shape:
        raise ValueError(f"could not broadcast fill value of shape {fshape} into shape {shape}")
    return TensorType(dtype_of(fill_value) if dtype is None else np.dtype(dtype), shape)


@register_op(
    "full",
    infer=full_infer,
    fresh_result=True,
    numba_lower=lambda ctx, node: numba_arrays.sized(
        ctx, node, "full", node.inputs[1:], node.inputs[0]
    ),
    doc="np.full(shape, fill_value, dtype); None dims come from inputs",
)
def full(fill_value, *sizes, shape, dtype=None):
    return np.full(fill_dynamic(tuple(shape), sizes), fill_value, dtype=dtype)


# --- eye / arange ----------------------------------------------------------------------------


def _bind_scalars(op, names, values, inputs):
    """Replaces "?" attr values by the next inputs, in the order of `names`."""
    it = iter(inputs)
    out = []
    for name, value in zip(names, values):
        if isinstance(value, str):
            if value != "?":
                raise ValueError(f"{op}: {name} must be a number or '?', got {value!r}")
            try:
                out.append(next(it))
            except StopIteration:
                raise TypeError(f"{op}: missing input for symbolic {name}") from None
        else:
            out.append(value)
    if next(it, None) is not None:
        raise TypeError(f"{op}: more inputs than symbolic ('?') attrs")
    return out


def _symbolic_int(op, name, t):
    if isinstance(t, TensorType):
        if t.ndim != 0 or t.dtype.kind not in "iu":
            raise TypeError(f"{op}: a symbolic {name} must be an integer scalar, got {t}")
        return None
    if t is None:
        return None
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)):
        raise TypeError(f"{op}: {name} must be an integer, got {t!r}")
    return int(t)


def eye_infer(*inputs, N, M=None, k=0, dtype=_F64):
    n, m, kk = _bind_scalars("eye", ("N", "M", "k"), (N, M, k), inputs)
    n_size = _symbolic_int("eye", "N", n)
    m_size = n_size if M is None else _symbolic_int("eye", "M", m)
    _symbolic_int("eye", "k", kk)
    for size in (n_size, m_size):
        if size is not None and size < 0:
            raise ValueError("negative dimensions are not allowed")
    return TensorType(_F64 if dtype is None else np.dtype(dtype), (n_size, m_size))


@register_op(
    "eye",
    infer=eye_infer,
    fresh_result=True,
    doc="np.eye(N, M, k, dtype); '?' attrs come from integer scalar inputs",
)
def eye(*inputs, N, M=None, k=0, dtype=_F64):
    n, m, kk = _bind_scalars("eye", ("N", "M", "k"), (N, M, k), inputs)
    return np.eye(n, m, kk, dtype=dtype)


def _dtype_dummy(t):
    """A value of t's type for dtype inference (1 of the same Python type, or a 0-d array of ones)."""
    if isinstance(t, TensorType):
        if t.ndim != 0:
            raise ValueError(f"arange: start/stop/step must be scalars, got {t}")
        return np.ones((), dtype=t.dtype)
    return type(t)(1)


def arange_infer(*inputs, start=0, stop, step=1, dtype=None):
    values = _bind_scalars("arange", ("start", "stop", "step"), (start, stop, step), inputs)
    for v in values:
        if not isinstance(v, TensorType) and (
            isinstance(v, bool) or not isinstance(v, (int, float))
        ):
            raise TypeError(f"arange: start/stop/step must be real numbers, got {v!r}")
    out_dtype = result_dtype(np.arange, *(_dtype_dummy(v) for v in values), dtype=dtype)
    a, b, s = values
    length = None
    if not any(isinstance(v, TensorType) for v in values):
        if s == 0:
            raise ZeroDivisionError("division by zero")
        length = max(0, math.ceil((b - a) / s))
    return TensorType(out_dtype, (length,))


@register_op(
    "arange",
    infer=arange_infer,
    fresh_result=True,
    doc="np.arange(start, stop, step, dtype); '?' attrs come from scalar inputs",
)
def arange(*inputs, start=0, stop, step=1, dtype=None):
    a, b, s = _bind_scalars("arange", ("start", "stop", "step"), (start, stop, step), inputs)
    return np.arange(a, b, s, dtype=dtype)


def _no_gradient(ctx, g, out, *inputs, **attrs):
    """(OpDef.vjp) The result does not depend on the input's values, only on its shape."""
    return (None,) * len(inputs)


add_vjps({"zeros_like": _no_gradient, "ones_like": _no_gradient})
