"""Python's math functions, numeric builtins and sort on values known when the graph runs.

One op, `python_call`, calls the very function its attr `func` names (`math.sqrt`, `round`,
`pow` with a modulus, ...) on the run-time values, so the result, its Python type (math.sqrt
gives a Python float, round(np.float64(2.567), 2) a np.float64) and the exceptions
(math.sqrt(-1.0): ValueError; math.exp(1000.0): OverflowError; round(nan): ValueError) are
eager's. The rule finds the result type by calling the function on stand-ins of the inputs'
kinds: a kind the function rejects (a complex number, an array of more than one dim) raises
the function's own TypeError while tracing.
"""

from __future__ import annotations

import builtins
import math
import warnings

import numpy as np

from ..registry import STR, one_of, register_op, tuple_of
from ..types import ListType, TensorType
from . import ufunc_derivatives
from ._rules import is_literal

_MATH = (
    "acos acosh asin asinh atan atan2 atanh cbrt ceil comb copysign cos cosh degrees dist erf erfc "
    "exp exp2 expm1 fabs factorial floor fmod gamma gcd hypot isclose isfinite isinf isnan "
    "isqrt lcm ldexp lgamma log log10 log1p log2 nextafter perm pow radians remainder sin sinh "
    "sqrt tan tanh trunc ulp"
).split()

# name -> the function a node calls (attr `func`); a saved graph names one of these
CALLABLES = {f"math.{name}": getattr(math, name) for name in _MATH if hasattr(math, name)}
CALLABLES.update({"round": builtins.round, "pow": builtins.pow})

# the result kind when no stand-in is in the function's domain (math.log(x, 1) raises for
# every x): what the function gives where it returns
_BOOL_RESULTS = {"math.isclose", "math.isfinite", "math.isinf", "math.isnan"}
_INT_RESULTS = {
    "math.ceil",
    "math.floor",
    "math.trunc",
    "math.comb",
    "math.factorial",
    "math.gcd",
    "math.isqrt",
    "math.lcm",
    "math.perm",
    "round",
    "pow",
}
_PYTHON_NUMBERS = (bool, int, float, complex)
_STAND_INS = (1, 0, 2, 0.5)  # values tried for the inputs known only at run time, in order


def _stand_in(t, value):
    """A run-time value of type `t` (a literal is itself)."""
    if is_literal(t):
        return t
    if t.weak:
        return t.python_type(value)
    if t.shape == ():
        return t.dtype.type(value)
    return np.full(tuple(1 if d is None else d for d in t.shape), value, dtype=t.dtype)


def _called(func, keywords, args):
    n = len(args) - len(keywords)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CALLABLES[func](*args[:n], **dict(zip(keywords, args[n:])))


def _type_of(result, func):
    if type(result) in _PYTHON_NUMBERS:
        return TensorType.python_scalar(type(result))
    if isinstance(result, np.generic):
        return TensorType(result.dtype, ())
    raise TypeError(f"{func} gives a {type(result).__name__}, which a graph value cannot be")


def python_call_infer(*types, func, keywords=()):
    """The type of what `func` gives on values of these types: the function itself called on
    stand-ins. Its TypeError (a kind it does not take) is raised; a stand-in outside its domain
    (ValueError, OverflowError, ...) is replaced by the next one."""
    if func not in CALLABLES:
        raise ValueError(f"python_call: {func!r} is not a function it calls")
    for value in _STAND_INS:
        try:
            result = _called(func, keywords, [_stand_in(t, value) for t in types])
        except TypeError:
            raise
        except Exception:  # noqa: BLE001 - outside the function's domain: try another value
            continue
        return _type_of(result, func)
    kind = bool if func in _BOOL_RESULTS else int if func in _INT_RESULTS else float
    return TensorType.python_scalar(kind)


def _python_call_kernel(func, keywords=()):
    target = CALLABLES[func]
    if not keywords:
        return target
    n = len(keywords)
    return lambda *args: target(*args[:-n], **dict(zip(keywords, args[-n:])))


# math functions -> the ufunc whose gradient rule is theirs (runtime.ops.ufunc_derivatives)
_SAME_DERIVATIVE = {
    "math." + name: ufunc
    for name, ufunc in (
        ("acos", "arccos"),
        ("acosh", "arccosh"),
        ("asin", "arcsin"),
        ("asinh", "arcsinh"),
        ("atan", "arctan"),
        ("atan2", "arctan2"),
        ("atanh", "arctanh"),
        ("cbrt", "cbrt"),
        ("ceil", "ceil"),
        ("copysign", "copysign"),
        ("cos", "cos"),
        ("cosh", "cosh"),
        ("degrees", "degrees"),
        ("exp", "exp"),
        ("exp2", "exp2"),
        ("expm1", "expm1"),
        ("fabs", "fabs"),
        ("floor", "floor"),
        ("fmod", "fmod"),
        ("hypot", "hypot"),
        ("ldexp", "ldexp"),
        ("log10", "log10"),
        ("log1p", "log1p"),
        ("log2", "log2"),
        ("pow", "power"),
        ("radians", "radians"),
        ("sin", "sin"),
        ("sinh", "sinh"),
        ("sqrt", "sqrt"),
        ("tan", "tan"),
        ("tanh", "tanh"),
        ("trunc", "trunc"),
    )
}
_SAME_DERIVATIVE.update({"round": "rint", "pow": "power"})


def _erf_vjp(ctx, g, out, x):
    return (g * (2.0 / math.sqrt(math.pi)) * np.exp(-x * x),)


def _python_call_vjp(ctx, g, out, *inputs, func, keywords=()):
    """(OpDef.vjp) The math function's derivative: the ufunc's of the same function (math.log
    of one argument is np.log's; erf, erfc have their own; the others have none)."""
    if func == "math.log" and len(inputs) == 1:
        return ufunc_derivatives.RULES["log"](ctx, g, out, *inputs)
    if func == "math.dist":  # |p - q|: (p - q) / |p - q| (0 where the points are equal)
        p, q = inputs
        same = out == 0
        direction = (p - q) / np.where(same, 1.0, out)
        return (g * direction if ctx.wants(0) else None, -g * direction if ctx.wants(1) else None)
    if func in ("math.erf", "math.erfc"):
        (gx,) = _erf_vjp(ctx, g, out, *inputs)
        return (gx if func == "math.erf" else -gx,)
    name = _SAME_DERIVATIVE.get(func)
    if name is None or keywords or (func == "pow" and len(inputs) != 2):
        return ctx.unsupported(f"{func}()")
    return ufunc_derivatives.RULES[name](ctx, g, out, *inputs)


register_op(
    "python_call",
    vjp=_python_call_vjp,
    infer=python_call_infer,
    make_kernel=_python_call_kernel,
    weak_results=True,
    keep_unused=lambda node: True,  # it may raise (math.sqrt(-1.0)) where eager code raises
    attr_kinds=(("func", one_of(*CALLABLES)), ("keywords", tuple_of(STR, 8))),
    doc="func(*inputs) for one of Python's math functions or numeric builtins (attr `func`: "
    "'math.sqrt', 'round', ...), on the run-time values: eager's result, type and exceptions",
    unlowerable="it calls Python's function (math.sqrt, round, ...) on the run-time number, "
    "exceptions included, which XLA cannot; use the NumPy function (np.sqrt, np.floor, "
    "np.round) or keep the interpreter",
)(lambda *args, func, keywords=(): _python_call_kernel(func, keywords)(*args))


def _python_sort_kernel(*keys, width, reverse=False, stacked=False):
    if stacked:  # one array or list of keys (a list built by a staged loop, stacked or not)
        keys = tuple(keys[0])
    n = len(keys) // width
    order = keys if width == 1 else [keys[i * width : (i + 1) * width] for i in range(n)]
    return np.array(sorted(range(n), key=order.__getitem__, reverse=reverse), dtype=np.intp)


def _python_sort_infer(*keys, width, reverse=False, stacked=False):
    """The permutation sorted() gives: one position per key (`width` scalar inputs each, or the
    elements of one 1-d array when `stacked`)."""
    if stacked and len(keys) == 1 and isinstance(keys[0], ListType) and width == 1:
        return TensorType(np.intp, (None,))  # (the items of a list, compared as they are)
    if stacked:
        if len(keys) != 1 or width != 1 or is_literal(keys[0]) or keys[0].ndim != 1:
            raise TypeError("python_sort: stacked keys are one 1-d array or list")
        return TensorType(np.intp, keys[0].shape)
    if width < 1 or len(keys) % width:
        raise ValueError(f"python_sort: {len(keys)} key parts are not keys of {width}")
    for t in keys:
        if not (is_literal(t) or t.shape == ()):
            raise TypeError(f"python_sort: a key part must be a scalar, not {t}")
    return TensorType(np.intp, (len(keys) // width,))


register_op(
    "python_sort",
    infer=_python_sort_infer,
    doc="sorted(range(n), key=..., reverse=...) of n run-time keys (each `width` scalar inputs, "
    "compared as a tuple, or the elements of one array when `stacked`): Python's stable sort, "
    "NaN compared as Python compares it",
    unlowerable="it is Python's sort of the run-time values (NaN compared as Python compares "
    "it); use np.argsort(..., stable=True), or keep the interpreter",
)(_python_sort_kernel)
