"""Array creation from symbolic shapes or values: zeros, ones, full, eye, arange, *_like, array, asarray."""

from __future__ import annotations

import operator

import numpy as np

from staging.core.tensor import has_staged_value, staged_value
from staging.kinds import forms as array0d
from staging.numpy_api._common import (
    _NO_VALUE,
    _as_input,
    _check_order,
    _contains_tensor,
    _is_tensor,
    _record,
    _shape_attr,
    _unsupported,
    _where,
    array_from_nested,
)
from staging.state import aliasing


def _like(op):
    def like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
        if shape is not None:
            raise _unsupported(
                f"np.{op}(..., shape=...)", f"use np.{op.replace('_like', '')}(shape, dtype)"
            )
        attrs = {} if dtype is None else {"dtype": np.dtype(dtype)}
        return _record(op, [_as_input(a)], attrs)

    like.__name__ = op
    return like


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    if shape is not None:
        raise _unsupported("np.full_like(..., shape=...)", "use np.full(shape, fill_value, dtype)")
    attrs = {} if dtype is None else {"dtype": np.dtype(dtype)}
    return _record("full_like", [_as_input(a), _as_input(fill_value)], attrs)


def _sized(op, func):
    def create(shape, dtype=float, order="C", *, device=None, like=None):
        if not _contains_tensor(shape):
            return func(shape, dtype=dtype, order=order)
        _check_order(order, f"np.{op}")
        attr, inputs = _shape_attr(shape)
        return _record(op, inputs, {"shape": attr, "dtype": np.dtype(dtype)})

    create.__name__ = op
    return create


def _full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    if not _contains_tensor(shape) and not _is_tensor(fill_value):
        return np.full(shape, fill_value, dtype=dtype, order=order)
    _check_order(order, "np.full")
    attr, inputs = _shape_attr(shape)
    attrs = {"shape": attr}
    if dtype is not None:
        attrs["dtype"] = np.dtype(dtype)
    return _record("full", [_as_input(fill_value), *inputs], attrs)


def _scalar_attr(value, what, inputs, allow_float=False):
    """A static number stays an attr (NumPy scalars become Python numbers); a tensor becomes '?'."""
    if _is_tensor(value):
        if value.static_ndim != 0:
            raise ValueError(f"{_where()}{what} must be a scalar, got {value.type}")
        inputs.append(value)
        return "?"
    if isinstance(value, np.generic):
        value = value.item()
    if allow_float and type(value) in (int, float):
        return value
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(
            f"{_where()}{what} must be {'a real number' if allow_float else 'an integer'}, "
            f"got {value!r}"
        ) from None


def _eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    if not any(_is_tensor(v) for v in (N, M, k)):
        return np.eye(N, M, k, dtype=dtype, order=order)
    _check_order(order, "np.eye")
    inputs = []
    attrs = {"N": _scalar_attr(N, "N", inputs)}
    if M is not None:
        attrs["M"] = _scalar_attr(M, "M", inputs)
    if not (type(k) is int and k == 0):
        attrs["k"] = _scalar_attr(k, "k", inputs)
    attrs["dtype"] = np.dtype(dtype)
    return _record("eye", inputs, attrs)


def _arange(
    start_or_stop=_NO_VALUE,
    /,
    stop=_NO_VALUE,
    step=_NO_VALUE,
    dtype=None,
    *,
    device=None,
    like=None,
    start=_NO_VALUE,
):
    if start is not _NO_VALUE:  # np.arange(start=..., stop=...)
        if start_or_stop is not _NO_VALUE:
            raise TypeError(f"{_where()}arange() got multiple values for argument 'start'")
        first, last = start, stop
    elif stop is _NO_VALUE or stop is None:
        first, last = 0, start_or_stop
    else:
        first, last = start_or_stop, stop
    if last is _NO_VALUE:
        raise TypeError(f"{_where()}arange() requires stop to be specified.")
    step = 1 if step is _NO_VALUE or step is None else step
    if not any(_is_tensor(v) for v in (first, last, step)):
        return np.arange(first, last, step, dtype=dtype)
    inputs = []
    attrs = {}
    a = _scalar_attr(first, "start", inputs, allow_float=True)
    if not (type(a) is int and a == 0):
        attrs["start"] = a
    attrs["stop"] = _scalar_attr(last, "stop", inputs, allow_float=True)
    s = _scalar_attr(step, "step", inputs, allow_float=True)
    if not (type(s) is int and s == 1):
        attrs["step"] = s
    if dtype is not None:
        attrs["dtype"] = np.dtype(dtype)
    return _record("arange", inputs, attrs)


_NO_COPY = "Unable to avoid copy while creating an array as requested."


def _array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):  # noqa: A002, C901, PLR0912
    """np.array of a symbolic tensor, or of a (nested) list/tuple holding some."""
    if like is not None:
        raise _unsupported("np.array(..., like=...)")
    if has_staged_value(object):
        object = staged_value(object)  # noqa: A001
    if _is_tensor(object):
        want = object.dtype if dtype is None else np.dtype(dtype)
        # (a 0-d value may be a NumPy scalar when the graph runs: np.array makes it an array)
        kind = array0d.kind_of(object) if object.ndim == 0 else array0d.ARRAY
        if copy is False:
            if want != object.dtype or kind != array0d.ARRAY:
                raise ValueError(f"{_where()}{_NO_COPY}")  # (MIXED: eagerly on some paths)
            out = object
        elif want != object.dtype:
            out = _record("astype", [object], {"dtype": want})
            if kind != array0d.ARRAY:
                out = _record("copy", [out])
        elif copy is None and kind != array0d.SCALAR:
            out = (
                object
                if kind == array0d.ARRAY
                else aliasing.track_view(_record("copy", [object]), object, aliasing.MAYBE)
            )  # the array or a new one
        else:
            out = _record("copy", [object])
    elif isinstance(object, (list, tuple)) and _contains_tensor(object):
        if copy is False:
            raise ValueError(f"{_where()}{_NO_COPY}")
        out = array_from_nested(object, dtype)
    else:
        return np.array(object, dtype=dtype, copy=copy, order=order, subok=subok, ndmin=ndmin)
    ndmin = int(ndmin)
    if out.ndim < ndmin:  # ndmin prepends unit dims: a view of the array (or of its copy)
        out = aliasing.track_view(
            _record("expand_dims", [out], {"axis": tuple(range(ndmin - out.ndim))}), out
        )
    return out


def _asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    if device is not None:
        raise _unsupported("np.asarray(..., device=...)")
    return _array(a, dtype, copy=copy, like=like)


FUNCTIONS = {
    np.array: _array,
    np.asarray: _asarray,
    np.zeros_like: _like("zeros_like"),
    np.ones_like: _like("ones_like"),
    np.full_like: _full_like,
    np.zeros: _sized("zeros", np.zeros),
    np.ones: _sized("ones", np.ones),
    np.full: _full,
    np.eye: _eye,
    np.identity: lambda n, dtype=None, *, like=None: _eye(n, dtype=dtype),
    np.arange: _arange,
}
