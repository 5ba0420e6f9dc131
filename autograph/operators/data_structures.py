"""Lists in converted code: append/pop that work on Python lists and, in staged loops,
on TensorArrays; StagedList is what user code sees of such a list after the loop."""

from __future__ import annotations

import numpy as np

from staging import errors
from staging.control_flow import while_loop
from staging.core.source_map import where
from staging.core.tensor import Tensor, is_symbolic
from staging.state import containers, journal
from staging.state.tensor_array import TensorArray, TupleList, empty_tuple_list


def _is_tensor_array(x) -> bool:
    return getattr(type(x), "_is_tensor_array", False) is True


def _is_list_value(x) -> bool:
    """A staged list: a TensorArray, or a TupleList (a list of tuples, one list per position)."""
    return _is_tensor_array(x) or isinstance(x, TupleList)


def is_empty_list(x) -> bool:
    """A staged list nothing was ever written to (its element type is unknown yet)."""
    return _is_tensor_array(x) and x._staged and x._handle.type.element is None


def _handles(tensor_array) -> list:
    """The graph values of a staged list (one per position of a list of tuples)."""
    if isinstance(tensor_array, TupleList):
        return [h for part in tensor_array if _is_tensor_array(part) for h in _handles(part)]
    handle = getattr(tensor_array, "_handle", None)
    return [handle] if isinstance(handle, Tensor) else []


def appended(lst, element):
    """`lst` (a TensorArray or a TupleList) with `element` appended. The first tuple appended
    to a list nothing was written to makes it a list of tuples (staging.state.tensor_array's
    TupleList: a staged if or loop traces again with it, see autograph.operators.control_flow)."""
    if type(element) is tuple and _is_tensor_array(lst):
        if is_empty_list(lst) or (not lst._staged and not lst._items):
            return empty_tuple_list(element).append(element)
        raise errors.UnsupportedOpError(
            f"{where()}a tuple appended to a staged list that holds other values: a staged list "
            f"holds values of one kind (all tuples of one length, or all numbers or arrays)"
        )
    return lst.append(element)


def _sliced(tensor_array, index: slice) -> "StagedList":
    """`lst[a:b:c]` of a staged list: a new staged list (Python's slice when the graph runs)."""
    return _from_container(containers.from_tensor_array(tensor_array)._slice(index))


def _from_container(container) -> "StagedList":
    """A staged list the container ops made (a StagedContainer of kind list: `[0] * n`, a
    slice) as the StagedList of the same list."""
    return StagedList(
        TensorArray(
            dtype=None, dynamic_size=True, _handle=Tensor(container._graph, container._value)
        )
    )


def _staged_list_operand(x):
    """`x` as an operand of a staged list's `+` or extend(): a staged list a container op made
    becomes a StagedList (its items are read when the graph runs); anything else is itself."""
    if containers.is_staged_container(x) and x._kind == "list":
        return _from_container(x)
    return x


class StagedList:
    """A Python-list-like view of a TensorArray built by a staged loop.

    Supports len() (through converted code), indexing, iteration in converted
    loops, np.stack / np.asarray, append and pop; a converted function that
    returns it gives the caller a Python list.
    """

    __slots__ = ("tensor_array",)
    _is_staged_list = True  # (what autograph.operators.container_calls asks)

    def __init__(self, tensor_array):
        self.tensor_array = tensor_array

    def __len__(self):
        size = self.tensor_array.length()
        if is_symbolic(size):
            raise errors.SymbolicValueError(
                f"{where()}len() of a list built by a staged loop is symbolic; call len() "
                f"in converted code (it returns a tensor) or use np.stack(lst).shape[0]"
            )
        return int(size)

    def __getitem__(self, index):
        if isinstance(index, slice) and not isinstance(self.tensor_array, TupleList):
            return _sliced(self.tensor_array, index)
        if isinstance(index, slice):  # (each position's list sliced alike)
            return StagedList(
                self.tensor_array._rebuilt(
                    _sliced(f, index).tensor_array if _is_tensor_array(f) else f
                    for f in self.tensor_array
                )
            )
        if isinstance(index, int) and index < 0:
            index = self.tensor_array.length() + index
        return self.tensor_array.read(index)

    def __bytes__(self):
        # (bytes() would turn the refusal of iterating it into its own TypeError, which a
        # staged branch would raise when the graph runs, where Python succeeds)
        raise errors.SymbolicValueError(
            f"{where()}bytes() of a list built by a staged loop needs its items, known only "
            f"when the staged graph runs"
        )

    def __iter__(self):
        size = self.tensor_array.length()
        if is_symbolic(size):
            raise errors.SymbolicValueError(
                f"{where()}iterating a list built by a staged loop (or by a comprehension with a "
                f"staged `for` or `if`) in Python code (tuple(), set(), unpacking, str.join, a "
                f"library function) needs its length, known only when the staged graph runs. "
                f"Iterate it with a `for` statement or a comprehension (staged loops), or make "
                f"an array of it with np.array"
            )
        return (self.tensor_array.read(i) for i in range(int(size)))

    def _rebind(self, tensor_array) -> None:
        """Makes this list hold `tensor_array` (an in-place change: append, pop, extend), noted
        as a write of the list when it comes from outside the staged branch or loop body traced
        now (a pop in the right operand of a staged `or`), which carries it out of it."""
        if any(journal.journals(h) for h in _handles(self.tensor_array)):
            journal.note(journal.Location(self, "attr", "tensor_array"))
        self.tensor_array = tensor_array

    def append(self, value):
        self._rebind(appended(self.tensor_array, value))

    def pop(self, index=-1):
        """`lst.pop()`: its last item. Another index (`lst.pop(0)`) would shift the items, which
        a staged list does not: refused, naming the line."""
        if not (type(index) is int and index == -1):
            raise errors.UnsupportedOpError(
                f"{where()}list.pop({index!r}) of a list that staged code appends to or pops "
                f"from (a staged list) is not supported (only pop() of its last item is); use "
                f"collections.deque and popleft(), or an index that moves"
            )
        tensor_array, value = self.tensor_array.pop()
        self._rebind(tensor_array)
        return value

    def _truth_value(self):
        """`bool(lst)`: whether it holds anything (a Python bool, known when the graph runs
        where its length is)."""
        return self.tensor_array.length() > 0

    def extend(self, items):
        """`lst.extend(items)`: the items of a list, tuple or staged list, or the rows of a
        symbolic array (by a staged loop: its length may be known only when the graph runs),
        or of any other iterable, as Python iterates it."""
        items = _staged_list_operand(items)
        if isinstance(items, (list, tuple, StagedList)):
            self._rebind(_concatenate(self, items))
        elif is_symbolic(items):
            self._rebind(_append_rows(self.tensor_array, items))
        else:
            for item in items:
                self.append(item)

    def stack(self):
        return self.tensor_array.stack()

    # The TensorArray API, for a staging.TensorArray the user carries through a staged loop
    # (the loop hands every TensorArray back wrapped): `ta = ta.write(i, v)` keeps working.
    def write(self, index, value):
        return self.tensor_array.write(index, value)

    def read(self, index):
        return self.tensor_array.read(index)

    def size(self):
        return self.tensor_array.size()

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.stack(), dtype=dtype)

    def to_array(self, func, *args, **kwargs):
        """np.stack / np.array / np.asarray (func) of the list, with NumPy's result for an empty
        list (np.stack raises, np.array gives a float64 array of shape (0,))."""
        if func is np.stack:
            return _call_with(self.tensor_array.numpy_stack, args, kwargs, ("axis", "out"))
        return _call_with(self.tensor_array.numpy_array, args, kwargs, ("dtype",))

    def __array_function__(self, func, types, args, kwargs):
        if func in (np.stack, np.asarray, np.array) and args and args[0] is self:
            return self.to_array(func, *args[1:], **kwargs)
        if func is np.vstack and args and args[0] is self:
            return func(self.stack(), *args[1:], **kwargs)
        args = tuple(a.to_array(np.asarray) if isinstance(a, StagedList) else a for a in args)
        return func(*args, **kwargs)

    def _staged_value(self):
        return self.stack()

    # `lst + [x]` and `[x] + lst` make a new list, as Python's do (the operands are not changed).
    def __add__(self, other):
        other = _staged_list_operand(other)
        if not isinstance(other, (list, tuple, StagedList)):
            return NotImplemented
        return StagedList(_concatenate(self, other))

    def __radd__(self, other):
        other = _staged_list_operand(other)
        if not isinstance(other, (list, tuple, StagedList)):
            return NotImplemented
        return StagedList(_concatenate(other, self))

    def __repr__(self):
        return f"StagedList({self.tensor_array!r})"

    def __contains__(self, item):
        raise errors.UnsupportedOpError(
            f"{where()}`in` of a list that staged code appends to or pops from (a staged list) "
            f"is not supported; compare with its items in a loop, or keep the list in Python"
        )

    def __getattr__(self, name):
        # (only for names not found above) Python's other list methods: refused here, where
        # an AttributeError would be the program's error, raised when the graph runs
        if name in _OTHER_LIST_METHODS:
            raise errors.UnsupportedOpError(
                f"{where()}list.{name}() of a list that staged code appends to or pops from "
                f"(a staged list) is not supported; staged lists support append, pop, len, "
                f"indexing, iteration and +"
            )
        raise AttributeError(f"'list' object has no attribute '{name}'")


_OTHER_LIST_METHODS = frozenset(m for m in set(dir(list)) - set(dir(StagedList)) if m[0] != "_")


_DEFAULTS = {
    "out": None,
    "casting": "same_kind",
    "copy": (True, None),
    "order": ("K", "C", "A", None),
    "ndmin": 0,
    "subok": False,
    "like": None,
    "device": None,
}


def _call_with(method, args, kwargs, positional):
    """method(axis=..., dtype=...) from NumPy-style arguments: `positional` names the arguments
    after the list, in order; the others must keep NumPy's defaults (else a clear error)."""
    given = dict(zip(positional, args))
    if len(args) > len(positional):
        raise TypeError(f"{where()}too many arguments for a list built by a staged loop")
    given.update(kwargs)
    taken = {}
    for key, value in given.items():
        if key in ("axis", "dtype"):
            taken[key] = value
            continue
        default = _DEFAULTS.get(key, object())
        ok = (
            value in default
            if isinstance(default, tuple)
            else (value is default or value == default)
        )
        if not ok:
            raise errors.UnsupportedOpError(
                f"{where()}{key}={value!r} is not supported when converting a list built by a staged "
                f"loop to an array; convert it first (np.stack(lst)) and then use the array"
            )
    return method(**taken)


def _concatenate(first, second):
    """A new TensorArray holding the items of `first` then those of `second` (Python
    sequences or staged lists; a staged list's items are copied by a staged loop)."""
    if any(_holds_tuples(part) for part in (first, second)):
        return _concatenate_tuples(first, second)
    ta = TensorArray(dtype=None, size=0, dynamic_size=True)
    for part in (first, second):
        if isinstance(part, StagedList):
            ta = _copy_items(part.tensor_array, ta)
        else:
            for item in part:
                ta = ta.append(item)
    return ta


def _holds_tuples(part) -> bool:
    return isinstance(part, StagedList) and isinstance(part.tensor_array, TupleList)


def _tuple_fields(part):
    """`part` (a staged list of tuples, a Python list of tuples, or an empty list) as a
    TupleList, or None when it holds nothing."""
    if isinstance(part, StagedList):
        if is_empty_list(part.tensor_array):
            return None
        if isinstance(part.tensor_array, TupleList):
            return part.tensor_array
    elif not part:
        return None
    elif all(type(item) is tuple for item in part):
        return TupleList.of(list(part))
    raise errors.UnsupportedOpError(
        f"{where()}`+` of a staged list of tuples and a list of other values: a staged list "
        f"holds values of one kind (all tuples of one length, or all numbers or arrays)"
    )


def _concatenate_tuples(first, second):
    """A new TupleList holding the tuples of `first` then those of `second`, position by
    position (a position holding one Python object in the tuples of both stays that object)."""
    a, b = _tuple_fields(first), _tuple_fields(second)
    if a is None or b is None:
        only = a if b is None else b
        return only._rebuilt(
            _concatenate(StagedList(f), []) if _is_tensor_array(f) else f for f in only
        )
    if len(a) != len(b) or any(
        _is_tensor_array(x) != _is_tensor_array(y) or (not _is_tensor_array(x) and x != y)
        for x, y in zip(a, b)
    ):
        raise errors.UnsupportedOpError(
            f"{where()}`+` of staged lists whose tuples differ in length or in the Python object "
            f"at a position: a staged list holds tuples of one length, one object per position "
            f"that does not hold numbers, arrays or strs"
        )
    return a._rebuilt(
        _concatenate(StagedList(x), StagedList(y)) if _is_tensor_array(x) else x
        for x, y in zip(a, b)
    )


def _append_rows(target, rows):
    """`target` with the rows of the symbolic array `rows` appended, by a staged loop."""
    _, target = while_loop(
        lambda i, t: i < np.shape(rows)[0],
        lambda i, t: (i + 1, t.append(rows[i])),
        (np.int64(0), target),
        names=("<row index>", "list"),
    )
    return target


def _copy_items(source, target):
    if source._staged and source._handle.type.element is None:
        return target  # nothing was ever written to it: it is empty
    _, target = while_loop(
        lambda i, t: i < source.size(),
        lambda i, t: (i + 1, t.append(source.read(i))),
        (np.int64(0), target),
        names=("<copy index>", "list"),
    )
    return target


def staged_list(values):
    """A Python list as a StagedList (a new TensorArray holding its items)."""
    return StagedList(to_staged(list(values)))


def is_staged_value(x) -> bool:
    return isinstance(x, StagedList)


def to_staged(value):
    """Loop/branch state as staging expects it: lists become TensorArrays, or TupleLists for
    lists of tuples (staged lists also where a tuple or dict holds them, as in `return lst,
    n`)."""
    if isinstance(value, StagedList):
        return value.tensor_array
    if type(value) is list:
        if value and type(value[0]) is tuple:
            return TupleList.of(value)
        ta = TensorArray(dtype=None, size=0, dynamic_size=True)
        for item in value:
            ta = appended(ta, item)
        return ta
    if isinstance(value, TupleList):
        return value
    return _map_nested(value, _staged_list_to_array)


def from_staged(value):
    """State as user code sees it: TensorArrays (and TupleLists) become StagedLists."""
    if _is_list_value(value):
        return StagedList(value)
    return _map_nested(value, _array_to_staged_list)


def _staged_list_to_array(value):
    if isinstance(value, StagedList):
        return value.tensor_array
    if isinstance(value, TupleList):
        return value
    return _map_nested(value, _staged_list_to_array)


def _array_to_staged_list(value):
    if _is_list_value(value):
        return StagedList(value)
    return _map_nested(value, _array_to_staged_list)


def _map_nested(value, leaf_fn):
    """`value` with `leaf_fn` applied to the items of its tuples and dicts (namedtuples kept);
    the same object when nothing changes. Lists are left as they are (a Python list inside a
    tuple is a structure of values, not a staged list)."""
    if type(value) is tuple or (isinstance(value, tuple) and hasattr(type(value), "_fields")):
        items = [leaf_fn(v) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        return type(value)(*items) if hasattr(type(value), "_fields") else tuple(items)
    if type(value) is dict:
        items = {k: leaf_fn(v) for k, v in value.items()}
        if all(items[k] is value[k] for k in value):
            return value
        return items
    return value


def list_append(target, element):
    """`target.append(element)`; returns the list to use from then on."""
    if isinstance(target, StagedList):
        return StagedList(appended(target.tensor_array, element))
    if _is_list_value(target):
        return appended(target, element)
    target.append(element)
    return target


def list_pop(target):
    """`target.pop()`; returns (the list to use from then on, the popped element)."""
    if isinstance(target, StagedList):
        ta, value = target.tensor_array.pop()
        return StagedList(ta), value
    if _is_list_value(target):
        return target.pop()
    return target, target.pop()


def unwrap_output(value):
    """What a converted function returns to its (unconverted) caller: StagedList -> TensorArray."""
    if isinstance(value, StagedList):
        return value.tensor_array
    if type(value) is tuple:
        return tuple(unwrap_output(v) for v in value)
    if type(value) is list:
        return [unwrap_output(v) for v in value]
    if type(value) is dict:
        return {k: unwrap_output(v) for k, v in value.items()}
    return value


# -- a list that is staged on one path only ---------------------------------------------------


def _staged_like(plain: list, template):
    """The Python list `plain` as a staged list like `template` (a staged list the other path
    of a staged `if` gives at the same place): a list of tuples like it, or a list of values."""
    target = template.tensor_array if isinstance(template, StagedList) else template
    if isinstance(target, TupleList) and not plain:
        return StagedList(target.empty_like())
    return staged_list(plain)


def _is_staged_list(x) -> bool:
    return isinstance(x, StagedList) or _is_list_value(x)


def lists_staged_like(value, template):
    """`value` (one path's result of a staged `if`) with each Python list inside its tuples
    made a staged list where `template` (the other path's) holds a staged list at the same
    place (`return x, []` on one path, `return y, found` on the other). A list at the top is
    staged anyway (to_staged)."""
    if type(value) is tuple and type(template) is tuple and len(value) == len(template):
        items = [lists_staged_like(v, t) for v, t in zip(value, template)]
        return value if all(a is b for a, b in zip(items, value)) else tuple(items)
    if type(value) is list and _is_staged_list(template):
        return _staged_like(value, template)
    return value


def holds_list_staged_elsewhere(value, template) -> bool:
    """Whether `value` holds, inside its tuples, a Python list where `template` holds a staged
    list (what lists_staged_like changes)."""
    return lists_staged_like(value, template) is not value
