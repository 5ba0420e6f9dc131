"""Staged containers: a list, deque, set or dict the function makes and changes in staged
control flow, as one graph value whose run-time value is the Python container itself.

A staged `if` traces both branches and a staged loop its body once, whatever the condition is
when the graph runs; `seen.add(i)` made while tracing would happen once, on both paths. So at
the entry of a staged `if`, loop or `try` whose code changes a container through one of its
methods (`seen.add(i)`, `dq.popleft()`, `heapq.heappush(h, x)`, `d.setdefault(k, v)` ...), a
container the function made and nothing else refers to is *promoted* (`promote_entering`): a
`container_new` node makes it on every call from its contents (runtime.ops.containers), and the
name that held it now holds a `StagedContainer`, a Tensor of that value. Its methods record
`container_update` nodes (which change the run's container and give it back with the type of
what it now holds, and rebind the StagedContainer to it through the journal, so a staged branch
or loop carries it as it carries an array written in place) and `container_read` nodes (`len`,
`in`, an item, a copy). The caller gets the Python container.

What a container holds has the join of the types put in (`set[int | i64[]]`); an item read back
is what was put there. A container holding something that is not a number, an array, a str or
a tuple of them (None, another container, an object) is not promoted: a write to it inside the
staged construct is then refused (staging.state.python_state), naming the line.
"""

from __future__ import annotations

import bisect
import collections
import functools
import heapq
import types

import numpy as np

from runtime.ops import containers as ops
from runtime.types import ContainerType, ListType, TupleType
from staging import errors
from staging.core.recording import current_graph, record
from staging.core.source_map import is_user_file, where
from staging.core.tensor import SYMBOLIC_CLASSES, Tensor, has_staged_value
from staging.kinds.undefined import MaybeMissing
from staging.state import concrete_arrays, journal
from staging.state.tensor_array import TensorArray, is_tensor_array

ARG = ops.ARG
_PYTHON_NAMES = {"list": "list", "deque": "collections.deque", "set": "set", "dict": "dict"}
_VIEW_NAMES = {"keys": "dict_keys", "values": "dict_values", "items": "dict_items"}

# what the op table lists beside the methods: functions taking the container first
_NOT_METHODS = frozenset(
    (
        "heappush",
        "heappop",
        "heappushpop",
        "heapreplace",
        "heapify",
        "insort",
        "insort_left",
        "insort_right",
        "bisect",
        "bisect_left",
        "bisect_right",
        "list",
        "sorted",
        "set",
        "dict",
        "OrderedDict",
        "Counter",
        "zip",
        "iter_more",
    )
)

# Tensor's own names that a staged container keeps (what this project's code reads of any value).
_OWN_ATTRIBUTES = frozenset(("type", "graph", "static_shape", "static_dtype", "static_ndim"))


class StagedContainer(Tensor):
    """A list, deque, set or dict (or a view of a dict) changed when the graph runs; see the
    module docstring."""

    __slots__ = ()

    # -- what it is ------------------------------------------------------------------------------
    @property
    def _kind(self) -> str:
        return ops.kind_of(object.__getattribute__(self, "_value").type)

    def _python_name(self) -> str:
        kind = self._kind
        return _VIEW_NAMES.get(kind) or _PYTHON_NAMES[kind].rsplit(".", 1)[-1]

    def _describe(self) -> str:
        return f"<{self._value.type}>"

    def _describe_place(self) -> str:
        return f"a staged {self._python_name()}"

    def __repr__(self):
        return f"<staging.{self._python_name()} {self._value.type} in trace of {self._graph.function_name!r}>"

    def __getattribute__(self, name):
        if name[0] == "_" or name in _OWN_ATTRIBUTES:
            return object.__getattribute__(self, name)
        kind = self._kind
        if name == "maxlen" and kind == "deque":
            return self._value.type.maxlen
        if name in _NOT_METHODS or ops.method_of(self._value.type, name) is None:
            raise self._no_attribute(name)
        return functools.partial(self._call, name)

    def _no_attribute(self, name):
        python = _python_type(self._kind)
        factory = getattr(self._value.type, "factory", None)
        if factory is not None:  # (an OrderedDict, a Counter, a defaultdict)
            python = ops.DICT_CLASSES[factory[0] if isinstance(factory, tuple) else factory]
        if hasattr(python, name):
            staged = sorted(
                m
                for m in ops.METHODS[self._kind]
                if not m.startswith("_")
                and m not in _NOT_METHODS
                and ops.method_of(self._value.type, m) is not None
            )
            return errors.UnsupportedOpError(
                f"{where()}{python.__name__}.{name}() of a container changed in staged control "
                f"flow is not staged; a staged {python.__name__} has {', '.join(staged)}"
            )
        return AttributeError(f"'{self._python_name()}' object has no attribute {name!r}")

    # -- methods ---------------------------------------------------------------------------------
    def _call(self, name, *args, **kwargs):
        """`self.<name>(*args, **kwargs)` (or heapq's / bisect's `<name>(self, ...)`), recorded."""
        method = ops.method_of(self._value.type, name)
        if method is None:  # (an operator its kind lacks: `d < other`, `s + other`)
            raise errors.UnsupportedOpError(
                f"{where()}{name} of a {self._python_name()} changed in staged control flow is "
                f"not staged"
            )
        template, inputs = encode_arguments(args, f"{self._python_name()}.{name}()")
        attrs = {
            "kind": self._kind,
            "name": name,
            "args": template,
            "kwargs": static_kwargs(name, kwargs),
        }
        if not method.mutates:
            return unpacked(self._record("container_read", inputs, attrs))
        returns = _returns(name)
        attrs["returns"] = returns
        outs = self._record("container_update", inputs, attrs)
        journal.rebind_tensor(self, outs[0])
        return unpacked(outs[1]) if returns else None

    def _record(self, op_name, inputs, attrs):
        """The op of a method, refused (naming the line) where it puts a container in one."""
        try:
            return record(op_name, [self, *inputs], attrs)
        except (ops.NestedContainerError, ops.NotStagedCall) as located:
            exc = getattr(located, "__autograph_unlocated__", located)
            raise errors.UnsupportedOpError(
                f"{where()}{self._python_name()}.{attrs['name']}() of a container changed in "
                f"staged control flow: {exc}"
            ) from None

    def _length(self):
        return self._call("__len__")

    def _contains(self, item):
        return self._call("__contains__", item)

    def _truth_value(self):
        """`bool(c)`: whether it holds anything, known when the graph runs (a Python bool)."""
        return self._length() > 0

    def _copy_as(self, name: str):
        """list(c), set(c), sorted(c): a new container of its items."""
        return self._call(name)

    def _tensor_array(self) -> TensorArray:
        """The list's items as a staged list (a TensorArray, for np.stack, sum(), min() ...): the
        list itself, or for another kind a new list of its items."""
        source = self if self._kind == "list" else self._call("list")
        return TensorArray(
            dtype=None, dynamic_size=True, _handle=Tensor(source._graph, source._value)
        )

    # -- what Python needs a concrete container for -------------------------------------------
    def __hash__(self):
        raise TypeError(f"unhashable type: '{self._python_name()}'")

    def __bool__(self):
        raise self._symbolic_error("the truth value (outside converted code)")

    def __len__(self):
        raise self._symbolic_error("len() in code that is not converted")

    def __iter__(self):
        raise self._symbolic_error(
            "iterating (in code that is not converted: a comprehension, unpacking, a library call)",
            " (its number of items is known only when the graph runs; a `for` loop in converted "
            "code iterates it)",
        )

    def __contains__(self, item):
        raise self._symbolic_error("`in` in code that is not converted")

    def __bytes__(self):  # (bytes() would turn the refusal of iterating it into a TypeError)
        raise self._symbolic_error("bytes()")

    def _symbolic_error(self, what: str, detail: str = "") -> errors.StagingError:
        if self._graph.closed:
            return super()._symbolic_error(what, detail)
        return errors.SymbolicValueError(
            f"{where()}{what} of a {self._python_name()} changed in staged control flow needs "
            f"its items, which are only known when the staged graph runs{detail}"
        )

    # -- Python's operators ------------------------------------------------------------------------
    def __getitem__(self, key):
        if type(key) is slice and self._kind == "list":
            return self._slice(key)
        return self._call("__getitem__", key)

    def _slice(self, key: slice):
        """`lst[start:stop:step]`: a new list, the bounds known when the graph runs or now."""
        bounds = (key.start, key.stop, key.step)
        present = tuple(b is not None for b in bounds)
        return self._call("_slice", *(b for b in bounds if b is not None), present=present)

    def __setitem__(self, key, value):
        self._call("__setitem__", key, value)

    def __delitem__(self, key):
        self._call("__delitem__", key)

    def __eq__(self, other):
        return self._call("__eq__", other)

    def __ne__(self, other):
        return self._call("__ne__", other)

    def __add__(self, other):
        return self._call("__add__", other)

    def __radd__(self, other):
        return self._call("__radd__", other)

    def __rmul__(self, count):
        return self._call("__rmul__", count)

    def __lt__(self, other):
        return self._call("__lt__", other)

    def __le__(self, other):
        return self._call("__le__", other)

    def __gt__(self, other):
        return self._call("__gt__", other)

    def __ge__(self, other):
        return self._call("__ge__", other)

    def __ror__(self, other):
        return self._call("__ror__", other)

    def __rand__(self, other):
        return self._call("__rand__", other)

    def __rsub__(self, other):
        return self._call("__rsub__", other)

    def __rxor__(self, other):
        return self._call("__rxor__", other)

    def __mul__(self, count):
        return self._call("__mul__", count)

    def __iadd__(self, other):
        self._call("__iadd__", other)
        return self

    def __ior__(self, other):
        self._call("__ior__", other)
        return self

    def __iand__(self, other):
        self._call("__iand__", other)
        return self

    def __isub__(self, other):
        self._call("__isub__", other)
        return self

    def __ixor__(self, other):
        self._call("__ixor__", other)
        return self

    def __or__(self, other):
        return self._call("__or__", other)

    def __and__(self, other):
        return self._call("__and__", other)

    def __sub__(self, other):
        return self._call("__sub__", other)

    def __xor__(self, other):
        return self._call("__xor__", other)

    # -- NumPy -----------------------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        raise self._symbolic_error("converting to a NumPy array in code that is not converted")

    def __array_function__(self, func, types_, args, kwargs):
        if self._kind not in ("list", "deque"):
            raise errors.UnsupportedOpError(
                f"{where()}NumPy's {func.__name__} of a {self._python_name()} changed in staged "
                f"control flow is not staged; make a list of its items first (sorted(...))"
            )
        ta = self._tensor_array()
        if func is np.stack and args and args[0] is self:
            return ta.numpy_stack(*args[1:], **kwargs)
        if func in (np.array, np.asarray) and args and args[0] is self:
            return ta.numpy_array(*args[1:], **kwargs)
        args = tuple(ta.numpy_array() if a is self else a for a in args)
        return func(*args, **kwargs)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise errors.UnsupportedOpError(
            f"{where()}NumPy's {ufunc.__name__} of a {self._python_name()} changed in staged "
            f"control flow is not staged; convert it first (np.array(...))"
        )


def _python_type(kind: str):
    return {
        "list": list,
        "deque": collections.deque,
        "set": set,
        "dict": dict,
        "keys": type({}.keys()),
        "values": type({}.values()),
        "items": type({}.items()),
    }[kind]


SYMBOLIC_CLASSES[ContainerType] = StagedContainer

# heapq's and bisect's functions of a list, by the name of their op (runtime.ops.containers)
FUNCTIONS = {
    heapq.heappush: "heappush",
    heapq.heappop: "heappop",
    heapq.heappushpop: "heappushpop",
    heapq.heapreplace: "heapreplace",
    heapq.heapify: "heapify",
    bisect.insort: "insort",
    bisect.insort_left: "insort_left",
    bisect.insort_right: "insort_right",
    bisect.bisect: "bisect",
    bisect.bisect_left: "bisect_left",
    bisect.bisect_right: "bisect_right",
}

# the methods that change a container (of some kind), and the functions of FUNCTIONS that do
CHANGING = frozenset(
    name
    for table in ops.METHODS.values()
    for name, method in table.items()
    if method.mutates and not name.startswith("_")
)


# bisect's searches: they only read the sequence
_SEARCHES = frozenset(("bisect", "bisect_left", "bisect_right"))


def call_function(function, name):
    """heapq's or bisect's `function` (named `name`) as converted code calls it: on a staged
    container, recorded; a search of a Python list or tuple for a symbolic value, recorded on a
    staged copy of it (see _searched); otherwise the function itself."""

    def call(container, *args, **kwargs):
        if name in _SEARCHES and _searched(container, args):
            container = promote(list(container))
        if isinstance(container, StagedContainer):
            if ops.method_of(container._value.type, name) is None:
                return function(container, *args, **kwargs)  # (Python's own error)
            return container._call(name, *args, **kwargs)
        return function(container, *args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


def _searched(container, args) -> bool:
    """Whether `bisect_*(container, x)` searches a Python list or tuple of numbers for a value
    `x` known only when the graph runs (its comparisons would need their truth values now): a
    staged list of the same items, made on each call, is searched instead; the sequence itself
    is only read."""
    if current_graph() is None or type(container) not in (list, tuple) or not args:
        return False
    if not isinstance(args[0], Tensor) or isinstance(args[0], StagedContainer):
        return False
    return len(container) <= _MAX_SEARCHED and all(
        type(v) in (bool, int, float) or isinstance(v, (np.number, np.bool_)) for v in container
    )


_MAX_SEARCHED = 10_000


def is_staged_container(x) -> bool:
    return isinstance(x, StagedContainer)


def wrap(tensor: Tensor) -> StagedContainer:
    """`tensor` (a value of a list or container type) as a StagedContainer."""
    if isinstance(tensor, StagedContainer):
        return tensor
    return StagedContainer(tensor._graph, tensor._value)


def unpacked(value):
    """A method's result as user code sees it: a tuple's items as a Python tuple, a list or a
    container as a StagedContainer."""
    t = value._value.type
    if isinstance(t, TupleType):
        return tuple(
            unpacked(record("tuple_item", [value], {"index": i})) for i in range(len(t.items))
        )
    if isinstance(t, (ListType, ContainerType)):
        return wrap(value)
    return value


def _returns(name) -> bool:
    """Whether changing method `name` gives a result (pop, a defaultdict's item) or None
    (append)."""
    return name in _RETURNING


_RETURNING = frozenset(
    (
        "pop",
        "popleft",
        "popitem",
        "setdefault",
        "heappop",
        "heappushpop",
        "heapreplace",
        "__getitem__",
    )
)


# -- arguments --------------------------------------------------------------------------------


def encode_arguments(args, what: str) -> tuple:
    """(template, inputs) of a method's arguments: literal values stay in the template (a NumPy
    array is copied on each call), graph values become ARG slots and inputs."""
    inputs: list = []
    template = tuple(encode(a, inputs, what) for a in args)
    return template, inputs


_LITERALS = (bool, int, float, complex, str, np.generic)


def encode(value, inputs: list, what: str):
    """One value as a template (see encode_arguments), appending its graph values to inputs."""
    if isinstance(value, MaybeMissing):
        value = value.read()
    if isinstance(value, Tensor):
        inputs.append(value)
        return ARG
    if has_staged_value(value):
        return encode(value._staged_value(), inputs, what)
    if is_tensor_array(value):
        inputs.append(value._handle)
        return ARG
    if isinstance(value, _LITERALS):
        return value
    if type(value) is np.ndarray and not value.dtype.hasobject:
        return value.copy()
    t = type(value)
    if t in (tuple, list, set, frozenset):
        return t(encode(v, inputs, what) for v in value)
    if t is collections.deque:
        return collections.deque((encode(v, inputs, what) for v in value), value.maxlen)
    if t is dict:
        return {encode(k, inputs, what): encode(v, inputs, what) for k, v in value.items()}
    raise errors.UnsupportedOpError(
        f"{where()}{what}: a container changed in staged control flow holds numbers, arrays, "
        f"strs and tuples of them, not {_described(value)}"
    )


def _described(value) -> str:
    if value is None:
        return "None"
    if hasattr(type(value), "_staged_value") or type(value).__name__ == "StagedList":
        return "a list built by a staged loop"
    return f"a {type(value).__name__}"


def static_kwargs(name: str, kwargs: dict) -> tuple:
    """The keyword arguments of a sort or a bisect (`key=`, `reverse=`), fixed while tracing: a
    key function of the user's code would run when the graph runs, which is not staged."""
    for key, value in kwargs.items():
        if key == "key" and value is not None:
            code = getattr(value, "__code__", None)
            if code is not None and is_user_file(code.co_filename):
                raise errors.UnsupportedOpError(
                    f"{where()}{name}(key=...) with a function of your code, on a container "
                    f"changed in staged control flow: the key would run when the graph runs, "
                    f"which is not staged; sort tuples (key, item) instead, or use sorted()"
                )
        elif isinstance(value, Tensor):
            raise errors.UnsupportedOpError(
                f"{where()}{name}({key}=...) with a value known only when the graph runs is not "
                f"staged"
            )
    return tuple(sorted(kwargs.items()))


# -- making one ---------------------------------------------------------------------------------


def promotable(obj) -> bool:
    """A container a staged construct may make a staged value of: a list, deque, set or dict
    (an OrderedDict, a Counter, a defaultdict whose factory is library code)."""
    t = type(obj)
    if t in (list, set, collections.deque, dict, collections.OrderedDict, collections.Counter):
        return True
    if t is collections.defaultdict:
        factory = obj.default_factory
        code = getattr(factory, "__code__", None)
        return factory is None or code is None or not is_user_file(code.co_filename)
    return False


def promote(obj, name: str = "") -> StagedContainer:
    """A StagedContainer made on each call holding `obj`'s items now."""
    what = f"the {type(obj).__name__} '{name}'" if name else f"this {type(obj).__name__}"
    inputs: list = []
    t = type(obj)
    attrs: dict = {}
    if isinstance(obj, dict):
        attrs["kind"] = "dict"
        attrs["items"] = tuple(
            (encode(k, inputs, what), encode(v, inputs, what)) for k, v in obj.items()
        )
        attrs["factory"] = (
            ("defaultdict", obj.default_factory) if t is collections.defaultdict else t.__name__
        )
    else:
        attrs["kind"] = {list: "list", set: "set", collections.deque: "deque"}[t]
        attrs["items"] = tuple(encode(v, inputs, what) for v in obj)
        if t is collections.deque:
            attrs["maxlen"] = obj.maxlen
    try:  # (the items' types must be one value's)
        ops.new_container_type([x.type for x in inputs], **attrs)
    except TypeError as exc:
        raise errors.UnsupportedOpError(
            f"{where()}{what} is changed in staged control flow, so it becomes a staged value, "
            f"but its items cannot be one: {exc}"
        ) from None
    return wrap(record("container_new", inputs, attrs))


def from_tensor_array(ta) -> StagedContainer:
    """A list a staged loop built (a TensorArray) as a StagedContainer of the same list."""
    return wrap(ta._handle)


# -- at the entry of a staged `if`, loop or `try` -------------------------------------------------


def promote_entering(state: tuple, names, functions, changed, appended=(), items=()) -> tuple:
    """At the entry of a staged construct: the containers it changes become StagedContainers,
    where nothing else refers to them. `changed`: the names of those it changes through their
    methods (any list, deque, set or dict; one holding what a staged container cannot hold is
    refused here); `appended`: those it only appends to or pops from (a deque, set or dict: a
    list there is a staged list already); `items`: those whose items it writes (a list or dict
    whose items are of types one value can have; otherwise its items are written through the
    journal, place by place). `state` is the tuple converted code passes (named by
    `names` as far as they go); containers in the closure cells of `functions` (and of the
    functions of the user's code their cells hold) are set there. Returns the state to use."""
    if current_graph() is None or not (changed or appended or items):
        return state
    wanted = {
        **{name: "items" for name in items},
        **{name: "appended" for name in appended},
        **{name: "changed" for name in changed},
    }
    promoted = {}
    for i, name in enumerate(names[: len(state)]):
        how = wanted.get(name)
        if how and _candidate(state[i], how) and _free(state[i], state, i):
            value = _promoted(state[i], name, how)
            if value is not None:
                promoted[i] = value
    if promoted:
        state = tuple(promoted.get(i, v) for i, v in enumerate(state))
    done = {id(v): v for v in promoted.values()}
    for cell, name in _cells(functions, wanted):
        contents = _contents(cell)
        if id(contents) in done or not _candidate(contents, wanted[name]):
            continue
        del contents
        if _free(cell.cell_contents, cell=cell):
            value = _promoted(cell.cell_contents, name, wanted[name])
            if value is not None:
                cell.cell_contents = value
    return state


def _free(obj, state=None, i=None, cell=None) -> bool:
    """Whether nothing but the variable holding `obj` (and the constructs passing it along)
    refers to it (a staged list: always)."""
    if is_tensor_array(obj) or type(obj).__name__ == "StagedList":
        return True
    del obj  # (not counted)
    if cell is not None:
        return concrete_arrays.unaliased_in_cell(cell)
    return concrete_arrays.unaliased_in_state(state, i)


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # (an empty cell: a name not bound yet)
        return None


def _candidate(obj, how: str) -> bool:
    """Whether `obj` is a container to promote, for a construct changing it `how`."""
    if is_tensor_array(obj) or type(obj).__name__ == "StagedList":
        return how != "appended"
    if not promotable(obj):
        return False
    if how == "appended":
        return type(obj) is not list
    if how == "items":
        return type(obj) is not set
    return True


def _promoted(obj, name, how):
    """The StagedContainer standing for container `obj` (bound to `name`), or None where its
    items cannot be one staged value's and the construct changes it only item by item or by
    the list operators (then the journal, or the check of Python state, sees to it)."""
    if is_tensor_array(obj):
        return from_tensor_array(obj)
    if type(obj).__name__ == "StagedList":
        return from_tensor_array(obj.tensor_array)
    try:
        return promote(obj, name)
    except errors.UnsupportedOpError:
        if how == "changed":
            raise
        return None


def _cells(functions, names, depth: int = 0) -> list:
    """(cell, name) of the free variables `names` of `functions` and of the functions of the
    user's code their closures hold (helpers the construct calls), each cell once."""
    found, seen = [], set()
    stack = [(fn, 0) for fn in functions]
    visited = set()
    while stack:
        fn, level = stack.pop()
        if not isinstance(fn, types.FunctionType) or id(fn) in visited or not fn.__closure__:
            continue
        visited.add(id(fn))
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            if name in names and id(cell) not in seen:
                seen.add(id(cell))
                found.append((cell, name))
            contents = _contents(cell)
            if (
                level < 3
                and isinstance(contents, types.FunctionType)
                and is_user_file(contents.__code__.co_filename)
            ):
                stack.append((contents, level + 1))
    return found
