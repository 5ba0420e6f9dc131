"""The marker for a name that may be unassigned at some point of converted code."""

from __future__ import annotations

from staging import errors
from staging.core.source_map import where as _where
from staging.kinds.undefined import MaybeUndefined  # noqa: F401 - converted code and operators use it from here


class Undefined:
    """Stands for a local name that has not been assigned; any use raises UndefinedNameError."""

    __slots__ = ("name",)
    _is_undefined = True  # staging recognises the marker by this class attribute

    def __init__(self, name: str):
        object.__setattr__(self, "name", name)

    def _fail(self, *args, **kwargs):
        error = errors.UndefinedNameError(
            f"{_where()}'{self.name}' is used before it is assigned (it is assigned in only some "
            f"branches or loop iterations before this point)"
        )
        error.undefined_marker = self  # a staged `if` may give the name a checked placeholder
        raise error

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        self._fail()

    def __repr__(self):
        return f"Undefined({self.name!r})"

    __call__ = __bool__ = __iter__ = __len__ = __getitem__ = __setitem__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = (
        _fail
    )
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
