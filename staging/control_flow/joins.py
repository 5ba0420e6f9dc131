"""What staged branches and loops share: the graph type of a value, where two paths' values
meet (Python numbers and NEP 50), and the values a subgraph takes or gives."""

from __future__ import annotations

import numpy as np

from runtime import TensorType, Value, types
from staging import errors
from staging.core import nest
from staging.core.recording import FuncGraph, building, record
from staging.core.source_map import where
from staging.core.tensor import Tensor, has_staged_value
from staging.state.containers import is_staged_container
from staging.state.containers import wrap as wrap_container
from staging.state.tensor_array import is_tensor_array

# -- leaves ------------------------------------------------------------------

_PY_NUMBERS = (bool, int, float, complex)


def is_undefined(x) -> bool:
    """autograph's marker for a name with no value yet (class attribute `_is_undefined`)."""
    return getattr(type(x), "_is_undefined", False)


def is_convertible(x) -> bool:
    """A value that can be a graph value where paths meet: a tensor, an array, a number, a list
    value, a str (a staged string where paths give different text), None (one kind of a value
    that is None on some paths)."""
    return (
        x is None
        or isinstance(x, (Tensor, np.ndarray, np.generic, str) + _PY_NUMBERS)
        or is_tensor_array(x)
        or has_staged_value(x)
    )


def python_kind(x):
    """bool, int, float or complex: the Python number type of `x` (an IntEnum is an int; a
    NumPy scalar, such as np.float64 that subclasses float, is not a Python number)."""
    if isinstance(x, np.generic):
        return None
    for kind in _PY_NUMBERS:
        if isinstance(x, kind):
            return kind
    return None


def leaf_type(x):
    """The graph type a leaf would have: a Python number has a weak type (see TensorType)."""
    if isinstance(x, Tensor):
        return x.type
    if is_tensor_array(x):
        return x._handle.type
    if has_staged_value(x):
        return TensorType(x.dtype, x.shape)
    kind = python_kind(x)
    if kind is not None:
        return TensorType.python_scalar(kind)
    if isinstance(x, str):
        return types.STR
    if x is None:
        return types.NONE
    arr = np.asarray(x)
    return TensorType(arr.dtype, arr.shape)


def join_types(a, b, what: str, error=errors.BranchMismatchError):
    """The type of a value that is of type `a` on some paths and `b` on others (the branches of
    a staged `if`, a loop variable before and after an iteration): the kinds of both
    (runtime.types.join_types). Raises `error` naming `what` when no one value can be both (a
    list and an array) or when it would have too many kinds."""
    try:
        return types.join_types(a, b)
    except types.TypeJoinError as exc:
        raise error(f"{where()}{what} cannot be one value on both paths: {exc}") from None


def value_in(graph: FuncGraph, leaf) -> Value:
    """`leaf` as a Value of `graph`: what a subgraph gives where paths meet. Nothing is
    converted: on the path that makes it, the value is what eager Python has there."""
    if is_tensor_array(leaf):
        return graph.value_of(leaf._handle)
    with building(graph):
        if has_staged_value(leaf):
            leaf = leaf._staged_value()
        if isinstance(leaf, Tensor):
            return graph.value_of(leaf)
        if isinstance(leaf, str):  # (a str subclass: its text)
            return record("str_const", [], {"text": str(leaf)})._value
        return record("const", [], {"value": leaf})._value


def rebuild_leaf(template, tensor: Tensor):
    """The value of `tensor` as the kind of object `template` is: a staged list or container
    keeps its Python class."""
    if is_tensor_array(template):
        return template._with_handle(tensor)
    if is_staged_container(template):
        return wrap_container(tensor)
    return tensor


def align_captures(graphs: list[FuncGraph], leading: int) -> list[Value]:
    """Makes every graph's inputs [its first `leading` inputs] + [one per captured outer value],
    in the same order for all graphs; returns the outer values in that order."""
    order: list[Value] = []
    seen: set[int] = set()
    for g in graphs:
        for outer_value, _ in g.captures.values():
            if id(outer_value) not in seen:
                seen.add(id(outer_value))
                order.append(outer_value)
    for g in graphs:
        head = g.graph.inputs[:leading]
        head_names = g.graph.input_names[:leading]
        tail = []
        for outer_value in order:
            hit = g.captures.get(id(outer_value))
            tail.append(hit[1] if hit is not None else Value(outer_value.type))
        g.graph.inputs = head + tail
        g.graph.input_names = head_names + ["capture"] * len(tail)
    return order


def name_of(names, index: int, path: str, default: str) -> str:
    top = names[index] if names is not None and index < len(names) else f"{default}[{index}]"
    return top + path


def top_level_paths(structure, names, default):
    """[(display name, leaf)] for a tuple/list of top-level items."""
    out = []
    for i, item in enumerate(structure):
        for path, leaf in nest.flatten_with_paths(item):
            out.append((name_of(names, i, path, default), leaf))
    return out


# what a cond's predicate may be: a NumPy or a Python bool, or either by path
_PREDICATES = (
    TensorType(np.bool_, ()),
    TensorType.python_scalar(bool),
    types.join_types(TensorType(np.bool_, ()), TensorType.python_scalar(bool)),
)


def truth_value(graph: FuncGraph, c, what: str) -> Value:
    with building(graph):
        if not isinstance(c, Tensor) and hasattr(type(c), "_truth_value"):
            c = c._truth_value()  # (a staged list: true when not empty)
        if not isinstance(c, Tensor):
            if has_staged_value(c):
                c = c._staged_value()
            else:
                return record("const", [], {"value": np.bool_(bool(c))})._value
        for kind in types.kinds(c.type):
            if getattr(kind, "shape", ()) != () and not types.is_str(kind):
                raise errors.SymbolicValueError(
                    f"{where()}the {what} is a tensor of shape {c.type}, not a scalar: its truth "
                    f"value is ambiguous; reduce it with .any() or .all()"
                )
        if is_staged_container(c):  # a staged container: true when not empty
            c = c._truth_value()
        elif types.is_str(c.type):  # a staged string: true when not empty
            c = record("truth", [record("str_method", [c], {"name": "__len__", "args": ()})])
        elif c.type not in _PREDICATES:
            c = record("truth", [c])
        return graph.value_of(c)
