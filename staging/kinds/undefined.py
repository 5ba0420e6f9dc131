"""Values that may be unset at run time: a name assigned on only some paths of staged control
flow (MaybeUndefined), an attribute set on only some paths (MaybeMissing).

Each carries the value it holds when set (a placeholder of the same type otherwise) and a
`defined` flag (a symbolic or concrete bool); a read stages the check that raises what Python
raises at that line when it is unset."""

from __future__ import annotations

import operator

import numpy as np

from runtime import ListType
from runtime.types import is_str, kinds
from staging import errors
from staging.core.recording import check
from staging.core.source_map import where as _where
from staging.core.tensor import is_symbolic


def _unbound_message(name, reason) -> str:
    reason = reason or (
        "it is assigned on only some paths of a staged `if` or loop before this "
        "point, and the path taken at run time does not assign it"
    )
    return (
        f"{_where()}cannot access local variable {name!r} where it is not associated with a "
        f"value ({reason})"
    )


def _checked(op):
    def method(self, *args):
        return op(self.read(), *args)

    return method


def _checked_reflected(op):
    def method(self, other):
        return op(other, self.read())

    return method


class MaybeUndefined:
    """A name assigned on only some paths of a staged `if` or loop: `value` is what it holds
    when it is assigned (a placeholder of the same type otherwise), `defined` a bool (symbolic
    or concrete) telling at run time whether it is. Each read stages the check, which raises
    UnboundLocalError (an UndefinedNameError) at the reading line when the name is unassigned,
    as Python would (also as an argument to a NumPy function); a use that cannot be checked
    (iteration, len(), formatting) is refused while tracing."""

    __slots__ = ("name", "value", "defined", "reason")
    error = errors.UndefinedNameError  # what the run-time check raises

    def __init__(self, name, value, defined, reason=None):
        self.name, self.value, self.defined, self.reason = name, value, defined, reason

    def _message(self) -> str:
        return _unbound_message(self.name, self.reason)

    def read(self):
        defined = self.defined
        if defined is True or (not is_symbolic(defined) and bool(defined)):
            return self.value
        check(defined, self._message(), self.error)
        return self.value

    def _fail(self, *args, **kwargs):
        raise errors.UndefinedNameError(
            f"{_where()}'{self.name}' is used here before it is assigned on every path (it is "
            f"assigned in only some branches or loop iterations of staged control flow before "
            f"this point), in a way that cannot be checked at run time; assign it on every path"
        )

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return getattr(self.read(), attr)

    def __repr__(self):
        return f"MaybeUndefined({self.name!r})"

    def __bool__(self):
        return bool(self.read())

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        # np.multiply(v, 1): each unset-maybe input is read (its check staged), then the ufunc
        # runs on the values, as `v * 1` does through the operators.
        return getattr(ufunc, method)(*read_all(inputs), **read_all(kwargs))

    def __array_function__(self, func, types, args, kwargs):
        return func(*read_all(args), **read_all(kwargs))

    __hash__ = object.__hash__
    __iter__ = __len__ = __setitem__ = __array__ = __format__ = __str__ = __call__ = _fail


for _op in (
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
    _f = getattr(operator, _op + "_" if _op in ("and", "or") else _op)
    setattr(MaybeUndefined, f"__{_op}__", _checked(_f))
    setattr(MaybeUndefined, f"__r{_op}__", _checked_reflected(_f))
for _op in ("lt", "le", "gt", "ge", "eq", "ne", "neg", "pos", "abs", "invert", "getitem", "index"):
    setattr(MaybeUndefined, f"__{_op}__", _checked(getattr(operator, _op)))
MaybeUndefined.__int__ = _checked(int)
MaybeUndefined.__float__ = _checked(float)


class SameAsOtherPath:
    """The placeholder of an object (not tensors or numbers: a Box, a function) that one path of a
    staged `if` leaves unset: the `if` passes on the other path's object, whichever object that
    is when the branches are traced again (the name's defined flag keeps this path from
    reading it)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def loop_placeholder(t):
    """The value before a staged loop of a name the loop first assigns, of type `t` (a zero:
    converted code never reads it)."""
    if isinstance(t, ListType):
        raise errors.LoopVariableError(
            f"{_where()}a list first created inside a staged loop cannot be "
            f"carried out of it; create it before the loop"
        )
    t = kinds(t)[0]  # (any of its kinds: the placeholder is never read)
    if is_str(t):
        return ""
    if t.weak:
        return t.python_type(0)
    zero = np.zeros(tuple(0 if d is None else d for d in t.shape), dtype=t.dtype)
    return zero[()] if t.shape == () else zero


def other_path(leaf, b):
    """A (name, true branch value) pair and the false branch value, with a SameAsOtherPath on
    either side replaced by the other side's value."""
    name, a = leaf
    if type(a) is SameAsOtherPath:
        a = b if type(b) is not SameAsOtherPath else a.value
    if type(b) is SameAsOtherPath:
        b = a if type(a) is not SameAsOtherPath else b.value
    return (name, a), b


class MaybeMissing(MaybeUndefined):
    """An attribute set on only some paths of a staged `if`, and absent before it: a read where
    it is used checks at run time that it was set, raising AttributeError (at the reading line)
    as Python would. Passed to a NumPy function or returned, it is read (and checked) there;
    hasattr() and getattr() with a default give its flag (autograph.operators.py_builtins)."""

    __slots__ = ()
    error = errors.MissingAttributeError

    def __init__(self, location, value, defined):
        reason = (
            f"{type(location.obj).__name__!r} object has no attribute {location.key!r}: it "
            f"is set on only some paths of staged control flow before this point, and the "
            f"path taken at run time does not set it"
        )
        super().__init__(location.describe(), value, defined, reason)

    def _message(self):
        return f"{_where()}{self.reason}"

    def _staged_value(self):
        return self.read()


def read_all(x):
    """x with every MaybeUndefined in it (through lists, tuples and dicts) read."""
    if isinstance(x, MaybeUndefined):
        return x.read()
    if type(x) in (list, tuple):
        return type(x)(read_all(v) for v in x)
    if type(x) is dict:
        return {k: read_all(v) for k, v in x.items()}
    return x


def zero_leaf(x):
    """A function making a zero of x's type (a placeholder for a value set on only some paths),
    or None when x is not a number, tensor or None."""
    if x is None:
        return lambda: None
    if is_symbolic(x):
        t = kinds(x.type)[0]  # (any of its kinds: a placeholder is never read)
        if is_str(t):
            return lambda: ""
        if t.weak:  # a Python number known at run time: a Python zero
            return lambda: t.python_type(0)
        shape = tuple(0 if d is None else d for d in t.shape)
        dtype = t.dtype
        return lambda: np.zeros(shape, dtype)[()] if shape == () else np.zeros(shape, dtype)
    if isinstance(x, (np.ndarray, np.generic)):
        zero = np.zeros_like(x)
        return lambda: zero[()] if zero.ndim == 0 else zero.copy()
    if type(x) in (bool, int, float, complex):
        return lambda: type(x)(0)
    if isinstance(x, str):
        return lambda: ""
    return None
