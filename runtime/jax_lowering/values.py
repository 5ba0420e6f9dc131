"""JAX values as the graph's types want them, and graph walks the backend shares."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..graph import Graph, ListType, Value
from ..registry import get_op
from ..types import TensorType

PYTHON_NUMBERS = (bool, int, float, complex)


def is_static(x) -> bool:
    return type(x) in PYTHON_NUMBERS


def conform(value, type_, strong: bool = False):
    """`value` as a JAX value of `type_`'s dtype (a Python number of a weak type stays one,
    unless `strong`: values crossing control flow must be arrays)."""
    if isinstance(type_, ListType) or hasattr(value, "length"):  # a list, or a Buffer / Stacked
        return value
    if type_.weak and is_static(value) and not strong:
        return value
    return jnp.asarray(value, dtype=type_.dtype)


def ir_type(item):
    """What a type rule receives for a node input: its TensorType, or the Python number."""
    return item.type if isinstance(item, Value) else item


def called_graphs(graph: Graph):
    """`graph` and, depth first, every graph its nodes call (OpDef.called_graph)."""
    yield graph
    for node in graph.walk():
        calls = get_op(node.op).called_graph
        if calls is not None:
            yield from called_graphs(calls(node))


def to_host(value, type_):
    """A JAX result as the interpreter gives it: a writable ndarray, a NumPy scalar for 0-d, a Python
    number for a weak type, a list for a list."""
    if hasattr(
        value, "length"
    ):  # a Buffer or Stacked (lists.py): the rows up to its run-time length
        rows = np.asarray(value.data)[: int(value.length)]
        if isinstance(type_, ListType):
            return [to_host(v, type_.element) for v in rows]
        return rows.copy()
    if isinstance(type_, ListType):
        return [to_host(v, type_.element) for v in value]
    if isinstance(type_, TensorType) and type_.weak:
        return type_.python_type(np.asarray(value).item())
    array = np.asarray(value)
    # a copy: the caller owns its result (np.asarray of a jax.Array is a read-only view)
    return array[()] if array.ndim == 0 else array.copy()
