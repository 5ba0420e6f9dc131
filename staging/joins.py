"""What staged branches and loops share: the graph type of a value, where two paths' values
meet (Python numbers and NEP 50), and the values a subgraph takes or gives."""

from __future__ import annotations

import numpy as np

from runtime import ListType, TensorType, Value

from . import errors, nest
from .graph_building import FuncGraph, building, record
from .source_map import where
from .tensor import Tensor, has_staged_value

# -- leaves ------------------------------------------------------------------

_PY_NUMBERS = (bool, int, float, complex)


def is_tensor_array(x) -> bool:
    return getattr(type(x), "_is_tensor_array", False)


def is_undefined(x) -> bool:
    """autograph's marker for a name with no value yet (class attribute `_is_undefined`)."""
    return getattr(type(x), "_is_undefined", False)


def is_convertible(x) -> bool:
    return (
        isinstance(x, (Tensor, np.ndarray, np.generic) + _PY_NUMBERS)
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
    arr = np.asarray(x)
    return TensorType(arr.dtype, arr.shape)


_KIND_ORDER = (bool, int, float, complex)


def join_types(a, b, what: str, error=errors.BranchMismatchError):
    """The type a value takes where two paths meet with types `a` and `b`, or raise `error`
    naming `what`.

    Python numbers meet as Python does: a bool and an int make an int, an int and a float a
    float. A Python number meets a NumPy value when NEP 50 gives that value's dtype for their
    combination (an int with an int32 value is int32, an int or a float with a float32 value
    is float32): the Python number is absorbed, as in `0 + v`. The value that was a Python
    number is cast, so on a path where it stays one (a loop that runs zero times, a branch
    not taken) the result is that number as the joined dtype. A NumPy value that would change
    dtype (a Python float meeting an int32 value, a Python int meeting a bool) does not meet,
    nor do NumPy values of different dtypes or ranks: cast one explicitly."""
    if isinstance(a, ListType) or isinstance(b, ListType):
        if not (isinstance(a, ListType) and isinstance(b, ListType)):
            raise error(f"{what} is a list in one case and a tensor in the other")
        if a.element is None or b.element is None:
            return ListType(a.element or b.element)
        return ListType(join_types(a.element, b.element, f"the elements of {what}", error))
    if a == b:
        return a
    if a.weak and b.weak:
        kind = max(a.python_type, b.python_type, key=_KIND_ORDER.index)
        return TensorType.python_scalar(kind)
    if len(a.shape) != len(b.shape):
        raise error(
            f"{what} has rank {len(a.shape)} ({a}) in one case and rank {len(b.shape)} ({b}) in "
            f"the other"
        )
    if a.weak or b.weak:
        weak, strong = (a, b) if a.weak else (b, a)
        dtype = np.result_type(strong.dtype, _REPRESENTATIVE[weak.python_type])
        if dtype != strong.dtype:
            raise error(
                f"{what} is a Python {weak.python_type.__name__} in one case and a {strong} value in "
                f"the other, which would become {dtype.name}; cast one of them explicitly"
            )
        return strong
    if a.dtype != b.dtype:
        raise error(
            f"{what} has dtype {a.dtype.name} in one case and {b.dtype.name} in the other; cast "
            f"one of them explicitly"
        )
    return TensorType(a.dtype, tuple(x if x == y else None for x, y in zip(a.shape, b.shape)))


_REPRESENTATIVE = {bool: True, int: 1, float: 1.0, complex: 1j}


def value_in(
    graph: FuncGraph, leaf, target, what: str = "a value", error=errors.BranchMismatchError
) -> Value:
    """`leaf` as a Value of `graph` of type `target` (recording a cast or a constant if needed).
    A Python number that does not fit `target` (-1 as a uint8, 300 as an int8), or one known
    only at run time that might not, raises `error` naming `what`: eagerly it stays a Python
    number on that path."""
    if is_tensor_array(leaf):
        return graph.value_of(leaf._handle)
    if has_staged_value(leaf):
        with building(graph):
            leaf = leaf._staged_value()
    with building(graph):
        if isinstance(leaf, Tensor):
            if (
                leaf.type.weak and target.weak and leaf.type != target
            ):  # e.g. an int that meets a float
                leaf = record("python_number", [leaf], {"kind": target.python_type})
            elif leaf.type.dtype != target.dtype or leaf.type.weak != target.weak:
                # A Python int known only at run time that does not fit an integer target raises
                # OverflowError there (the cast is NumPy's, np.asarray(n, dtype)), as the same
                # number meeting a value of that dtype does eagerly (NEP 50).
                if leaf.type.weak and leaf.type.python_type is int and target.dtype.kind in "iu":
                    _check_fits(leaf, target.dtype, what)
                leaf = record("astype", [leaf], {"dtype": target.dtype})
            return graph.value_of(leaf)
        if target.weak:
            value = target.python_type(leaf)
        else:
            try:
                array = np.asarray(leaf, dtype=target.dtype)
            except (OverflowError, TypeError, ValueError):
                raise error(
                    f"{where()}{what} is the Python number {leaf!r} in one case and a {target} value in "
                    f"the other, and {leaf!r} does not fit {target.dtype.name}"
                ) from None
            # (a 0-d array stays one, as eagerly: np.where(c, 1, 0) is array(1), not np.int64(1))
            value = array[()] if array.ndim == 0 and not isinstance(leaf, np.ndarray) else array
        return record("const", [], {"value": value})._value


def _check_fits(number: Tensor, dtype, what: str) -> None:
    check_fits(
        number,
        dtype,
        (
            f"{where()}{what} is a Python int here that does not fit {dtype.name}, the type it has where "
            f"the paths meet (eagerly it stays a Python int on this path; one graph gives one type): "
            f"convert it explicitly where it is set, e.g. np.int64(...)"
        ),
    )


def check_fits(number: Tensor, dtype, message: str) -> None:
    """A staged check that the Python int `number` (known at run time) fits integer `dtype`,
    raising NumberDoesNotFitError with `message` where it does not (NumPy's cast would raise a
    bare OverflowError with no word of the variable)."""
    info = np.iinfo(dtype)
    fits = record(
        "logical_and",
        [
            record("greater_equal", [number, int(info.min)]),
            record("less_equal", [number, int(info.max)]),
        ],
    )
    record("assert", [fits], {"parts": (message,), "error": errors.NumberDoesNotFitError})


def rebuild_leaf(template, tensor: Tensor):
    if is_tensor_array(template):
        return template._with_handle(tensor)
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


def truth_value(graph: FuncGraph, c, what: str) -> Value:
    with building(graph):
        if not isinstance(c, Tensor):
            if has_staged_value(c):
                c = c._staged_value()
            else:
                return record("const", [], {"value": np.bool_(bool(c))})._value
        if c.type.shape != ():
            raise errors.SymbolicValueError(
                f"{where()}the {what} is a tensor of shape {c.type}, not a scalar: its truth value is "
                f"ambiguous; reduce it with .any() or .all()"
            )
        if c.dtype != np.bool_:
            c = record("truth", [c])
        return graph.value_of(c)
