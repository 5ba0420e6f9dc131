"""Array-API functions beyond the core: tril/triu, tile, pad, roll, take_along_axis, searchsorted,
count_nonzero, cumulative_sum/prod, diff, linspace, meshgrid, broadcast_arrays, unstack, real/imag,
empty/empty_like, the data-type functions, and unique_* (their result sizes are unknown dims)."""

from __future__ import annotations

import numpy as np

from runtime.ops._rules import normalize_axis, python_value
from staging.numpy_api._calls import bind, staged
from staging.numpy_api._common import (
    _as_input,
    _contains_tensor,
    _is_tensor,
    _ndim,
    _record,
    _shape_attr,
    _static_int,
    _unsupported,
    _where,
)
from staging.numpy_api.indexing import getitem
from staging.numpy_api.shapes import _broadcast_to, _moveaxis, _reshape_to
from staging.state import aliasing
from staging.state.aliasing import MAYBE


def _unique_results():
    x = np.zeros(1)
    return {
        name: type(getattr(np, name)(x))
        for name in ("unique_all", "unique_counts", "unique_inverse")
    }


_NAMED = _unique_results()


def _named(op):
    return lambda outs, attrs: _NAMED[op](*outs)


def _unique(
    ar,
    return_index=False,
    return_inverse=False,
    return_counts=False,
    axis=None,
    *,
    equal_nan=True,
    sorted=True,
):  # noqa: A002
    # `sorted` exists from NumPy 2.3: passed only when given, so an older NumPy refuses it as eagerly
    options = (
        {"equal_nan": equal_nan} if sorted is True else {"equal_nan": equal_nan, "sorted": sorted}
    )
    inputs, attrs = bind(
        np.unique, (ar, return_index, return_inverse, return_counts, axis), options
    )
    outs = _record("unique", inputs, attrs)
    return outs[0] if len(outs) == 1 else tuple(outs)


def _linspace(
    start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None
):
    if retstep:
        raise _unsupported(
            "np.linspace(..., retstep=True)", "compute the step as (stop - start) / (num - 1)"
        )
    inputs, attrs = bind(
        np.linspace,
        (start, stop, num, endpoint, retstep, dtype, axis),
        {"device": device},
        ("start", "stop"),
    )
    return _record("linspace", inputs, attrs)


def _spaced(op, func):
    """np.logspace / np.geomspace: `start` and `stop` may be symbolic (as for np.linspace)."""

    def handler(start, stop, *args, **kwargs):
        inputs, attrs = bind(func, (start, stop, *args), kwargs, ("start", "stop"))
        return _record(op, inputs, attrs)

    handler.__name__ = op
    handler.staged_op = op
    return handler


def _diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    """np.diff; `prepend`/`append` (static or symbolic) are joined to `a` as NumPy joins them
    (a scalar broadcast to length 1 along `axis`, then one concatenate), then one `diff`."""
    a = _as_input(a)
    if prepend is np._NoValue and append is np._NoValue:
        inputs, attrs = bind(np.diff, (a, n, axis), {})
        return _record("diff", inputs, attrs)
    if _ndim(a) == 0:
        raise ValueError(f"{_where()}diff requires input that is at least one dimensional")
    ax = normalize_axis(_static_int(axis, "axis"), _ndim(a))
    parts = []
    for extra in (prepend, None, append):
        if extra is None:
            parts.append(a)
        elif extra is not np._NoValue:
            extra = _as_input(extra)
            if _ndim(extra) == 0:
                extra = _broadcast_to(
                    extra, tuple(1 if i == ax else d for i, d in enumerate(_dims(a)))
                )
            parts.append(extra)
    joined = _record("concatenate", parts, {"axis": ax} if ax else {})
    inputs, attrs = bind(np.diff, (joined, n, ax), {})
    return _record("diff", inputs, attrs)


def _static_shape(shape):
    return not _contains_tensor(shape)


def _empty(shape, dtype=float, order="C", *, device=None, like=None):
    """np.empty with a symbolic size: NumPy leaves the values unspecified; staged, they are zeros."""
    if _static_shape(shape):
        return np.empty(shape, dtype=dtype, order=order)
    attr, inputs = _shape_attr(shape)
    return _record("zeros", inputs, {"shape": attr, "dtype": np.dtype(dtype)})


def _dims(x):
    return x.shape if _is_tensor(x) else np.shape(x)


def broadcast_shape(arrays):
    """The common shape of `arrays`, each dim an int or a symbolic scalar: a dim unknown while
    tracing is the largest of the arrays' sizes there (the others are 1, or broadcasting fails)."""
    ndim = max((_ndim(x) for x in arrays), default=0)
    out = []
    for axis in range(ndim):
        dims = [_dims(x)[axis - ndim + _ndim(x)] for x in arrays if axis - ndim + _ndim(x) >= 0]
        known = {d for d in dims if not _is_tensor(d) and d != 1}
        unknown = [d for d in dims if _is_tensor(d)]
        if len(known) > 1:
            raise ValueError(
                f"{_where()}shape mismatch: objects cannot be broadcast to a single shape.  Mismatch "
                f"is between arg sizes {sorted(known)}"
            )
        if known:
            out.append(known.pop())
        elif unknown:
            size = unknown[0]
            for d in unknown[1:]:
                size = np.maximum(size, d)
            out.append(size)
        else:
            out.append(1)
    return tuple(out)


def _broadcast_arrays(*args, subok=False):
    """np.broadcast_arrays: read-only views (NumPy's warn on write; staged, writing raises)."""
    arrays = [_as_input(a) for a in args]
    shape = broadcast_shape(arrays)
    return tuple(_broadcast_to(a, shape) for a in arrays)


def _meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """np.meshgrid, as NumPy builds it: reshapes, then broadcast_arrays, then copies."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"{_where()}Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    shapes = [(1,) * i + (-1,) + (1,) * (ndim - i - 1) for i in range(ndim)]
    if indexing == "xy" and ndim > 1:
        shapes[0] = (1, -1) + (1,) * (ndim - 2)
        shapes[1] = (-1, 1) + (1,) * (ndim - 2)
    output = [_reshape_to(_as_input(x), s) for x, s in zip(xi, shapes)]
    if not sparse:
        output = list(_broadcast_arrays(*output))
    if copy:
        output = [_record("copy", [x]) for x in output]
    return tuple(output)


def _unstack(x, /, *, axis=0):
    moved = _moveaxis(x, axis, 0)
    n = moved.shape[0] if _is_tensor(moved) else np.shape(moved)[0]
    if _is_tensor(n):
        raise _unsupported(
            "np.unstack of an axis whose length is unknown while tracing",
            "the number of results must be known; give the axis a static size",
        )
    return tuple(getitem(moved, i) for i in range(n))


def real(val):
    val = _as_input(val)
    if not _is_tensor(val) or val.dtype.kind != "c":
        return val if _is_tensor(val) else np.real(val)
    return aliasing.track_view(_record("real", [val]), val, MAYBE)


def imag(val):
    val = _as_input(val)
    out = _record("imag", [val])
    return (
        aliasing.track_view(out, val, MAYBE) if _is_tensor(val) and val.dtype.kind == "c" else out
    )


def _static_dtype(x):
    """What NumPy's data-type functions see for an argument: a symbolic array's dtype, a Python
    number (weak) for a value of a Python number's type."""
    if _is_tensor(x):
        t = x.type
        return python_value(t) if t.weak else t.dtype
    return x


def _result_type(*arrays_and_dtypes):
    return np.result_type(*[_static_dtype(x) for x in arrays_and_dtypes])


def _can_cast(from_, to, casting="safe"):
    return np.can_cast(_static_dtype(from_), to, casting)


def _iscomplexobj(x):
    """np.iscomplexobj: answered from the dtype (a Python bool, as NumPy gives)."""
    return np.iscomplexobj(np.zeros((), _static_dtype(x)) if _is_tensor(x) else x)


def _isrealobj(x):
    return not _iscomplexobj(x)


_pad_op = staged("pad", np.pad)


def _pad(array, pad_width, mode="constant", **kwargs):
    """np.pad. A symbolic scalar `constant_values` (say a loop counter): the array padded with
    zeros, then the padding replaced by the value cast to the array's dtype, as NumPy writes it."""
    value = kwargs.get("constant_values")
    if mode != "constant" or not _is_tensor(value) or value.static_ndim != 0:
        return _pad_op(array, pad_width, mode, **kwargs)
    kwargs = {k: v for k, v in kwargs.items() if k != "constant_values"}
    array = _as_input(array)
    padded = _pad_op(array, pad_width, mode, **kwargs)
    inside = _pad_op(np.ones_like(array, dtype=bool), pad_width, mode, **kwargs)
    return np.where(inside, padded, _record("astype", [value], {"dtype": padded.static_dtype}))


_pad.staged_op = "pad"

_STAGED = (
    "tril",
    "triu",
    "tile",
    "roll",
    "count_nonzero",
    "cumulative_sum",
    "cumulative_prod",
    "empty_like",
)

FUNCTIONS = {
    **{getattr(np, name): staged(name, getattr(np, name)) for name in _STAGED},
    np.pad: _pad,
    np.take_along_axis: staged("take_along_axis", np.take_along_axis, ("arr", "indices")),
    np.searchsorted: staged("searchsorted", np.searchsorted, ("a", "v", "sorter")),
    np.linspace: _linspace,
    np.empty: _empty,
    np.diff: _diff,
    np.broadcast_arrays: _broadcast_arrays,
    np.meshgrid: _meshgrid,
    np.unstack: _unstack,
    np.real: real,
    np.imag: imag,
    np.result_type: _result_type,
    np.can_cast: _can_cast,
    np.iscomplexobj: _iscomplexobj,
    np.isrealobj: _isrealobj,
    np.logspace: _spaced("logspace", np.logspace),
    np.geomspace: _spaced("geomspace", np.geomspace),
    np.resize: staged("resize", np.resize),
    np.unique_values: staged("unique_values", np.unique_values),
    np.unique_counts: staged("unique_counts", np.unique_counts, result=_named("unique_counts")),
    np.unique_inverse: staged("unique_inverse", np.unique_inverse, result=_named("unique_inverse")),
    np.unique_all: staged("unique_all", np.unique_all, result=_named("unique_all")),
    np.unique: _unique,
}
