"""JAX values as the graph's types want them (a value of several kinds: its array and a kind tag),
and graph walks the backend shares."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..graph import Graph, ListType, Value
from ..registry import get_op
from ..types import TensorType, UnionType, kinds

PYTHON_NUMBERS = (bool, int, float, complex)


def is_static(x) -> bool:
    return type(x) in PYTHON_NUMBERS


# -- values of several kinds -----------------------------------------------------------------


@jax.tree_util.register_pytree_node_class
class Tagged:
    """A value whose type is a UnionType (a Python float on one path, a float64 scalar on
    another): `value` is its JAX value, of the dtype and shape every kind of the union shares,
    and `tag` the index, in the union's kinds, of the kind the path taken made it: an int known
    while lowering, or a traced int32 scalar. Values of one kind are never tagged."""

    __slots__ = ("value", "tag")

    def __init__(self, value, tag):
        self.value, self.tag = value, tag

    def tree_flatten(self):
        if type(self.tag) is int:  # known while lowering: part of the structure, not a leaf
            return (self.value,), self.tag
        return (self.value, self.tag), None

    @classmethod
    def tree_unflatten(cls, tag, children):
        return cls(children[0], tag) if tag is not None else cls(*children)

    def __repr__(self):
        return f"Tagged({self.value!r}, {self.tag!r})"


def untag(x):
    """The value itself (its kinds share a dtype and shape: what only reads the number uses)."""
    return x.value if type(x) is Tagged else x


def one_dtype_and_shape(t) -> bool:
    """Whether every kind of `t` is the same NumPy value once made one (`float | f64[]`,
    `int | i64[]`): such a union lowers to one JAX value and a tag."""
    return len({k.strong() for k in kinds(t)}) == 1


def item_type(item):
    """The type of a node input or graph output: a Value's type, a Python number's weak type."""
    if isinstance(item, Value):
        return item.type
    return TensorType.of(item) if is_static(item) else None


def kind_index(union, kind) -> int:
    """The index of the kind of `union` that a value of type `kind` (one kind) is."""
    for i, mine in enumerate(kinds(union)):
        if mine.is_supertype_of(kind):
            return i
    raise TypeError(f"a value of type {kind} is none of the kinds of {union}")


def retag(value, from_type, to_type):
    """`value`, a value of type `from_type`, as a value of type `to_type`, which accepts it (a
    loop variable's initial value, a branch's result): tagged with its kind in `to_type` when
    that is a union (a table lookup of its own tag when it is tagged). Raises TypeError where
    `to_type` does not accept every kind of `from_type` (the graph's types disagree)."""
    if type(to_type) is not UnionType:
        if type(value) is Tagged and not all(
            isinstance(to_type, TensorType) and to_type.is_supertype_of(k) for k in kinds(from_type)
        ):
            raise TypeError(f"a value of kinds {from_type} where the graph says {to_type}")
        return untag(value)
    if type(value) is not Tagged:
        return Tagged(value, kind_index(to_type, from_type))
    if from_type == to_type:
        return value
    table = [kind_index(to_type, kind) for kind in kinds(from_type)]
    if type(value.tag) is int:
        return Tagged(value.value, table[value.tag])
    if table == list(range(len(table))):
        return value
    return Tagged(value.value, jnp.asarray(table, dtype=np.int32)[value.tag])


def conform(value, type_, strong: bool = False):
    """`value` as a JAX value of `type_`'s dtype (a Python number of a weak type stays one,
    unless `strong`: values crossing control flow must be arrays, and tags int32 scalars)."""
    if isinstance(type_, ListType) or hasattr(value, "length"):  # a list, or a Buffer / Stacked
        return value
    if type(type_) is UnionType:
        if type(value) is not Tagged:
            raise TypeError(f"a value of type {type_} without its kind")
        if not strong:
            return value
        dtype = type_.alternatives[0].dtype
        return Tagged(jnp.asarray(value.value, dtype=dtype), jnp.asarray(value.tag, np.int32))
    if type_.weak and is_static(value) and not strong:
        return value
    return jnp.asarray(value, dtype=type_.dtype)


def ir_type(item):
    """What a type rule receives for a node input: its TensorType, or the Python number."""
    return item.type if isinstance(item, Value) else item


def called_graphs(graph: Graph):
    """`graph` and, depth first, every graph its nodes call (OpDef.called_graph), each once;
    without recursion (a chain of a thousand staged functions each calling the next)."""
    seen: set[int] = set()
    stack = [graph]
    while stack:
        g = stack.pop()
        if id(g) in seen:
            continue
        seen.add(id(g))
        yield g
        callees = []
        for node in g.walk():
            calls = get_op(node.op).called_graph
            if calls is not None:
                callees.append(calls(node))
        stack.extend(reversed(callees))


def to_host(value, type_):
    """A JAX result as the interpreter gives it: a writable ndarray, a NumPy scalar for 0-d, a Python
    number for a weak type, a list for a list; a tagged value as the kind its tag names."""
    if type(value) is Tagged:  # (int() of a jax.Array is several times slower than this)
        return to_host(value.value, kinds(type_)[int(np.asarray(value.tag))])
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
