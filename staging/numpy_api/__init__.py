"""The NumPy frontend of symbolic tensors: ufuncs, NumPy functions, methods and indexing become
op records. Importing it installs Tensor's operators, indexing, methods and NumPy protocols.

One module per family (reductions, shapes, creation, linalg, fft, arrays, statistics, selection,
indexing, methods, ufuncs); each
family module ends with the table of the NumPy functions it stages.
"""

from __future__ import annotations

import numpy as np

from runtime import TensorType
from runtime.ops import UFUNCS
from runtime.ops.elementwise import PYTHON_OPERATORS, complex_scalars, python_operands
from runtime.registry import kind_combinations
from staging import errors
from staging.core import strings
from staging.core.recording import record
from staging.core.source_map import where
from staging.core.tensor import Tensor, has_staged_value, staged_value
from staging.kinds import decisions as kinds
from staging.kinds import forms as array0d
from staging.kinds.undefined import MaybeMissing, MaybeUndefined
from staging.numpy_api import (
    arrays,
    creation,
    fft,
    linalg,
    python_calls,
    python_values,
    reductions,
    selection,
    shapes,
    statistics,
)
from staging.numpy_api._common import _as_input, _unsupported, numpy_name
from staging.numpy_api.indexing import getitem, setitem, tensor_setitem
from staging.numpy_api.methods import call_method
from staging.numpy_api.ufuncs import apply_ufunc, ufunc_into
from staging.state import containers

__all__ = [
    "apply_function",
    "apply_ufunc",
    "call_method",
    "getitem",
    "has_function",
    "setitem",
    "supported_functions",
]

_FUNCTIONS = {
    **reductions.FUNCTIONS,
    **shapes.FUNCTIONS,
    **linalg.FUNCTIONS,
    **creation.FUNCTIONS,
    **arrays.FUNCTIONS,
    **fft.FUNCTIONS,
    **statistics.FUNCTIONS,
    **selection.FUNCTIONS,
}


def has_function(func) -> bool:
    """True when `func` (a NumPy function) can be staged by apply_function."""
    return func in _FUNCTIONS


def supported_functions() -> list[str]:
    """Names (np.xxx) of the NumPy functions apply_function stages."""
    return sorted(
        {
            numpy_name(f) if numpy_name(f).startswith("np.") else f"np.{f.__name__}"
            for f in _FUNCTIONS
        }
    )


def apply_function(func, args, kwargs):
    """`func(*args, **kwargs)` for a NumPy function with symbolic arguments (Tensor.__array_function__)."""
    handler = _FUNCTIONS.get(func)
    if handler is None:
        raise _unsupported(f"{numpy_name(func)} (no staged op)")
    return handler(*args, **kwargs)


# --- installing the frontend on Tensor ---------------------------------------------------------


def _read_values(inputs):
    """Operands with each Variable replaced by its staged read (a Tensor)."""
    if not any(has_staged_value(x) for x in inputs):
        return inputs
    return tuple(staged_value(x) for x in inputs)


def _binary(ufunc, reflected=False):
    # An operand that is a Tensor or a Python float or int goes straight to `record`, as
    # apply_ufunc would send it there (a long program is mostly such operators).
    name = getattr(ufunc, "__name__", None)
    complex_operator = name in _COMPLEX_OPERATORS
    if reflected:

        def method(self, other):
            kind = type(other)
            if complex_operator and kind is complex:
                other = complex_operand(other, self)
                kind = type(other)
            if (kind is Tensor or kind is float or kind is int) and UFUNCS.get(name) is ufunc:
                return record(name, [other, self])
            return apply_ufunc(ufunc, "__call__", _read_values((other, self)), {})
    else:

        def method(self, other):
            kind = type(other)
            if complex_operator and kinds.is_python_number(self.type):
                self = complex_operand(self, other)
            if (kind is Tensor or kind is float or kind is int) and UFUNCS.get(name) is ufunc:
                return record(name, [self, other])
            return apply_ufunc(ufunc, "__call__", _read_values((self, other)), {})

    return _scalar_product(method, reflected) if name == "multiply" else method


# Python's operators that complex's own method computes on a complex and a float (a np.float64).
_COMPLEX_OPERATORS = frozenset(
    ("add", "subtract", "multiply", "true_divide", "divide", "equal", "not_equal")
)


def complex_operand(left, right):
    """`left op right` (Python's operator) of a Python complex `left` and a float64 0-d `right`:
    complex's own operator takes a np.float64, a float subclass (its results are Python's: a
    complex, a bool), but not a 0-d array (NumPy's: complex128, np.bool). `left` as NumPy's
    complex128 where `right` is a 0-d array when the graph runs (staging.kinds.forms)."""
    if not (type(right) is Tensor and right.type == _FLOAT64_SCALAR and _python_complex(left)):
        return left
    kind = array0d.kind_of(right)
    if kind == array0d.SCALAR:
        return left
    if kind == array0d.MIXED:
        raise errors.BranchMismatchError(
            f"{where()}a Python complex meets a float64 value that is {kind}: Python's complex takes the "
            f"scalar (a Python result) and NumPy the array (a NumPy result); make it one or the other "
            f"(np.float64(v) or np.asarray(v))"
        )
    return (
        np.complex128(left) if type(left) is complex else record("astype", [left], {"dtype": _C128})
    )


def _repeats_a_list(count) -> bool:
    """Whether `[...] * count` is list repetition on every path: a Python int or bool, or a
    NumPy integer scalar (not a 0-d array: NumPy's `*` takes that, and a NumPy bool raises)."""
    for k in kinds.kinds(count.type):
        if type(k) is not TensorType or k.shape != ():
            return False
        if k.weak:
            if k.python_type not in (int, bool):
                return False
        elif k.dtype.kind not in "iu":
            return False
    weak = all(k.weak for k in kinds.kinds(count.type))
    return weak or array0d.kind_of(count) == array0d.SCALAR


def _sequence_repetition(seq, count):
    """`[0] * n` or `n * [0]` with a count known only when the graph runs: a staged list
    (staging.state.containers) repeated when the graph runs. Other sequences and counts give
    NotImplemented: Python falls back to the sequence's own `*`, which asks __index__ (refused,
    naming the line)."""
    if type(seq) is not list or not _repeats_a_list(count):
        return NotImplemented
    return containers.promote(seq) * count


def _scalar_product(method, reflected):
    """`a * b` on complex scalars: the `mul` op (Python's operator, which on NumPy's complex
    scalars is not np.multiply's loop; see runtime.ops.elementwise); on anything else `method`."""

    def product(self, other):
        if isinstance(other, str):  # `"-" * n`: str's repetition
            return strings.repeat(other, self, text_first=reflected)
        if isinstance(other, (list, tuple)) and self.type.shape == ():
            return _sequence_repetition(other, self)
        if kinds.is_union(self.type) or kinds.is_union(getattr(other, "type", None)):
            # (a kind that depends on the path: Python's operator itself, on every path)
            left, right = _read_values((other, self) if reflected else (self, other))
            return record("mul", [_as_input(left), _as_input(right)])
        if self.type.shape == () and (
            type(other) in _PY_NUMBERS
            or isinstance(other, (Tensor, np.generic))
            and np.ndim(other) == 0
        ):
            left, right = _read_values((other, self) if reflected else (self, other))
            operands = [_as_input(complex_operand(left, right)), _as_input(right)]
            if complex_scalars([x.type if isinstance(x, Tensor) else x for x in operands]):
                return record("mul", operands)
        return method(self, other)

    return product


def _power_operator(reflected):
    """`x ** y`: the `pow` op (Python's operator, see runtime.ops.elementwise), not np.power."""

    def method(self, other):
        left, right = _read_values((other, self) if reflected else (self, other))
        if (
            type(left) is Tensor
            and any(k.dtype == np.bool_ and not k.weak for k in kinds.kinds(left.type))
            and type(right) is int
            and right == 2
        ):  # ndarray.__pow__ squares: int8 for a bool array, int64 for np.bool_
            if kinds.is_union(left.type):
                raise errors.BranchMismatchError(
                    f"{where()}`** 2` of {kinds.name_of(left)}, which is {kinds.describe(left.type)} "
                    f"by path: NumPy squares a bool array (int8) and raises a bool scalar to a "
                    f"power (int64); give it one type on every path"
                )
            kind = array0d.kind_of(left)
            if kind == array0d.MIXED:
                raise errors.BranchMismatchError(
                    f"{where()}`** 2` of a bool value that is {kind}: NumPy squares the array (int8) and "
                    f"raises the scalar to a power (int64); make it one or the other"
                )
            if kind == array0d.ARRAY:
                return record("square", [left])
        return record("pow", [_as_input(complex_operand(left, right)), _as_input(right)])

    return method


def _in_place(ufunc, symbol):
    """`x op= y`: NumPy writes the result into x (same-kind casting to x's dtype). A 0-d tensor
    that is a NumPy scalar when the graph runs (staging.kinds.forms) is immutable: Python falls back
    to `x = x op y` (NotImplemented)."""

    def method(self, other):
        target = kinds.in_place_target(self, f"`{{name}} {symbol}= ...`")
        if target == kinds.REBIND or (
            target == kinds.ZERO_D
            and self._alias is None
            and array0d.written_as_array(self, f"`{{name}} {symbol}= ...`", symbol) is False
        ):
            return NotImplemented
        return ufunc_into(ufunc, self, _read_values((self, other)), f"`x {symbol}= y`")

    return method


def _abs(self):
    """abs(x): np.absolute, except on a complex NumPy scalar, whose own abs() may differ from the
    ufunc in the last bit (the `abs` op)."""
    t = self.type
    if kinds.is_union(t) or t.dtype.kind == "c" and t.shape == () and not t.weak:
        return record("abs", [self])  # (Python's builtin, whatever the value is on the path)
    return apply_ufunc(np.absolute, "__call__", (self,), {})


def _unary(ufunc):
    def method(self):
        return apply_ufunc(ufunc, "__call__", (self,), {})

    return method


def _method(name):
    def method(self, *args, **kwargs):
        kinds.require_attribute(self, name)  # (a Python number at run time has none)
        return call_method(name, self, args, kwargs)

    method.__name__ = name
    return method


def _static_shape(self) -> tuple:
    """The shape with None for unknown dims, as eager Python reads `.shape` (staging.kinds)."""
    t = self._value.type
    if type(t) is TensorType and not t.weak:
        return t.shape
    return kinds.one_answer(self, "`.shape`", kinds.attribute_of_kind("shape", lambda k: k.shape))


def _shape(self) -> tuple:
    """Known dims as ints; unknown dims as symbolic int64 scalars."""
    return tuple(
        d if d is not None else record("dim", [self], {"axis": i})
        for i, d in enumerate(_static_shape(self))
    )


def _size(self):
    if type(self._value.type) is not TensorType or self._value.type.weak:
        kinds.require_attribute(self, "size")
    total = 1
    for d in _shape(self):
        total = total * d
    return total


def _explicit_call(ufunc, inputs):
    """`np.add(a, b)` (an explicit ufunc call, not `a + b`): NumPy's arithmetic, also where every
    operand is a Python number, which NumPy makes an array of its default dtype first
    (`np.multiply(True, 3)` is np.int64(3), where `True * 3` is the Python int 3), and where a
    Python complex meets a float64 scalar (complex's own operator would take it). The op of
    the same name is Python's operator on such operands (runtime.ops.elementwise); there, the
    call is the `ufunc_call` op: the ufunc itself, on every path."""
    name = getattr(ufunc, "__name__", None)
    if name not in PYTHON_OPERATORS or UFUNCS.get(name) is not ufunc:
        return None
    types = [x.type if isinstance(x, Tensor) else x for x in inputs]
    if not any(type(t) in _PY_NUMBERS or kinds.may_be_python_number(t) for t in types):
        return None
    if not any(python_operands(name, combination) for combination in kind_combinations(types)):
        return None
    if ufunc.nout != 1:
        raise _unsupported(
            f"np.{name} of operands that may be Python numbers",
            f"convert them first, e.g. np.{name}(np.asarray(a), b)",
        )
    return record("ufunc_call", [_as_input(x) for x in inputs], {"ufunc": name})


_FLOAT64_SCALAR = TensorType(np.float64, ())
_C128 = np.dtype(np.complex128)


def _python_complex(x) -> bool:
    return type(x) is complex or (
        isinstance(x, Tensor) and kinds.is_python_number(x.type) and x.type.python_type is complex
    )


_PY_NUMBERS = (bool, int, float, complex)
_UNSET = (MaybeUndefined, MaybeMissing)


def _install():  # noqa: C901
    def array_ufunc(self, ufunc, method, *inputs, **kwargs):
        if any(type(x) in _UNSET for x in inputs):
            return NotImplemented  # MaybeUndefined.__array_ufunc__ reads it (a staged check), then calls again
        inputs = _read_values(inputs)
        if method == "__call__" and not kwargs:
            called = _explicit_call(ufunc, inputs)
            if called is not None:
                return called
        return apply_ufunc(ufunc, method, inputs, kwargs)

    def array_function(self, func, types, args, kwargs):
        if any(t in _UNSET for t in types):
            return NotImplemented  # as for ufuncs
        return apply_function(func, args, kwargs)

    Tensor.__array_ufunc__ = array_ufunc
    Tensor.__array_function__ = array_function
    Tensor.__getitem__ = getitem
    Tensor.__setitem__ = tensor_setitem
    Tensor.__iter__ = python_values.iterate
    Tensor.tolist = python_values.tolist
    Tensor.item = python_values.item
    Tensor.shape = property(_shape)
    Tensor.size = property(_size)
    Tensor.T = property(lambda self: call_method("transpose", self, (), {}))
    Tensor.real = property(lambda self: arrays.real(self))
    Tensor.imag = property(lambda self: arrays.imag(self))
    symbols = {
        "add": "+",
        "sub": "-",
        "mul": "*",
        "truediv": "/",
        "floordiv": "//",
        "mod": "%",
        "pow": "**",
        "matmul": "@",
        "and": "&",
        "or": "|",
        "xor": "^",
        "lshift": "<<",
        "rshift": ">>",
    }
    binary = {
        "add": np.add,
        "sub": np.subtract,
        "mul": np.multiply,
        "truediv": np.true_divide,
        "floordiv": np.floor_divide,
        "mod": np.remainder,
        "matmul": np.matmul,
        "and": np.bitwise_and,
        "or": np.bitwise_or,
        "xor": np.bitwise_xor,
        "lshift": np.left_shift,
        "rshift": np.right_shift,
        "divmod": np.divmod,
    }
    for name, ufunc in binary.items():
        setattr(Tensor, f"__{name}__", _binary(ufunc))
        setattr(Tensor, f"__r{name}__", _binary(ufunc, reflected=True))
        if name in symbols:
            setattr(Tensor, f"__i{name}__", _in_place(ufunc, symbols[name]))
    Tensor.__pow__ = _power_operator(reflected=False)
    Tensor.__rpow__ = _power_operator(reflected=True)
    Tensor.__ipow__ = _in_place(np.power, "**")
    for name, ufunc in {
        "lt": np.less,
        "le": np.less_equal,
        "eq": np.equal,
        "ne": np.not_equal,
        "gt": np.greater,
        "ge": np.greater_equal,
    }.items():
        setattr(Tensor, f"__{name}__", _binary(ufunc))
    for name, ufunc in {
        "neg": np.negative,
        "pos": np.positive,
        "abs": np.absolute,
        "invert": np.invert,
    }.items():
        setattr(Tensor, f"__{name}__", _unary(ufunc))
    Tensor.__abs__ = _abs
    python_calls.install(Tensor)
    for name in (
        "sum",
        "prod",
        "mean",
        "max",
        "min",
        "argmax",
        "argmin",
        "any",
        "all",
        "std",
        "var",
        "reshape",
        "transpose",
        "cumsum",
        "cumprod",
        "sort",
        "argsort",
        "clip",
        "squeeze",
        "flatten",
        "ravel",
        "dot",
        "take",
        "copy",
        "round",
        "conj",
        "nonzero",
        "repeat",
        "swapaxes",
        "trace",
        "diagonal",
        "fill",
        "astype",
    ):
        setattr(Tensor, name, _method(name))


_install()
