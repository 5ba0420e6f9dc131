"""Reductions, scans and sorts: np.sum, np.mean, np.cumsum, np.sort, ..."""

from __future__ import annotations

import numpy as np

from staging.numpy_api._common import (
    _NO_VALUE,
    _as_input,
    _axis_attr,
    _is_tensor,
    _no_out,
    _record,
    _reject,
    _static_bool,
    _static_int,
    _unsupported,
    _where,
)


def _reduce(op, a, axis=None, keepdims=False, **extra):
    attrs = {}
    axis = _axis_attr(axis)
    if axis is not None:
        attrs["axis"] = axis
    if _static_bool(keepdims, "keepdims"):
        attrs["keepdims"] = True
    for key, value in extra.items():
        if key == "dtype" and value is not None:
            attrs["dtype"] = np.dtype(value)
        elif key == "ddof" and value != 0:
            if _is_tensor(value):
                raise _unsupported("a symbolic ddof")
            attrs["ddof"] = value
    return _record(op, [_as_input(a)], attrs)


def _sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    _no_out(out, "np.sum")
    _reject("np.sum", initial=initial, where=where)
    return _reduce("sum", a, axis, keepdims, dtype=dtype)


def _prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    _no_out(out, "np.prod")
    _reject("np.prod", initial=initial, where=where)
    return _reduce("prod", a, axis, keepdims, dtype=dtype)


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=_NO_VALUE):
    _no_out(out, "np.mean")
    _reject("np.mean", where=where)
    return _reduce("mean", a, axis, keepdims, dtype=dtype)


def _max(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    _no_out(out, "np.max")
    _reject("np.max", initial=initial, where=where)
    return _reduce("max", a, axis, keepdims)


def _min(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    _no_out(out, "np.min")
    _reject("np.min", initial=initial, where=where)
    return _reduce("min", a, axis, keepdims)


def _argmax(a, axis=None, out=None, *, keepdims=False):
    _no_out(out, "np.argmax")
    return _reduce("argmax", a, axis, keepdims)


def _argmin(a, axis=None, out=None, *, keepdims=False):
    _no_out(out, "np.argmin")
    return _reduce("argmin", a, axis, keepdims)


def _any(a, axis=None, out=None, keepdims=False, *, where=_NO_VALUE):
    _no_out(out, "np.any")
    _reject("np.any", where=where)
    return _reduce("any", a, axis, keepdims)


def _all(a, axis=None, out=None, keepdims=False, *, where=_NO_VALUE):
    _no_out(out, "np.all")
    _reject("np.all", where=where)
    return _reduce("all", a, axis, keepdims)


def _ddof(ddof, correction):
    """The array API's `correction=` is NumPy's ddof; both at once is NumPy's ValueError."""
    if correction is _NO_VALUE:
        return ddof
    if ddof != 0:
        raise ValueError(f"{_where()}ddof and correction can't be provided simultaneously.")
    return correction


def _std(  # noqa: PLR0913
    a,
    axis=None,
    dtype=None,
    out=None,
    ddof=0,
    keepdims=False,
    *,
    where=_NO_VALUE,
    mean=_NO_VALUE,
    correction=_NO_VALUE,
):
    _no_out(out, "np.std")
    _reject("np.std", where=where, mean=mean)
    return _reduce("std", a, axis, keepdims, dtype=dtype, ddof=_ddof(ddof, correction))


def _var(  # noqa: PLR0913
    a,
    axis=None,
    dtype=None,
    out=None,
    ddof=0,
    keepdims=False,
    *,
    where=_NO_VALUE,
    mean=_NO_VALUE,
    correction=_NO_VALUE,
):
    _no_out(out, "np.var")
    _reject("np.var", where=where, mean=mean)
    return _reduce("var", a, axis, keepdims, dtype=dtype, ddof=_ddof(ddof, correction))


def _scan(op):
    def scan(a, axis=None, dtype=None, out=None):
        _no_out(out, f"np.{op}")
        attrs = {}
        if axis is not None:
            attrs["axis"] = _static_int(axis, "axis")
        if dtype is not None:
            attrs["dtype"] = np.dtype(dtype)
        return _record(op, [_as_input(a)], attrs)

    scan.__name__ = op
    return scan


def _sort_attrs(name, axis, kind, order, stable):
    if order is not None:
        raise _unsupported(f"{name}(..., order=...) (structured arrays)")
    attrs = {}
    if axis is None:
        attrs["axis"] = None
    elif _static_int(axis, "axis") != -1:
        attrs["axis"] = _static_int(axis, "axis")
    if kind is not None:
        attrs["kind"] = str(kind)
    if stable is not None:
        attrs["stable"] = _static_bool(stable, "stable")
    return attrs


def _sort(a, axis=-1, kind=None, order=None, *, stable=None):
    return _record("sort", [_as_input(a)], _sort_attrs("np.sort", axis, kind, order, stable))


def _argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    return _record("argsort", [_as_input(a)], _sort_attrs("np.argsort", axis, kind, order, stable))


FUNCTIONS = {
    np.sum: _sum,
    np.prod: _prod,
    np.mean: _mean,
    np.max: _max,
    np.min: _min,
    np.argmax: _argmax,
    np.argmin: _argmin,
    np.any: _any,
    np.all: _all,
    np.std: _std,
    np.var: _var,
    np.cumsum: _scan("cumsum"),
    np.cumprod: _scan("cumprod"),
    np.sort: _sort,
    np.argsort: _argsort,
    np.amax: _max,
    np.amin: _min,
}
