"""The flags (OpDef.lower_suspect) of values on which Python or NumPy raise, or give another
result, where XLA computes on: Python ints past 64 bits, Python divisions by zero, indices out
of range, float-to-int casts of values the integer type does not hold.

Each function takes the `jnp` module the JAX backend gives (an op module never imports jax) and
JAX values, and gives a JAX bool array (any element true: the call runs again on the interpreter,
runtime.jax_lowering.suspects). A flag may be raised where eager says nothing (a false alarm
costs a rerun, never a different result); it must never miss a value on which eager differs.
"""

from __future__ import annotations

import numpy as np

_INT64 = np.iinfo(np.int64)
# |a * b| computed in float64 from int64 operands is within 3 roundings (2**-53 each) of the
# exact product: at or past this, the exact product may be outside int64
_PRODUCT_LIMIT = 2.0**63 * (1 - 2.0**-50)
# x ** n in float64 for n < 63 is within a few hundred roundings of the exact power
_POWER_LIMIT = 2.0**63 * (1 - 2.0**-40)


def _as_int64(jnp, x):
    return jnp.asarray(x).astype(jnp.int64)


def _as_float64(jnp, x):
    return jnp.asarray(x).astype(jnp.float64)


def _is_known(x) -> bool:
    """A Python int known while lowering (a literal): the check is one comparison."""
    return type(x) in (int, bool)


def _outside(jnp, a, low: int, high: int):
    """a outside [low, high] (bounds known while lowering); None where no int64 is."""
    low, high = max(low, int(_INT64.min)), min(high, int(_INT64.max))
    if low > high:
        return jnp.asarray(True)
    if (low, high) == (int(_INT64.min), int(_INT64.max)):
        return None
    if low == int(_INT64.min):
        return a > high
    if high == int(_INT64.max):
        return a < low
    return (a < low) | (a > high)


def _sum_overflows(jnp, a, b):
    if _is_known(a):
        a, b = b, a
    if _is_known(b):  # (a counter: `i += 1`)
        return _outside(jnp, _as_int64(jnp, a), int(_INT64.min) - b, int(_INT64.max) - b)
    a, b = _as_int64(jnp, a), _as_int64(jnp, b)
    r = a + b  # (XLA's integers wrap)
    return ((a ^ r) & (b ^ r)) < 0


def _difference_overflows(jnp, a, b):
    if _is_known(b):
        return _sum_overflows(jnp, a, -int(b))
    if _is_known(a):  # a - b = -(b - a)
        return _outside(jnp, _as_int64(jnp, b), a - int(_INT64.max), a - int(_INT64.min))
    a, b = _as_int64(jnp, a), _as_int64(jnp, b)
    r = a - b
    return ((a ^ b) & (a ^ r)) < 0


def _product_overflows(jnp, a, b):
    if _is_known(a):
        a, b = b, a
    if _is_known(b):  # (`k * 3`: the range of k whose product fits)
        c = int(b)
        if c in (0, 1):
            return None
        big, small = int(_INT64.max), int(_INT64.min)
        low, high = (-(-small // c), big // c) if c > 0 else (-(-big // c), small // c)
        return _outside(jnp, _as_int64(jnp, a), low, high)
    return jnp.abs(_as_float64(jnp, a) * _as_float64(jnp, b)) >= _PRODUCT_LIMIT


def _largest_root(n: int) -> int:
    """The largest m with m ** n <= int64's largest value (n >= 2)."""
    m = int(round(float(_INT64.max) ** (1.0 / n)))
    while m**n > _INT64.max:
        m -= 1
    while (m + 1) ** n <= _INT64.max:
        m += 1
    return m


def _power_differs(jnp, a, b):
    """Python's int ** int: a float for a negative exponent (ZeroDivisionError for 0), a big int
    past int64."""
    if _is_known(b):
        if b < 0:
            return jnp.asarray(True)
        if b < 2:
            return None
        root = _largest_root(int(b))  # (-(root + 1) ** b may fit: a false alarm)
        return _outside(jnp, _as_int64(jnp, a), -root, root)
    a, b = _as_int64(jnp, a), _as_int64(jnp, b)
    magnitude = jnp.abs(_as_float64(jnp, a))
    bounded = jnp.clip(b, 0, 62)
    too_big = jnp.power(magnitude, _as_float64(jnp, bounded)) >= _POWER_LIMIT
    return (b < 0) | ((magnitude >= 2) & ((b >= 63) | too_big))


def _left_shift_differs(jnp, a, b):
    """Python's a << b: ValueError for a negative count, a big int past int64."""
    if _is_known(b):
        if b < 0:
            return jnp.asarray(True)
        if b >= 63:
            return _as_int64(jnp, a) != 0
        return _outside(jnp, _as_int64(jnp, a), int(_INT64.min) >> b, int(_INT64.max) >> b)
    a, b = _as_int64(jnp, a), _as_int64(jnp, b)
    count = jnp.clip(b, 0, 62)
    lost = ((a << count) >> count) != a
    return (b < 0) | ((a != 0) & ((b >= 63) | lost))


def _right_shift_differs(jnp, a, b):
    if _is_known(b):
        return jnp.asarray(True) if b < 0 else None
    return _as_int64(jnp, b) < 0  # (ValueError: negative shift count)


def _by_zero(jnp, a, b):
    if _is_known(b):
        return jnp.asarray(True) if b == 0 else None
    return jnp.asarray(b) == 0  # (ZeroDivisionError)


_INT_CHECKS = {
    "add": _sum_overflows,
    "sub": _difference_overflows,
    "mul": _product_overflows,
    "pow": _power_differs,
    "lshift": _left_shift_differs,
    "rshift": _right_shift_differs,
    "truediv": _by_zero,
    "floordiv": _by_zero,
    "mod": _by_zero,
    "divmod": _by_zero,
}


def python_int_differs(jnp, operation: str, *operands):
    """Python's `operation` (add, sub, mul, neg, abs, pow, lshift, rshift, truediv, floordiv,
    mod, divmod) on Python ints (int64 values in XLA; a literal: a Python int): where its
    result is not XLA's (an int past int64, a float for a negative power) or it raises (a
    division by zero, a negative shift count). None where it never differs."""
    if operation in ("neg", "abs"):
        return _as_int64(jnp, operands[0]) == _INT64.min
    check = _INT_CHECKS.get(operation)
    return None if check is None else check(jnp, *operands)


def python_float_differs(jnp, operation: str, operands, result):
    """Python's `operation` on Python numbers, a float or complex among them: where it raises
    (ZeroDivisionError for a division by zero or 0.0 to a negative power, OverflowError for a
    power past the float range) or gives a complex (a negative float to a fractional power)
    where XLA gives a float. None where it never differs."""
    if operation in ("truediv", "floordiv", "mod", "divmod"):
        return jnp.asarray(operands[1]) == 0
    if operation != "pow":
        return None
    a, b = (jnp.asarray(x) for x in operands)
    real = not (jnp.iscomplexobj(a) or jnp.iscomplexobj(b))
    zero_to_negative = (a == 0) & ((jnp.real(b) < 0) | (jnp.imag(b) != 0))
    overflow = ~jnp.isfinite(jnp.asarray(result)) & jnp.isfinite(a) & jnp.isfinite(b)
    flag = zero_to_negative | overflow
    if real:
        flag = flag | ((a < 0) & (b != jnp.floor(b)))
    return flag


def int_out_of_range(jnp, value, dtype):
    """A Python int (an int64 value) that integer `dtype` does not hold: NumPy raises
    OverflowError converting it (NEP 50: `300 + np.int8(1)`, `np.uint8(300)`). None where every
    int64 fits."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "iu":
        return None
    info = np.iinfo(dtype)
    low, high = max(int(info.min), int(_INT64.min)), min(int(info.max), int(_INT64.max))
    if (low, high) == (int(_INT64.min), int(_INT64.max)):
        return None
    value = _as_int64(jnp, value)
    return (value < low) | (value > high)


def float_cast_differs(jnp, value, dtype):
    """A float (or complex: its real part) cast to integer `dtype` where the value truncated is
    not a value of `dtype`: NaN, inf, or out of range. NumPy warns ("invalid value encountered
    in cast") or wraps, XLA saturates. None for other casts."""
    dtype = np.dtype(dtype)
    value = jnp.asarray(value)
    if dtype.kind not in "iu" or not jnp.issubdtype(value.dtype, jnp.inexact):
        return None
    x = _as_float64(jnp, jnp.real(value))
    info = np.iinfo(dtype)
    # (in float64: the bounds past which the truncated value leaves the range; int64's lower
    # one rounds to -2**63 itself, flagged too: a false alarm, never a miss)
    return ~((x > float(info.min) - 1.0) & (x < float(info.max) + 1.0))


def python_int_of(jnp, value):
    """int(x) of a NumPy value where the Python int is not XLA's int64: NaN (ValueError), inf
    (OverflowError), a float or uint64 past int64 (a big int). None where it always fits."""
    value = jnp.asarray(value)
    if jnp.issubdtype(value.dtype, jnp.inexact):
        return float_cast_differs(jnp, value, np.int64)
    if value.dtype == jnp.uint64:
        return value > _INT64.max
    return None


def index_out_of_range(jnp, index, size: int):
    """An integer index (scalar or array) outside [-size, size): NumPy raises IndexError, XLA
    clamps or fills."""
    index = jnp.asarray(index)
    if index.dtype == jnp.bool_ or not jnp.issubdtype(index.dtype, jnp.integer):
        return None
    if index.dtype == jnp.uint64:
        return index >= size
    index = _as_int64(jnp, index)
    return (index < -size) | (index >= size)


def any_of(jnp, flags):
    """One flag of several (None where none is)."""
    flags = [jnp.any(f) for f in flags if f is not None]
    if not flags:
        return None
    out = flags[0]
    for f in flags[1:]:
        out = out | f
    return out


__all__ = [
    "any_of",
    "float_cast_differs",
    "index_out_of_range",
    "int_out_of_range",
    "python_float_differs",
    "python_int_differs",
    "python_int_of",
]
