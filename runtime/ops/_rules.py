"""Shared helpers for op rules: dummy evaluation for dtypes, axis checks, shape arithmetic."""

from __future__ import annotations

import math
import operator
import warnings

import numpy as np

from ..types import TensorType

# An input type is a TensorType, or a Python scalar literal itself (its value is known). Python
# numbers are "weak" inputs (NEP 50): literals, and weak TensorTypes (values known at run time).
PY_SCALARS = (bool, int, float, complex)
# The Python number that stands for every value of a weak type in a rule: NumPy's result dtype
# depends only on its kind (NEP 50).
_REPRESENTATIVE = {bool: True, int: 1, float: 1.0, complex: 1j}


def is_literal(t) -> bool:
    """True for a Python scalar literal input."""
    return type(t) in PY_SCALARS  # exact: np.float64 subclasses float but is not weak


def is_weak(t) -> bool:
    """True for a Python number: a literal, or a value of a weak type."""
    return type(t) in PY_SCALARS or (isinstance(t, TensorType) and t.weak)


def python_value(t):
    """The literal itself, or the representative Python number of a weak type."""
    return t if type(t) in PY_SCALARS else _REPRESENTATIVE[t.python_type]


def shape_of(t) -> tuple:
    return () if is_weak(t) else t.shape


def dtype_of(t) -> np.dtype:
    """The dtype NumPy gives the value on its own (a weak scalar's default dtype)."""
    return np.asarray(t).dtype if is_literal(t) else t.dtype


def check_type(t, what: str = "input"):
    if not (is_literal(t) or isinstance(t, TensorType)):
        raise TypeError(f"{what} type must be a TensorType or a Python scalar, got {t!r}")
    return t


def dummy(t, fill: int = 0):
    """A concrete stand-in with `t`'s dtype for dtype inference; Python numbers (literals and
    weak types) are Python numbers.

    fill=0 gives an empty array of the right rank (no values, so no value-dependent errors);
    fill=1 gives an array of ones with every dim 1 (for functions that reject empty input).
    """
    if is_weak(t):
        return python_value(t)
    check_type(t)
    if fill == 0:
        return np.empty((0,) * t.ndim, dtype=t.dtype)
    return np.ones((1,) * t.ndim, dtype=t.dtype)


def result_dtype(func, *args, **kwargs) -> np.dtype:
    """Runs `func` on dummy values, silencing floating point warnings, and returns its result dtype."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = func(*args, **kwargs)
    return np.asarray(out).dtype


def as_index(value, what: str) -> int:
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, got {value!r}") from None


def normalize_axis(axis, ndim: int) -> int:
    axis = as_index(axis, "axis")
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim if ndim else 0


def normalize_axes(axis, ndim: int, allow_none: bool = True):
    """axis None -> all axes (tuple); int or tuple -> sorted-unique tuple of non-negative axes."""
    if axis is None:
        if not allow_none:
            raise TypeError("axis must not be None")
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = tuple(normalize_axis(a, ndim) for a in axis)
    else:
        axes = (normalize_axis(axis, ndim),)
    if len(set(axes)) != len(axes):
        raise ValueError("duplicate value in 'axis'")
    return axes


def known_prod(dims) -> int | None:
    """Product of dims, or None if any is unknown."""
    if any(d is None for d in dims):
        return None
    return math.prod(dims)


def merge_dim(a, b, context: str):
    """Two dims that must be equal; unknown dims take the known one."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    raise ValueError(f"{context}: dimension {a} does not match {b}")


def fmt_shape(shape) -> str:
    return (
        "("
        + ", ".join("?" if d is None else str(d) for d in shape)
        + ("," if len(shape) == 1 else "")
        + ")"
    )


# why an op whose result's shape depends on its input's values has no JAX lowering (OpDef.unlowerable)
DYNAMIC_SHAPE = (
    "its result's shape depends on the values of its input, and XLA needs every shape when "
    "it compiles; compute it outside the staged function or keep the interpreter"
)


def nonfinite_from_finite(jnp, node, outputs, *inputs):
    """(OpDef.lower_suspect) An inexact result holding a value that is not finite where no
    operand holds one: the op overflowed, divided by zero, took an empty mean or met a singular
    matrix, where NumPy warns or raises and XLA's lowering gives inf or NaN silently."""
    results = [jnp.asarray(o) for o in outputs]
    results = [o for o in results if jnp.issubdtype(o.dtype, jnp.inexact)]
    if not results:
        return None
    bad = jnp.any(jnp.stack([jnp.any(~jnp.isfinite(o)) for o in results]))
    for x in inputs:
        x = jnp.asarray(x)
        if jnp.issubdtype(x.dtype, jnp.inexact):
            bad = bad & jnp.all(jnp.isfinite(x))
    return bad


def zero_of_either_sign(jnp, node, outputs, x):
    """(OpDef.lower_suspect) A float max or min (np.max, np.nanmin ...) whose result is a zero
    where the elements it reduces hold zeros of both signs: which one NumPy gives depends on the
    order its loops visit them (SIMD lanes, the array's length), so such a call runs on the
    interpreter."""
    x, out = jnp.asarray(x), jnp.asarray(outputs[0])
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return None
    axis, keepdims = node.attrs.get("axis"), bool(node.attrs.get("keepdims", False))
    if isinstance(axis, list):
        axis = tuple(axis)
    zeros = x == 0
    negative = jnp.any(zeros & jnp.signbit(x), axis=axis, keepdims=keepdims)
    positive = jnp.any(zeros & ~jnp.signbit(x), axis=axis, keepdims=keepdims)
    return jnp.any(negative & positive & (out == 0))
