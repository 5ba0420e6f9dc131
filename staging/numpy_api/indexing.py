"""x[key] and x[key] = value on a symbolic x: basic and advanced indexing with static or symbolic parts."""

from __future__ import annotations

import operator
import warnings

import numpy as np

from runtime import TensorType
from runtime.ops.indexing import format_slice, index_result
from runtime.types import optional_tuple_kind
from staging import errors
from staging.core.tensor import staged_value
from staging.kinds import decisions as kinds
from staging.kinds import forms as array0d
from staging.numpy_api._common import _as_input, _is_tensor, _record, _where, array_from_nested
from staging.state import aliasing


def _slice_part(value, inputs):
    if value is None:
        return None
    if _is_tensor(value):
        if value.static_ndim != 0 or value.static_dtype.kind not in "iu":
            raise IndexError(
                f"{_where()}slice indices must be integers or None, got a symbolic {value.type}"
            )
        inputs.append(value)
        return "?"
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(
            f"{_where()}slice indices must be integers or None or have an __index__ method"
        ) from None


def parse_key(key):  # noqa: C901, PLR0912
    """(index attr, index inputs, basic): `basic` when NumPy's result is a view of x (ints, slices,
    None, Ellipsis), unless every item is an integer (a scalar). A symbolic integer scalar counts
    as an int: eagerly it is a NumPy integer (from a reduction, arithmetic, a loop counter); a
    concrete 0-d integer array index makes a copy in NumPy, as integer arrays do."""
    if not isinstance(key, tuple):
        key = (key,)
    index, inputs = [], []
    basic = True
    for k in key:
        k = staged_value(k)  # a list built by a staged loop: the array of its items
        if k is None:
            index.append(None)
        elif k is Ellipsis:
            index.append("...")
        elif isinstance(k, slice):
            parts = tuple(_slice_part(p, inputs) for p in (k.start, k.stop, k.step))
            index.append(format_slice(*parts))
        elif _is_tensor(k):
            dtype_kinds = _index_kind_of(k)
            if dtype_kinds is None:
                raise IndexError(
                    f"{_where()}only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                    f"(`None`) and integer or boolean arrays are valid indices; got a symbolic {k.type}"
                )
            basic = basic and dtype_kinds == "integer scalar"
            index.append("?")
            inputs.append(k)
        elif isinstance(k, (bool, np.bool_)):
            basic = False
            index.append("?")
            inputs.append(np.asarray(k))
        elif isinstance(k, (int, np.integer)):
            index.append(int(k))
        elif isinstance(k, (list, np.ndarray)):
            arr = _as_input(k)
            if not _is_tensor(arr) and arr.dtype.kind not in "iub":
                if arr.size == 0:
                    arr = arr.astype(np.intp)  # x[[]] selects nothing, as in NumPy
                else:
                    raise IndexError(
                        f"{_where()}arrays used as indices must be of integer (or boolean) type"
                    )
            basic = basic and _is_tensor(arr) and arr.ndim == 0 and arr.dtype.kind in "iu"
            index.append("?")
            inputs.append(arr)
        else:
            raise IndexError(
                f"{_where()}only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                f"integer or boolean arrays are valid indices; got {type(k).__name__}"
            )
    return tuple(index), inputs, basic


def _is_element(index, ndim: int) -> bool:
    """Every item an integer, one per dim: NumPy returns a scalar (a copy), not a view."""
    return len(index) == ndim and all(
        e == "?" or (isinstance(e, int) and e is not None) for e in index
    )


def getitem(x, key):
    """x[key] on a symbolic x: ints, slices (static or symbolic bounds), None, Ellipsis, integer
    scalars/arrays and boolean masks (concrete or symbolic); an item of a value that is a tuple
    on some paths and None on others."""
    if _is_tensor(x) and optional_tuple_kind(x.type) is not None:
        return _tuple_item(x, key)
    index, inputs, basic = parse_key(key)
    out = _record("getitem", [x, *inputs], {"index": index})
    if basic and _is_tensor(x) and not _is_element(index, x.ndim):
        aliasing.track_view(out, x)
    return out


def _tuple_item(x, key):
    """t[key] of a value that is a tuple on some paths and None on others: a Python int index
    within the tuple's length (where it is None when the graph runs, the item raises Python's
    TypeError); anything else is refused."""
    n = len(optional_tuple_kind(x.type).items)
    if type(key) is not int or not -n <= key < n:
        raise errors.BranchMismatchError(
            f"{_where()}indexing a value that is a tuple of {n} items on some paths and None on "
            f"others is staged for an int index in range(-{n}, {n}), not {key!r}; give the "
            f"value one type on every path"
        )
    return _record("tuple_item", [x], {"index": key % n})


def _type_of(x):
    return (
        x.type
        if _is_tensor(x)
        else (x if type(x) in (bool, int, float, complex) else TensorType.of(x))
    )


def _value_input(x, value, index, inputs):
    """`value` as the value input of setitem on x: NumPy converts it to x's dtype first."""
    if (
        _is_tensor(value)
        or type(value) in (bool, int, float, complex)
        or isinstance(value, np.ndarray)
    ):
        return _as_input(value)
    if isinstance(value, np.generic):
        _convert(
            lambda: np.zeros(1, x.dtype).__setitem__(Ellipsis, value)
        )  # 300 into int8, NaN into int
        return value
    if isinstance(value, (list, tuple)):
        converted = array_from_nested(value, dtype=x.dtype)
        target = index_result(_type_of(x), [_type_of(i) for i in inputs], index)[0]
        if converted.ndim > target.ndim:
            raise ValueError(
                f"{_where()}setting an array element with a sequence. The requested array would "
                f"exceed the maximum number of dimension of {target.ndim}."
            )
        return converted
    return _as_input(value)


def _convert(func):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NumPy warns again when the graph runs, as eagerly
            return func()
    except (TypeError, ValueError, OverflowError) as exc:
        raise type(exc)(f"{_where()}{exc}") from None


def setitem(x, key, value):
    """A new array equal to `x` after NumPy's `x[key] = value` (x itself is not changed). x may
    be a symbolic tensor or a NumPy array; key as for getitem."""
    if isinstance(x, np.generic) or not (_is_tensor(x) or isinstance(x, np.ndarray)):
        raise TypeError(f"{_where()}'{type(x).__name__}' object does not support item assignment")
    index, inputs, _ = parse_key(key)
    return _record("setitem", [x, _value_input(x, value, index, inputs), *inputs], {"index": index})


def tensor_setitem(x, key, value):
    """Tensor.__setitem__: `x[key] = value` in place (x and the arrays sharing its memory are
    rebound to the new value; see staging.state.aliasing)."""
    if (
        x.ndim == 0
        and x._alias is None
        and array0d.written_as_array(x, "`{name}[...] = v`") is False
    ):
        raise TypeError(
            f"{_where()}'numpy.{x.dtype.type.__name__}' object does not support item assignment"
        )
    aliasing.check_writable(x, "`x[...] = v`")
    aliasing.write(x, setitem(x, key, value))


def _index_kind_of(index):
    """_index_kind of a symbolic index: what its kinds that can index agree on (on a path where
    it is of another kind, the op raises IndexError when the graph runs, as eagerly); None when
    none can index. Refused when the valid kinds disagree (basic and advanced indexing)."""
    found = {_index_kind(k) for k in kinds.kinds(index.type)} - {None}
    if not found:
        return None
    if len(found) == 1:
        return found.pop()
    return kinds.one_answer(index, "indexing", _index_kind)


def _index_kind(kind):
    """What a value of one kind is as an index: an "integer scalar" (basic indexing), an
    "array" of integers or bools (advanced), or None (not an index)."""
    if kind.dtype.kind not in "iub":
        return None
    return "integer scalar" if kind.shape == () and kind.dtype.kind in "iu" else "array"
