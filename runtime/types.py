"""Static value types of the graph IR: what a value may be when the graph runs.

A `TensorType` is one kind of value: a NumPy value of a dtype and a shape whose dims may be
unknown, or (weak) a Python number. A `UnionType` is a value whose kind depends on the path
the run takes (a Python int on one branch, an int8 scalar on the other; a loop accumulator
that is the Python 0 until the first iteration): at run time the value is what that path made
it, and every op's result type is its rule applied to each kind (runtime.registry.infer_kinds).
`join_types` is the one rule for where two paths meet. `ListType` is a list value's type;
`StrType` a Python str known when the graph runs (text formatted from staged values).
`NONE` is the kind of a value that is None on some paths (`best = None` before a loop that
may set it). `ExceptionType` the type of an exception a staged `try` caught. `ContainerType`
is a deque, set or dict (or a view of a dict) made by the function and changed in staged
control flow, and `TupleType` a tuple held in such a container or a list.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# A shape whose dims may be unknown (None) until run time.
Shape = tuple[int | None, ...]

_SHORT_NAMES = {
    "bool": "bool",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
    "float16": "f16",
    "float32": "f32",
    "float64": "f64",
    "complex64": "c64",
    "complex128": "c128",
}
_LONG_NAMES = {short: long for long, short in _SHORT_NAMES.items()}


def dtype_short_name(dtype) -> str:
    """`float64` -> `f64`; dtypes without a short name keep NumPy's name."""
    dtype = np.dtype(dtype)
    return _SHORT_NAMES.get(dtype.name, dtype.str if dtype.kind in "SUV" else dtype.name)


def dtype_from_name(name: str) -> np.dtype:
    """Accepts short (`f64`) and NumPy (`float64`) names."""
    return np.dtype(_LONG_NAMES.get(name, name))


def normalize_shape(shape) -> Shape:
    if shape is None:
        raise TypeError(
            "a shape of unknown rank is not supported; give every dim (None for unknown)"
        )
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    dims: list[int | None] = []
    for d in shape:
        if d is None:
            dims.append(None)
        elif isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0:
            dims.append(int(d))
        else:
            raise TypeError(
                f"invalid dimension {d!r} in shape {tuple(shape)!r}: use a non-negative int or None"
            )
    return tuple(dims)


# The types of Python numbers, with the dtype NumPy gives each on its own.
PYTHON_SCALAR_DTYPES = {
    bool: np.dtype(np.bool_),
    int: np.dtype(np.int64),
    float: np.dtype(np.float64),
    complex: np.dtype(np.complex128),
}
_PYTHON_TYPE_OF = {dtype: t for t, dtype in PYTHON_SCALAR_DTYPES.items()}


class TensorType:
    """(dtype, shape) of a graph value; `None` dims are unknown until run time.

    A weak type (`weak=True`) is the type of a Python number whose value is known only when
    the graph runs (a loop counter that starts as `0`, `len()` of a staged list): at run time
    the value is a Python bool, int, float or complex, combined with NumPy values by NEP 50
    (it takes the dtype of the array it meets) and with other Python numbers by Python's own
    arithmetic. Its dtype is the one NumPy gives that Python type; its shape is ().
    """

    __slots__ = ("dtype", "shape", "weak", "_hash")
    dtype: np.dtype
    shape: Shape
    weak: bool
    _hash: int

    def __init__(self, dtype, shape=(), weak: bool = False):
        object.__setattr__(self, "dtype", np.dtype(dtype))
        object.__setattr__(self, "shape", normalize_shape(shape))
        weak = bool(weak)
        if weak and (self.shape != () or self.dtype not in _PYTHON_TYPE_OF):
            raise TypeError(
                f"a weak type is a Python number's: shape () and dtype bool, int64, float64 "
                f"or complex128, not {self.dtype.name}{list(self.shape)}"
            )
        object.__setattr__(self, "weak", weak)
        object.__setattr__(self, "_hash", hash((self.dtype, self.shape, weak)))

    def __setattr__(self, name, value):
        raise AttributeError("TensorType is immutable")

    @classmethod
    def of(cls, value) -> "TensorType":
        """The exact type of a concrete NumPy value, or the weak type of a Python number."""
        python_type = type(value)
        if python_type in PYTHON_SCALAR_DTYPES:
            return cls(PYTHON_SCALAR_DTYPES[python_type], (), weak=True)
        value = np.asarray(value)
        return cls(value.dtype, value.shape)

    @classmethod
    def python_scalar(cls, python_type) -> "TensorType":
        """The weak type of values of `python_type` (bool, int, float or complex)."""
        return cls(PYTHON_SCALAR_DTYPES[python_type], (), weak=True)

    @property
    def python_type(self):
        """bool, int, float or complex for a weak type; None for a NumPy type."""
        return _PYTHON_TYPE_OF[self.dtype] if self.weak else None

    def strong(self) -> "TensorType":
        """The NumPy type a value of this type becomes in NumPy (np.asarray(x))."""
        return TensorType(self.dtype, self.shape) if self.weak else self

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def is_fully_defined(self) -> bool:
        return None not in self.shape

    def __eq__(self, other):
        return (
            isinstance(other, TensorType)
            and self.dtype == other.dtype
            and self.shape == other.shape
            and self.weak == other.weak
        )

    def __hash__(self):
        return self._hash

    def __repr__(self):
        weak = ", weak=True" if self.weak else ""
        return f"TensorType({self.dtype.name}, {self.shape}{weak})"

    def __str__(self):
        if self.weak:
            return self.python_type.__name__
        dims = ",".join("?" if d is None else str(d) for d in self.shape)
        return f"{dtype_short_name(self.dtype)}[{dims}]"

    def is_supertype_of(self, other: "TensorType") -> bool:
        """True when every value of `other` is also a value of `self` (`[None]` >= `[3]`)."""
        if (
            type(other) is not TensorType
            or self.dtype != other.dtype
            or len(self.shape) != len(other.shape)
            or self.weak != other.weak
        ):
            return False
        return all(a is None or a == b for a, b in zip(self.shape, other.shape))

    def accepts_shape(self, shape: tuple) -> bool:
        if len(shape) != len(self.shape):
            return False
        return all(a is None or a == b for a, b in zip(self.shape, shape))

    def most_specific_common_supertype(self, other: "TensorType"):
        """The narrowest type accepting both, or None when dtype, rank or weakness differ."""
        if self == other:
            return self
        if (
            type(other) is not TensorType
            or self.dtype != other.dtype
            or len(self.shape) != len(other.shape)
            or self.weak != other.weak
        ):
            return None
        return TensorType(
            self.dtype, tuple(a if a == b else None for a, b in zip(self.shape, other.shape))
        )


def accepts(declared, actual) -> bool:
    """Whether a value of type `actual` may stand where type `declared` is expected: `declared`
    is `actual` or less specific (`f64[?]` accepts `f64[3]`, `int | i8[]` accepts `int`)."""
    if type(declared) is UnionType:
        return declared.is_supertype_of(actual)
    return type(declared) is type(actual) and declared.is_supertype_of(actual)


class ListType:
    """Type of a list value (a TensorArray at run time): its element type, possibly unknown."""

    __slots__ = ("element",)

    def __init__(self, element):
        self.element = element

    def __eq__(self, other):
        return isinstance(other, ListType) and self.element == other.element

    def __hash__(self):
        return hash(("list", self.element))

    def __repr__(self):
        return f"ListType({self.element!r})"

    def __str__(self):
        return f"list[{self.element if self.element is not None else '?'}]"

    def is_supertype_of(self, other) -> bool:
        """True when a list of type `other` is also one of this type (an unknown element type,
        on either side, fits: a list gets its element type from its first write)."""
        if not isinstance(other, ListType):
            return False
        if self.element is None or other.element is None:
            return True
        return accepts(self.element, other.element)


class ContainerType:
    """The type of a deque, set or dict (kind "deque", "set", "dict"), or of a dict's keys,
    values or items view ("keys", "values", "items"), known when the graph runs: the Python
    container itself, made on each call and changed by the staged methods (runtime.ops.
    containers). `element`: the join of the types of what it holds (a dict's values), None
    while nothing is known; `key`: a dict's keys'. `factory` is a dict's class and default
    factory ("dict", "OrderedDict", "Counter", or ("defaultdict", factory)), `maxlen` a deque's.

    `shape` and `dtype` say what an array type would (a 0-d object) so that code asking every
    value for them works; only the container ops compute on it."""

    __slots__ = ("kind", "element", "key", "factory", "maxlen", "_hash")
    kind: str
    element: Any
    key: Any
    factory: Any
    maxlen: int | None
    _hash: int
    shape = ()
    dtype = np.dtype(object)
    weak = False
    ndim = 0
    is_fully_defined = True

    def __init__(self, kind: str, element=None, key=None, factory=None, maxlen=None):
        for name, value in zip(self.__slots__, (kind, element, key, factory, maxlen)):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_hash", hash((kind, element, key, factory, maxlen)))

    def __setattr__(self, name, value):
        raise AttributeError("ContainerType is immutable")

    def __eq__(self, other):
        return isinstance(other, ContainerType) and all(
            getattr(self, n) == getattr(other, n) for n in self.__slots__[:-1]
        )

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return (
            f"ContainerType({self.kind!r}, {self.element!r}, {self.key!r}, {self.factory!r}, "
            f"{self.maxlen!r})"
        )

    def __str__(self):
        def shown(t):
            return "?" if t is None else str(t)

        if self.kind == "dict":
            return f"dict[{shown(self.key)}: {shown(self.element)}]"
        return f"{self.kind}[{shown(self.element)}]"

    def strong(self):
        return self

    def with_items(self, element, key=None) -> "ContainerType":
        """This type holding elements (values) of type `element` (and keys of type `key`)."""
        return ContainerType(self.kind, element, key, self.factory, self.maxlen)

    def is_supertype_of(self, other) -> bool:
        """True when a container of type `other` is also one of this type (an unknown element
        type, on either side, fits: nothing was put in yet)."""
        if not isinstance(other, ContainerType) or other.kind != self.kind:
            return False
        if (self.factory, self.maxlen) != (other.factory, other.maxlen):
            return False
        return _accepts_items(self.element, other.element) and _accepts_items(self.key, other.key)

    def accepts_shape(self, shape) -> bool:
        return shape == ()


class TupleType:
    """The type of a tuple of graph values (a Python tuple at run time) held by a staged list or
    container (`heapq.heappush(heap, (d, v))`): the type of each item. Reading one back gives a
    Python tuple of its items while tracing."""

    __slots__ = ("items", "_hash")
    items: tuple
    _hash: int
    shape = ()
    dtype = np.dtype(object)
    weak = False
    ndim = 0
    is_fully_defined = True

    def __init__(self, items):
        object.__setattr__(self, "items", tuple(items))
        object.__setattr__(self, "_hash", hash(("tuple", self.items)))

    def __setattr__(self, name, value):
        raise AttributeError("TupleType is immutable")

    def __eq__(self, other):
        return isinstance(other, TupleType) and self.items == other.items

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return f"TupleType({self.items!r})"

    def __str__(self):
        return (
            "("
            + ", ".join(str(t) for t in self.items)
            + ("," if len(self.items) == 1 else "")
            + ")"
        )

    def strong(self):
        return self

    def is_supertype_of(self, other) -> bool:
        return (
            isinstance(other, TupleType)
            and len(other.items) == len(self.items)
            and all(accepts(a, b) for a, b in zip(self.items, other.items))
        )

    def accepts_shape(self, shape) -> bool:
        return shape == ()


def _accepts_items(declared, actual) -> bool:
    return declared is None or actual is None or accepts(declared, actual)


def is_container(t) -> bool:
    """True for the type of a staged container: a list, deque, set, dict or dict view."""
    return isinstance(t, (ListType, ContainerType))


class _ParameterlessKind:
    """A kind with no parameters (one object per class, its instance): Python objects of one
    type known when the graph runs. `shape` and `dtype` say what an array type would (a 0-d
    object) so that code asking every kind for them works."""

    __slots__ = ()
    shape = ()
    dtype = np.dtype(object)
    weak = False
    ndim = 0
    is_fully_defined = True
    _text = ""  # its str(), and what its hash is made of
    _instance: _ParameterlessKind

    def __new__(cls):
        return cls._instance  # one object: the type has no parameters

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other):
        return type(other) is type(self)

    def __hash__(self):
        return hash(self._text)

    def __repr__(self):
        return f"{type(self).__name__}()"

    def __str__(self):
        return self._text

    def strong(self):
        return self

    def is_supertype_of(self, other) -> bool:
        return type(other) is type(self)

    def most_specific_common_supertype(self, other):
        return self if type(other) is type(self) else None

    def accepts_shape(self, shape) -> bool:
        return shape == ()


class StrType(_ParameterlessKind):
    """The type of a Python str known only when the graph runs: text formatted from staged
    values (an f-string, `str(x)`, `"%d" % n`), joined, or chosen by a staged `if`. A kind of
    its own: a value that is a str on some paths and a number or None on others is a union
    holding it. Only the string ops compute on it (runtime.ops.strings)."""

    __slots__ = ()
    python_type = str
    _text = "str"


STR = object.__new__(StrType)
StrType._instance = STR


def is_str(t) -> bool:
    """True for the type of a staged Python str."""
    return type(t) is StrType


class NoneKind(_ParameterlessKind):
    """The kind of a value that is None on some paths when the graph runs: a name that is None
    before a staged loop sets it (`best = None`), a branch that gives None where the other gives
    a number. Only in a union (`None | f64[]`): a value that is None on every path is the
    Python None itself, never a graph value. Ops compute on it only where eager Python does
    without raising (`x is None`, `==`, truth, str; runtime.registry.OpDef.takes_none); any
    other op raises on the path where it is None when the graph runs, as eagerly."""

    __slots__ = ()
    python_type = type(None)
    _text = "None"


NONE = object.__new__(NoneKind)
NoneKind._instance = NONE


def is_none_kind(t) -> bool:
    """True for the kind of a value that is None (one alternative of a union)."""
    return type(t) is NoneKind


def may_be_none(t) -> bool:
    """True when a value of type `t` is None on some path."""
    return any(type(k) is NoneKind for k in kinds(t))


class ExceptionType:
    """The type of a graph value that is an exception a staged `try` caught when the graph ran
    (the value `e` of `except (A, B) as e:`): an instance of one of `classes` or of a subclass.

    `shape` and `dtype` say what an array type would (a 0-d object), so that code asking every
    value for them works; nothing computes on it but raising it, chaining it, printing it and
    testing its class (`exception_matches`).
    """

    __slots__ = ("classes",)
    classes: tuple[type[BaseException], ...]
    shape = ()
    dtype = np.dtype(object)
    weak = False

    def __init__(self, classes):
        object.__setattr__(self, "classes", tuple(classes))

    def __setattr__(self, name, value):
        raise AttributeError("ExceptionType is immutable")

    def __eq__(self, other):
        return isinstance(other, ExceptionType) and self.classes == other.classes

    def __hash__(self):
        return hash(("exception", self.classes))

    def __repr__(self):
        return f"ExceptionType({', '.join(c.__qualname__ for c in self.classes)})"

    def __str__(self):
        return "exception[" + " | ".join(c.__name__ for c in self.classes) + "]"

    def strong(self):
        return self

    def is_supertype_of(self, other) -> bool:
        return self == other

    def accepts_shape(self, shape) -> bool:
        return shape == ()


# -- kinds: a value whose type depends on the path taken ------------------------------------

MAX_KINDS = 8  # alternatives a union may have; more is refused (types.TypeJoinError)


class TypeJoinError(TypeError):
    """Two types that cannot be one value's (a list and an array), or too many kinds."""


class UnionType:
    """The type of a value that is one of several kinds when the graph runs, depending on the
    path taken: `alternatives` are TensorTypes, and NONE or STR (a value that is None or a str
    on some paths); two or more, in a canonical order; no two of the same dtype, Python-ness and
    rank, which join by relaxing dims. Build with `union_of`
    or `join_types`, which give a plain TensorType when one kind is left.

    A union has no single dtype or shape: code that needs one asks `kinds(t)` and decides per
    kind, or refuses; code generators that specialise on a dtype leave union values alone.
    """

    __slots__ = ("alternatives", "_hash")
    alternatives: tuple[TensorType, ...]
    _hash: int

    def __init__(self, alternatives):
        alternatives = tuple(alternatives)
        if len(alternatives) < 2 or not all(
            type(a) in _KIND_TYPES or type(a) is TupleType for a in alternatives
        ):
            raise TypeError("a UnionType holds two or more TensorTypes; use union_of()")
        object.__setattr__(self, "alternatives", alternatives)
        object.__setattr__(self, "_hash", hash(("union", alternatives)))

    def __setattr__(self, name, value):
        raise AttributeError("UnionType is immutable")

    def __eq__(self, other):
        return type(other) is UnionType and self.alternatives == other.alternatives

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return f"UnionType({', '.join(repr(a) for a in self.alternatives)})"

    def __str__(self):
        return " | ".join(str(a) for a in self.alternatives)

    def is_supertype_of(self, other) -> bool:
        """True when every kind of `other` is accepted by one of this union's kinds."""
        return all(
            any(mine.is_supertype_of(kind) for mine in self.alternatives) for kind in kinds(other)
        )

    def strong(self):
        return union_of(a.strong() for a in self.alternatives)


def is_union(t) -> bool:
    return type(t) is UnionType


def kinds(t) -> tuple:
    """The kinds a value of type `t` may be: a union's alternatives, or `t` alone."""
    return t.alternatives if type(t) is UnionType else (t,)


_PYTHON_ORDER = {bool: 0, int: 1, float: 2, complex: 3}


def may_be_python_number(t) -> bool:
    """True when a value of type `t` is a Python number on some path (a weak kind)."""
    return any(type(k) is TensorType and k.weak for k in kinds(t))


def _kind_order(t):
    """None first, then Python numbers (bool, int, float, complex), then NumPy values by dtype
    and rank."""
    if type(t) is NoneKind:
        return (-1, 0, 0, "")
    if type(t) is StrType:
        return (-1, 1, 0, "")
    if type(t) is TupleType:
        return (2, 0, len(t.items), "")
    if t.weak:
        return (0, _PYTHON_ORDER[t.python_type], 0, "")
    return (1, t.dtype.num, len(t.shape), t.dtype.str)


def _merge(a, b):
    """One kind standing for both when they differ in known dims only, else None."""
    if type(a) is not type(b):
        return None
    if type(a) is NoneKind or type(a) is StrType:
        return a
    if a.dtype != b.dtype or a.weak != b.weak or len(a.shape) != len(b.shape):
        return None
    if a == b:
        return a
    return TensorType(a.dtype, tuple(x if x == y else None for x, y in zip(a.shape, b.shape)))


def union_of(types):
    """The type of a value that may be of any of `types` (TensorTypes or unions of them): a
    TensorType when they are one kind, else a UnionType. Raises TypeJoinError for more than
    MAX_KINDS kinds, or for a type that is not a TensorType (lists join with join_types)."""
    types = list(types)
    if any(type(k) is TupleType for t in types for k in kinds(t)):
        return _optional_tuple(types)
    found: list = []
    for t in types:
        for kind in kinds(t):
            if type(kind) not in _KIND_TYPES:
                raise TypeJoinError(f"{kind} cannot be one kind of a value among others")
            for i, known in enumerate(found):
                merged = _merge(known, kind)
                if merged is not None:
                    found[i] = merged
                    break
            else:
                found.append(kind)
    if not found:
        raise TypeJoinError("a value of no type")
    if len(found) == 1:
        return found[0]
    if len(found) > MAX_KINDS:
        shown = " | ".join(str(t) for t in sorted(found, key=_kind_order))
        raise TypeJoinError(f"it would have {len(found)} kinds ({shown}); at most {MAX_KINDS}")
    return UnionType(sorted(found, key=_kind_order))


def join_types(a, b):
    """The type a value has where two paths meet with values of types `a` and `b` (a staged
    `if`'s branches; a loop variable before and after an iteration): the value stays what each
    path made it, so the joined type holds the kinds of both (`int` and `i8[]` join as
    `int | i8[]`; `f64[3]` and `f64[4]` as `f64[?]`). Lists join when their elements do.
    Raises TypeJoinError for types no single value has (a list and an array)."""
    if a == b:
        return a
    if isinstance(a, ListType) or isinstance(b, ListType):
        if not (isinstance(a, ListType) and isinstance(b, ListType)):
            raise TypeJoinError("a list in one case and not a list in the other")
        return ListType(join_items(a.element, b.element))
    if any(type(k) is TupleType for k in kinds(a)) and any(type(k) is NoneKind for k in kinds(b)):
        return _optional_tuple((a, b))
    if any(type(k) is TupleType for k in kinds(b)) and any(type(k) is NoneKind for k in kinds(a)):
        return _optional_tuple((a, b))
    if isinstance(a, (ContainerType, TupleType)) or isinstance(b, (ContainerType, TupleType)):
        return _join_structured(a, b)
    if not all(type(k) in _KIND_TYPES for k in (*kinds(a), *kinds(b))):
        raise TypeJoinError(f"{a} in one case and {b} in the other")
    return union_of((a, b))


_KIND_TYPES = (TensorType, NoneKind, StrType)  # what a union's alternatives may be


def _optional_tuple(types):
    """union_of / join_types of types holding a tuple kind: a tuple on some paths and None on
    the others (`pair = None` before a staged `if` sets `pair = (i, j)`) is `None | (...)`,
    its tuples joined item by item; a tuple with any other kind is refused."""
    tuple_kind = None
    none = False
    for t in types:
        for kind in kinds(t):
            if type(kind) is NoneKind:
                none = True
            elif type(kind) is TupleType:
                tuple_kind = kind if tuple_kind is None else _join_structured(tuple_kind, kind)
            else:
                raise TypeJoinError(f"a tuple in one case and {kind} in the other")
    if not none:
        return tuple_kind
    return UnionType((NONE, tuple_kind))


def optional_tuple_kind(t):
    """The tuple kind of a value of type `t` that is a tuple on some paths (and None on the
    others), or None."""
    for kind in kinds(t):
        if type(kind) is TupleType:
            return kind
    return None


def join_items(a, b):
    """The join of two element types of containers, where None (nothing known yet) joins as the
    other."""
    if a is None:
        return b
    if b is None:
        return a
    return join_types(a, b)


def _join_structured(a, b):
    """join_types of containers (of one kind: their items join) and tuples (of one length: their
    items join position by position)."""
    if isinstance(a, ContainerType) and isinstance(b, ContainerType):
        if a.kind != b.kind:
            raise TypeJoinError(f"a {a.kind} in one case and a {b.kind} in the other")
        if (a.factory, a.maxlen) != (b.factory, b.maxlen):
            raise TypeJoinError(f"{a} and {b} are made differently (class or maxlen)")
        return a.with_items(join_items(a.element, b.element), join_items(a.key, b.key))
    if isinstance(a, TupleType) and isinstance(b, TupleType):
        if len(a.items) != len(b.items):
            raise TypeJoinError(
                f"a tuple of {len(a.items)} items in one case and of {len(b.items)} in the other"
            )
        return TupleType(join_types(x, y) for x, y in zip(a.items, b.items))
    raise TypeJoinError(f"{a} in one case and {b} in the other")


def broadcast_shapes(*shapes):
    """NumPy broadcasting over shapes with unknown (`None`) dims.

    Raises ValueError when two known dims cannot broadcast.
    """
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(ndim):
        dims = [s[len(s) - ndim + axis] for s in shapes if len(s) - ndim + axis >= 0]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise ValueError(
                f"shapes {' and '.join(str(tuple(s)) for s in shapes)} cannot be broadcast together"
            )
        if known:
            out.append(known.pop())
        elif None in dims:
            out.append(None)
        else:
            out.append(1)
    return tuple(out)
