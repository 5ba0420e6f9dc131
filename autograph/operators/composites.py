"""setitem and setattr: the writes to subscripts and attributes of converted code.

They write through staging.state.journal, so that a write made while a staged branch or loop body
is traced becomes an output of the staged `if` or loop (and is undone for the other branch);
elsewhere they are plain Python writes. Also the in-place operators augmented assignments use.
"""

from __future__ import annotations

from operator import (
    iadd,
    iand,
    ifloordiv,
    ilshift,
    imatmul,
    imod,
    imul,
    ior,
    ipow,
    irshift,
    isub,
    itruediv,
    ixor,
)

from staging.core.tensor import is_symbolic
from staging.kinds.undefined import MaybeUndefined
from staging.state import journal as mutation

__all__ = [
    "setitem",
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


def setitem(obj, index, value):
    """`obj[index] = value`. (A symbolic array is written in place by its own __setitem__, which
    journals the array it rebinds.) A name set on only some paths is read here, with its
    run-time check, as Python reads it at this line."""
    if isinstance(obj, MaybeUndefined):
        obj = obj.read()
    if is_symbolic(obj):
        obj[index] = value
    else:
        mutation.write_item(obj, index, value)


def setattr(obj, name, value):  # noqa: A001 - the operator of `obj.name = value`
    """`obj.name = value` (a name set on only some paths is read first, as in setitem)."""
    if isinstance(obj, MaybeUndefined):
        obj = obj.read()
    mutation.write_attr(obj, name, value)


class _Key:
    """`key[...]` is the index written between the brackets: `key[:, 0]` is (slice(None), 0)."""

    __slots__ = ()

    def __getitem__(self, index):
        return index

    def __repr__(self):
        return "ag__.key"


key = _Key()
