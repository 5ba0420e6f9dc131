"""Sets and dicts keyed by values known only when the graph runs.

A symbolic number or a staged string hashes by its value, which exists only when the graph runs:
a Python set or dict cannot hold it as a key while tracing. A set, dict, OrderedDict, Counter or
defaultdict the function makes is then a *staged container* (staging.state.containers) from the
line that gives it such a key on: made when the graph runs from what it held, and written there,
so equal keys (`1`, `1.0`, `True`), insertion order, a missing key's KeyError and NaN keys are
Python's own.

- `build(kind, items)`: `set(...)`, `dict(...)`, `Counter(...)`, `OrderedDict(...)` of items
  some of which hash only when the graph runs (or of a staged container, a staged list).
- `promoted_for_key(obj, references, what)`: a dict written (`d[k] = v`, `d[k] += 1`) or read
  with such a key, as the staged container the name holds from then on; refused, naming the
  line, when something else refers to the dict (it would not see the writes).
- `read_with_key(obj, name, args)`: a method reading a Python set or dict with such a key
  (`d.get(k, 0)`, `s.__contains__(k)`), made on a staged copy.
"""

from __future__ import annotations

import collections

from runtime.ops import containers as ops
from runtime.types import StrType, TensorType, kinds
from staging import errors
from staging.core.recording import current_graph, record
from staging.core.source_map import where
from staging.core.tensor import Tensor
from staging.state import concrete_arrays
from staging.state.containers import (
    StagedContainer,
    encode,
    from_tensor_array,
    promotable,
    promote,
    wrap,
)
from staging.state.tensor_array import TupleList, is_tensor_array

# the constructors converted code calls, by the name of their op (runtime.ops.containers)
KINDS = {
    set: "set",
    dict: "dict",
    collections.OrderedDict: "OrderedDict",
    collections.Counter: "Counter",
}

# methods of a Python set or dict that only read it, which a staged copy answers
_READING = frozenset(("get", "__getitem__", "__contains__"))


def hashed_at_run_time(key) -> bool:
    """Whether hashing `key` needs a value known only when the graph runs: a symbolic number, a
    staged str, or a tuple holding one. (A staged container, or an array with dims, is
    unhashable, as eagerly: its own __hash__ says so.)"""
    if type(key) is tuple:
        return any(hashed_at_run_time(k) for k in key)
    if not isinstance(key, Tensor) or isinstance(key, StagedContainer):
        return False
    return any(isinstance(k, StrType) or getattr(k, "shape", ()) == () for k in kinds(key.type))


def _any_hashed_at_run_time(items) -> bool:
    return any(hashed_at_run_time(item) for item in items)


def _is_staged_list(x) -> bool:
    return getattr(type(x), "_is_staged_list", False)


def build(kind: str, items) -> StagedContainer | None:
    """`kind(items)` made when the graph runs ("set", "dict", "OrderedDict", "Counter"): of a
    staged container or a staged list, or of a list of items (a dict's: (key, value) pairs)
    whose keys hash only when the graph runs. None where Python makes it now."""
    if isinstance(items, StagedContainer):
        return items._call(kind)
    if _is_staged_list(items):
        return _as_container(items.tensor_array)._call(kind)
    if current_graph() is None or type(items) is not list:
        return None
    keys = items if kind in ("set", "Counter") else [_key_of(pair) for pair in items]
    if not _any_hashed_at_run_time(keys):
        return None
    return staged_list(items, f"{kind}()")._call(kind)


def _as_container(lst) -> StagedContainer:
    """A staged list (a TensorArray, or a TupleList: one list per position of its tuples) as
    the StagedContainer of the same list (of tuples)."""
    if not isinstance(lst, TupleList):
        return from_tensor_array(lst)
    first = next(f for f in lst if is_tensor_array(f))
    return from_tensor_array(first)._call("zip", *lst)


def _key_of(pair):
    return pair[0] if type(pair) in (tuple, list) and len(pair) == 2 else None


def staged_list(items: list, what: str) -> StagedContainer:
    """A list of `items` made when the graph runs (refused, naming the line, where they cannot
    be one staged value's)."""
    inputs: list = []
    template = tuple(encode(item, inputs, what) for item in items)
    attrs = {"kind": "list", "items": template}
    try:
        ops.new_container_type([x.type for x in inputs], **attrs)
    except TypeError as exc:
        raise errors.UnsupportedOpError(
            f"{where()}{what} of values known only when the graph runs makes a staged "
            f"container, but its items cannot be one: {exc}"
        ) from None
    return wrap(record("container_new", inputs, attrs))


def needs_promotion(obj, key) -> bool:
    """Whether `obj[key]` makes the set or dict `obj` a staged container: a dict the function
    may have made, a key hashing only when the graph runs, inside a trace."""
    return (
        current_graph() is not None
        and isinstance(obj, dict)
        and promotable(obj)
        and hashed_at_run_time(key)
    )


def needs_list_promotion(obj, index) -> bool:
    """Whether `obj[index] = v` makes the Python list `obj` a staged container: an index that is
    an integer known only when the graph runs (a 0-d symbolic integer), inside a trace."""
    return (
        current_graph() is not None
        and type(obj) is list
        and isinstance(index, Tensor)
        and not isinstance(index, StagedContainer)
        and all(
            isinstance(k, TensorType) and k.shape == () and k.dtype.kind in "iu"
            for k in kinds(index.type)
        )
    )


def promoted_for_index(obj, references: int) -> StagedContainer:
    """The staged list standing for list `obj` from this line on, written at an index known
    only when the graph runs; refused where anything else refers to it (see
    promoted_for_key)."""
    return _promoted_alone(
        obj,
        references,
        "`lst[i] = v` with an index known only when the graph runs makes this list a staged "
        "value (which item changes is known only then)",
        "list",
    )


def promoted_for_key(obj, references: int, what: str) -> StagedContainer:
    """The staged container standing for dict `obj` from this line on (`references`: its
    sys.getrefcount seen by the operator, see concrete_arrays.calibrate); refused where
    anything else refers to it."""
    return _promoted_alone(
        obj,
        references,
        f"{what} with a key known only when the graph runs makes this {type(obj).__name__} a "
        f"staged value (its keys hash only then)",
        "dict",
    )


def _promoted_alone(obj, references: int, why: str, kind: str) -> StagedContainer:
    """promote(obj), where nothing but the name written through refers to `obj`; else the
    MutationError saying `why` it would become staged."""
    if not concrete_arrays.unaliased(obj, references):
        raise errors.MutationError(
            f"{where()}{why}, but something else also refers to it (another name, an argument, "
            f"an object, a closure): they would not see the change. Make the {kind} in the "
            f"function and write it through one name"
        )
    return promote(obj)


def read_with_key(method, args):
    """`method(*args)` of a Python set or dict (a bound builtin method) with a key hashing only
    when the graph runs: a read made on a staged copy of it, or None where Python runs it. A
    method changing it there is refused, naming the line (nothing rebinds the name)."""
    owner = getattr(method, "__self__", None)
    if current_graph() is None or not promotable(owner) or isinstance(owner, list):
        return None
    if not (args and hashed_at_run_time(args[0])):
        return None
    name = method.__name__
    if name not in _READING:
        kind = type(owner).__name__
        instead = "set(...) of all its items" if isinstance(owner, set) else "`d[k] = v`"
        raise errors.UnsupportedOpError(
            f"{where()}{kind}.{name}() with a key known only when the graph runs is not staged "
            f"outside staged loops and branches (nothing rebinds the name to the staged {kind} "
            f"it would become); write {instead}, which makes a staged {kind}"
        )
    return promote(owner)._call(name, *args)


__all__ = [
    "KINDS",
    "build",
    "hashed_at_run_time",
    "needs_promotion",
    "promoted_for_key",
    "read_with_key",
    "staged_list",
]
