"""ndarray methods of symbolic tensors (x.sum(), x.reshape(...), x.astype(...), ...)."""

from __future__ import annotations

import numpy as np

from staging.core.tensor import Tensor
from staging.kinds import decisions as kinds
from staging.kinds import forms as array0d
from staging.numpy_api import python_values
from staging.numpy_api._common import _check_order, _is_tensor, _record, _unsupported, _where
from staging.numpy_api.indexing import setitem
from staging.numpy_api.linalg import _dot
from staging.numpy_api.reductions import (
    _all,
    _any,
    _argmax,
    _argmin,
    _argsort,
    _max,
    _mean,
    _min,
    _prod,
    _scan,
    _sort_attrs,
    _std,
    _sum,
    _var,
)
from staging.numpy_api.shapes import (
    _clip,
    _diagonal,
    _nonzero,
    _repeat,
    _reshape_to,
    _round,
    _squeeze,
    _swapaxes,
    _take,
    _trace,
    _transpose,
)
from staging.state import aliasing


def _m_reshape(x, *shape, order="C", copy=None):
    _check_order(order, "ndarray.reshape")
    if len(shape) == 1 and (
        isinstance(shape[0], (tuple, list)) or (_is_tensor(shape[0]) and shape[0].ndim == 1)
    ):
        shape = shape[0]
    return _reshape_to(x, shape)


def _m_transpose(x, *axes):
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    return _transpose(x, axes if axes else None)


def _m_astype(x, dtype, order="K", casting="unsafe", subok=True, copy=True):
    if order != "K" or casting != "unsafe":
        raise _unsupported("ndarray.astype(..., order/casting=...)")
    if not copy and x.dtype == np.dtype(dtype):
        return x  # NumPy returns the array itself
    return _record("astype", [x], {"dtype": np.dtype(dtype)})


def _m_sort(x, axis=-1, kind=None, order=None, *, stable=None):
    """x.sort(): sorts x in place (the tensor and its views are rebound, see staging.state.aliasing)."""
    if axis is None:
        raise TypeError(f"{_where()}'NoneType' object cannot be interpreted as an integer")
    aliasing.check_writable(x, "`x.sort()`")
    aliasing.write(x, _record("sort", [x], _sort_attrs("ndarray.sort", axis, kind, order, stable)))


def _m_fill(x, value):
    """x.fill(value): every element set to value in place (as `x[...] = value`)."""
    aliasing.check_writable(x, "`x.fill(v)`")
    if (_is_tensor(value) and value.ndim != 0) or (
        isinstance(value, (np.ndarray, list, tuple)) and np.ndim(value) != 0
    ):
        raise ValueError(f"{_where()}setting an array element with a sequence.")
    aliasing.write(x, setitem(x, Ellipsis, value))


def _m_flatten(x, order="C"):
    _check_order(order, "ndarray.flatten")
    return _record("copy", [_reshape_to(x, (-1,), kind=None)])  # always a copy in NumPy


def _m_ravel(x, order="C"):
    _check_order(order, "ndarray.ravel")
    return _reshape_to(x, (-1,))


def _m_copy(x, order="C"):
    _check_order(order, "ndarray.copy")
    if x.ndim == 0 and array0d.kind_of(x) != array0d.ARRAY:
        return x  # a NumPy scalar's copy() is itself (immutable; MIXED: writes into x are refused)
    return _record("copy", [x])


def _m_clip(x, min=None, max=None, out=None, **kwargs):  # noqa: A002
    return _clip(x, min, max, out, **kwargs)


def _m_conj(x):
    return _record("conjugate", [x])


_METHODS = {
    "sum": _sum,
    "prod": _prod,
    "mean": _mean,
    "max": _max,
    "min": _min,
    "argmax": _argmax,
    "argmin": _argmin,
    "any": _any,
    "all": _all,
    "std": _std,
    "var": _var,
    "cumsum": _scan("cumsum"),
    "cumprod": _scan("cumprod"),
    "argsort": _argsort,
    "squeeze": _squeeze,
    "take": _take,
    "dot": _dot,
    "repeat": _repeat,
    "swapaxes": _swapaxes,
    "diagonal": _diagonal,
    "trace": _trace,
    "round": _round,
    "nonzero": _nonzero,
    "reshape": _m_reshape,
    "transpose": _m_transpose,
    "astype": _m_astype,
    "sort": _m_sort,
    "fill": _m_fill,
    "flatten": _m_flatten,
    "ravel": _m_ravel,
    "copy": _m_copy,
    "clip": _m_clip,
    "conj": _m_conj,
    "conjugate": _m_conj,
    "item": python_values.item,
    "tolist": python_values.tolist,
}


def call_method(name, x, args, kwargs):
    """x.name(*args, **kwargs) for a symbolic x, with ndarray's method signature."""
    handler = _METHODS.get(name)
    if handler is None:
        raise _unsupported(f"ndarray.{name}()")
    if isinstance(x, Tensor):
        kinds.require_attribute(x, name)
    return handler(x, *args, **kwargs)
