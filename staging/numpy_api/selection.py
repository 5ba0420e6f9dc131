"""Comparing, counting and selecting elements: array_equal/array_equiv, isin and the set
operations, bincount, digitize, flatnonzero, delete/insert/append, extract/compress,
trim_zeros, partition/argpartition, lexsort, unravel_index, select."""

from __future__ import annotations

import inspect

import numpy as np

from staging.numpy_api._calls import bind, staged
from staging.numpy_api._common import (
    _as_input,
    _contains_tensor,
    _is_tensor,
    _ndim,
    _record,
    _static_int,
    _where,
)
from staging.numpy_api.arrays import _static_dtype, broadcast_shape
from staging.numpy_api.shapes import _broadcast_to, _concatenate, _nonzero, _ravel


def _flatnonzero(a):
    """np.flatnonzero: np.nonzero(np.ravel(a))[0], as NumPy computes it."""
    return _nonzero(_ravel(_as_input(a)))[0]


def _slice_indices(arr, obj, axis):
    """A slice `obj` of an axis of known length as the indices it selects (what NumPy does with
    it), so that the attr is numbers; of an unknown length, the slice itself."""
    if _is_tensor(axis):
        return obj
    shape = arr.static_shape if _is_tensor(arr) else np.shape(arr)
    n = (None if None in shape else int(np.prod(shape))) if axis is None else None
    if axis is not None and -len(shape) <= axis < len(shape):
        n = shape[axis]
    return obj if n is None else tuple(range(*obj.indices(n)))


def _index_call(op, func):
    """np.delete / np.insert: a symbolic `obj` is an input, a static one an attr."""
    signature = inspect.signature(func)

    def handler(arr, obj, *rest, **kwargs):
        if isinstance(obj, slice):
            given = signature.bind_partial(arr, obj, *rest, **kwargs).arguments
            arr, obj = _as_input(arr), _slice_indices(arr, obj, given.get("axis"))
        params = (
            ("arr", "obj", "values")
            if _is_tensor(obj) or _contains_tensor(obj)
            else ("arr", "values")
        )
        inputs, attrs = bind(func, (arr, obj, *rest), kwargs, params, named=True)
        return _record(op, inputs, attrs)

    handler.__name__ = op
    handler.staged_op = op
    return handler


def _append(arr, values, axis=None):
    """np.append: both raveled and joined when axis is None, else one concatenate (NumPy's own
    steps)."""
    arr, values = _as_input(arr), _as_input(values)
    if axis is None:
        if _ndim(arr) != 1:
            arr = _ravel(arr)
        values = _ravel(values)
        axis = _ndim(arr) - 1
    return _concatenate((arr, values), axis=axis)


def _lexsort(keys, axis=-1):
    axis = _static_int(axis, "axis")
    if isinstance(keys, (list, tuple)):
        if not keys:
            raise TypeError(f"{_where()}need sequence of keys with len > 0 in lexsort")
        return _record(
            "lexsort", [_as_input(k) for k in keys], {"axis": axis} if axis != -1 else {}
        )
    attrs = {"sequence": False}
    if axis != -1:
        attrs["axis"] = axis
    return _record("lexsort", [_as_input(keys)], attrs)


_lexsort.staged_op = "lexsort"


def _unravel_index(indices, shape, order="C"):
    inputs, attrs = bind(np.unravel_index, (indices, shape, order), {}, ("indices",))
    return tuple(_record("unravel_index", inputs, attrs))


_unravel_index.staged_op = "unravel_index"


_WEAK = (int, float, complex)


def _select(condlist, choicelist, default=0):
    """np.select, as NumPy builds it: the result type of the choices and the default (Python
    numbers weak), the default filled into the common shape, then each choice written where its
    condition holds, the first condition winning."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"{_where()}list of cases must be same length as list of conditions")
    if not condlist:
        raise ValueError(f"{_where()}select with an empty condition list is not possible")
    choices = [c if type(c) in _WEAK else _as_input(c) for c in (*choicelist, default)]
    choices = [c if type(c) in _WEAK or _is_tensor(c) else np.asarray(c) for c in choices]
    try:
        dtype = np.result_type(*[_static_dtype(c) for c in choices])
    except TypeError as e:
        raise TypeError(
            f"{_where()}Choicelist and default value do not have a common dtype: {e}"
        ) from None
    conditions = [_as_input(c) for c in condlist]
    for i, c in enumerate(conditions):
        if (c.static_dtype if _is_tensor(c) else np.asarray(c).dtype) != np.bool_:
            raise TypeError(f"{_where()}invalid entry {i} in condlist: should be boolean ndarray")
    *choices, default = choices
    shape = broadcast_shape([*conditions, *choices, default])
    if not _is_tensor(default):
        default = np.full((), default, dtype)  # np.full's cast (and its errors), while tracing
    result = _broadcast_to(_record("astype", [default], {"dtype": dtype}), shape)
    for condition, choice in zip(reversed(conditions), reversed(choices)):
        choice = _record("astype", [choice], {"dtype": dtype})
        result = _record("where", [condition, choice, result])
    return result


FUNCTIONS = {
    np.array_equal: staged("array_equal", np.array_equal, ("a1", "a2")),
    np.array_equiv: staged("array_equiv", np.array_equiv, ("a1", "a2")),
    np.isin: staged("isin", np.isin, ("element", "test_elements")),
    np.intersect1d: staged(
        "intersect1d", np.intersect1d, ("ar1", "ar2"), refuse=("return_indices",)
    ),
    np.union1d: staged("union1d", np.union1d, ("ar1", "ar2")),
    np.setdiff1d: staged("setdiff1d", np.setdiff1d, ("ar1", "ar2")),
    np.setxor1d: staged("setxor1d", np.setxor1d, ("ar1", "ar2")),
    np.bincount: staged("bincount", np.bincount, ("x", "weights"), named=True),
    np.digitize: staged("digitize", np.digitize, ("x", "bins")),
    np.flatnonzero: _flatnonzero,
    np.delete: _index_call("delete", np.delete),
    np.insert: _index_call("insert", np.insert),
    np.append: _append,
    np.extract: staged("extract", np.extract, ("condition", "arr")),
    np.compress: staged("compress", np.compress, ("condition", "a")),
    np.trim_zeros: staged("trim_zeros", np.trim_zeros),
    np.partition: staged("partition", np.partition, ("a", "kth")),
    np.argpartition: staged("argpartition", np.argpartition, ("a", "kth")),
    np.lexsort: _lexsort,
    np.unravel_index: _unravel_index,
    np.select: _select,
}
