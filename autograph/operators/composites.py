"""setitem and setattr: the writes to subscripts and attributes of converted code.

They write through staging.state.journal, so that a write made while a staged branch or loop body
is traced becomes an output of the staged `if` or loop (and is undone for the other branch);
elsewhere they are plain Python writes. Also the in-place operators augmented assignments use.

A write into a NumPy array made while tracing that receives a staged value (a symbolic value
or index, or any write inside a staged branch or loop body) makes the array a staged value
(staging.state.concrete_arrays): `out[i] = v` is converted to `out = ag__.setitem(out, i, v)`
and `w += v` to `w = ag__.iadd(w, v)`, which give the Tensor the name is bound to from then on.
"""

from __future__ import annotations

import operator
import sys

import numpy as np

from staging.core.recording import current_graph
from staging.core.tensor import is_symbolic
from staging.kinds.undefined import MaybeUndefined
from staging.numpy_api import python_items
from staging.state import concrete_arrays, keyed
from staging.state import journal as mutation

__all__ = [
    "setitem",
    "setitem_into",
    "getitem",
    "item",
    "slice",
    "take_view",
    "setattr",
    "key",
    "iadd",
    "iand",
    "ifloordiv",
    "ilshift",
    "imatmul",
    "imod",
    "imul",
    "ior",
    "ipow",
    "irshift",
    "isub",
    "itruediv",
    "ixor",
]

_PROBE = object()  # staging.state.concrete_arrays.calibrate's argument


def setitem(obj, index, value):
    """`obj[index] = value` where `obj` is a name (converted code: `x = ag__.setitem(x, i, v)`);
    returns what the name holds afterwards: `obj` itself, or, for a NumPy array made while
    tracing that must become a staged value, the Tensor it became (for a dict given a key that
    hashes only when the graph runs, the staged container it became: staging.state.keyed). (A
    symbolic array is written in place by its own __setitem__, which journals the array it
    rebinds.) A name set on only some paths is read here, with its run-time check, as Python
    reads it at this line."""
    if type(obj) is np.ndarray:
        references = sys.getrefcount(obj)  # (first: the count calibrate measured, see there)
        if concrete_arrays.needs_promotion(obj, index, value):
            concrete_arrays.check_unaliased(obj, references, "`x[...] = v`")
            return _write_promoted(obj, index, value)
        mutation.write_item(obj, index, value)
        return obj
    if keyed.needs_promotion(obj, index):
        staged = _pending.pop(id(obj), (None, None))[1] if _pending else None
        if staged is None:
            references = sys.getrefcount(obj)
            staged = keyed.promoted_for_key(obj, references, "`d[k] = v`")
        staged[index] = value
        return staged
    if keyed.needs_list_promotion(obj, index):
        references = sys.getrefcount(obj)
        staged = keyed.promoted_for_index(obj, references)
        staged[index] = value
        return staged
    target = obj.read() if isinstance(obj, MaybeUndefined) else obj
    if concrete_arrays.needs_promotion(target, index, value):
        # held by the name's marker, `target` and getrefcount's argument
        concrete_arrays.check_unaliased(target, sys.getrefcount(target), "`x[...] = v`", 3)
        return _write_promoted(target, index, value)
    if is_symbolic(target):
        target[index] = value
    else:
        mutation.write_item(target, index, value)
    return obj


def _write_promoted(array, index, value):
    tensor = concrete_arrays.promote(array)
    tensor[index] = value
    return tensor


def setitem_into(obj, index, value):
    """`obj[index] = value` where `obj` is not a name of the function (an attribute, an item, a
    global): nothing rebinds it, so a NumPy array there cannot become a staged value."""
    if isinstance(obj, MaybeUndefined):
        obj = obj.read()
    if concrete_arrays.needs_promotion(obj, index, value):
        raise concrete_arrays.held_error(obj, "`x[...] = v`")
    if is_symbolic(obj):
        obj[index] = value
    else:
        mutation.write_item(obj, index, value)


def getitem(obj, index):
    """`obj[index]` read by an augmented assignment (`x[i] += v`): a NumPy array made while
    tracing, indexed by a symbolic index, is read as a constant of its contents; a dict read
    with a key hashing only when the graph runs becomes a staged container (staging.state.keyed)
    that the statement's setitem then writes."""
    if (
        type(obj) is np.ndarray
        and current_graph() is not None
        and concrete_arrays.holds_symbolic(index)
    ):
        return concrete_arrays.promote(obj)[index]
    if keyed.needs_promotion(obj, index):
        # (less the reference of the statement's setitem, whose first argument is evaluated)
        references = sys.getrefcount(obj) - 1
        staged = keyed.promoted_for_key(obj, references, "`d[k] += v`")
        _pending.clear()  # (one at a time: the setitem of the same statement follows)
        _pending[id(obj)] = (obj, staged)
        return staged[index]
    return obj[index]


def _symbolic_key(key) -> bool:
    if type(key) is slice:
        return any(is_symbolic(b) for b in (key.start, key.stop, key.step))
    return is_symbolic(key)


# dicts an augmented assignment read with a key hashing when the graph runs, by id: the staged
# container each became, for the setitem of the same statement (which rebinds the name to it)
_pending: dict = {}


slice = slice  # noqa: A001, PLW0127 - `ag__.slice(i, None)`: `x[i:]` with a computed bound


def item(obj, key):
    """`obj[key]` read with a computed key (converted code: `ag__.item(table, i)`). A Python
    list, tuple, str or dict read with a symbolic key gives a staged value, the item as
    indexing gives it when the graph runs (staging.numpy_api.python_items); so does an element
    of a NumPy array made while tracing, and a slice of a Python list with a symbolic bound
    (`ag__.item(left, ag__.slice(i, None))`: a staged list). Otherwise Python's `obj[key]`."""
    if _symbolic_key(key) and not is_symbolic(obj) and current_graph() is not None:
        if isinstance(obj, MaybeUndefined):
            obj = obj.read()
        staged = python_items.item(obj, key)
        if staged is not None:
            return staged
    return obj[key]


def take_view(obj, index):
    """`view = obj[index]` where items of `view` are written later (converted code: `obj, view =
    ag__.take_view(obj, index)`): (what `obj` holds afterwards, `obj[index]`). A NumPy array made
    while tracing of which this takes a view becomes a staged value first, so that the view is
    one of the staged array and later writes through either reach the other, as eagerly."""
    if type(obj) is not np.ndarray or current_graph() is None:
        return obj, obj[index]
    references = sys.getrefcount(obj)
    if concrete_arrays.holds_symbolic(index):
        concrete_arrays.check_unaliased(obj, references, "`view = x[i]` with a symbolic `i`")
    else:
        view = obj[index]
        if not isinstance(view, np.ndarray) or not concrete_arrays.unaliased(obj, references):
            return obj, view  # an element; or an array others refer to (writes are refused)
        del view
    tensor = concrete_arrays.promote(obj)
    return tensor, tensor[index]


def setattr(obj, name, value):  # noqa: A001 - the operator of `obj.name = value`
    """`obj.name = value` (a name set on only some paths is read first, as in setitem)."""
    if isinstance(obj, MaybeUndefined):
        obj = obj.read()
    mutation.write_attr(obj, name, value)


def _in_place(op, symbol: str):
    """`x op= y` as converted code writes it, `x = ag__.iop(x, y)`: Python's in-place operator,
    on a NumPy array made while tracing that must become a staged value, made on the Tensor it
    becomes (returned for the name)."""

    def apply(x, y):
        if type(x) is np.ndarray:
            references = sys.getrefcount(x)
            if y is _PROBE:
                return references
            if concrete_arrays.needs_promotion(x, y):
                if not concrete_arrays.is_temporary(references):  # (else setitem writes it back)
                    concrete_arrays.check_unaliased(x, references, f"`x {symbol} v`")
                x = concrete_arrays.promote(x)
        return op(x, y)

    apply.__name__ = apply.__qualname__ = op.__name__
    return apply


iadd = _in_place(operator.iadd, "+=")
iand = _in_place(operator.iand, "&=")
ifloordiv = _in_place(operator.ifloordiv, "//=")
ilshift = _in_place(operator.ilshift, "<<=")
imatmul = _in_place(operator.imatmul, "@=")
imod = _in_place(operator.imod, "%=")
imul = _in_place(operator.imul, "*=")
ior = _in_place(operator.ior, "|=")
ipow = _in_place(operator.ipow, "**=")
irshift = _in_place(operator.irshift, ">>=")
isub = _in_place(operator.isub, "-=")
itruediv = _in_place(operator.itruediv, "/=")
ixor = _in_place(operator.ixor, "^=")

concrete_arrays.calibrate(iadd, _PROBE)


class _Key:
    """`key[...]` is the index written between the brackets: `key[:, 0]` is (slice(None), 0)."""

    __slots__ = ()

    def __getitem__(self, index):
        return index

    def __repr__(self):
        return "ag__.key"


key = _Key()
