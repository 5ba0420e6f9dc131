"""Shape and selection functions: reshape, transpose, concatenate, where, clip, take, ..."""

from __future__ import annotations

import numpy as np

from staging.numpy_api._common import (
    _NO_VALUE,
    _as_input,
    _axis_attr,
    _check_order,
    _is_tensor,
    _ndim,
    _no_out,
    _record,
    _shape_attr,
    _static_int,
    _unsupported,
    _where,
)
from staging.numpy_api.indexing import getitem
from staging.state import aliasing
from staging.state.aliasing import MAYBE, READONLY


def _view(op, a, attrs=None, extra=(), kind=aliasing.VIEW):
    """Records `op` on `a`; its result shares `a`'s memory as NumPy's does (staging.state.aliasing)."""
    a = _as_input(a)
    out = _record(op, [a, *extra], attrs)
    return out if kind is None else aliasing.track_view(out, a, kind)


def _reshape_to(a, shape, kind=MAYBE):
    """reshape: NumPy gives a view when the memory layout allows, else a copy (MAYBE)."""
    attr, inputs = _shape_attr(shape)
    return _view("reshape", a, {"shape": attr}, inputs, kind)


def _reshape(a, /, shape=None, order="C", *, newshape=None, copy=None):
    _check_order(order, "np.reshape")
    if shape is None:
        shape = newshape
    if shape is None:
        raise TypeError(f"{_where()}reshape() missing required argument 'shape'")
    return _reshape_to(a, shape)


def _ravel(a, order="C"):
    _check_order(order, "np.ravel")
    return _reshape_to(a, (-1,))


def _transpose(a, axes=None):
    attrs = {} if axes is None else {"axes": tuple(_static_int(x, "axes") for x in axes)}
    return _view("transpose", a, attrs)


def _permute_dims(a, /, axes=None):
    return _transpose(a, axes)


def _swapaxes(a, axis1, axis2):
    a = _as_input(a)
    n = _ndim(a)
    i = _static_int(axis1, "axis1")
    j = _static_int(axis2, "axis2")
    for ax in (i, j):
        if not -n <= ax < n:
            raise np.exceptions.AxisError(ax, n)
    perm = list(range(n))
    perm[i % n], perm[j % n] = perm[j % n], perm[i % n]
    return _view("transpose", a, {"axes": tuple(perm)})


def _moveaxis(a, source, destination):
    """np.moveaxis: a transpose (a view, as in NumPy)."""
    a = _as_input(a)
    n = _ndim(a)
    src = [
        _static_int(s, "source")
        for s in (source if isinstance(source, (tuple, list)) else (source,))
    ]
    dst = [
        _static_int(d, "destination")
        for d in (destination if isinstance(destination, (tuple, list)) else (destination,))
    ]
    if len(src) != len(dst):
        raise ValueError(
            f"{_where()}`source` and `destination` arguments must have the same number of elements"
        )
    for ax in src + dst:
        if not -n <= ax < n:
            raise np.exceptions.AxisError(ax, n)
    src, dst = [s % n for s in src], [d % n for d in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError(f"{_where()}repeated axis in `source` or `destination` argument")
    order = [i for i in range(n) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _view("transpose", a, {"axes": tuple(order)})


def _flip(m, axis=None):
    """np.flip: a reversing slice of each axis (a view, as in NumPy)."""
    m = _as_input(m)
    n = _ndim(m)
    axes = (
        range(n)
        if axis is None
        else [
            _static_int(a, "axis") for a in (axis if isinstance(axis, (tuple, list)) else (axis,))
        ]
    )
    key = [slice(None)] * n
    for ax in axes:
        if not -n <= ax < n:
            raise np.exceptions.AxisError(ax, n)
        key[ax % n] = slice(None, None, -1)
    return getitem(m, tuple(key))


def _expand_dims(a, axis):
    return _view("expand_dims", a, {"axis": _axis_attr(axis)})


def _squeeze(a, axis=None):
    attrs = {} if axis is None else {"axis": _axis_attr(axis)}
    return _view("squeeze", a, attrs)


def _concatenate(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    _no_out(out, "np.concatenate")
    if casting != "same_kind":
        raise _unsupported(f"np.concatenate(..., casting={casting!r})")
    attrs = {}
    if axis is None:
        attrs["axis"] = None
    elif _static_int(axis, "axis") != 0:
        attrs["axis"] = _static_int(axis, "axis")
    if dtype is not None:
        attrs["dtype"] = np.dtype(dtype)
    return _record("concatenate", [_as_input(x) for x in arrays], attrs)


def _stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    _no_out(out, "np.stack")
    if casting != "same_kind":
        raise _unsupported(f"np.stack(..., casting={casting!r})")
    attrs = {}
    if _static_int(axis, "axis") != 0:
        attrs["axis"] = _static_int(axis, "axis")
    if dtype is not None:
        attrs["dtype"] = np.dtype(dtype)
    return _record("stack", [_as_input(x) for x in arrays], attrs)


def _atleast(x, ndim):
    x = _as_input(x)
    n = _ndim(x)
    if n >= ndim:
        return x
    if ndim == 1 or n == 0:
        return _reshape_to(x, (1,) * ndim, kind=None) if n == 0 else x
    return _record("expand_dims", [x], {"axis": 0})  # 1-d -> (1, n)


def _hstack(tup, *, dtype=None, casting="same_kind"):
    arrs = [_atleast(x, 1) for x in tup]
    axis = 0 if arrs and _ndim(arrs[0]) == 1 else 1
    return _concatenate(arrs, axis=axis, dtype=dtype, casting=casting)


def _vstack(tup, *, dtype=None, casting="same_kind"):
    return _concatenate([_atleast(x, 2) for x in tup], axis=0, dtype=dtype, casting=casting)


def _broadcast_to(array, shape, subok=False):
    attr, inputs = _shape_attr(shape)
    return _view("broadcast_to", array, {"shape": attr}, inputs, READONLY)


def _nonzero(a):
    a = _as_input(a)
    n = _ndim(a)
    if n == 0:
        raise ValueError(
            f"{_where()}Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() "
            "instead."
        )
    coords = _record("argwhere", [a])
    return tuple(getitem(coords, (slice(None), i)) for i in range(n))


def _argwhere(a):
    return _record("argwhere", [_as_input(a)])


def _np_where(condition, *xy):
    if not xy:
        return _nonzero(condition)
    if len(xy) != 2:
        raise ValueError(f"{_where()}either both or neither of x and y should be given")
    return _record("where", [_as_input(condition), _as_input(xy[0]), _as_input(xy[1])])


def _clip(a, a_min=_NO_VALUE, a_max=_NO_VALUE, out=None, *, min=_NO_VALUE, max=_NO_VALUE, **kwargs):  # noqa: A002
    _no_out(out, "np.clip")
    if kwargs:
        raise _unsupported(f"np.clip(..., {next(iter(kwargs))}=...)")
    if min is not _NO_VALUE:
        if a_min is not _NO_VALUE:
            raise ValueError(f"{_where()}Passed more than one argument for minimum: a_min and min")
        a_min = min
    if max is not _NO_VALUE:
        if a_max is not _NO_VALUE:
            raise ValueError(f"{_where()}Passed more than one argument for maximum: a_max and max")
        a_max = max
    lo = None if a_min is _NO_VALUE else a_min
    hi = None if a_max is _NO_VALUE else a_max
    inputs = [_as_input(a)] + [_as_input(b) for b in (lo, hi) if b is not None]
    bounds = {
        (True, True): "min_max",
        (True, False): "min",
        (False, True): "max",
        (False, False): "none",
    }[(lo is not None, hi is not None)]
    return _record("clip", inputs, {} if bounds == "min_max" else {"bounds": bounds})


def _take(a, indices, axis=None, out=None, mode="raise"):
    _no_out(out, "np.take")
    if mode != "raise":
        raise _unsupported(f"np.take(..., mode={mode!r})")
    attrs = {} if axis is None else {"axis": _static_int(axis, "axis")}
    return _record("take", [_as_input(a), _as_input(indices)], attrs)


def _astype(x, dtype, /, *, copy=True, device=None):
    if device is not None:
        raise _unsupported("np.astype(..., device=...)")
    if not copy and _is_tensor(x) and x.dtype == np.dtype(dtype):
        return x  # NumPy returns the array itself
    return _record("astype", [_as_input(x)], {"dtype": np.dtype(dtype)})


def _copy(a, order="K", subok=False):
    _check_order(order, "np.copy")
    return _record("copy", [_as_input(a)])


def _round(a, decimals=0, out=None):
    _no_out(out, "np.round")
    d = _static_int(decimals, "decimals")
    return _record("round", [_as_input(a)], {"decimals": d} if d else {})


def _repeat(a, repeats, axis=None):
    if _is_tensor(repeats) or np.ndim(repeats) != 0:
        inputs = [_as_input(a), _as_input(repeats)]
        if not _is_tensor(inputs[1]) and inputs[1].dtype.kind not in "iub":
            raise TypeError(
                f"{_where()}Cannot cast array data from {inputs[1].dtype} to int64 according to "
                "the rule 'safe'"
            )
        return _record(
            "repeat_counts", inputs, {} if axis is None else {"axis": _static_int(axis, "axis")}
        )
    attrs = {"repeats": _static_int(repeats, "repeats")}
    if axis is not None:
        attrs["axis"] = _static_int(axis, "axis")
    return _record("repeat", [_as_input(a)], attrs)


def _diag_attrs(offset, axis1, axis2):
    attrs = {}
    for key, value, default in (("offset", offset, 0), ("axis1", axis1, 0), ("axis2", axis2, 1)):
        v = _static_int(value, key)
        if v != default:
            attrs[key] = v
    return attrs


def _diagonal(a, offset=0, axis1=0, axis2=1):
    return _view("diagonal", a, _diag_attrs(offset, axis1, axis2), kind=READONLY)


def _diag(v, k=0):
    """np.diag: a 1-d array (or list) makes a matrix; a 2-d array gives its diagonal (a
    read-only view, as np.diagonal)."""
    v = _as_input(v)
    ndim = v.static_ndim if _is_tensor(v) else np.ndim(v)
    if ndim == 2:
        return _diagonal(v, k)
    if ndim != 1:
        raise ValueError(f"{_where()}Input must be 1- or 2-d.")
    attrs = {"k": _static_int(k, "k")} if _static_int(k, "k") else {}
    return _record("diag", [v], attrs)


def _trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    _no_out(out, "np.trace")
    attrs = _diag_attrs(offset, axis1, axis2)
    if dtype is not None:
        attrs["dtype"] = np.dtype(dtype)
    return _record("trace", [_as_input(a)], attrs)


def _ndim_func(a):
    return _ndim(a)


def _shape_func(a):
    return a.shape if _is_tensor(a) else np.shape(a)


def _size_func(a, axis=None):
    """np.size: the number of elements (of one axis): a Python int where the dims are known,
    else a weakly typed symbolic int (NumPy returns a Python int)."""
    if not _is_tensor(a):
        return np.size(a, axis)
    if axis is None:
        return a.size
    axes = axis if isinstance(axis, tuple) else (axis,)
    axes = tuple(_static_int(ax, "np.size axis") for ax in axes)
    # what the installed NumPy accepts and raises (a tuple axis, the error of a bad one: NumPy
    # 2.2 raises IndexError, later ones AxisError), asked of an array of a's rank
    np.size(np.empty((1,) * a.ndim), axis if isinstance(axis, tuple) else axes[0])
    shape, total = a.shape, 1
    for ax in axes:
        total = total * shape[ax]
    return total


def _scalar_type(dtype):
    """np.float32(x) and the other NumPy scalar types called on a symbolic value: x as that dtype
    (a NumPy scalar for a 0-d x, an array otherwise, as NumPy gives)."""

    def convert(x=0, /):
        x = _as_input(x)
        attrs = {"dtype": np.dtype(dtype)}
        if np.ndim(x) == 0:
            attrs["scalar"] = True  # a 0-d array becomes a NumPy scalar, as np.float32(x) gives
        return _record("astype", [x], attrs)

    convert.__name__ = np.dtype(dtype).name
    return convert


FUNCTIONS = {
    **{
        t: _scalar_type(t)
        for t in (
            np.bool_,
            np.int8,
            np.int16,
            np.int32,
            np.int64,
            np.uint8,
            np.uint16,
            np.uint32,
            np.uint64,
            np.float16,
            np.float32,
            np.float64,
            np.complex64,
            np.complex128,
        )
    },
    np.reshape: _reshape,
    np.ravel: _ravel,
    np.transpose: _transpose,
    np.swapaxes: _swapaxes,
    np.expand_dims: _expand_dims,
    np.squeeze: _squeeze,
    np.concatenate: _concatenate,
    np.stack: _stack,
    np.hstack: _hstack,
    np.vstack: _vstack,
    np.broadcast_to: _broadcast_to,
    np.where: _np_where,
    np.nonzero: _nonzero,
    np.argwhere: _argwhere,
    np.clip: _clip,
    np.take: _take,
    np.copy: _copy,
    np.round: _round,
    np.repeat: _repeat,
    np.diagonal: _diagonal,
    np.diag: _diag,
    np.trace: _trace,
    np.ndim: _ndim_func,
    np.shape: _shape_func,
    np.size: _size_func,
    np.around: _round,
    np.concat: _concatenate,
    np.permute_dims: _permute_dims,
    np.astype: _astype,
    np.moveaxis: _moveaxis,
    np.flip: _flip,
}


# -- at least n dims, stacking columns, flips and rotations, splits ----------------------------


def _expanded(x, axes):
    """x with unit dims at `axes`: a view (NumPy's indexing with np.newaxis)."""
    return _view("expand_dims", x, {"axis": axes if len(axes) > 1 else axes[0]})


_ATLEAST = {  # ndim wanted -> {ndim of x: the axes NumPy adds}
    1: {0: (0,)},
    2: {0: (0, 1), 1: (0,)},
    3: {0: (0, 1, 2), 1: (0, 2), 2: (2,)},
}


def _atleast_nd(ndim):
    def atleast(*arys):
        results = []
        for x in arys:
            x = _as_input(x)
            axes = _ATLEAST[ndim].get(_ndim(x))
            results.append(x if axes is None else _expanded(x, axes))
        return results[0] if len(results) == 1 else tuple(results)

    atleast.__name__ = f"atleast_{ndim}d"
    return atleast


def _column_stack(tup):
    columns = []
    for x in tup:
        x = _as_input(x)
        n = _ndim(x)
        columns.append(x if n >= 2 else _expanded(x, (0, 1) if n == 0 else (1,)))
    return _concatenate(columns, axis=1)


def _dstack(tup):
    return _concatenate([_atleast_nd(3)(x) for x in tup], axis=2)


def _fliplr(m):
    m = _as_input(m)
    if _ndim(m) < 2:
        raise ValueError(f"{_where()}Input must be >= 2-d.")
    return getitem(m, (slice(None), slice(None, None, -1)))


def _flipud(m):
    m = _as_input(m)
    if _ndim(m) < 1:
        raise ValueError(f"{_where()}Input must be >= 1-d.")
    return getitem(m, (slice(None, None, -1), Ellipsis))


def _rot90(m, k=1, axes=(0, 1)):
    """np.rot90, as NumPy computes it: flips and a transpose (views)."""
    axes = tuple(_static_int(a, "axes") for a in axes)
    if len(axes) != 2:
        raise ValueError(f"{_where()}len(axes) must be 2.")
    m = _as_input(m)
    n = _ndim(m)
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == n:
        raise ValueError(f"{_where()}Axes must be different.")
    if any(not -n <= a < n for a in axes):
        raise ValueError(f"{_where()}Axes={axes} out of range for array of ndim={n}.")
    k = _static_int(k, "k") % 4
    if k == 0:
        return getitem(m, slice(None))
    if k == 2:
        return _flip(_flip(m, axes[0]), axes[1])
    order = list(range(n))
    order[axes[0]], order[axes[1]] = order[axes[1]], order[axes[0]]
    if k == 1:
        return _transpose(_flip(m, axes[1]), order)
    return _flip(_transpose(m, order), axes[1])


def _split_points(n, indices_or_sections, equal):
    """NumPy's division points of an axis of length n (None: unknown) for array_split / split."""
    if isinstance(indices_or_sections, (list, tuple, np.ndarray)):
        points = [_static_int(i, "indices") for i in indices_or_sections]
        return [0, *points, None]
    sections = _static_int(indices_or_sections, "sections")
    if n is None:
        raise _unsupported(
            "np.split into sections of an axis whose length is unknown while tracing",
            "the sizes of the parts must be known; give the axis a static size, or split at "
            "indices",
        )
    if equal and sections == 0:
        raise ZeroDivisionError(f"{_where()}integer modulo by zero")
    if equal and n % sections:
        raise ValueError(f"{_where()}array split does not result in an equal division")
    if sections <= 0:
        raise ValueError(f"{_where()}number sections must be larger than 0.")
    each, extras = divmod(n, sections)
    sizes = [0] + extras * [each + 1] + (sections - extras) * [each]
    return [int(p) for p in np.cumsum(sizes)]


def _array_split(ary, indices_or_sections, axis=0, equal=False):
    ary = _as_input(ary)
    axis = _static_int(axis, "axis")
    n = _ndim(ary)
    if not -n <= axis < n:
        raise np.exceptions.AxisError(axis, n)
    axis %= n
    length = ary.static_shape[axis] if _is_tensor(ary) else np.shape(ary)[axis]
    points = _split_points(length, indices_or_sections, equal)
    lead = (slice(None),) * axis
    return [getitem(ary, (*lead, slice(st, end))) for st, end in zip(points, points[1:])]


def _split(ary, indices_or_sections, axis=0):
    return _array_split(ary, indices_or_sections, axis, equal=True)


def _directional_split(name, axis_of, least):
    def split(ary, indices_or_sections):
        ary = _as_input(ary)
        if _ndim(ary) < least:
            raise ValueError(f"{_where()}{name} only works on arrays of {least} or more dimensions")
        return _split(ary, indices_or_sections, axis_of(_ndim(ary)))

    split.__name__ = name
    return split


FUNCTIONS.update(
    {
        np.atleast_1d: _atleast_nd(1),
        np.atleast_2d: _atleast_nd(2),
        np.atleast_3d: _atleast_nd(3),
        np.column_stack: _column_stack,
        np.dstack: _dstack,
        np.fliplr: _fliplr,
        np.flipud: _flipud,
        np.rot90: _rot90,
        np.split: _split,
        np.array_split: _array_split,
        np.hsplit: _directional_split("hsplit", lambda n: 1 if n > 1 else 0, 1),
        np.vsplit: _directional_split("vsplit", lambda n: 0, 2),
        np.dsplit: _directional_split("dsplit", lambda n: 2, 3),
    }
)
