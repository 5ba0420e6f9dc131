"""Staged containers: the lists, deques, sets and dicts a function makes and changes in staged
control flow, as graph values whose run-time value is the Python container itself.

`container_new` makes the container on each call from its contents (literal items in its
`template` attr, the others inputs); `container_update` runs a method that changes it (or a
function of `heapq` / `bisect` that does) and gives the container back, with the type of what
it now holds, and the method's result; `container_read` runs a method or function that only
reads it. They run in program order (stateful), on that run's container, so a staged branch or
loop changes it exactly when, and as often as, eager Python would. `tuple_pack` / `tuple_item`
make and read the tuples such containers hold.

The types (runtime.types): a list is a `ListType` (as a list a staged loop appends to), a deque,
set, dict or dict view a `ContainerType`, a tuple a `TupleType`; what a container holds is the
join of the types of everything put in (`set[int | i64[]]`), None while nothing is known.
"""

from __future__ import annotations

import bisect
import builtins
import collections
import heapq
import itertools
import operator
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..core_ops import ARG
from ..registry import register_op
from ..types import (
    STR,
    ContainerType,
    ListType,
    StrType,
    TensorType,
    TupleType,
    TypeJoinError,
    UnionType,
    join_items,
    join_types,
    kinds,
)

_NO_XLA = (
    "a Python container (list, deque, set, dict) changed when the graph runs is not an array, "
    "and XLA computes on arrays (run the function on the interpreter, jit_compile=False)"
)

INT = TensorType.python_scalar(int)
BOOL = TensorType.python_scalar(bool)
NONE = object()  # a method that gives None: no result output

DICT_CLASSES = {
    "dict": dict,
    "OrderedDict": collections.OrderedDict,
    "Counter": collections.Counter,
    "defaultdict": collections.defaultdict,
}


# -- templates: literal values with ARG slots for the inputs -----------------------------------


def fill(template, values):
    """`template` with each ARG slot replaced by the next of `values` (an iterator): a new
    tuple, list, dict, set or deque for each one in the template, a copy of a NumPy array."""
    if template is ARG:
        return next(values)
    t = type(template)
    if t in (tuple, list, set, frozenset):
        return t(fill(item, values) for item in template)
    if t is collections.deque:
        return collections.deque((fill(item, values) for item in template), template.maxlen)
    if t is dict:
        return {fill(k, values): fill(v, values) for k, v in template.items()}
    if t is np.ndarray:
        return template.copy()
    return template


def template_type(template, inputs):
    """The graph type of `template` whose ARG slots take the types `inputs` (an iterator)."""
    if template is ARG:
        return value_type(next(inputs))
    t = type(template)
    if t is tuple:
        return TupleType(template_type(item, inputs) for item in template)
    if t in (list, set, frozenset, collections.deque):
        element = None
        for item in template:
            element = join_items(element, element_type(template_type(item, inputs)))
        if t is list:
            return ListType(element)
        if t is collections.deque:
            return ContainerType("deque", element, maxlen=template.maxlen)
        return ContainerType("set", element)
    if t is dict:
        key = value = None
        for k, v in template.items():
            key = join_items(key, element_type(template_type(k, inputs)))
            value = join_items(value, element_type(template_type(v, inputs)))
        return ContainerType("dict", value, key, "dict")
    return value_type(template)


def value_type(x):
    """The graph type of an input (its type) or a literal (a Python number's weak type, a str's,
    a NumPy value's)."""
    if isinstance(x, (TensorType, UnionType, StrType, TupleType, ListType, ContainerType)):
        return x
    if type(x) is str:
        return STR
    if isinstance(x, (bool, int, float, complex, np.generic, np.ndarray)) and not (
        isinstance(x, np.ndarray) and x.dtype.hasobject
    ):
        return TensorType.of(x)
    raise TypeError(f"a staged container cannot hold a {type(x).__name__}")


def element_type(t):
    """`t` as the type of an item of a container: a number, an array, a str or a tuple of them
    (a container inside a container is refused)."""
    if isinstance(t, TupleType):
        for item in t.items:
            element_type(item)
        return t
    if isinstance(t, (ListType, ContainerType)):
        raise NestedContainerError(
            "a staged container holds numbers, arrays, strs and tuples of them, not another "
            "container; keep the inner containers apart (a dict of lists: one list per key, or "
            "a dict of tuples)"
        )
    return t


class NestedContainerError(TypeError):
    """A container put in a staged container (which Python allows, and staging does not)."""


class NotStagedCall(TypeError):
    """A call Python allows that a staged container does not stage (`d.get(k)`, giving None)."""


def items_of(t):
    """The type of the items iterating a value of type `t` gives (a dict's keys)."""
    if isinstance(t, ListType):
        return t.element
    if isinstance(t, ContainerType):
        return t.key if t.kind == "dict" else t.element
    if isinstance(t, TupleType):
        out = None
        for item in t.items:
            out = join_items(out, item)
        return out
    if isinstance(t, StrType):
        return STR
    if isinstance(t, UnionType):
        out = None
        for k in kinds(t):
            out = join_items(out, items_of(k))
        return out
    if isinstance(t, TensorType) and t.shape:
        return TensorType(t.dtype, t.shape[1:])
    raise TypeError(f"'{_python_name(t)}' object is not iterable")


def _python_name(t) -> str:
    if isinstance(t, TensorType):
        return t.python_type.__name__ if t.weak else "numpy.ndarray"
    return type(t).__name__


def _grow(c, element, key=None):
    """Container type `c` holding also items of type `element` (and keys of type `key`)."""
    element = element_type(element) if element is not None else None
    if isinstance(c, ListType):
        return ListType(join_items(c.element, element))
    key = element_type(key) if key is not None else None
    return c.with_items(join_items(c.element, element), join_items(c.key, key))


def _element(c):
    """What reading an item gives: the element type, or (nothing was ever put in, so the read
    fails when the graph runs, unless a later trace of a staged loop knows more) a Python int."""
    return c.element if c.element is not None else INT


def _index(t, name):
    if isinstance(t, TensorType) and t.shape == () and (t.dtype.kind in "iub"):
        return
    raise TypeError(f"{name} indices must be integers, not {_python_name(t)}")


# -- the methods ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Method:
    """One method (or function) of a container kind: whether it changes the container and
    whether it gives a result, `rule(c, *args, **kwargs)` -> (container type after, result
    type or NONE), and `call(c, *args, **kwargs)`, what runs when the graph runs."""

    mutates: bool
    rule: Callable
    call: Callable | None = None


def _same(c, *args, **kwargs):
    return c, NONE


def _adds(c, x, *rest, **kwargs):
    return _grow(c, x), NONE


def _adds_items(c, *iterables, **kwargs):
    for it in iterables:
        c = _grow(c, items_of(it))
    return c, NONE


def _pops(c, *args, **kwargs):
    return c, _element(c)


def _inserts(c, i, x):
    _index(i, "list")
    return _grow(c, x), NONE


def _sets_item(c, k, x):
    if isinstance(c, ContainerType) and c.kind == "dict":
        return _grow(c, x, k), NONE
    if isinstance(k, TensorType) and k.shape == () and k.dtype.kind in "iub":
        return _grow(c, x), NONE
    raise TypeError(f"{_kind(c)} indices must be integers, not {_python_name(k)}")


def _gets_item(c, k):
    if isinstance(c, ContainerType) and c.kind == "dict":
        return c, _element(c)
    _index(k, _kind(c))
    return c, _element(c)


def _kind(c) -> str:
    return "list" if isinstance(c, ListType) else c.kind


def _reads(result):
    def rule(c, *args, **kwargs):
        return c, result

    return rule


def _pop_key(c, k, *default):
    value = _element(c)
    return c, join_types(value, default[0]) if default else value


def _popitem(c):
    return c, TupleType((c.key or INT, _element(c)))


def _setdefault(c, k, default):
    c = _grow(c, default, k)
    return c, c.element


def _update_dict(c, other=None):
    if other is None:
        return c, NONE
    if isinstance(other, ContainerType) and other.kind == "dict":
        return _grow(c, other.element, other.key), NONE
    pair = items_of(other)
    if not (isinstance(pair, TupleType) and len(pair.items) == 2):
        raise TypeError("dictionary update sequence element has the wrong length or type")
    return _grow(c, pair.items[1], pair.items[0]), NONE


def _get(c, k, *default):
    if not default:
        raise NotStagedCall(
            "get() without a default gives None for a missing key, which a staged value cannot "
            "be; give a default of the values' type"
        )
    return c, join_types(_element(c), default[0])


def _view(kind):
    def rule(c):
        if kind == "items":
            element = TupleType((c.key or INT, _element(c))) if c.key is not None else None
        else:
            element = c.key if kind == "keys" else c.element
        return c, ContainerType(kind, element)

    return rule


def _new_list(c, *args, **kwargs):
    return c, ListType(items_of(c))


def _same_type(c, *args, **kwargs):
    return c, c


def _slices(c, *bounds, present):
    """`c[start:stop:step]` of a list, the bounds given (`present`) known when the graph runs."""
    if len(bounds) != sum(present) or len(present) != 3:
        raise TypeError(f"list slice: {len(bounds)} bounds for {present}")
    for t in bounds:
        if not (isinstance(t, TensorType) and t.shape == () and t.dtype.kind in "iub"):
            raise TypeError("slice indices must be integers or None or have an __index__ method")
    return c, c


def _slice(c, *bounds, present):
    it = iter(bounds)
    return c[slice(*(next(it) if given else None for given in present))]


def _new_set(c, *others):
    return c, c


def _union(c, *others):
    out = c
    for other in others:
        out = _grow(out, items_of(other))
    return c, out


def _pushpop(c, x):
    grown = _grow(c, x)
    return grown, grown.element


def _replace(c, x):
    return _grow(c, x), _element(c)


def _list_add(c, other):
    return c, _grow(c, items_of(other))


def _iter_more(c, snapshot, i):
    return c, BOOL


def _pair_types(c):
    """(key type, value type) of the items of `c` as a dict's (None, None: nothing known)."""
    if isinstance(c, ContainerType) and c.kind == "dict":
        return c.key, c.element
    pair = items_of(c)
    if pair is None:
        return None, None
    if not (isinstance(pair, TupleType) and len(pair.items) == 2):
        raise TypeError("dictionary update sequence element has the wrong length or type")
    return pair.items[0], pair.items[1]


def _new_mapping(factory):
    """`dict(c)` / `OrderedDict(c)` of a dict or of (key, value) pairs: a new dict."""

    def rule(c):
        key, value = _pair_types(c)
        return c, ContainerType("dict", value, key, factory)

    return rule


def _new_counter(c):
    """`Counter(c)`: a dict's counts copied, or the items counted (a missing key reads 0)."""
    if isinstance(c, ContainerType) and c.kind == "dict":
        return c, ContainerType("dict", join_items(c.element, INT), c.key, "Counter")
    return c, ContainerType("dict", INT, items_of(c), "Counter")


def _zipped(c, *columns):
    """`list(zip(*columns))` of a staged list of tuples kept one list per position (a column
    that is not a list is the object every tuple holds there): a list of tuples."""
    items = (items_of(t) if isinstance(t, ListType) else t for t in columns)
    return c, ListType(TupleType(items))


def _zip_columns(c, *columns):
    return list(zip(*(col if type(col) is list else itertools.repeat(col) for col in columns)))


def _most_common(c, n=None):
    """`Counter.most_common(n)`: a list of (key, count) pairs."""
    return c, ListType(TupleType((c.key, c.element)) if c.key is not None else None)


# comparisons of two lists, deques or sets (a set's are subset relations)
_ORDERING = {name: Method(False, _reads(BOOL)) for name in ("__lt__", "__le__", "__gt__", "__ge__")}
_EQUALITY = {name: Method(False, _reads(BOOL)) for name in ("__eq__", "__ne__")}

# what lists and deques both have
_SEQUENCE = {
    "append": Method(True, _adds),
    "extend": Method(True, _adds_items),
    "__iadd__": Method(True, _adds_items, lambda c, other: c.extend(other)),
    "insert": Method(True, _inserts),
    "remove": Method(True, _same),
    "pop": Method(True, _pops),
    "clear": Method(True, _same),
    "reverse": Method(True, _same),
    "__setitem__": Method(True, _sets_item),
    "__delitem__": Method(True, _same),
    "__getitem__": Method(False, _gets_item),
    "__len__": Method(False, _reads(INT)),
    "__contains__": Method(False, _reads(BOOL)),
    "index": Method(False, _reads(INT)),
    "count": Method(False, _reads(INT)),
    "copy": Method(False, _same_type),
    **_EQUALITY,
    **_ORDERING,
}

_LIST = {
    **_SEQUENCE,
    "sort": Method(True, _same),
    "__add__": Method(False, _list_add),
    "__radd__": Method(False, _list_add),
    "__mul__": Method(False, _same_type),
    "__rmul__": Method(False, _same_type),
    "_slice": Method(False, _slices, _slice),  # (lst[a:b:c], the bounds given as inputs)
    # heapq and bisect, of a list
    "heappush": Method(True, _adds, heapq.heappush),
    "heappop": Method(True, _pops, heapq.heappop),
    "heappushpop": Method(True, _pushpop, heapq.heappushpop),
    "heapreplace": Method(True, _replace, heapq.heapreplace),
    "heapify": Method(True, _same, heapq.heapify),
    "zip": Method(False, _zipped, _zip_columns),
    "insort": Method(True, _adds, bisect.insort),
    "insort_left": Method(True, _adds, bisect.insort_left),
    "insort_right": Method(True, _adds, bisect.insort_right),
    "bisect": Method(False, _reads(INT), bisect.bisect),
    "bisect_left": Method(False, _reads(INT), bisect.bisect_left),
    "bisect_right": Method(False, _reads(INT), bisect.bisect_right),
}

_DEQUE = {
    **_SEQUENCE,
    "appendleft": Method(True, _adds),
    "extendleft": Method(True, _adds_items),
    "popleft": Method(True, _pops),
    "rotate": Method(True, _same),
}

_SET = {
    "add": Method(True, _adds),
    "discard": Method(True, _same),
    "remove": Method(True, _same),
    "pop": Method(True, _pops),
    "clear": Method(True, _same),
    "update": Method(True, _adds_items),
    "__ior__": Method(True, _adds_items, operator.ior),
    "symmetric_difference_update": Method(True, _adds_items),
    "__ixor__": Method(True, _adds_items, operator.ixor),
    "difference_update": Method(True, _same),
    "__isub__": Method(True, _same, operator.isub),
    "intersection_update": Method(True, _same),
    "__iand__": Method(True, _same, operator.iand),
    "__len__": Method(False, _reads(INT)),
    "__contains__": Method(False, _reads(BOOL)),
    "copy": Method(False, _same_type),
    "union": Method(False, _union),
    "__or__": Method(False, _union),
    "symmetric_difference": Method(False, _union),
    "__xor__": Method(False, _union),
    "intersection": Method(False, _new_set),
    "__and__": Method(False, _new_set),
    "difference": Method(False, _new_set),
    "__sub__": Method(False, _new_set),
    # `other | s` ...: a new set of both's items (its type: both's, joined)
    "__ror__": Method(False, _union),
    "__rxor__": Method(False, _union),
    "__rand__": Method(False, _union),
    "__rsub__": Method(False, _union),
    **_ORDERING,
    "issubset": Method(False, _reads(BOOL)),
    "issuperset": Method(False, _reads(BOOL)),
    "isdisjoint": Method(False, _reads(BOOL)),
    **_EQUALITY,
}

_DICT = {
    "__setitem__": Method(True, _sets_item),
    "__delitem__": Method(True, _same),
    "pop": Method(True, _pop_key),
    "popitem": Method(True, _popitem),
    "setdefault": Method(True, _setdefault),
    "update": Method(True, _update_dict),
    "__ior__": Method(True, _update_dict, operator.ior),
    "clear": Method(True, _same),
    "__getitem__": Method(False, _gets_item),
    "get": Method(False, _get),
    "__len__": Method(False, _reads(INT)),
    "__contains__": Method(False, _reads(BOOL)),
    "keys": Method(False, _view("keys")),
    "values": Method(False, _view("values")),
    "items": Method(False, _view("items")),
    "copy": Method(False, _same_type),
    **_EQUALITY,
    "most_common": Method(False, _most_common),  # (a Counter's)
}

_VIEW = {
    "__len__": Method(False, _reads(INT)),
    "__contains__": Method(False, _reads(BOOL)),
}

# what any container has: building a list or a set of its items, sorting them, iterating them
_ANY = {
    "list": Method(False, _new_list, builtins.list),
    "sorted": Method(False, _new_list, builtins.sorted),
    "set": Method(False, lambda c: (c, ContainerType("set", items_of(c))), builtins.set),
    "dict": Method(False, _new_mapping("dict"), builtins.dict),
    "OrderedDict": Method(False, _new_mapping("OrderedDict"), collections.OrderedDict),
    "Counter": Method(False, _new_counter, collections.Counter),
    "iter_more": Method(False, _iter_more),
}

METHODS = {
    "list": {**_ANY, **_LIST},
    "deque": {**_ANY, **_DEQUE},
    "set": {**_ANY, **_SET},
    "dict": {**_ANY, **_DICT},
    "keys": {**_ANY, **_VIEW},
    "values": {**_ANY, **_VIEW},
    "items": {**_ANY, **_VIEW},
}


def kind_of(t) -> str:
    """ "list", "deque", "set", "dict", "keys", "values" or "items": the kind of a container type."""
    return "list" if isinstance(t, ListType) else t.kind


def method_of(t, name: str) -> Method | None:
    """The method `name` of a container of type `t`, or None when it has none staged. Reading a
    missing key of a defaultdict inserts it: there `__getitem__` changes the container."""
    method = METHODS[kind_of(t)].get(name)
    if isinstance(t, ContainerType) and t.factory == "Counter" and name == "update":
        return None  # (a Counter's update counts the items of an iterable: not staged)
    if name == "most_common" and not (isinstance(t, ContainerType) and t.factory == "Counter"):
        return None
    if (
        method is not None
        and name == "__getitem__"
        and isinstance(t, ContainerType)
        and isinstance(t.factory, tuple)
        and t.factory[0] == "defaultdict"
    ):
        return Method(True, method.rule)
    return method


_ITERATION_ERRORS = {
    "set": "Set changed size during iteration",
    "deque": "deque mutated during iteration",
}


def _iter_more_kernel(c, snapshot, i):
    """Whether iterating `c` (its items when the loop began: `snapshot`) gives an item at
    position `i`; as Python's iterator of a deque, set or dict, a RuntimeError when its size
    changed since."""
    if len(c) != len(snapshot):
        kind = type(c).__name__ if type(c) in (set, collections.deque) else "dict"
        raise RuntimeError(_ITERATION_ERRORS.get(kind, "dictionary changed size during iteration"))
    return i < len(snapshot)


# Python's operators (a method of the container would give NotImplemented, not Python's
# TypeError, for an operand of another type)
_OPERATORS = {
    "__eq__": operator.eq,
    "__ne__": operator.ne,
    "__lt__": operator.lt,
    "__le__": operator.le,
    "__gt__": operator.gt,
    "__ge__": operator.ge,
    "__add__": operator.add,
    "__mul__": operator.mul,
    "__or__": operator.or_,
    "__and__": operator.and_,
    "__sub__": operator.sub,
    "__xor__": operator.xor,
    "__radd__": lambda c, other: operator.add(other, c),
    "__rmul__": lambda c, other: operator.mul(other, c),
    "__ror__": lambda c, other: operator.or_(other, c),
    "__rand__": lambda c, other: operator.and_(other, c),
    "__rsub__": lambda c, other: operator.sub(other, c),
    "__rxor__": lambda c, other: operator.xor(other, c),
}

_FUNCTIONS = {
    "iter_more": _iter_more_kernel,
    "__len__": len,
    "__contains__": operator.contains,
    **_OPERATORS,
}


def _callable(name: str, method: Method):
    """What runs the method when the graph runs: its function, or the container's method."""
    if method.call is not None:
        return method.call
    if name in _FUNCTIONS:
        return _FUNCTIONS[name]
    return lambda c, *args, **kwargs: getattr(c, name)(*args, **kwargs)


def _types(inputs, args):
    it = iter(inputs)
    return [template_type(a, it) for a in args]


def _infer(c, inputs, *, kind, name, args, kwargs):
    method = method_of(c, name) if _matches(c, kind) else None
    if method is None:
        raise TypeError(f"{kind}.{name}: not a staged method of a {c}")
    after, result = method.rule(c, *_types(inputs, args), **dict(kwargs))
    return method, after, result


def _matches(c, kind) -> bool:
    return isinstance(c, (ListType, ContainerType)) and kind_of(c) == kind


def _update_infer(c, *inputs, kind, name, args=(), kwargs=(), returns=True):
    method, after, result = _infer(c, inputs, kind=kind, name=name, args=args, kwargs=kwargs)
    if not method.mutates:
        raise TypeError(f"{kind}.{name} does not change the container: a container_read")
    if returns != (result is not NONE):
        raise TypeError(f"container_update: returns={returns} for {kind}.{name}")
    return (after,) if result is NONE else (after, result)


def _read_infer(c, *inputs, kind, name, args=(), kwargs=()):
    method, _, result = _infer(c, inputs, kind=kind, name=name, args=args, kwargs=kwargs)
    if method.mutates:
        raise TypeError(f"{kind}.{name} changes the container: a container_update")
    return result


def _call_kernel(kind, name, args=(), kwargs=()):
    call = _callable(name, METHODS[kind][name])
    kwargs = dict(kwargs)
    if all(a is ARG for a in args) and not kwargs:
        return call
    return lambda c, *inputs: call(c, *fill(args, iter(inputs)), **kwargs)


def _update_kernel(kind, name, args=(), kwargs=(), returns=True):
    call = _call_kernel(kind, name, args, kwargs)
    if returns:
        return lambda c, *inputs: (c, call(c, *inputs))

    def run(c, *inputs):
        call(c, *inputs)
        return (c,)

    return run


def _runs_errors(node):
    return (("any", Exception),)  # KeyError, IndexError, ValueError, a comparison's TypeError ...


register_op(
    "container_update",
    infer=_update_infer,
    num_outputs=None,
    stateful=True,
    weak_results=True,
    make_kernel=_update_kernel,
    run_time_errors=_runs_errors,
    unlowerable=_NO_XLA,
    doc="`c.<name>(*args)` (or heapq's or bisect's `<name>(c, *args)`) changing the container "
    "`c`: `c` and the result",
)(lambda c, *inputs, **attrs: _update_kernel(**attrs)(c, *inputs))

register_op(
    "container_read",
    infer=_read_infer,
    stateful=True,
    weak_results=True,
    make_kernel=_call_kernel,
    run_time_errors=_runs_errors,
    unlowerable=_NO_XLA,
    doc="`c.<name>(*args)` (len, `in`, an item, a copy ...) reading the container `c`",
)(lambda c, *inputs, **attrs: _call_kernel(**attrs)(c, *inputs))


# -- making containers and tuples ----------------------------------------------------------------


def _new_infer(*inputs, kind, items, factory=None, maxlen=None):
    it = iter(inputs)
    if kind == "dict":
        key = value = None
        for k, v in items:
            key = join_items(key, element_type(template_type(k, it)))
            value = join_items(value, element_type(template_type(v, it)))
        if isinstance(factory, tuple) and factory[1] is not None:
            value = join_items(value, element_type(value_type(factory[1]())))
        if factory == "Counter":  # (a missing key reads as 0)
            value = join_items(value, INT)
        return ContainerType("dict", value, key, factory)
    element = None
    for item in items:
        element = join_items(element, element_type(template_type(item, it)))
    if kind == "list":
        return ListType(element)
    return ContainerType(kind, element, maxlen=maxlen)


def new_container_type(input_types, **attrs):
    """The type container_new gives for inputs of `input_types` (raises TypeError, or
    TypeJoinError, a TypeError, when its items cannot be one container's)."""
    return _new_infer(*input_types, **attrs)


def _new_kernel(kind, items, factory=None, maxlen=None):
    if kind == "dict":
        if isinstance(factory, tuple):
            return lambda *inputs: collections.defaultdict(
                factory[1], fill(dict(items), iter(inputs))
            )
        cls = DICT_CLASSES[factory or "dict"]
        return lambda *inputs: cls(fill(dict(items), iter(inputs)))
    if kind == "deque":
        return lambda *inputs: collections.deque(fill(list(items), iter(inputs)), maxlen)
    cls = {"list": list, "set": set}[kind]
    return lambda *inputs: cls(fill(list(items), iter(inputs)))


register_op(
    "container_new",
    infer=_new_infer,
    stateful=True,  # (a new container on every call: never shared between two nodes)
    make_kernel=_new_kernel,
    unlowerable=_NO_XLA,
    doc="a new list, deque, set or dict holding its items (literals, and the inputs in order)",
)(lambda *inputs, **attrs: _new_kernel(**attrs)(*inputs))


def _pack_infer(*inputs, items):
    return element_type(template_type(tuple(items), iter(inputs)))


register_op(
    "tuple_pack",
    infer=_pack_infer,
    make_kernel=lambda items: lambda *inputs: fill(tuple(items), iter(inputs)),
    unlowerable=_NO_XLA,
    unsaveable="a tuple held as one graph value (in a staged container, or a tuple on some "
    "paths and None on others) is not saved; give the value one type on every path",
    doc="a tuple of its items (literals, and the inputs in order)",
)(lambda *inputs, items: fill(tuple(items), iter(inputs)))


def _item_infer(t, *, index, unpack=False):
    if not isinstance(t, TupleType):
        raise TypeError(f"tuple_item: a tuple input, not a {t}")
    return t.items[index]


def _item_kernel(index, unpack=False):
    """Item `index` of a tuple; `unpack`: as unpacking takes it (`a, b = t`), whose error for
    None is its own."""
    if not unpack:
        return operator.itemgetter(index)

    def unpacked(t):
        if t is None:
            raise TypeError("cannot unpack non-iterable NoneType object")
        return t[index]

    return unpacked


register_op(
    "tuple_item",
    infer=_item_infer,
    weak_results=True,
    takes_tuples=True,
    make_kernel=_item_kernel,
    unlowerable=_NO_XLA,
    doc="item `index` of a tuple (`unpack`: taken by unpacking it)",
)(lambda t, *, index, unpack=False: _item_kernel(index, unpack)(t))


def is_container_type(t) -> bool:
    return isinstance(t, (ListType, ContainerType))


__all__ = [
    "METHODS",
    "Method",
    "NestedContainerError",
    "NotStagedCall",
    "TypeJoinError",
    "element_type",
    "fill",
    "is_container_type",
    "items_of",
    "kind_of",
    "method_of",
    "template_type",
    "value_type",
]
