"""A Python list, tuple, str or dict read with a key known only when the graph runs:
`table[i]`, `alphabet[r]`, `letters[bisect(...)]`, `weights[k]` where `i` is a staged value.

One op, `python_item`, holds the container's contents as they were when the trace read it
(literal items in its `items` attr, the others, symbolic values and NumPy scalars, as inputs
filling its ARG slots; a dict's keys in `keys`) and computes `container[key]` with Python's
own indexing when the graph runs: negative indices, `IndexError: list index out of range`,
`KeyError`, `TypeError: list indices must be integers or slices, not numpy.float64` are
eager's. The result is the item itself, of the join of the items' types: a list of Python
ints gives a Python int (`int`), one of ints and floats `int | float`, a str a str.
"""

from __future__ import annotations

import numpy as np

from ..core_ops import ARG, ARG_SLOT
from ..registry import LITERAL, NONE, one_of, register_op, tuple_of
from ..types import NONE as NONE_KIND
from ..types import STR, TensorType, union_of

CONTAINERS = ("list", "tuple", "str", "dict")
_SAMPLES = {"list": [None], "tuple": (None,), "str": "a"}


def _build(container: str, items, keys):
    if container == "dict":
        return dict(zip(keys, items))
    if container == "str":
        return "".join(items)
    return list(items) if container == "list" else tuple(items)


def _fill(items, values):
    values = iter(values)
    return [next(values) if item is ARG else item for item in items]


def _literal_type(value):
    if value is None:
        return NONE_KIND
    if type(value) is str:
        return STR
    return TensorType.of(value)  # (a Python number: its weak type)


def _key_stand_in(t):
    """A key of type `t` for Python's indexing to accept or reject, as it would the real one."""
    if t.weak:
        return t.python_type(0)
    return np.zeros(tuple(1 if d is None else d for d in t.shape), t.dtype)[()]


def _check_key(key, container: str) -> None:
    """Python's TypeError for a key of this type (a float, an array), raised while tracing: it
    raises on every path."""
    if not isinstance(key, TensorType):
        return
    stand_in = _key_stand_in(key)
    if container == "dict":
        hash(stand_in)  # (an array: TypeError unhashable type)
        return
    _SAMPLES[container][stand_in]


def _python_item_infer(key, *values, container, items, keys=None):
    _check_key(key, container)
    slots = iter(values)
    types = [next(slots) if item is ARG else _literal_type(item) for item in items]
    if not types:  # (an empty container: every key misses, as eagerly)
        _build(container, (), keys)[_key_stand_in(key)]
    return union_of(types)


def _python_item_kernel(container, items, keys=None):
    if not any(item is ARG for item in items):
        built = _build(container, items, keys)
        return lambda key: built[key]

    def read(key, *values):
        return _build(container, _fill(items, values), keys)[key]

    return read


register_op(
    "python_item",
    infer=_python_item_infer,
    make_kernel=_python_item_kernel,
    weak_results=True,
    takes_none=True,
    may_alias_input=True,  # (an item that is an array is that array)
    attr_kinds=(
        ("container", one_of(*CONTAINERS)),
        ("items", tuple_of(ARG_SLOT | LITERAL)),
        ("keys", NONE | tuple_of(LITERAL)),
    ),
    unlowerable="a Python list, tuple, str or dict is read with a key known only when the graph "
    "runs: make it an array (np.asarray(table)[i]) to compile it",
    doc="container[key] of a Python list, tuple, str or dict held by the node (items are "
    "literals or the inputs after key), with Python's indexing",
)(
    lambda key, *values, container, items, keys=None: _python_item_kernel(container, items, keys)(
        key, *values
    )
)
