"""Variables: state that lives across calls, captured by reference in staged graphs."""

from __future__ import annotations

import threading

import numpy as np

from runtime import TensorType, broadcast_shapes
from runtime.core_ops import VARIABLE_LOCK, update_variable
from staging import errors
from staging.core.recording import current_graph, record
from staging.core.source_map import where
from staging.core.tensor import Tensor

_creation = threading.local()


class creation_scope:
    """While active, every new Variable is reported to `callback(variable)` (which may raise)."""

    def __init__(self, callback):
        self.callback = callback

    def __enter__(self):
        stack = getattr(_creation, "stack", None)
        if stack is None:
            stack = _creation.stack = []
        stack.append(self.callback)

    def __exit__(self, *exc):
        _creation.stack.pop()
        return False


def _notify_creation(var):
    stack = getattr(_creation, "stack", None)
    if stack:
        stack[-1](var)


class Variable:
    """A mutable value with a fixed dtype and shape.

    Eagerly it is just a NumPy value. In a trace, reads and assignments are
    recorded as stateful nodes that run in program order on every call.
    """

    _counter = 0

    def __init__(self, initial_value, dtype=None, name=None):
        if callable(initial_value):
            initial_value = initial_value()
        if isinstance(initial_value, Tensor):
            raise errors.SymbolicValueError(
                f"{where()}a Variable's initial value must be concrete, but it depends on a traced "
                f"argument {initial_value._describe()}; initialize it from a NumPy value or a Python "
                f"number and assign() the traced value afterwards"
            )
        value = np.array(initial_value, dtype=dtype)
        self._value = value[()] if value.ndim == 0 else value
        self._lock = VARIABLE_LOCK  # shared by every Variable (runtime.core_ops.VARIABLE_LOCK)
        self.dtype = value.dtype
        self.shape = value.shape
        self.name = name or "Variable"
        _notify_creation(self)

    # -- reading ------------------------------------------------------------
    def _staged_value(self):
        return record("read_variable", [], {"var": self})

    def read_value(self):
        if current_graph() is not None:
            return self._staged_value()
        return self._copy()

    value = read_value

    def _copy(self):
        v = self._value
        return v.copy() if isinstance(v, np.ndarray) else v

    def numpy(self):
        if current_graph() is not None:
            raise errors.SymbolicValueError(
                f"{where()}Variable {self.name!r}.numpy() inside a staged function has no value while "
                f"tracing; use the Variable (or .read_value()) in computations instead"
            )
        return self._copy()

    @property
    def ndim(self):
        return len(self.shape)

    # -- writing ------------------------------------------------------------
    def _check(self, value, what):  # noqa: C901
        if isinstance(value, Tensor):
            if value.dtype != self.dtype and np.can_cast(value.dtype, self.dtype, "same_kind"):
                value = record("astype", [value], {"dtype": self.dtype})  # as eagerly (same_kind)
            if value.dtype != self.dtype:
                raise TypeError(
                    f"{where()}Variable {self.name!r} has dtype {self.dtype.name}; "
                    f"{what}() got a {value.dtype.name} tensor. Cast it with "
                    f".astype(np.{self.dtype.name})"
                )
            shape = tuple(value.static_shape)
            try:
                fits = broadcast_shapes(shape, self.shape) == tuple(self.shape)
            except ValueError:
                fits = False
            if not fits:
                raise ValueError(
                    f"{where()}Variable {self.name!r} has shape {self.shape}; {what}() got "
                    f"a tensor of shape {value.type}"
                )
            if shape != tuple(self.shape):  # broadcast (and check unknown dims) when the graph runs
                value = record("broadcast_to", [value], {"shape": tuple(self.shape)})
            return value
        arr = np.asarray(value)
        try:
            fits = np.broadcast_shapes(arr.shape, self.shape) == self.shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(
                f"{where()}Variable {self.name!r} has shape {self.shape}; {what}() got "
                f"a value of shape {arr.shape}"
            )
        if isinstance(value, (int, float, bool, complex)) or np.can_cast(
            arr.dtype, self.dtype, "same_kind"
        ):
            arr = arr.astype(self.dtype)
        else:
            raise TypeError(
                f"{where()}Variable {self.name!r} has dtype {self.dtype.name}; {what}() got "
                f"{arr.dtype.name}"
            )
        if arr.shape != self.shape:
            arr = np.broadcast_to(arr, self.shape).copy()
        return arr[()] if arr.ndim == 0 else arr

    def _assign(self, value, mode, what):
        value = self._check(value, what)
        if current_graph() is not None:
            record("assign_variable", [value], {"var": self, "mode": mode})
            return self
        update_variable(self, mode, value)
        return self

    def assign(self, value):
        return self._assign(value, "set", "assign")

    def assign_add(self, delta):
        return self._assign(delta, "add", "assign_add")

    def assign_sub(self, delta):
        return self._assign(delta, "sub", "assign_sub")

    # -- use as a value -------------------------------------------------------
    def __reduce__(self):
        """A Variable pickles as its value, dtype and name: unpickled, it is a new Variable (a
        copy: assignments in another process do not reach this one)."""
        return Variable, (self._copy(), self.dtype, self.name)

    def __graph_repr__(self):
        return self.name

    def __repr__(self):
        if current_graph() is not None:
            return f"<staging.Variable {self.name!r} {TensorType(self.dtype, self.shape)}>"
        return f"<staging.Variable {self.name!r} {TensorType(self.dtype, self.shape)} value={self._value!r}>"

    def __array__(self, dtype=None, copy=None):
        if current_graph() is not None:
            raise errors.SymbolicValueError(
                f"{where()}Variable {self.name!r} converted to a NumPy array while tracing; use it in "
                f"NumPy calls directly (np.sum(v)) or call v.read_value()"
            )
        return np.array(self._value, dtype=dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = tuple(x.read_value() if isinstance(x, Variable) else x for x in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        def conv(x):
            if isinstance(x, Variable):
                return x.read_value()
            if isinstance(x, (list, tuple)):
                return type(x)(conv(i) for i in x)
            return x

        return func(*conv(args), **{k: conv(v) for k, v in kwargs.items()})

    def __bool__(self):
        return bool(self.read_value())

    def __int__(self):
        return int(self.read_value())

    def __float__(self):
        return float(self.read_value())

    def __index__(self):
        return self.read_value().__index__()

    def __len__(self):
        return len(self.read_value())

    def __getitem__(self, key):
        return self.read_value()[key]

    def __hash__(self):
        return id(self)

    def __format__(self, spec):
        return format(self.read_value(), spec)


def _forward(name):
    def method(self, *args):
        return getattr(self.read_value(), name)(*args)

    method.__name__ = name
    return method


for _name in (
    "add",
    "sub",
    "mul",
    "truediv",
    "floordiv",
    "mod",
    "pow",
    "matmul",
    "and",
    "or",
    "xor",
    "lshift",
    "rshift",
):
    setattr(Variable, f"__{_name}__", _forward(f"__{_name}__"))
    setattr(Variable, f"__r{_name}__", _forward(f"__r{_name}__"))
for _name in ("lt", "le", "eq", "ne", "gt", "ge", "neg", "pos", "abs", "invert"):
    setattr(Variable, f"__{_name}__", _forward(f"__{_name}__"))
for _name in ("sum", "prod", "mean", "max", "min", "reshape", "astype", "transpose", "cumsum"):
    setattr(Variable, _name, _forward(_name))
Variable.__hash__ = lambda self: id(self)
