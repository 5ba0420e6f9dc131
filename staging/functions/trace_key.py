"""Trace keys: what part of a call's arguments selects (or makes) a trace, and TensorSpec.

NumPy arrays and scalars (and symbolic tensors, and TensorSpecs standing for them) are graph
inputs: only their dtype and shape are part of the key. So are random generators
(np.random.Generator, RandomState, random.Random, bit generators): only their class is. Everything else is part of the trace:
Python numbers, strings and None by value, Variables and other objects by identity (held
weakly) or by `==`, objects defining `__tracing_type__()` by what it returns. Containers
(tuple, list, dict, namedtuple, dataclass) are walked with staging.core.nest.
"""

from __future__ import annotations

import dataclasses
import math
import weakref

import numpy as np

from runtime import TensorType
from runtime.ops.random import GENERATOR_CLASSES, GeneratorType, generator_class, generator_type_of
from runtime.types import UnionType, kinds
from staging.core import nest
from staging.core.source_map import where
from staging.core.tensor import Tensor
from staging.kinds import forms as array0d
from staging.state.variables import Variable

NP_SCALAR_TYPES = frozenset(
    t
    for t in (
        np.bool_,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint8,
        np.uint16,
        np.uint32,
        np.uint64,
        np.float16,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
        np.longdouble,
        np.clongdouble,
    )
)
PY_VALUE_TYPES = (int, float, complex, str, bytes, type(None))
# Python values the fast path of Function.__call__ keys by value (see fast_key)
FAST_PY_TYPES = frozenset((int, float, bool, str, type(None)))


class TensorSpec:
    """Describes a tensor argument: shape (dims int or None) and dtype."""

    __slots__ = ("type", "name")

    def __init__(self, shape, dtype=np.float64, name=None):
        # TensorSpec([], np.random.Generator): the spec of a random generator argument
        cls = (
            dtype
            if isinstance(dtype, type) and issubclass(dtype, GENERATOR_CLASSES)
            else generator_class(np.dtype(dtype))
        )
        self.type = GeneratorType(cls) if cls is not None else TensorType(np.dtype(dtype), shape)
        self.name = name
        if cls is None:
            _check_size(self.type)

    @classmethod
    def of_type(cls, type_, name=None) -> "TensorSpec":
        """The spec of values of `type_`, any graph type: a Python number's (weak) or a value
        of several kinds by path (a UnionType, as a staged function may return) included."""
        spec = cls.__new__(cls)
        spec.type, spec.name = type_, name
        return spec

    @classmethod
    def from_value(cls, value, name=None) -> "TensorSpec":
        if isinstance(value, Tensor):
            return cls.of_type(value.type, name)
        arr = np.asarray(value)
        return cls(arr.shape, arr.dtype, name)

    @property
    def shape(self):
        """The shape; for a value of several kinds, the one they share (None if they do not)."""
        return _shared(self.type, lambda t: t.shape)

    @property
    def dtype(self):
        """The dtype; for a value of several kinds, the one they share (None if they do not)."""
        return _shared(self.type, lambda t: t.dtype)

    def is_compatible_with(self, value) -> bool:
        t = tensor_type_of(value)
        return t is not None and self.type.is_supertype_of(t)

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and self.type == other.type and self.name == other.name

    def __hash__(self):
        return hash((self.type, self.name))

    def __repr__(self):
        name = f", name={self.name!r}" if self.name else ""
        if type(self.type) is UnionType or getattr(self.type, "weak", False):
            return f"TensorSpec({self.type}{name})"  # `TensorSpec(int | i8[])`
        dtype = (
            self.type.cls.__name__ if isinstance(self.type, GeneratorType) else self.type.dtype.name
        )
        return f"TensorSpec(shape={self.type.shape}, dtype={dtype}{name})"


def _shared(t, attribute):
    values = {attribute(k) for k in kinds(t)}
    return values.pop() if len(values) == 1 else None


_MAX_BYTES = np.iinfo(np.intp).max


def _check_size(t: TensorType) -> None:
    """A spec's known dims must fit an array NumPy can make (its bytes in an intp)."""
    size = t.dtype.itemsize or 1
    for d in t.shape:
        size *= d or 1
    if size > _MAX_BYTES:
        raise ValueError(
            f"TensorSpec shape {t.shape} of {t.dtype} describes more than {_MAX_BYTES} bytes, "
            f"larger than any array NumPy can make"
        )


class _ArraySpec(TensorSpec):
    """An input_signature's TensorSpec of shape () in the key of a call passing a 0-d ndarray."""

    __slots__ = ()


def spec_key(specs, args) -> tuple:
    """The input_signature `specs` as the trace-key source of a call passing `args`: one trace
    serves every argument they accept, but a 0-d array and a NumPy scalar only while the trace
    does not write into them (staging.kinds.forms)."""
    return tuple(
        _ArraySpec(s.shape, s.dtype, s.name)
        if isinstance(s, TensorSpec)
        and s.shape == ()
        and isinstance(s.type, TensorType)
        and type(a) is np.ndarray
        and a.ndim == 0
        else s
        for s, a in zip(specs, args)
    )


def tensor_type_of(value):
    """The TensorType of a value that is a graph input (array, NumPy scalar, Tensor, TensorSpec),
    the GeneratorType of a random generator (a graph input too: one trace serves every generator
    of its class), else None."""
    if isinstance(value, Tensor):
        return value.type
    if isinstance(value, TensorSpec):
        return value.type
    t = type(value)
    if (
        t is np.ndarray
        or t in NP_SCALAR_TYPES
        or (isinstance(value, np.ndarray) and _plain_subclass(t))
    ):
        if value.dtype.hasobject:
            return None
        return TensorType(value.dtype, value.shape)
    return generator_type_of(value)


# What an ndarray subclass may not redefine to be taken as its base array: the protocols and
# operators through which it would compute differently (np.matrix's `*` is a matrix product, a
# masked array skips masked values).
_SEMANTIC_METHODS = frozenset(
    (
        "__array_ufunc__",
        "__array_function__",
        "__getitem__",
        "__add__",
        "__radd__",
        "__sub__",
        "__rsub__",
        "__mul__",
        "__rmul__",
        "__matmul__",
        "__rmatmul__",
        "__truediv__",
        "__rtruediv__",
        "__floordiv__",
        "__rfloordiv__",
        "__mod__",
        "__rmod__",
        "__pow__",
        "__rpow__",
        "__lt__",
        "__le__",
        "__eq__",
        "__ne__",
        "__gt__",
        "__ge__",
        "__neg__",
        "__abs__",
        "__and__",
        "__or__",
        "__xor__",
        "__invert__",
    )
)
_PLAIN: dict = {
    np.memmap: True
}  # memmap computes as its base array (its __getitem__ only keeps the map)


def _plain_subclass(cls) -> bool:
    """Whether an ndarray subclass computes exactly as a base ndarray (and may stand for one)."""
    plain = _PLAIN.get(cls)
    if plain is None:
        plain = all(
            klass is np.ndarray
            or _PLAIN.get(klass, False)
            or not (_SEMANTIC_METHODS & set(vars(klass)))
            for klass in cls.__mro__[: cls.__mro__.index(np.ndarray)]
        )
        _PLAIN[cls] = plain
    return plain


def as_graph_input(value):
    """What the graph receives for a graph-input argument: a plain ndarray for an ndarray
    subclass that computes as one (np.memmap, a subclass adding only attributes)."""
    if type(value) is not np.ndarray and isinstance(value, np.ndarray):
        return value.view(np.ndarray)
    return value


class ArgumentError(TypeError):
    """An argument that cannot be staged; `path` says where it is in (args, kwargs)."""

    def __init__(self, reason: str, path: str):
        super().__init__(reason)
        self.reason, self.path = reason, path

    def naming(self, parameters) -> str:
        """The reason with the argument named by its parameter (`x`, `x[1]`, `opts['lr']`)."""
        return self.reason.replace("{name}", argument_name(self.path, parameters), 1)


def argument_name(path: str, parameters) -> str:
    """'argument x[1]' for the trace-key path '[0][0][1]' of a bound (args, kwargs) pair."""
    parts = path.split("]", 2)
    if len(parts) < 3 or not parts[0].startswith("["):
        return f"argument {path}"
    group, key = parts[0][1:], parts[1][1:]
    rest = parts[2]
    if group == "0" and key.isdigit() and int(key) < len(parameters):
        key = parameters[int(key)]
    elif group == "1":
        key = key.strip("'\"")
    return f"argument {key!r}{rest}" if not rest else f"argument '{key}{rest}'"


def refusal(value) -> str | None:
    """Why an array-like argument cannot be staged ("{name}" stands for the argument), or None."""
    name = "{name}"
    if isinstance(value, np.ndarray):
        kind = type(value)
        if value.dtype.hasobject:
            return (
                f"{name} is an object array (dtype=object): staged graphs compute on numbers, "
                f"strings and other fixed-size types; convert it, or pass the objects as a "
                f"Python value"
            )
        if isinstance(value, np.matrix):
            return (
                f"{name} is a numpy.matrix, whose operators differ from an ndarray's (`*` is a "
                f"matrix product); pass np.asarray(x) and use `@` for products"
            )
        if isinstance(value, np.ma.MaskedArray):
            return (
                f"{name} is a masked array: staged ops would compute on the masked values too; "
                f"pass x.filled(value) or np.asarray(x)"
            )
        if not _plain_subclass(kind):
            return (
                f"{name} is a {kind.__module__}.{kind.__qualname__}, an ndarray subclass that "
                f"redefines how it computes; pass np.asarray(x)"
            )
    return None


class WeakIdKey:
    """Trace-key part for an object compared by identity, held weakly."""

    __slots__ = ("ref", "ident")

    def __init__(self, obj):
        self.ident = id(obj)
        try:
            self.ref = weakref.ref(obj)
        except TypeError:
            self.ref = lambda obj=obj: obj  # not weak-referenceable: hold it

    def __eq__(self, other):
        return (
            isinstance(other, WeakIdKey)
            and self.ident == other.ident
            and self.ref() is not None
            and self.ref() is other.ref()
        )

    def __hash__(self):
        return self.ident

    def __repr__(self):
        obj = self.ref()
        return f"<{type(obj).__name__} object>" if obj is not None else "<dead object>"


_TENSOR = "T"
_ARRAY0D = "A"  # a 0-d ndarray argument: not a NumPy scalar where it is written in place (staging.kinds.forms)
_TENSORS = (_TENSOR, _ARRAY0D)


def mark_arrays0d(placeholders: list, structure) -> list:
    """The graph inputs `placeholders` of a trace whose key has `structure`, the 0-d array
    arguments among them marked as such for staging.kinds.forms."""
    tensors = [part for part in structure[1] if part in _TENSORS]
    for placeholder, part in zip(placeholders, tensors):
        if part == _ARRAY0D:
            array0d.mark(placeholder, array0d.ARRAY)
    return placeholders


def plain_structure(structure, tensor: str = _TENSOR):
    """`structure` of trace_key(..., arrays0d=True) as trace_key(...) gives it; with `tensor="*"`,
    a form that matches either kind of 0-d argument (for a trace that did not ask)."""
    nested, parts = structure
    return nested, tuple(tensor if part in _TENSORS else part for part in parts)


def _has_tracing_type(value) -> bool:
    return getattr(type(value), "__tracing_type__", None) is not None


def _float_part(x: float):
    """A float as a key part: NaN equals NaN of the same sign, -0.0 differs from 0.0 (each can
    change a result: np.signbit, np.copysign)."""
    if x != x:
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    return x


def python_value_key(value):
    """The key of a Python number, string, bytes or None: its exact type and its value, so that
    `2` and `2.0`, `True` and `1`, `0.0` and `-0.0`, an IntEnum member and its int differ."""
    t = type(value)
    if isinstance(value, float):
        return (t, _float_part(value))
    if isinstance(value, complex):
        return (t, _float_part(value.real), _float_part(value.imag))
    return (t, value)


def _leaf_key(value):
    """The trace-key part of one leaf that is not a graph input."""
    if isinstance(value, (bool,) + PY_VALUE_TYPES):
        return python_value_key(value)
    if isinstance(value, Variable):
        return ("Variable", WeakIdKey(value))
    tracing_type = getattr(type(value), "__tracing_type__", None)
    if tracing_type is not None:
        return ("custom", type(value), tracing_type(value))
    if isinstance(value, Tensor) or isinstance(value, np.ndarray):
        raise TypeError(f"cannot use {value!r:.60} as a staged argument")
    if type(value).__hash__ is object.__hash__ or type(value).__hash__ is None:
        return ("id", WeakIdKey(value))
    try:
        hash(value)
    except TypeError:
        return ("id", WeakIdKey(value))
    return ("eq", type(value), value)


def trace_key(value, arrays0d: bool = False) -> tuple:
    """(structure, types, paths) of `value`: `structure` is the hashable part of the trace key;
    `types` the TensorTypes of the graph inputs in it, in order; `paths` where each one sits
    (`[0][1]`, `['a']`, `.field`). With `arrays0d`, the structure tells 0-d ndarrays from NumPy
    scalars (a Function traces them apart; a concrete function, like a TensorSpec, takes both)."""
    types, paths, parts = [], [], []
    for path, leaf in nest.flatten_with_paths(value, "", _has_tracing_type):
        t = tensor_type_of(leaf)
        if t is None and isinstance(leaf, np.ndarray):
            raise ArgumentError(
                refusal(leaf) or f"cannot use {leaf!r:.60} as a staged argument", path
            )
        if t is not None:
            types.append(t)
            paths.append(path)
            parts.append(
                _ARRAY0D
                if arrays0d
                and (type(leaf) is np.ndarray and leaf.ndim == 0 or type(leaf) is _ArraySpec)
                else _TENSOR
            )
        else:
            parts.append(_leaf_key(leaf))
    return (nest.structure_signature(value, _has_tracing_type), tuple(parts)), types, paths


def retrace_cause(previous, current, value, parameters) -> str:
    """What differs between the trace key `previous` (structure, types) and `current` of the
    arguments `value`, naming the argument: why a call traced again."""
    (shape_before, parts_before), types_before = previous
    (shape_now, parts_now), types_now = current
    if shape_before != shape_now:
        return "the structure of its arguments changed (other containers or keywords)"
    leaves = nest.flatten_with_paths(value, "", _has_tracing_type)
    tensor = 0
    for (path, leaf), before, now in zip(leaves, parts_before, parts_now):
        if now in _TENSORS and before in _TENSORS + ("*",):
            if before != now and before != "*":
                return (
                    f"{argument_name(path, parameters)} changed from "
                    f"{'a 0-d array to a NumPy scalar' if before == _ARRAY0D else 'a NumPy scalar to a 0-d array'}"
                    f" (in-place operators treat them differently)"
                )
            if types_before[tensor] != types_now[tensor]:
                return (
                    f"{argument_name(path, parameters)} changed from {types_before[tensor]} to "
                    f"{types_now[tensor]} (declare None dims with input_signature=..., or use "
                    f"reduce_retracing=True)"
                )
            tensor += 1
        elif before != now:
            return (
                f"{argument_name(path, parameters)} is a Python value ({type(leaf).__name__}) that "
                f"changes from call to call (now {leaf!r:.30}); a Python value is part of the trace: "
                f"pass a NumPy value (np.float64(...), np.asarray(...)) to make it a graph input"
            )
    return "its arguments changed"


NOT_FAST = object()  # fast_key of an argument the fast path does not handle


def fast_key(a):
    """The fast path's key of one argument: (dtype, shape) of a NumPy array or scalar (a graph
    input), python_value_key of a simple Python value (part of the trace key), or NOT_FAST."""
    t = type(a)
    if t is np.ndarray:
        return (a.dtype, a.shape)
    if t in NP_SCALAR_TYPES:  # its type says its dtype (native byte order) and shape ()
        return t
    if t in FAST_PY_TYPES:
        return (t, a) if t is not float else (t, _float_part(a))
    return NOT_FAST


class ArrayLayout:
    """The fast path of positional calls whose arguments are NumPy arrays and scalars, at least one
    an array, for one tuple of argument types: `lookup(*args)` gives the runner remembered for
    the arrays' dtypes and shapes (`table`), or None. Generated per layout: a key of only the
    arrays' parts, without a fast_key call per argument."""

    __slots__ = ("table", "lookup")

    def __init__(self, types: tuple):
        self.table: dict = {}
        names = [f"a{i}" for i in range(len(types))]
        parts = [f"{n}.dtype, {n}.shape" for n, t in zip(names, types) if t is np.ndarray]
        namespace = {"get": self.table.get}
        exec(f"def lookup({', '.join(names)}):\n    return get(({', '.join(parts)},))", namespace)  # noqa: S102
        self.lookup = namespace["lookup"]

    @staticmethod
    def applies(types: tuple) -> bool:
        return (
            len(types) > 1
            and np.ndarray in types
            and all(t is np.ndarray or t in NP_SCALAR_TYPES for t in types)
        )

    def remember(self, args: tuple, runner) -> None:
        self.table[
            tuple(part for a in args if type(a) is np.ndarray for part in (a.dtype, a.shape))
        ] = runner


def stable_key(value) -> bool:
    """Whether `value`'s trace-key part is fixed for the object's lifetime (mutating a list, a
    dict or a dataclass held in a default changes its key; a __tracing_type__ may depend on
    state). Tensors count as stable: they are graph inputs, never baked into the trace."""
    if tensor_type_of(value) is not None or isinstance(value, (bool, Variable) + PY_VALUE_TYPES):
        return True
    if getattr(type(value), "__tracing_type__", None) is not None:
        return False
    if isinstance(value, tuple):  # tuples and namedtuples: stable if their elements are
        return all(stable_key(v) for v in value)
    if isinstance(value, (list, dict)) or (
        dataclasses.is_dataclass(value) and not isinstance(value, type)
    ):
        return False
    return True  # keyed by identity, or by == on a hashable object


def replace_tensors(value, leaves):
    """`value` with each graph-input leaf (in trace-key order) replaced by next(leaves)."""
    return nest.map_structure(
        lambda leaf: next(leaves) if tensor_type_of(leaf) is not None else leaf,
        value,
        _has_tracing_type,
    )


def flat_tensors(value) -> list:
    """The graph inputs `value` holds, in trace-key order (ndarray subclasses as base arrays)."""
    return [
        as_graph_input(leaf)
        for leaf in nest.flatten(value, _has_tracing_type)
        if tensor_type_of(leaf) is not None
    ]


def _weak_leaf(value):
    if isinstance(value, (TensorSpec, bool, Variable) + PY_VALUE_TYPES) or _has_tracing_type(value):
        return value
    key = _leaf_key(value)
    return key[1] if isinstance(key, tuple) and key[:1] == ("id",) else value


def weaken(value):
    """A signature template with each object keyed by (weakly held) identity replaced by its
    weak key, so that a ConcreteFunction does not keep such arguments alive. Dataclasses are
    kept whole."""
    return nest.map_structure(
        _weak_leaf, value, lambda v: _has_tracing_type(v) or dataclasses.is_dataclass(v)
    )


def bind(signature, args, kwargs, name):
    """Canonical (args tuple, kwargs dict): positional parameters in order, defaults applied."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"{name}(): {exc}") from None
    bound.apply_defaults()
    return (tuple(bound.args), dict(bound.kwargs))


# -- input signatures ----------------------------------------------------------


def as_spec(spec):
    if isinstance(spec, TensorSpec):
        return spec
    if isinstance(spec, (list, tuple)):
        return type(spec)(as_spec(s) for s in spec)
    raise TypeError(f"input_signature entries must be staging.TensorSpec, got {spec!r}")


def conform(value, spec, name, fname):  # noqa: C901
    """`value` checked against `spec` (nested), converted to a NumPy value; TypeError names the argument."""
    if isinstance(spec, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(spec):
            raise TypeError(
                f"{fname}(): argument {name!r} must be a sequence of {len(spec)} tensors "
                f"matching input_signature, got {value!r:.60}"
            )
        return type(spec)(
            conform(v, s, f"{name}[{i}]", fname) for i, (v, s) in enumerate(zip(value, spec))
        )
    if isinstance(value, TensorSpec):
        t = value.type
        if not spec.type.is_supertype_of(t):
            raise TypeError(
                f"{fname}(): argument {name!r} is {t}, which input_signature "
                f"{spec.type} does not accept"
            )
        return TensorSpec(spec.shape, spec.dtype)
    if isinstance(value, Tensor):
        t = value.type
        if not spec.type.is_supertype_of(t):
            raise TypeError(
                f"{fname}(): argument {name!r} is {t}, which input_signature "
                f"{spec.type} does not accept"
            )
        return value
    reason = refusal(value)  # (a masked array, np.matrix ...: as without an input_signature)
    if reason is not None:
        raise TypeError(f"{fname}(): {reason.replace('{name}', f'argument {name!r}', 1)}")
    arr = np.asarray(value)
    if (
        not isinstance(value, (np.ndarray, np.generic)) and arr.dtype != spec.dtype
    ):  # Python numbers, lists
        if np.can_cast(arr.dtype, spec.dtype, "same_kind") or (
            arr.dtype.kind in "biu" and spec.dtype.kind in "fc"
        ):
            arr = arr.astype(spec.dtype)
    if arr.dtype != spec.dtype or not spec.type.accepts_shape(arr.shape):
        order, hint = _byte_order(arr.dtype)
        raise TypeError(
            f"{fname}(): argument {name!r} is {TensorType(arr.dtype, arr.shape)}{order}, which "
            f"input_signature {spec.type} does not accept{hint}"
        )
    if isinstance(value, (np.ndarray, np.generic)):
        return value  # already conforming: the caller's object, unchanged
    return arr[()] if arr.ndim == 0 else arr


def _byte_order(dtype) -> tuple[str, str]:
    """(' in big-endian byte order', and how to convert) for a dtype of the other byte order than
    the machine's, which input signatures (the machine's order) do not accept; else ('', '')."""
    if dtype.byteorder not in "<>" or dtype.isnative:
        return "", ""
    order = "big" if dtype.byteorder == ">" else "little"
    return (
        f" in {order}-endian byte order",
        " (it takes the machine's byte order: pass x.astype(x.dtype.newbyteorder('=')))",
    )


def signature_text(name, params, specs) -> str:
    """`f(x: f32[?], pair: (f64[], i64[]))`: an input_signature as a call's error shows it."""

    def text(spec):
        if isinstance(spec, (list, tuple)):
            inner = ", ".join(map(text, spec))
            return (
                f"[{inner}]"
                if isinstance(spec, list)
                else f"({inner}{',' if len(spec) == 1 else ''})"
            )
        return str(spec.type)

    names = [params[i] if i < len(params) else f"args[{i}]" for i in range(len(specs))]
    return f"{name}({', '.join(f'{n}: {text(s)}' for n, s in zip(names, specs))})"


def conform_arguments(args, specs, params, fname) -> tuple:
    """`args` checked against an input_signature `specs` (see conform); the TypeError names the
    caller's line and the argument, and shows the input_signature."""
    out = list(args)
    for i, spec in enumerate(specs):
        name = params[i] if i < len(params) else f"args[{i}]"
        try:
            out[i] = conform(args[i], spec, name, fname)
        except TypeError as exc:
            raise TypeError(
                f"{where()}{exc}; the input_signature is {signature_text(fname, params, specs)}"
            ) from None
    return tuple(out)
