"""The marker for a name that may be unassigned at some point of converted code."""

from __future__ import annotations

import operator

from staging import errors
from staging.source_map import where as _where
from staging.tensor import is_symbolic


class Undefined:
    """Stands for a local name that has not been assigned; any use raises UndefinedNameError."""

    __slots__ = ("name",)
    _is_undefined = True  # staging recognises the marker by this class attribute

    def __init__(self, name: str):
        object.__setattr__(self, "name", name)

    def _fail(self, *args, **kwargs):
        error = errors.UndefinedNameError(
            f"{_where()}'{self.name}' is used before it is assigned (it is assigned in only some "
            f"branches or loop iterations before this point)")
        error.undefined_marker = self  # a staged `if` may give the name a checked placeholder
        raise error

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        self._fail()

    def __repr__(self):
        return f"Undefined({self.name!r})"

    __call__ = __bool__ = __iter__ = __len__ = __getitem__ = __setitem__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _fail
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __matmul__ = _fail
    __rmatmul__ = __neg__ = __pos__ = __abs__ = __lt__ = __le__ = __gt__ = __ge__ = _fail
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = __invert__ = __index__ = _fail
    __int__ = __float__ = __array__ = __format__ = __str__ = _fail
    __array_ufunc__ = None
    __hash__ = object.__hash__

    def __eq__(self, other):
        self._fail()

    __ne__ = __eq__


class UndefinedReturnValue(Undefined):
    """The value of `retval_` before a `return` inside a loop has run.

    Converted code tracks whether it is set (the `do_return` flag), so a staged
    `if` or loop may give it a placeholder of the type the other branch or the
    loop body gives it (see operators.control_flow); a function that ends
    without returning gets None (see return_value)."""

    __slots__ = ()

    def __init__(self):
        object.__setattr__(self, "name", "return value")

    def __repr__(self):
        return "UndefinedReturnValue()"


def _unbound_message(name, reason) -> str:
    reason = reason or ("it is assigned on only some paths of a staged `if` or loop before this "
                        "point, and the path taken at run time does not assign it")
    return (f"{_where()}cannot access local variable {name!r} where it is not associated with a "
            f"value ({reason})")


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
    as Python would; a use that cannot be checked (an argument to a NumPy function) is refused
    while tracing."""

    __slots__ = ("name", "value", "defined", "reason")

    def __init__(self, name, value, defined, reason=None):
        self.name, self.value, self.defined, self.reason = name, value, defined, reason

    def read(self):
        from staging.debugging import check
        defined = self.defined
        if defined is True or (not is_symbolic(defined) and bool(defined)):
            return self.value
        check(defined, _unbound_message(self.name, self.reason), errors.UndefinedNameError)
        return self.value

    def _fail(self, *args, **kwargs):
        raise errors.UndefinedNameError(
            f"{_where()}'{self.name}' is used here before it is assigned on every path (it is "
            f"assigned in only some branches or loop iterations of staged control flow before "
            f"this point), in a way that cannot be checked at run time; assign it on every path")

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return getattr(self.read(), attr)

    def __repr__(self):
        return f"MaybeUndefined({self.name!r})"

    def __bool__(self):
        return bool(self.read())

    __array_ufunc__ = None
    __hash__ = object.__hash__
    __iter__ = __len__ = __setitem__ = __array__ = __format__ = __str__ = __call__ = _fail


for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
            "xor", "lshift", "rshift"):
    _f = getattr(operator, _op + "_" if _op in ("and", "or") else _op)
    setattr(MaybeUndefined, f"__{_op}__", _checked(_f))
    setattr(MaybeUndefined, f"__r{_op}__", _checked_reflected(_f))
for _op in ("lt", "le", "gt", "ge", "eq", "ne", "neg", "pos", "abs", "invert", "getitem",
            "index"):
    setattr(MaybeUndefined, f"__{_op}__", _checked(getattr(operator, _op)))
MaybeUndefined.__int__ = _checked(int)
MaybeUndefined.__float__ = _checked(float)


def is_maybe_undefined(value) -> bool:
    return isinstance(value, MaybeUndefined)


def is_undefined(value) -> bool:
    return isinstance(value, Undefined)


def is_undefined_return(value) -> bool:
    return type(value) is UndefinedReturnValue


def ld(value):
    """A read of a name that may hold the Undefined marker (converted code reads returned
    names through it): raises UndefinedNameError at the reading line, as Python would."""
    if isinstance(value, Undefined):
        value._fail()
    if isinstance(value, MaybeUndefined):
        return value.read()
    return value
