"""Array-API manipulation and search functions beyond the core ones: tril/triu, tile, pad,
resize, take_along_axis, searchsorted, count_nonzero, cumulative_sum/prod, diff,
linspace/logspace/geomspace, empty_like, repeat with an array of repeats, and the functions
whose result size depends on the data (unique_*: those dims are unknown, None)."""

from __future__ import annotations

import numpy as np

from ..registry import add_vjps
from . import shape_derivatives, ufunc_derivatives
from ._calls import dim_add, register_call, same_shape, stand_in
from ._rules import DYNAMIC_SHAPE, as_index, normalize_axes, normalize_axis
from .elementwise import broadcast


def _tri(m, k=0):
    if not m:
        raise TypeError(
            "tri() missing 1 required positional argument: 'N'"
        )  # NumPy's error on a 0-d input
    return (m[0], m[0]) if len(m) == 1 else m


def _tile(a, reps):
    reps = (
        (as_index(reps, "reps"),)
        if not isinstance(reps, tuple)
        else tuple(as_index(r, "reps") for r in reps)
    )
    n = max(len(a), len(reps))
    a = (1,) * (n - len(a)) + tuple(a)
    reps = (1,) * (n - len(reps)) + reps
    return tuple(None if d is None else d * r for d, r in zip(a, reps))


def _pad(array, pad_width, mode="constant", **kwargs):
    if callable(mode):
        raise TypeError("pad: a callable `mode` cannot be staged")
    widths = np.broadcast_to(np.asarray(pad_width, dtype=object), (len(array), 2)) if array else ()
    out = []
    for d, (before, after) in zip(array, widths):
        before, after = as_index(before, "pad_width"), as_index(after, "pad_width")
        if before < 0 or after < 0:
            raise ValueError("index can't contain negative values")
        out.append(None if d is None else d + before + after)
    return tuple(out)


def _take_along_axis(arr, indices, axis=-1):
    if axis is None:
        if len(indices) != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        return indices
    if len(arr) != len(indices):
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    axis = normalize_axis(axis, len(arr))
    rest = broadcast(
        arr[:axis] + (1,) + arr[axis + 1 :], indices[:axis] + (1,) + indices[axis + 1 :]
    )
    return rest[:axis] + (indices[axis],) + rest[axis + 1 :]


def _take_along_probe(arr, indices, **attrs):
    return [stand_in(arr), np.zeros((1,) * indices.ndim, indices.dtype)]


def _searchsorted(a, v, side="left", sorter=None):
    if len(a) != 1:
        raise ValueError(
            "object too deep for desired array"
            if a
            else "object of too small depth for desired array"
        )
    return v


def _searchsorted_probe(a, v, sorter=None, **attrs):
    args = [stand_in(a), stand_in(v)]
    if sorter is not None:
        args.append(np.zeros((1,) * sorter.ndim, sorter.dtype))
    return args


def _reduce(shape, axis=None, keepdims=False):
    axes = normalize_axes(axis, len(shape))
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _count_nonzero(a, axis=None, keepdims=False):
    return _reduce(a, axis, keepdims)


def _cumulative(x, axis=None, dtype=None, include_initial=False):
    if axis is None:
        if len(x) > 1:
            raise ValueError(
                "For arrays which have more than one dimension ``axis`` argument is required."
            )
        axis = 0
    if not x:
        raise ValueError("cumulative functions need an array of at least one dimension")
    axis = normalize_axis(axis, len(x))
    out = list(x)
    if include_initial:
        out[axis] = dim_add(x[axis], 1)
    return tuple(out)


def _edge_len(value, shape, axis):
    """The length along `axis` that a prepend/append value adds (a scalar counts as 1)."""
    return 1 if np.ndim(value) == 0 else np.shape(value)[axis]


def _diff(a, n=1, axis=-1, prepend=None, append=None):
    n = as_index(n, "n")
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if n == 0:
        return a
    if not a:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = normalize_axis(axis, len(a))
    d = a[axis]
    for extra in (prepend, append):
        if extra is not None:
            d = dim_add(d, _edge_len(extra, a, axis))
    out = list(a)
    out[axis] = None if d is None else max(d - n, 0)
    return tuple(out)


def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    num = as_index(num, "num")
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    if retstep:
        raise TypeError("linspace: retstep=True is staged by the frontend, not by this op")
    base = broadcast(start, stop)
    axis = normalize_axis(axis, len(base) + 1)
    return base[:axis] + (num,) + base[axis:]


def _empty_like(prototype, dtype=None, order="K", subok=True, shape=None):
    if shape is None:
        return prototype
    return tuple(as_index(d, "shape") for d in (shape if isinstance(shape, tuple) else (shape,)))


def _repeat_counts(x, repeats, axis=None):
    if len(repeats) > 1:
        raise ValueError("repeats must be a scalar or a one-dimensional array")
    if axis is None:
        return (None,)
    axis = normalize_axis(axis, len(x))
    return x[:axis] + (None,) + x[axis + 1 :]


def _repeat_probe(x, repeats, **attrs):
    return [np.zeros((0,) * x.ndim, x.dtype), np.zeros((0,) * repeats.ndim, repeats.dtype)]


def _unique_values(x):
    return (None,)


def _unique_counts(x):
    return (None,), (None,)


def _unique_inverse(x):
    return (None,), x


def _unique_all(x):
    return (None,), (None,), x, (None,)


def _unique(
    ar,
    return_index=False,
    return_inverse=False,
    return_counts=False,
    axis=None,
    equal_nan=True,
    sorted=True,
):  # noqa: A002
    if axis is None:
        values, inverse = (None,), ar
    else:
        axis = normalize_axis(axis, len(ar))
        values, inverse = ar[:axis] + (None,) + ar[axis + 1 :], (ar[axis],)
    shapes = [values]
    if return_index:
        shapes.append((None,))
    if return_inverse:
        shapes.append(inverse)
    if return_counts:
        shapes.append((None,))
    return tuple(shapes)


register_call("tril", np.tril, _tri)
register_call("triu", np.triu, _tri)
register_call("tile", np.tile, _tile)
register_call("pad", np.pad, _pad)
register_call(
    "take_along_axis", np.take_along_axis, _take_along_axis, probe=_take_along_probe, min_inputs=2
)
register_call(
    "searchsorted",
    np.searchsorted,
    _searchsorted,
    arrays=("a", "v", "sorter"),
    probe=_searchsorted_probe,
    min_inputs=2,
)
register_call("count_nonzero", np.count_nonzero, _count_nonzero)
register_call("cumulative_sum", np.cumulative_sum, _cumulative)
register_call("cumulative_prod", np.cumulative_prod, _cumulative)
register_call("diff", np.diff, _diff)
register_call("linspace", np.linspace, _linspace, arrays=("start", "stop"), min_inputs=2)
register_call("empty_like", np.empty_like, _empty_like, fresh_result=True)
register_call(
    "repeat_counts",
    np.repeat,
    _repeat_counts,
    arrays=("a", "repeats"),
    probe=_repeat_probe,
    min_inputs=2,
    doc="np.repeat(a, repeats, axis) with an array of repeats (the result size is unknown)",
    unlowerable=DYNAMIC_SHAPE,
)
register_call("unique_values", np.unique_values, _unique_values, unlowerable=DYNAMIC_SHAPE)
register_call(
    "unique_counts", np.unique_counts, _unique_counts, num_outputs=2, unlowerable=DYNAMIC_SHAPE
)
register_call(
    "unique_inverse", np.unique_inverse, _unique_inverse, num_outputs=2, unlowerable=DYNAMIC_SHAPE
)
register_call("unique_all", np.unique_all, _unique_all, num_outputs=4, unlowerable=DYNAMIC_SHAPE)
register_call("unique", np.unique, _unique, num_outputs=None, unlowerable=DYNAMIC_SHAPE)
register_call("roll", np.roll, same_shape, doc="np.roll(a, shift, axis) with a static shift")
register_call(
    "real", np.real, same_shape, may_alias_input=True, doc="np.real(x) of a complex x (a view)"
)
register_call(
    "imag", np.imag, same_shape, may_alias_input=True, doc="np.imag(x) (a view for a complex x)"
)


def _logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    shape = _linspace(start, stop, num, endpoint, False, dtype, axis)
    if np.ndim(base) == 0:
        return shape
    if None in start or None in stop:
        raise ValueError("np.logspace with an array `base` needs the sizes of `start` and `stop`")
    return np.logspace(np.zeros(start), np.zeros(stop), num, endpoint, base, axis=axis).shape


def _resize(a, new_shape):
    dims = new_shape if isinstance(new_shape, tuple) else (new_shape,)
    dims = tuple(as_index(d, "new_shape") for d in dims)
    if any(d < 0 for d in dims):
        raise ValueError("all elements of `new_shape` must be non-negative")
    return dims


register_call("logspace", np.logspace, _logspace, arrays=("start", "stop"), min_inputs=2)
register_call(
    "geomspace",
    np.geomspace,
    lambda start, stop, num=50, endpoint=True, dtype=None, axis=0: _linspace(
        start, stop, num, endpoint, False, dtype, axis
    ),
    arrays=("start", "stop"),
    min_inputs=2,
)
register_call("resize", np.resize, _resize)
add_vjps(ufunc_derivatives.PART_RULES)
add_vjps(shape_derivatives.ARRAY_RULES)
