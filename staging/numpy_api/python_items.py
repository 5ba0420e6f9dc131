"""Python containers read with a key known only when the graph runs (`table[i]`, `alphabet[r]`,
`weights[k]` with a staged `i`): Python's list cannot take a symbolic index, so converted code
reads such items through `ag__.item` (autograph.operators.composites), which records the
`python_item` op here (runtime.ops.python_items): the node holds the container's contents as
they are at this line and indexes them with Python's own rules when the graph runs.

A container is held when each item is a Python literal (None, a bool, int, float or str), a
NumPy number or a symbolic value, and a dict's keys are literals; otherwise (an object, a
nested list) `item` gives None and the read is Python's, which refuses the symbolic key naming
the line. A NumPy array made while tracing, read at one element, is read as a constant of its
contents (the element is a copy, as eagerly); a read that gives a row is a view eagerly, which
later writes into the array would show through, and stays refused.

A Python list sliced with a symbolic bound (`left[i:]`) gives a new list whose length is known
only when the graph runs: a staged list (staging.state.containers) made from the list's items
as they are at this line and sliced when the graph runs. The list itself is only read, so other
references to it see what they see eagerly.
"""

from __future__ import annotations

import numpy as np

from runtime.core_ops import ARG
from staging import errors
from staging.core.recording import record
from staging.core.tensor import is_symbolic
from staging.numpy_api.python_values import MAX_ELEMENTS
from staging.state import concrete_arrays, containers

_CONTAINERS = {list: "list", tuple: "tuple", str: "str", dict: "dict"}
_LITERALS = (type(None), bool, int, float, str)


def _holdable_item(value) -> bool:
    return (
        type(value) in _LITERALS
        or type(value) is complex
        or isinstance(value, (np.number, np.bool_))
        or is_symbolic(value)
    )


def item(container, key):
    """`container[key]` as a staged value for a symbolic `key`, or None when the container is
    not one a node can hold (see the module docstring)."""
    kind = _CONTAINERS.get(type(container))
    if type(key) is slice:
        return _list_slice(container, key) if kind == "list" else None
    if kind is not None:
        return _container_item(container, kind, key)
    if type(container) is np.ndarray and container.ndim == 1:
        return concrete_arrays.promote(container)[key]
    return None


def _list_slice(container: list, key: slice):
    if len(container) > MAX_ELEMENTS or not all(_holdable_item(v) for v in container):
        return None
    try:
        staged = containers.promote(list(container))
    except errors.UnsupportedOpError:  # (items of no one type: Python's refusal of the bound)
        return None
    return staged[key]


def _container_item(container, kind: str, key):
    if len(container) > MAX_ELEMENTS:
        return None
    keys = None
    values = list(container)
    if kind == "dict":
        keys = tuple(container)
        if not all(type(k) in _LITERALS for k in keys):
            return None
        values = list(container.values())
    if not all(_holdable_item(v) for v in values):
        return None
    items, inputs = [], []
    for value in values:
        if type(value) in _LITERALS:
            items.append(value)
        else:
            items.append(ARG)
            inputs.append(value)
    attrs = {"container": kind, "items": tuple(items), "keys": keys}
    return record("python_item", [key, *inputs], attrs)
