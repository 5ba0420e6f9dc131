"""setitem and setattr: the writes to subscripts and attributes of converted code.

Plain Python writes for now, and the in-place operators augmented assignments use.
"""

from __future__ import annotations

import builtins
from operator import (iadd, iand, ifloordiv, ilshift, imatmul, imod, imul, ior, ipow, irshift,
                      isub, itruediv, ixor)

__all__ = ["setitem", "setattr", "key", "iadd", "iand", "ifloordiv", "ilshift", "imatmul", "imod",
           "imul", "ior", "ipow", "irshift", "isub", "itruediv", "ixor"]


def setitem(obj, index, value):
    """`obj[index] = value`."""
    obj[index] = value


def setattr(obj, name, value):  # noqa: A001 - the operator of `obj.name = value`
    """`obj.name = value`."""
    builtins.setattr(obj, name, value)


class _Key:
    """`key[...]` is the index written between the brackets: `key[:, 0]` is (slice(None), 0)."""

    __slots__ = ()

    def __getitem__(self, index):
        return index

    def __repr__(self):
        return "ag__.key"


key = _Key()
