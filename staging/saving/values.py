"""The tagged JSON encoding of the Python values a saved graph holds: attributes, literal
inputs, types, and the static parts of signatures and results.

Every kind of value has one explicit form (docs/saving.md lists them). JSON's own `null`,
`true` / `false`, integers and strings stand for None, bools, ints and strs; everything else is
an object whose "t" names its kind:

    {"t": "float", "v": "0.1"}                 a Python float (repr: exact, also nan / inf)
    {"t": "complex", "re": "1.0", "im": "2.0"}
    {"t": "tuple", "items": [...]}             also "list"
    {"t": "dict", "items": [[key, value], ...]}  keys: str, int, bool or None
    {"t": "slice", "start": ..., "stop": ..., "step": ...}
    {"t": "ellipsis"}
    {"t": "dtype", "name": "float64"}          a NumPy dtype (numbers and bool only)
    {"t": "scalar_type", "name": "float64"}    a NumPy scalar type (np.float64)
    {"t": "python_type", "name": "int"}        bool, int, float or complex
    {"t": "array", "entry": "arrays/0.npy", "scalar": false}  an ndarray or NumPy scalar
    {"t": "type", "type": TYPE}                a TensorType, UnionType or ListType (encode_type)
    {"t": "arg_slot"}                          the "next input" marker of print / assert
    {"t": "error_class", "name": "AssertionError"}
    {"t": "variable", "index": 0}              a Variable of the file's variable table
    {"t": "function", "index": 0}              a concrete function of the file's function table
    {"t": "tensor_spec", "type": TYPE, "name": null}  a TensorSpec (in signatures)
    {"t": "output"}                            a graph output's place in a result structure

Decoding accepts exactly these forms and nothing else; it never looks a name up anywhere but
in the fixed tables below.
"""

from __future__ import annotations

import numpy as np

from runtime import ListType, TensorType
from runtime.core_ops import ARG
from runtime.types import MAX_KINDS, NONE, STR, StrType, UnionType, is_str, union_of
from staging import errors
from staging.functions.trace_key import TensorSpec, WeakIdKey
from staging.state.variables import Variable

MAX_DEPTH = 64  # nesting of containers in one value
MAX_DIMS = 32  # NumPy's own limit is 64
MAX_ELEMENTS = 1 << 40  # elements of a declared shape
MAX_TEXT = 1 << 16  # characters of one string

# dtypes a saved file may name: numbers and bool (never object, void or datetime)
DTYPES = {
    name: np.dtype(name)
    for name in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    )
}
PYTHON_TYPES = {"bool": bool, "int": int, "float": float, "complex": complex}
# the error types an `assert` node may raise
ERROR_CLASSES = {"AssertionError": AssertionError}
ERROR_CLASSES.update(
    {
        name: getattr(errors, name)
        for name in dir(errors)
        if isinstance(getattr(errors, name), type) and issubclass(getattr(errors, name), Exception)
    }
)


class OutputSlot:
    """Marks where a graph output goes in a saved result structure."""

    def __repr__(self):
        return "<output>"


OUTPUT = OutputSlot()


class Refusal(Exception):
    """A value the format cannot hold; the message names its kind (made a SaveError by the caller)."""


def dtype_name(dtype) -> str:
    dtype = np.dtype(dtype)
    if (
        dtype.name not in DTYPES or dtype != DTYPES[dtype.name]
    ):  # also refuses non-native byte order
        raise Refusal(
            f"dtype {dtype!s} (only bool, integer, float and complex dtypes in native byte "
            f"order can be saved)"
        )
    return dtype.name


# -- encoding --------------------------------------------------------------------------------


class Encoder:
    """Encodes values; arrays, Variables and concrete functions go to the tables it is given:
    `arrays` (a list of ndarrays, entry i is `arrays/i.npy`), `variable_index(var)` and
    `function_index(fn)` (the callers' numbering)."""

    def __init__(self, arrays: list, variable_index, function_index):
        self.arrays = arrays
        self.variable_index = variable_index
        self.function_index = function_index

    def value(self, v, depth: int = 0):  # noqa: C901, PLR0912
        if depth > MAX_DEPTH:
            raise Refusal(f"a value nested more than {MAX_DEPTH} levels deep")
        if v is None or isinstance(v, (bool, str)) or type(v) is int:
            return v
        t = type(v)
        if t is float:
            return {"t": "float", "v": repr(v)}
        if t is complex:
            return {"t": "complex", "re": repr(v.real), "im": repr(v.imag)}
        if t in (tuple, list):
            return {"t": t.__name__, "items": [self.value(x, depth + 1) for x in v]}
        if t is dict:
            items = []
            for key, x in v.items():
                if not (key is None or isinstance(key, (bool, str)) or type(key) is int):
                    raise Refusal(f"a dict key of type {type(key).__name__}")
                items.append([key, self.value(x, depth + 1)])
            return {"t": "dict", "items": items}
        if t is slice:
            return {
                "t": "slice",
                "start": self.value(v.start, depth + 1),
                "stop": self.value(v.stop, depth + 1),
                "step": self.value(v.step, depth + 1),
            }
        if v is Ellipsis:
            return {"t": "ellipsis"}
        if isinstance(v, np.dtype):
            return {"t": "dtype", "name": dtype_name(v)}
        if isinstance(v, type) and issubclass(v, np.generic):
            return {"t": "scalar_type", "name": dtype_name(v)}
        if isinstance(v, type) and v in PYTHON_TYPES.values():
            return {"t": "python_type", "name": v.__name__}
        if isinstance(v, (np.ndarray, np.generic)):
            if type(v) is not np.ndarray and isinstance(v, np.ndarray):
                raise Refusal(f"an array of type {type(v).__qualname__}")
            dtype_name(v.dtype)
            self.arrays.append(np.array(v, order="C"))
            return {
                "t": "array",
                "entry": f"arrays/{len(self.arrays) - 1}.npy",
                "scalar": isinstance(v, np.generic),
            }
        if isinstance(v, (TensorType, ListType, UnionType, StrType)):
            return {"t": "type", "type": encode_type(v)}
        if v is ARG:
            return {"t": "arg_slot"}
        if isinstance(v, type) and ERROR_CLASSES.get(v.__name__) is v:
            return {"t": "error_class", "name": v.__name__}
        if isinstance(v, Variable):
            return {"t": "variable", "index": self.variable_index(v)}
        if isinstance(v, TensorSpec):
            if not isinstance(v.type, TensorType):
                raise Refusal(f"a TensorSpec of a {v.type}")
            return {"t": "tensor_spec", "type": encode_type(v.type), "name": v.name}
        if v is OUTPUT:
            return {"t": "output"}
        if is_graph_function(v):
            return {"t": "function", "index": self.function_index(v)}
        if isinstance(v, WeakIdKey):  # an argument a trace keys by identity
            v = v.ref()
            if v is None:
                raise Refusal("an object keyed by identity that is no longer alive")
        raise Refusal(describe(v))


def is_graph_function(v) -> bool:
    """A staged function a `call` node calls (a concrete function, traced or loaded): the file's
    function table holds its graph."""
    return hasattr(v, "graph") and hasattr(v, "_execute") and hasattr(v, "output_types")


def describe(v) -> str:
    """How a refusal names a value: its kind, and its name when it has one."""
    if callable(v) and hasattr(v, "__qualname__"):
        module = getattr(v, "__module__", None)
        return f"the Python object {module + '.' if module else ''}{v.__qualname__}"
    return f"a value of type {type(v).__module__}.{type(v).__qualname__}"


def encode_type(t) -> dict:
    if isinstance(t, ListType):
        return {"list": None if t.element is None else encode_type(t.element)}
    if isinstance(t, UnionType):  # a value of several kinds, by path
        return {"union": [encode_type(k) for k in t.alternatives]}
    if is_str(t):  # a Python str known when the graph runs
        return {"str": True}
    if t is NONE:  # None, one kind of a value that is None on some paths
        return {"none": True}
    if isinstance(t, TensorType):
        out = {"dtype": dtype_name(t.dtype), "shape": list(t.shape)}
        if t.weak:
            out["weak"] = True
        return out
    if type(t).__name__ == "GeneratorType":
        raise Refusal(
            f"a {t} argument: random generators cannot be saved (pass the random values in as arguments)"
        )
    raise Refusal(f"a value of type {t} (only arrays and lists of arrays)")


# -- decoding --------------------------------------------------------------------------------


class FormatError(Exception):
    """What is wrong with a part of the file (made a LoadError, naming where, by the caller)."""


def expect(cond, message: str) -> None:
    if not cond:
        raise FormatError(message)


def expect_dict(obj, what: str, keys: set, optional: set = frozenset()) -> dict:
    expect(type(obj) is dict, f"{what} must be an object, got {_kind(obj)}")
    missing = keys - obj.keys()
    extra = obj.keys() - keys - optional
    expect(not missing, f"{what} lacks {sorted(missing)}")
    expect(not extra, f"{what} has unknown fields {sorted(extra)}")
    return obj


def expect_list(obj, what: str, limit: int = 1 << 20) -> list:
    expect(type(obj) is list, f"{what} must be a list, got {_kind(obj)}")
    expect(len(obj) <= limit, f"{what} has {len(obj)} items, more than {limit}")
    return obj


def expect_int(obj, what: str, low: int = 0, high: int = 1 << 62) -> int:
    expect(
        type(obj) is int and low <= obj <= high,
        f"{what} must be an int in [{low}, {high}], got {obj!r:.40}",
    )
    return obj


def expect_str(obj, what: str) -> str:
    expect(
        type(obj) is str and len(obj) <= MAX_TEXT,
        f"{what} must be a string (at most {MAX_TEXT} characters), got {_kind(obj)}",
    )
    return obj


def _kind(obj) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        int: "an int",
        float: "a number",
        bool: "a bool",
        type(None): "null",
    }.get(type(obj), type(obj).__name__)


def _float(text, what: str) -> float:
    expect_str(text, what)
    expect(len(text) <= 40, f"{what} is not a float literal")
    try:
        return float(text)
    except ValueError:
        raise FormatError(f"{what} {text!r} is not a float literal") from None


def decode_dtype(name, what: str = "dtype") -> np.dtype:
    expect(
        type(name) is str and name in DTYPES, f"{what} {name!r:.40} is not one of {sorted(DTYPES)}"
    )
    return DTYPES[name]


def decode_shape(dims, what: str = "shape") -> tuple:
    expect_list(dims, what, MAX_DIMS)
    size = 1
    for d in dims:
        if d is not None:
            expect_int(d, f"a dim of {what}", 0, MAX_ELEMENTS)
            size *= max(d, 1)
            expect(
                size <= MAX_ELEMENTS, f"{what} {dims} declares more than {MAX_ELEMENTS} elements"
            )
    return tuple(dims)


def decode_type(obj, depth: int = 0):
    expect(depth <= MAX_DEPTH, "a type nested too deeply")
    expect(type(obj) is dict, f"a type must be an object, got {_kind(obj)}")
    if "list" in obj:
        expect_dict(obj, "a list type", {"list"})
        return ListType(None if obj["list"] is None else decode_type(obj["list"], depth + 1))
    if "union" in obj:
        return _decode_union(obj, depth)
    if "str" in obj:
        expect_dict(obj, "a str type", {"str"})
        expect(obj["str"] is True, "a str type is {'str': true}")
        return STR
    if "none" in obj:
        expect_dict(obj, "the None kind", {"none"})
        expect(obj["none"] is True, "the None kind is {'none': true}")
        return NONE
    expect_dict(obj, "a tensor type", {"dtype", "shape"}, {"weak"})
    weak = obj.get("weak", False)
    expect(type(weak) is bool, "the weak flag of a type must be a bool")
    try:
        return TensorType(decode_dtype(obj["dtype"]), decode_shape(obj["shape"]), weak=weak)
    except TypeError as exc:
        raise FormatError(f"bad type: {exc}") from None


def _decode_union(obj, depth: int):
    expect_dict(obj, "a union type", {"union"})
    alternatives = obj["union"]
    expect(
        type(alternatives) is list and 2 <= len(alternatives) <= MAX_KINDS,
        f"a union type lists 2 to {MAX_KINDS} kinds",
    )
    kinds = [decode_type(a, depth + 1) for a in alternatives]
    expect(
        all(type(k) is TensorType or k is NONE or k is STR for k in kinds),
        "the kinds of a union type are tensor types, None and str",
    )
    joined = union_of(kinds)
    expect(
        type(joined) is UnionType and joined.alternatives == tuple(kinds),
        "a union type lists distinct kinds in their canonical order",
    )
    return joined


class Decoder:
    """Decodes values; `array(entry)`, `variable(index)` and `function(index)` give the objects
    of the file's tables."""

    def __init__(self, array, variable, function):
        self.array = array
        self.variable = variable
        self.function = function

    def value(self, obj, depth: int = 0):
        expect(depth <= MAX_DEPTH, f"a value nested more than {MAX_DEPTH} levels deep")
        if obj is None or type(obj) in (bool, int):
            expect(type(obj) is not int or abs(obj) < (1 << 64), f"the int {obj} is out of range")
            return obj
        if type(obj) is str:
            return expect_str(obj, "a string value")
        expect(
            type(obj) is dict,
            f"a value must be null, a bool, an int, a string or an object, got {_kind(obj)}",
        )
        tag = obj.get("t")
        handler = _DECODERS.get(tag) if type(tag) is str else None
        expect(handler is not None, f"unknown value tag {tag!r:.40}")
        fields, optional = _FIELDS[tag]
        expect_dict(obj, f"a {tag!r} value", fields | {"t"}, optional)
        return handler(self, obj, depth + 1)

    def _items(self, obj, depth):
        return [self.value(x, depth) for x in expect_list(obj["items"], "items")]

    def _dict(self, obj, depth):
        out = {}
        for pair in expect_list(obj["items"], "dict items"):
            expect(type(pair) is list and len(pair) == 2, "a dict item must be a [key, value] pair")
            key = pair[0]
            expect(
                key is None or type(key) in (bool, int, str),
                f"a dict key must be simple, got {_kind(key)}",
            )
            out[key] = self.value(pair[1], depth)
        return out

    def _scalar_type(self, obj, depth):
        return decode_dtype(obj["name"], "scalar type").type

    def _python_type(self, obj, depth):
        expect(
            obj["name"] in PYTHON_TYPES,
            f"python type {obj['name']!r:.40} is not bool, int, float or complex",
        )
        return PYTHON_TYPES[obj["name"]]

    def _error_class(self, obj, depth):
        expect(
            obj["name"] in ERROR_CLASSES,
            f"error class {obj['name']!r:.40} is not one of {sorted(ERROR_CLASSES)}",
        )
        return ERROR_CLASSES[obj["name"]]

    def _array(self, obj, depth):
        expect(type(obj["scalar"]) is bool, "the scalar flag of an array must be a bool")
        arr = self.array(expect_str(obj["entry"], "an array entry"))
        if obj["scalar"]:
            expect(arr.ndim == 0, f"{obj['entry']} is not a scalar")
            return arr[()]
        return arr

    def _tensor_spec(self, obj, depth):
        t = decode_type(obj["type"])
        expect(isinstance(t, TensorType) and not t.weak, "a TensorSpec must have a tensor type")
        name = obj["name"]
        expect(name is None or type(name) is str, "a TensorSpec's name must be a string or null")
        return TensorSpec(t.shape, t.dtype, name)


_DECODERS = {
    "float": lambda self, o, d: _float(o["v"], "a float"),
    "complex": lambda self, o, d: complex(
        _float(o["re"], "a real part"), _float(o["im"], "an imaginary part")
    ),
    "tuple": lambda self, o, d: tuple(self._items(o, d)),
    "list": lambda self, o, d: self._items(o, d),
    "dict": Decoder._dict,
    "slice": lambda self, o, d: slice(
        self.value(o["start"], d), self.value(o["stop"], d), self.value(o["step"], d)
    ),
    "ellipsis": lambda self, o, d: Ellipsis,
    "dtype": lambda self, o, d: decode_dtype(o["name"]),
    "scalar_type": Decoder._scalar_type,
    "python_type": Decoder._python_type,
    "array": Decoder._array,
    "type": lambda self, o, d: decode_type(o["type"]),
    "arg_slot": lambda self, o, d: ARG,
    "error_class": Decoder._error_class,
    "variable": lambda self, o, d: self.variable(expect_int(o["index"], "a variable index")),
    "function": lambda self, o, d: self.function(expect_int(o["index"], "a function index")),
    "tensor_spec": Decoder._tensor_spec,
    "output": lambda self, o, d: OUTPUT,
}
_FIELDS = {
    "float": ({"v"}, set()),
    "complex": ({"re", "im"}, set()),
    "tuple": ({"items"}, set()),
    "list": ({"items"}, set()),
    "dict": ({"items"}, set()),
    "slice": ({"start", "stop", "step"}, set()),
    "ellipsis": (set(), set()),
    "dtype": ({"name"}, set()),
    "scalar_type": ({"name"}, set()),
    "python_type": ({"name"}, set()),
    "array": ({"entry", "scalar"}, set()),
    "type": ({"type"}, set()),
    "arg_slot": (set(), set()),
    "error_class": ({"name"}, set()),
    "variable": ({"index"}, set()),
    "function": ({"index"}, set()),
    "tensor_spec": ({"type", "name"}, set()),
    "output": (set(), set()),
}
assert _FIELDS.keys() == _DECODERS.keys()
