"""TensorArray: a growable list of same-typed tensors, staged as a list value."""

from __future__ import annotations

import numpy as np

from runtime import TensorType
from runtime.types import TypeJoinError, join_types, union_of
from staging import errors
from staging.core.recording import current_graph, record
from staging.core.source_map import where
from staging.core.tensor import Tensor
from staging.kinds import decisions as kinds
from staging.state import aliasing


# The dtype kinds a Python number keeps its value in, as an element of a list of that kind.
def stacked_element(element):
    """The type np.stack gives each element of a staged list whose elements are of type
    `element` (Python numbers become NumPy values of their default dtype). Elements whose kinds
    would stack to different dtypes, depending on which the list holds, are refused."""
    if element is None or type(element) is TensorType:
        return element
    joined = union_of(k.strong() for k in kinds.kinds(element))
    if type(joined) is not TensorType:
        raise errors.LoopVariableError(
            f"{where()}the elements of this staged list are {kinds.describe(element)} depending "
            f"on the path, which stack to different dtypes; convert them so that they have one type"
        )
    return joined


def _converted_element(element, dtype):
    """The type of an element of np.array(list, dtype) of a staged list whose elements are of
    type `element`. With a numeric dtype given, elements of several kinds of one known shape are
    converted to it one by one, as NumPy converts a Python list's items (the list_stack kernel's
    np.array(lst, dtype)); otherwise they must stack to one dtype (stacked_element)."""
    if dtype is None or element is None or type(element) is TensorType:
        return stacked_element(element)
    shapes = {getattr(k, "shape", None) for k in kinds.kinds(element)}
    numeric = all(type(k) is TensorType and k.dtype.kind in "biufc" for k in kinds.kinds(element))
    shape = next(iter(shapes))
    if numeric and len(shapes) == 1 and None not in shape and np.dtype(dtype).kind in "biufc":
        return TensorType(np.dtype(dtype), shape)
    return stacked_element(element)


def _element(value):
    """A value written into a staged list: a Python str is a staged string there (the list's
    elements are one graph value's kinds: a list of strings)."""
    if isinstance(value, str):
        return record("str_const", [], {"text": str(value)})
    return value


def _refuse_in_loop_condition(method: str) -> None:
    """A staged list changed while the condition of a staged `while` loop is traced: the
    condition is a graph of its own, whose changed list the loop could not carry (the graph was
    malformed: an internal KeyError when it was lowered)."""
    graph = current_graph()
    while graph is not None:
        if graph.outer is not None and graph.name == "cond":  # (a while loop's condition)
            raise errors.UnsupportedOpError(
                f"{where()}list.{method}() of a staged list in the condition of a staged `while` "
                f"loop is not staged (the condition cannot change the loop's state); test the "
                f"list there and {method} it in the body: `while k < 2 and lst:` then "
                f"`v = lst.{method}()`"
            )
        graph = graph.outer


class TensorArray:
    """A list of tensors of one dtype and rank that loops can append to.

    Functional API as in TF: `write`/`append` return the TensorArray to use
    from then on (`ta = ta.write(i, v)`). Inside a trace it is one list value
    in the graph; a staged Function returning one gives the caller a Python
    list of NumPy values. `dtype=None` takes the dtype of the first write.
    """

    _is_tensor_array = True

    def __init__(self, dtype=None, size=0, dynamic_size=False, element_shape=None, *, _handle=None):
        self.dtype = np.dtype(dtype) if dtype is not None else None
        self.dynamic_size = bool(dynamic_size)
        self.element_shape = tuple(element_shape) if element_shape is not None else None
        if _handle is not None:
            self._handle = _handle
            self._items = None
            return
        if current_graph() is not None:
            element = None
            if self.dtype is not None and self.element_shape is not None:
                element = TensorType(self.dtype, self.element_shape)
            inputs = [size] if isinstance(size, Tensor) else ([] if size == 0 else [np.int64(size)])
            self._handle = record("list_new", inputs, {"element": element})
            self._items = None
        else:
            if isinstance(size, Tensor):
                raise errors.SymbolicValueError(
                    f"{where()}TensorArray size is symbolic outside a trace"
                )
            self._handle = None
            self._items = [None] * int(size)

    # -- internals ----------------------------------------------------------
    @property
    def _staged(self) -> bool:
        return self._handle is not None

    def _with_handle(self, handle: Tensor, written=None) -> "TensorArray":
        return TensorArray(
            self.dtype,
            dynamic_size=self.dynamic_size,
            element_shape=self.element_shape,
            _handle=handle,
        )

    def _cast(self, value):
        """A value written into a TensorArray of a declared dtype (TensorFlow's API): converted
        to that dtype, as TensorFlow does. A staged Python list (dtype None) holds what it is
        given, as a Python list does: its element type is the join of the values written."""
        if self.dtype is None:
            return value
        if isinstance(value, Tensor):
            if kinds.may_be_python_number(value.type):
                return record("astype", [value], {"dtype": self.dtype})
            if value.dtype != self.dtype:
                raise errors.LoopVariableError(
                    f"{where()}TensorArray of {self.dtype.name} cannot hold a {value.dtype.name} value; "
                    f"cast it with .astype(np.{self.dtype.name})"
                )
            return value
        arr = np.asarray(value)
        if arr.dtype != self.dtype:
            if type(value) not in (int, float, bool, complex):  # (np.float64 is a float: not weak)
                raise errors.LoopVariableError(
                    f"{where()}TensorArray of {self.dtype.name} cannot hold a {arr.dtype.name} value; "
                    f"cast it with .astype(np.{self.dtype.name})"
                )
            arr = arr.astype(self.dtype)
        return arr[()] if arr.ndim == 0 else arr

    # -- API ------------------------------------------------------------------
    def write(self, index, value) -> "TensorArray":
        written, value = value, self._cast(value)
        if self._staged:
            value = _element(value)
            if not isinstance(value, Tensor):
                value = np.asarray(value)
                value = value[()] if value.ndim == 0 else value
            self._check_element(value)
            aliasing.note_stored(value, "written into")
            handle = record(
                "list_write", [self._handle, index, value], {"dynamic_size": self.dynamic_size}
            )
            return self._with_handle(handle, written)
        index = int(index)
        if self.dtype is None:
            self.dtype = np.asarray(value).dtype
        if index >= len(self._items):
            if not self.dynamic_size:
                raise IndexError(
                    f"TensorArray index {index} out of range for size {len(self._items)} "
                    f"(dynamic_size=False)"
                )
            self._items.extend([None] * (index + 1 - len(self._items)))
        self._items[index] = value
        return self

    def append(self, value) -> "TensorArray":
        if self._staged:
            written, value = value, _element(self._cast(value))
            self._check_element(value)
            aliasing.note_stored(value, "appended to")
            handle = record(
                "list_write", [self._handle, self.length(), value], {"dynamic_size": True}
            )
            return self._with_handle(handle, written)
        value = self._cast(value)
        if self.dtype is None:
            self.dtype = np.asarray(value).dtype
        self._items.append(value)
        return self

    def _check_element(self, value):
        """A staged list's elements may be of several kinds (a Python int and an int64 scalar, as
        a Python list holds both), up to runtime.types.MAX_KINDS: more is refused, naming the
        line."""
        element = self._handle.type.element
        if element is None:
            return
        t = value.type if isinstance(value, Tensor) else TensorType.of(value)
        try:
            join_types(element, t)
        except TypeJoinError as exc:
            raise errors.LoopVariableError(
                f"{where()}an element of this staged list cannot be one value with the others: "
                f"{exc}"
            ) from None

    def read(self, index):
        if self._staged:
            if self._handle.type.element is None:
                raise errors.SymbolicValueError(
                    f"{where()}TensorArray.read() before any write: its element type is unknown; give "
                    f"dtype= and element_shape= when creating it"
                )
            value = record("list_read", [self._handle, index])
            aliasing.note_stored(value, "read from")
            return value
        value = self._items[int(index)]
        if value is None:
            raise ValueError(f"TensorArray element {int(index)} was read before it was written")
        return value

    def pop(self):
        """Removes and returns the last element: (new TensorArray, value)."""
        if self._staged:
            _refuse_in_loop_condition("pop")
            handle, value = record("list_pop", [self._handle])
            return self._with_handle(handle), value
        return self, self._items.pop()

    def stack(self):
        if self._staged:
            el = stacked_element(self._handle.type.element)
            if el is None:
                if self.dtype is None or self.element_shape is None:
                    raise errors.SymbolicValueError(
                        f"{where()}TensorArray.stack() of a list whose element type is unknown (nothing "
                        f"was written); give dtype= and element_shape="
                    )
                el = TensorType(self.dtype, self.element_shape)
            return record(
                "list_stack", [self._handle], {"dtype": el.dtype, "element_shape": el.shape}
            )
        if any(v is None for v in self._items):
            raise ValueError("TensorArray.stack(): some elements were never written")
        if not self._items:
            shape = tuple(0 if d is None else d for d in (self.element_shape or ()))
            return np.zeros((0,) + shape, dtype=self.dtype or np.float64)
        return np.stack(self._items)

    def numpy_stack(self, axis=0, dtype=None):
        """np.stack(list, axis, dtype) of the elements: an empty list raises ValueError, as in
        NumPy (TensorArray.stack gives an empty array instead)."""
        if not self._staged:
            return np.stack(self._items, axis=axis, dtype=dtype)
        el = stacked_element(self._handle.type.element)
        if el is None:  # nothing was ever written: the list is empty whenever the graph runs
            el = TensorType(self.dtype or np.float64, self.element_shape or ())
        out = np.dtype(dtype) if dtype is not None else el.dtype
        if not np.can_cast(el.dtype, out, "same_kind"):
            raise TypeError(
                f"{where()}Cannot cast array data from dtype('{el.dtype}') to dtype('{out}') "
                f"according to the rule 'same_kind'"
            )
        stacked = record(
            "list_stack",
            [self._handle],
            {"dtype": out, "element_shape": el.shape, "empty": "stack"},
        )
        ndim = len(el.shape) + 1
        axis = int(axis)
        if not -ndim <= axis < ndim:
            raise np.exceptions.AxisError(axis, ndim, f"{where()}np.stack")
        axis %= ndim
        if axis:
            perm = list(range(1, ndim))
            perm.insert(axis, 0)
            stacked = record("transpose", [stacked], {"axes": tuple(perm)})
        return stacked

    def numpy_array(self, dtype=None):
        """np.array(list, dtype) of the elements. An empty list gives what NumPy gives, a float64
        (or `dtype`) array of shape (0,), when that fits the traced type of the result; otherwise
        the run raises ValueError. With no element ever written (an always empty list) the
        result is that (0,) array."""
        if not self._staged:
            return np.array(self._items, dtype=dtype)
        el = _converted_element(self._handle.type.element, dtype)
        empty_dtype = np.dtype(dtype) if dtype is not None else np.dtype(np.float64)
        if el is None:
            el = TensorType(empty_dtype, ())
        out = np.dtype(dtype) if dtype is not None else el.dtype
        attrs = {"dtype": out, "element_shape": el.shape}
        if el.shape != () or out != empty_dtype:
            attrs["empty"] = "array"
        return record("list_stack", [self._handle], attrs)

    def size(self):
        """The number of elements, an int64 scalar (as TF's TensorArray.size())."""
        if self._staged:
            return record("astype", [self.length()], {"dtype": np.dtype(np.int64)})
        return np.int64(len(self._items))

    def length(self):
        """len() of the list: a Python int (symbolic while tracing a staged list)."""
        if self._staged:
            return record("list_size", [self._handle])
        return len(self._items)

    def to_list(self) -> list:
        """The elements as a Python list (eager only)."""
        if self._staged:
            raise errors.SymbolicValueError(
                f"{where()}to_list() of a staged TensorArray; return it instead"
            )
        return list(self._items)

    def __repr__(self):
        if self._staged:
            return f"<staging.TensorArray {self._handle.type}>"
        return f"<staging.TensorArray {self._items!r}>"


def is_tensor_array(x) -> bool:
    return getattr(type(x), "_is_tensor_array", False)


def either_list(a, b):
    """The list a staged `if` gives where its branches give the staged lists a and b (or one of
    them, the other an empty Python list), or staged containers: a template to rebuild it from."""
    for x in (a, b):
        if is_tensor_array(x) or getattr(type(x), "_kind", None) is not None:
            return x
    return None


# -- lists of tuples -------------------------------------------------------------------------------


class TupleList(tuple):
    """A staged list of tuples of one length (`stack.append((i, x[i]))`): one TensorArray per
    position holding graph values (numbers, arrays, strs, tensors), and at the other positions
    the Python object every tuple has there (None, bytes; the same in every tuple). The same
    functional API as TensorArray. It is a namedtuple-like tuple of those fields, so a staged
    `if` or loop carries each field as it carries a list or a Python object; a staged function
    returning one gives a Python list of tuples (`zip_tuple_lists`)."""

    __slots__ = ()
    _fields: tuple = ()

    def __new__(cls, *fields):  # (as a namedtuple's: nest rebuilds it with type(s)(*items))
        return tuple.__new__(cls, fields)

    @property
    def _lists(self) -> list:
        return [f for f in self if is_tensor_array(f)]

    def _check(self, value):
        if type(value) is not tuple or len(value) != len(self):
            raise errors.UnsupportedOpError(
                f"{where()}this staged list holds tuples of {len(self)} items; a staged list "
                f"cannot also hold {_describe_item(value)}"
            )
        for item, field in zip(value, self):
            if not is_tensor_array(field) and not _same_static(item, field):
                raise errors.UnsupportedOpError(
                    f"{where()}the tuples of this staged list hold {field!r} at a position where "
                    f"this one holds {_describe_static(item)}; a position that does not hold numbers "
                    f"or arrays must hold the same Python object in every tuple"
                )

    @classmethod
    def of(cls, items: list) -> TupleList:
        """A staged list holding `items`, tuples of one length."""
        lst = empty_tuple_list(items[0])
        for item in items:
            lst = lst.append(item)
        return lst

    def append(self, value) -> TupleList:
        self._check(value)
        return self._rebuilt(
            f.append(item) if is_tensor_array(f) else f for f, item in zip(self, value)
        )

    def write(self, index, value) -> TupleList:
        self._check(value)
        return self._rebuilt(
            f.write(index, item) if is_tensor_array(f) else f for f, item in zip(self, value)
        )

    def read(self, index) -> tuple:
        return tuple(f.read(index) if is_tensor_array(f) else f for f in self)

    def pop(self):
        fields, items = [], []
        for f in self:
            if is_tensor_array(f):
                f, item = f.pop()
            else:
                item = f
            fields.append(f)
            items.append(item)
        return self._rebuilt(fields), tuple(items)

    def length(self):
        return self._lists[0].length()

    def size(self):
        return self._lists[0].size()

    @property
    def _staged(self) -> bool:
        return self._lists[0]._staged

    def stack(self, *args, **kwargs):
        raise errors.UnsupportedOpError(
            f"{where()}converting a staged list of tuples to an array is not supported (an empty "
            f"list would not give NumPy's shape); build one list per position instead"
        )

    numpy_stack = numpy_array = stack

    def to_list(self) -> list:
        """The elements as a Python list of tuples (eager only)."""
        return zip_fields([f.to_list() if is_tensor_array(f) else f for f in self])

    def _rebuilt(self, fields) -> TupleList:
        return tuple_list(list(fields))

    def empty_like(self) -> TupleList:
        """An empty list of tuples like this list's (in the graph being built)."""
        return tuple_list(
            [
                TensorArray(dtype=None, size=0, dynamic_size=True) if is_tensor_array(f) else f
                for f in self
            ]
        )

    def __repr__(self):
        return f"<staging.TupleList of {len(self)} items: {tuple.__repr__(self)}>"


_TUPLE_LIST_TYPES: dict = {}


def tuple_list(fields: list) -> TupleList:
    """A TupleList of `fields` (TensorArrays and the static objects)."""
    cls = _TUPLE_LIST_TYPES.get(len(fields))
    if cls is None:
        cls = _TUPLE_LIST_TYPES[len(fields)] = type(
            f"TupleList{len(fields)}",
            (TupleList,),
            {"__slots__": (), "_fields": tuple(f"item{i}" for i in range(len(fields)))},
        )
    return cls(*fields)


def empty_tuple_list(template: tuple) -> TupleList:
    """An empty TupleList whose tuples are like `template`: a list at each position holding
    graph values, `template`'s object at the others. Refused when no position holds values."""
    for item in template:
        if not _is_value(item) and not isinstance(item, _STATIC):
            raise errors.UnsupportedOpError(
                f"{where()}a staged list of tuples holds numbers, arrays, strings and None in its "
                f"tuples, not {_describe_item(item)}"
            )
    fields = [
        TensorArray(dtype=None, size=0, dynamic_size=True) if _is_value(item) else item
        for item in template
    ]
    if not any(is_tensor_array(f) for f in fields):
        raise errors.UnsupportedOpError(
            f"{where()}a staged list cannot hold {_describe_item(template)}: none of its items is "
            f"a number or an array"
        )
    return tuple_list(fields)


def zip_tuple_lists(result):
    """`result` (a staged function's packed outputs) with each TupleList, whose list fields
    hold the Python lists the graph gave, made the Python list of tuples it stands for."""
    if isinstance(result, TupleList):
        return zip_fields(list(result))
    if type(result) in (list, tuple):
        return type(result)(zip_tuple_lists(r) for r in result)
    if type(result) is dict:
        return {k: zip_tuple_lists(v) for k, v in result.items()}
    return result


def holds_tuple_lists(structure) -> bool:
    if isinstance(structure, TupleList):
        return True
    if type(structure) in (list, tuple):
        return any(holds_tuple_lists(r) for r in structure)
    if type(structure) is dict:
        return any(holds_tuple_lists(r) for r in structure.values())
    return False


def zip_fields(values: list) -> list:
    """The Python list of tuples a TupleList stands for, from the values of its fields: a
    Python list for each position holding graph values (what the graph gave), the object for
    the others (never a list: staging.state.tensor_array._STATIC)."""
    n = len(next(v for v in values if type(v) is list))
    columns = [v if type(v) is list else [v] * n for v in values]
    return [tuple(row) for row in zip(*columns)]


_STATIC = (str, bytes, type(None))


def _is_value(x) -> bool:
    return isinstance(x, (Tensor, np.ndarray, np.generic, bool, int, float, complex, str))


def _same_static(a, b) -> bool:
    return a is b or (type(a) is type(b) and isinstance(a, _STATIC) and a == b)


def _describe_static(value) -> str:
    return repr(value) if isinstance(value, _STATIC) else f"a {type(value).__name__}"


def _describe_item(value) -> str:
    if type(value) is tuple:
        return f"a tuple of {len(value)} items"
    return f"a {type(value).__name__}"
