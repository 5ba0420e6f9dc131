"""x[key] on a symbolic x: basic and advanced indexing with static or symbolic parts."""

from __future__ import annotations

import operator

import numpy as np

from runtime.ops.indexing import format_slice

from ._common import _as_input, _is_tensor, _record, _where

def _slice_part(value, inputs):
    if value is None:
        return None
    if _is_tensor(value):
        if value.ndim != 0 or value.dtype.kind not in "iu":
            raise IndexError(f"{_where()}slice indices must be integers or None, got a symbolic {value.type}")
        inputs.append(value)
        return "?"
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{_where()}slice indices must be integers or None or have an __index__ method") from None


def getitem(x, key):
    """x[key] on a symbolic x: ints, slices (static or symbolic bounds), None, Ellipsis, integer
    scalars/arrays and boolean masks (concrete or symbolic)."""
    if not isinstance(key, tuple):
        key = (key,)
    index, inputs = [], []
    for k in key:
        if k is None:
            index.append(None)
        elif k is Ellipsis:
            index.append("...")
        elif isinstance(k, slice):
            parts = tuple(_slice_part(p, inputs) for p in (k.start, k.stop, k.step))
            index.append(format_slice(*parts))
        elif _is_tensor(k):
            if k.dtype.kind not in "iub":
                raise IndexError(f"{_where()}only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
                                 f"and integer or boolean arrays are valid indices; got a symbolic {k.type}")
            index.append("?")
            inputs.append(k)
        elif isinstance(k, (bool, np.bool_)):
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
                    raise IndexError(f"{_where()}arrays used as indices must be of integer (or boolean) type")
            index.append("?")
            inputs.append(arr)
        else:
            raise IndexError(f"{_where()}only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                             f"integer or boolean arrays are valid indices; got {type(k).__name__}")
    return _record("getitem", [x, *inputs], {"index": tuple(index)})
