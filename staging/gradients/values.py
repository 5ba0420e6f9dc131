"""What gradients are made of: which values have one, zeros, and a gradient shaped and typed
as the value it is the gradient of."""

from __future__ import annotations

import numpy as np

from runtime import TensorType, Value
from runtime.types import kinds
from staging.core.tensor import Tensor
from staging.gradients import lists
from staging.gradients.rules import gradient_dtype, is_complex


def differentiable(t) -> bool:
    """A value of type `t` has a gradient: a float (or complex) on some path, or a staged list
    of such values."""
    if isinstance(t, (bool, int)):
        return False
    if lists.is_list(t):
        return lists.differentiable_list(t)
    if isinstance(t, (float, complex)):
        return True
    return any(
        isinstance(k, TensorType)
        and (k.dtype.kind in "fc" or (k.weak and k.python_type in (float, complex)))
        for k in kinds(t)
    )


def add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def zeros_for(x, t):
    """A cotangent of zeros for a value `x` of type `t` (a list's: a row per element)."""
    return lists.zeros(x, t) if lists.is_list(t) else zeros_of(x)


def zeros(v: Value, out):
    return zeros_of(out) if differentiable(v.type) else None


def zeros_of(x):
    return np.zeros_like(x, dtype=gradient_dtype(x))


def as_gradient(g, x, zero_of=None, skip=False):
    """g as the gradient of x: x's float dtype and shape; zeros where none flowed (None with
    `skip`)."""
    if g is None:
        return None if skip else zeros_of(zero_of if zero_of is not None else x)
    if isinstance(x, lists.Recorded) or lists.is_list(
        getattr(getattr(x, "_value", None), "type", None)
    ):
        return g  # (a list's cotangent: an array of the elements' float dtype already)
    g = fitted(g, x)
    dtype = gradient_dtype(x)
    if np.result_type(g) != dtype:
        g = np.asarray(g).astype(dtype) if not isinstance(g, Tensor) else g.astype(dtype)
    return g


def fitted(ct, x):
    """A cotangent a rule computed for x, as x's: the real part where x is real and ct complex
    (JAX's convention: a real value's cotangent is the real part of the complex one its
    promotion to complex gets)."""
    if ct is None or is_complex(x) or not is_complex(ct):
        return ct
    return np.real(ct)


def variable_gradients(var_cts: dict, read: tuple) -> tuple:
    """The cotangents of the Variables `read`, zeros for those none reached."""
    return tuple(
        var_cts[id(var)] if var_cts.get(id(var)) is not None else variable_zeros(var)
        for var in read
    )


def variable_zeros(var):
    dtype = np.dtype(var.dtype)
    return np.zeros(var.shape, dtype if dtype.kind == "f" else np.float64)
