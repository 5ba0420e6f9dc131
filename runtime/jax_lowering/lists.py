"""Lists (TensorArrays) grown in staged loops with a known bound: a preallocated buffer written
with dynamic updates, and its length.

A list whose indices are known while lowering stays a Python list of JAX values (the list ops'
lowerings, runtime/core_ops.py).
One carried through a staged loop becomes a `Buffer`: an array of `capacity` elements (the
elements it holds before the loop, plus the loop's bound times the writes in one iteration)
and the run-time length. The bound is the loop's `maximum_iterations` (autograph's
`set_loop_options(maximum_iterations=n)`, `staging.while_loop(..., maximum_iterations=n)`).
`stack()` of a buffer is a `Stacked` value: the buffer and the length, cut to the length on the
host when the graph returns it (its shape is known only when the graph runs).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..graph import ListType
from ..types import TensorType, UnionType

UNBOUNDED_FIX = (
    "Give the loop a bound: autograph.set_loop_options(maximum_iterations=n) in the loop (or "
    "staging.while_loop(..., maximum_iterations=n)) preallocates the list; or preallocate a NumPy "
    "array (np.zeros(n)) and write x[i] = v; or keep the interpreter (jit_compile=False)"
)


@jax.tree_util.register_pytree_node_class
class Buffer:
    """A list in a staged loop: `data[:length]` are its elements (of type `element`)."""

    def __init__(self, data, length, element: TensorType):
        self.data, self.length, self.element = data, length, element

    @property
    def capacity(self) -> int:
        return self.data.shape[0]

    def tree_flatten(self):
        return (self.data, self.length), self.element

    @classmethod
    def tree_unflatten(cls, element, children):
        data, length = children
        return cls(data, length, element)


@jax.tree_util.register_pytree_node_class
class Stacked:
    """`stack()` of a Buffer: its rows `data[:length]` (a shape known only at run time)."""

    def __init__(self, data, length):
        self.data, self.length = data, length

    def tree_flatten(self):
        return (self.data, self.length), None

    @classmethod
    def tree_unflatten(cls, _, children):
        return cls(*children)


def element_type(list_type):
    """The fully known element type of a list value, or None (also for elements of several
    kinds: a buffer holds one dtype, and no tags)."""
    element = list_type.element if isinstance(list_type, ListType) else None
    if type(element) is not TensorType or any(d is None for d in element.shape):
        return None
    return element


ELEMENT_FIX = (
    "A list written in staged control flow is compiled as one array: write elements of one type "
    "and one fully known shape (convert them where they are made: np.float64(...), float(...))"
)


def elements(list_type) -> str:
    """What keeps a list of this type from being a Buffer, for messages: `a list whose ...`."""
    element = list_type.element if isinstance(list_type, ListType) else None
    if type(element) is UnionType:
        return f"a list whose elements are of several kinds depending on the path ({list_type})"
    return f"a list whose elements' shape is not known ({list_type})"


def to_buffer(items, element: TensorType, extra: int) -> Buffer:
    """A Python list of JAX values (None: not written yet) as a Buffer with `extra` free rows."""
    rows = [
        jnp.zeros(element.shape, element.dtype)
        if v is None
        else jnp.asarray(v, dtype=element.dtype)
        for v in items
    ]
    rows += [jnp.zeros(element.shape, element.dtype)] * extra
    data = jnp.stack(rows) if rows else jnp.zeros((0, *element.shape), element.dtype)
    return Buffer(data, jnp.asarray(len(items), dtype=np.int64), element)
