"""Python's math functions and numeric builtins on symbolic scalars: `math.sqrt(x)`,
`round(x, 2)`, `math.floor(x)`, `pow(a, b, m)` record one `python_call` node that calls the very
function when the graph runs (runtime.ops.python_calls), so results, their Python types and
exceptions are eager's. Tensor's `__round__`, `__floor__`, `__ceil__` and `__trunc__` record it,
so round() and math.floor/ceil/trunc of a symbolic value are staged in any code; the other math
functions are staged where converted code calls them (autograph's builtin overrides)."""

from __future__ import annotations

import builtins
import math

import numpy as np

from runtime.ops.python_calls import CALLABLES
from staging.core.recording import record
from staging.core.tensor import Tensor, has_staged_value, staged_value

# function -> its name in CALLABLES (what a python_call node's attr `func` says)
NAMES = {function: name for name, function in CALLABLES.items()}
_NUMBERS = (bool, int, float, complex)


def _operand(x):
    """x as an input of a python_call node: a symbolic value, a number, or a NumPy value (a
    constant of the graph: `math.dist(p, np.array([1.0, 2.0]))`); None for anything else."""
    x = staged_value(x) if has_staged_value(x) else x
    if type(x) is Tensor or type(x) in _NUMBERS or isinstance(x, (np.ndarray, np.generic)):
        return x
    return None


def stages(args, kwargs) -> bool:
    """Whether a call with these arguments records a python_call: some are symbolic, and each is
    a number or a symbolic value (anything else goes to the function itself, which raises)."""
    values = [*args, *kwargs.values()]
    operands = [_operand(v) for v in values]
    return any(type(v) is Tensor for v in operands) and all(v is not None for v in operands)


def python_call(function, args, kwargs=None):
    """`function(*args, **kwargs)` staged: the node calls it when the graph runs."""
    kwargs = kwargs or {}
    attrs = {"func": NAMES[function]}
    if kwargs:
        attrs["keywords"] = tuple(kwargs)
    inputs = [_operand(v) for v in (*args, *kwargs.values())]
    return record("python_call", inputs, attrs)


def staged_call(function):
    """`function` as converted code calls it: staged when an argument is symbolic, else itself."""

    def call(*args, **kwargs):
        if stages(args, kwargs):
            return python_call(function, args, kwargs)
        return function(*args, **kwargs)

    call.__name__ = getattr(function, "__name__", "call")
    call.__qualname__ = call.__name__
    return call


def round_(x, ndigits=None):
    """round(x) / round(x, n): Python's round of the run-time value (an int for round(x) of a
    float, the value's own type with n digits), staged in any code through Tensor.__round__."""
    return python_call(builtins.round, (x,) if ndigits is None else (x, ndigits))


def pow_(base, exp, mod=None):
    """pow(): two arguments are `base ** exp` (Python's operator, staged as such); with a
    modulus, Python's three-argument pow of the run-time values."""
    if mod is None:
        return base**exp
    if stages((base, exp, mod), {}):
        return python_call(builtins.pow, (base, exp, mod))
    return builtins.pow(base, exp, mod)


def _dunder(function):
    def method(self):
        return python_call(function, (self,))

    method.__name__ = f"__{function.__name__}__"
    return method


def install(tensor_type) -> None:
    """Tensor's round() and math.floor/ceil/trunc: the python_call node."""
    tensor_type.__round__ = round_
    tensor_type.__floor__ = _dunder(math.floor)
    tensor_type.__ceil__ = _dunder(math.ceil)
    tensor_type.__trunc__ = _dunder(math.trunc)


OVERRIDES = {
    **{function: staged_call(function) for function in CALLABLES.values()},
    builtins.round: staged_call(builtins.round),
    builtins.pow: pow_,
}
