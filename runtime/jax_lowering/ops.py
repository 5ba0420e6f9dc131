"""Lowerings of the NumPy ops whose JAX spelling differs from `jnp.<name>(*inputs, **attrs)`:
ufuncs (NumPy's dtype resolution, NEP 50), indexing, casts, shapes with run-time dims."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..graph import Value
from ..ops.elementwise import PYTHON_OPERATORS, UFUNCS, _resolve_arg, python_operands
from ..ops.indexing import _key_builder
from ..ops.shape_ops import fill_dynamic
from ..types import PYTHON_SCALAR_DTYPES, TensorType
from .table import jnp_function, lowers
from .values import is_static


def ir_type(item):
    """What a type rule receives for a node input: its TensorType, or the Python number."""
    return item.type if isinstance(item, Value) else item


def _resolve(t):
    """What ufunc.resolve_dtypes takes for an input: int, float or complex for a Python number
    (a literal, or a weak type: a Python number known at run time), else its dtype."""
    if isinstance(t, TensorType) and t.weak:
        python_type = t.python_type
        return np.dtype(bool) if python_type is bool else python_type
    return _resolve_arg(t)


def _loop_dtypes(ufunc: np.ufunc, types) -> tuple:
    """The dtypes NumPy computes `ufunc` in for inputs of `types` (weak numbers by NEP 50)."""
    args = tuple(_resolve(t) for t in types)
    try:
        return ufunc.resolve_dtypes(args + (None,) * ufunc.nout)
    except (TypeError, ValueError):  # only Python numbers: they meet as their NumPy dtypes
        strong = tuple(PYTHON_SCALAR_DTYPES[a] if isinstance(a, type) else a for a in args)
        return ufunc.resolve_dtypes(strong + (None,) * ufunc.nout)


_JNP_NAMES = {"bitwise_invert": "invert"}
_PYTHON_KINDS = "biufc"


def _python_dtypes(ufunc: np.ufunc, types, out_types) -> tuple:
    """The dtypes that give Python's arithmetic on Python numbers (weak types and literals):
    the result's type when it is a number at least as wide as the inputs' common type (`True +
    True` is the int 2, `3 / 2` the float 1.5), else that common type (`True < 2` compares ints,
    `abs(1j)` takes a complex)."""
    inputs = [
        np.dtype(t.dtype) if hasattr(t, "dtype") else np.dtype(PYTHON_SCALAR_DTYPES[type(t)])
        for t in types
    ]
    common = max(inputs, key=lambda d: _PYTHON_KINDS.index(d.kind))
    if common.kind == "u":
        common = np.dtype(np.int64)
    outs = tuple(np.dtype(t.dtype) for t in out_types)
    rank = _PYTHON_KINDS.index
    compute = outs[0] if outs[0].kind != "b" and rank(outs[0].kind) >= rank(common.kind) else common
    return (compute,) * ufunc.nin + outs


def _lower_ufunc(ctx, node, *inputs, name=None):
    name = name or node.op
    if all(is_static(x) for x in inputs) and name in PYTHON_OPERATORS:
        return PYTHON_OPERATORS[name](*inputs)  # Python numbers known now: Python's arithmetic
    ufunc = UFUNCS[name]
    types = [ir_type(v) for v in node.inputs]
    if name in PYTHON_OPERATORS and python_operands(name, types):
        loop = _python_dtypes(ufunc, types, [v.type for v in node.outputs])
    else:
        loop = _loop_dtypes(ufunc, types)
    args = [jnp.asarray(x, dtype=d) for x, d in zip(inputs, loop[: ufunc.nin])]
    func = jnp_function(_JNP_NAMES.get(name, name))
    out = func(*args)
    if ufunc.nout == 1:
        return out.astype(loop[ufunc.nin])
    return tuple(o.astype(d) for o, d in zip(out, loop[ufunc.nin :]))


lowers(*(name for name in UFUNCS if jnp_function(_JNP_NAMES.get(name, name)) is not None))(
    _lower_ufunc
)


@lowers("mul")
def _mul(ctx, node, a, b):
    return _lower_ufunc(ctx, node, a, b, name="multiply")  # (XLA has one complex product)


@lowers("abs")
def _abs(ctx, node, x):
    return jnp.abs(jnp.asarray(x)).astype(node.outputs[0].type.dtype)


@lowers("ufunc_call")
def _ufunc_call(ctx, node, *inputs, ufunc):
    """An explicit ufunc call: NumPy's arithmetic, where all-Python operands are first made
    arrays of their default dtypes (np.add(1, 2) is an int64)."""
    func = UFUNCS[ufunc]
    if all(is_static(x) for x in inputs):
        return func(*inputs)
    types = [ir_type(v) for v in node.inputs]
    if all(isinstance(t, TensorType) and t.weak or not isinstance(t, TensorType) for t in types):
        types = [t.strong() if isinstance(t, TensorType) else np.asarray(t).dtype for t in types]
        types = [TensorType(t, ()) if isinstance(t, np.dtype) else t for t in types]
    loop = _loop_dtypes(func, types)
    args = [jnp.asarray(x, dtype=d) for x, d in zip(inputs, loop[: func.nin])]
    return jnp_function(_JNP_NAMES.get(ufunc, ufunc))(*args).astype(loop[func.nin])


@lowers("ufunc_out")
def _ufunc_out(ctx, node, target, *inputs, ufunc):
    func = UFUNCS[ufunc]
    types = [ir_type(v) for v in node.inputs[1:]]
    loop = func.resolve_dtypes(
        tuple(_resolve(t) for t in types) + (node.outputs[0].type.dtype,), casting="same_kind"
    )
    args = [jnp.asarray(x, dtype=d) for x, d in zip(inputs, loop[: func.nin])]
    result = jnp_function(ufunc)(*args)
    return jnp.broadcast_to(result.astype(target.dtype), jnp.shape(target))


@lowers("const")
def _const(ctx, node, *, value):
    return value


@lowers("getitem")
def _getitem(ctx, node, x, *inputs, index):
    build, _ = _key_builder(index)
    return jnp.asarray(x)[build(inputs)]


@lowers("setitem")
def _setitem(ctx, node, x, value, *inputs, index):
    build, _ = _key_builder(index)
    x = jnp.asarray(x)
    return x.at[build(inputs)].set(jnp.asarray(value).astype(x.dtype))


@lowers("astype")
def _astype(ctx, node, x, *, dtype, scalar=False):
    # scalar: np.float32(x) on a 0-d x, a NumPy scalar in the interpreter; JAX has one 0-d kind
    return jnp.asarray(x).astype(dtype)


@lowers("copy")
def _copy(ctx, node, x):
    return jnp.array(x, copy=True)


@lowers("reshape")
def _reshape(ctx, node, x, *sizes, shape):
    return jnp.reshape(x, fill_dynamic(tuple(shape), [int(s) for s in sizes]))


@lowers("broadcast_to")
def _broadcast_to(ctx, node, x, *sizes, shape):
    return jnp.broadcast_to(x, fill_dynamic(tuple(shape), [int(s) for s in sizes]))


@lowers("python_number")
def _python_number(ctx, node, x, *, kind):
    if is_static(x):
        return kind(x)
    return jnp.asarray(x).astype(PYTHON_SCALAR_DTYPES[kind])


@lowers("truth")
def _truth(ctx, node, x):
    return jnp.asarray(x) != 0


@lowers("dim")
def _dim(ctx, node, x, *, axis):
    return jnp.shape(x)[axis]
