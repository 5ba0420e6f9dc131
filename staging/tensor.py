"""The symbolic tensor: a graph value with static dtype and shape, alive only while tracing."""

from __future__ import annotations

import numpy as np

from runtime import TensorType

from . import errors
from .graph_building import _where, leaked_error, record


def _numpy_api():
    from . import numpy_api
    return numpy_api


_HOW_TO = ("inside a staged function write the control flow with autograph (the default of "
           "staging.function) or explicitly with staging.cond / staging.while_loop")


class Tensor:
    """A symbolic value recorded in a graph being traced.

    Operators, indexing, the common ndarray methods and NumPy functions
    (through `__array_ufunc__` / `__array_function__`) record nodes instead of
    computing. Python needs concrete values for `bool()`, `int()`, `len()` and
    iteration: those raise SymbolicValueError.
    """

    __slots__ = ("_graph", "_value", "__weakref__")
    __array_priority__ = 1000

    def __init__(self, graph, value):
        self._graph = graph
        self._value = value

    # -- static information --------------------------------------------
    @property
    def type(self) -> TensorType:
        return self._value.type

    @property
    def dtype(self) -> np.dtype:
        return self._value.type.dtype

    @property
    def ndim(self) -> int:
        return len(self._value.type.shape)

    @property
    def static_shape(self) -> tuple:
        """The shape with `None` for dims unknown until run time."""
        return self._value.type.shape

    @property
    def shape(self) -> tuple:
        """Known dims as ints; unknown dims as symbolic int64 scalars."""
        return tuple(d if d is not None else record("dim", [self], {"axis": i})
                     for i, d in enumerate(self._value.type.shape))

    @property
    def size(self):
        total = 1
        for d in self.shape:
            total = total * d
        return total

    @property
    def T(self):
        return _numpy_api().call_method("transpose", self, (), {})

    @property
    def graph(self):
        return self._graph.graph

    def _describe(self) -> str:
        return f"<{self._value.type}>"

    def __repr__(self):
        return f"<staging.Tensor {self._value.type} in trace of {self._graph.function_name!r}>"

    __str__ = __repr__

    def __format__(self, spec):
        return repr(self)

    # -- things Python needs concrete values for -------------------------
    def _symbolic_error(self, what: str, detail: str = "") -> errors.SymbolicValueError:
        if self._graph.closed:
            return leaked_error(self)
        return errors.SymbolicValueError(
            f"{_where()}{what} of a symbolic tensor {self._describe()} needs its value, which is only "
            f"known when the staged graph runs{detail}; {_HOW_TO}")

    def __bool__(self):
        raise self._symbolic_error("using the truth value (`if`, `while`, `and`, `or`, `not`, bool())")

    def __index__(self):
        raise self._symbolic_error("using as a Python int (index, range(), int())")

    def __int__(self):
        raise self._symbolic_error("int()")

    def __float__(self):
        raise self._symbolic_error("float()")

    def __complex__(self):
        raise self._symbolic_error("complex()")

    def __len__(self):
        shape = self._value.type.shape
        if not shape:
            raise TypeError(f"{_where()}len() of a 0-d tensor {self._describe()}")
        if shape[0] is None:
            raise self._symbolic_error("len()", " (its first dim is unknown); use x.shape[0] for a symbolic length")
        return shape[0]

    def __iter__(self):
        raise self._symbolic_error(
            "iterating", " (outside converted code a Python loop over it cannot be staged); "
            "index it with x[i], or")

    def __contains__(self, item):
        raise self._symbolic_error("`in`")

    def __setitem__(self, key, value):
        raise errors.UnsupportedOpError(
            f"{_where()}symbolic tensors are immutable: item assignment `x[...] = v` cannot be staged; "
            f"build a new value instead (np.where(mask, v, x), np.concatenate, ...)")

    def __hash__(self):
        return id(self)

    def __array__(self, dtype=None, copy=None):
        raise self._symbolic_error("converting to a NumPy array (np.asarray / np.array)")

    def item(self, *args):
        raise self._symbolic_error(".item()")

    def tolist(self):
        raise self._symbolic_error(".tolist()")

    def numpy(self):
        raise self._symbolic_error(".numpy()")

    # -- NumPy protocols -------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _numpy_api().apply_ufunc(ufunc, method, _read_variables(inputs), kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _numpy_api().apply_function(func, args, kwargs)

    def __getitem__(self, key):
        return _numpy_api().getitem(self, key)

    def astype(self, dtype, *args, **kwargs):
        return _numpy_api().call_method("astype", self, (dtype,) + args, kwargs)


def _read_variables(inputs):
    """Operands with each Variable replaced by its staged read (a Tensor)."""
    if not any(hasattr(x, "_staged_value") for x in inputs):
        return inputs
    return tuple(x._staged_value() if hasattr(x, "_staged_value") else x for x in inputs)


def _binary(ufunc, reflected=False):
    if reflected:
        def method(self, other):
            return _numpy_api().apply_ufunc(ufunc, "__call__", _read_variables((other, self)), {})
    else:
        def method(self, other):
            return _numpy_api().apply_ufunc(ufunc, "__call__", _read_variables((self, other)), {})
    return method


def _unary(ufunc):
    def method(self):
        return _numpy_api().apply_ufunc(ufunc, "__call__", (self,), {})
    return method


def _method(name):
    def method(self, *args, **kwargs):
        return _numpy_api().call_method(name, self, args, kwargs)
    method.__name__ = name
    return method


_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
    "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power, "matmul": np.matmul,
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    "lshift": np.left_shift, "rshift": np.right_shift, "divmod": np.divmod,
}
for _name, _uf in _BINARY.items():
    setattr(Tensor, f"__{_name}__", _binary(_uf))
    setattr(Tensor, f"__r{_name}__", _binary(_uf, reflected=True))
for _name, _uf in {"lt": np.less, "le": np.less_equal, "eq": np.equal, "ne": np.not_equal,
                   "gt": np.greater, "ge": np.greater_equal}.items():
    setattr(Tensor, f"__{_name}__", _binary(_uf))
for _name, _uf in {"neg": np.negative, "pos": np.positive, "abs": np.absolute, "invert": np.invert}.items():
    setattr(Tensor, f"__{_name}__", _unary(_uf))
for _name in ("sum", "prod", "mean", "max", "min", "argmax", "argmin", "any", "all", "std", "var",
              "reshape", "transpose", "cumsum", "cumprod", "sort", "argsort", "clip", "squeeze",
              "flatten", "ravel", "dot", "take", "copy", "round", "conj", "nonzero", "repeat",
              "swapaxes", "trace", "diagonal", "fill"):
    setattr(Tensor, _name, _method(_name))


def is_symbolic(x) -> bool:
    """True for a symbolic tensor (only exists while tracing)."""
    return isinstance(x, Tensor)
