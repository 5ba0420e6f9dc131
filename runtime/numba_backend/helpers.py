"""What the generated nopython code calls: the exception that sends a call back to the
interpreter, and the exact overflow tests of 64-bit integer arithmetic (numba wraps, NumPy's
scalars warn, Python's ints grow)."""

from __future__ import annotations

import numba
import numpy as np

INT64_MIN = -(2**63)


class Rerun(Exception):
    """Raised by compiled code on values where eager code would warn, raise or differ: the
    runner calls the interpreter instead."""


@numba.njit(cache=False, error_model="numpy")
def add_int(a, b):
    r = a + b
    if ((a ^ r) & (b ^ r)) < 0:
        raise Rerun()
    return r


@numba.njit(cache=False, error_model="numpy")
def sub_int(a, b):
    r = a - b
    if ((a ^ b) & (a ^ r)) < 0:
        raise Rerun()
    return r


@numba.njit(cache=False, error_model="numpy")
def _magnitude(a):
    """|a| of an int64, as a uint64 (exact for INT64_MIN too)."""
    return np.uint64(a) if a >= 0 else np.uint64(-(a + 1)) + np.uint64(1)


@numba.njit(cache=False, error_model="numpy")
def mul_int(a, b):
    """a * b of int64s, after checking it is within int64 on the magnitudes (a test on the
    wrapped product, `r // a != b`, is folded away by the compiler)."""
    if a == 0 or b == 0:
        return a * b
    limit = np.uint64(2**63) if (a < 0) != (b < 0) else np.uint64(2**63 - 1)
    if _magnitude(a) > limit // _magnitude(b):
        raise Rerun()
    return a * b


@numba.njit(cache=False, error_model="numpy")
def divisor_int(a, b):
    """b, after checking that a // b and a % b are NumPy's and Python's without a warning."""
    if b == 0 or (b == -1 and a == INT64_MIN):
        raise Rerun()
    return b


@numba.njit(cache=False, error_model="numpy")
def slice_step(s):
    """A slice's step known at run time, after checking it is not 0 (NumPy's ValueError)."""
    if s == 0:
        raise Rerun()
    return s


@numba.njit(cache=False, error_model="numpy")
def neg_int(a):
    if a == INT64_MIN:
        raise Rerun()
    return a


@numba.njit(cache=False, error_model="numpy")
def finite(x):
    """x, after checking that it is a finite float (inf and nan: NumPy warned or Python raised)."""
    if not np.isfinite(x):
        raise Rerun()
    return x


@numba.njit(cache=False, error_model="numpy")
def finite_nonzero(x):
    """A float reduction's result that is neither zero (the sign of a zero may be chosen
    otherwise) nor non-finite."""
    if x == 0.0 or not np.isfinite(x):
        raise Rerun()
    return x


@numba.njit(cache=False, error_model="numpy")
def all_finite(a):
    """Array `a`, after checking that every element is finite."""
    for v in a.flat:
        if not np.isfinite(v):
            raise Rerun()
    return a


@numba.njit(cache=False, error_model="numpy")
def float_to_int(x):
    """int(x) of a float, truncated toward zero as Python's; NaN (ValueError), an infinity
    (OverflowError) and one past int64 (a big int) by the interpreter."""
    if not (-9223372036854775808.0 <= x < 9223372036854775808.0):
        raise Rerun()
    return np.int64(x)


@numba.njit(cache=False, error_model="numpy")
def truncates_within(x, lo, above):
    """Float x, after checking that x truncated toward zero lies in [lo, above): what an
    integer dtype of that range holds (NumPy warns for NaN, an infinity or a value beyond, and
    gives another number)."""
    if not (x > lo - 1.0 and x < above):
        raise Rerun()
    return x


@numba.njit(cache=False, error_model="numpy")
def all_truncate_within(a, lo, above):
    """Float array a, after truncates_within's check of each element."""
    for v in a.flat:
        if not (v > lo - 1.0 and v < above):
            raise Rerun()
    return a


@numba.njit(cache=False, error_model="numpy")
def exact_int(a):
    """An integer met with a float where Python compares or divides exactly and NumPy rounds it
    to a double first: the same only up to 2**53."""
    if a > 2**53 or a < -(2**53):
        raise Rerun()
    return a


@numba.njit(cache=False, error_model="numpy")
def nonempty(a):
    if a.size == 0:
        raise Rerun()
    return a


@numba.njit(cache=False, error_model="numpy")
def index(i, n):
    """Index i of an axis of length n, after the bounds check NumPy makes (IndexError)."""
    if i < -n or i >= n:
        raise Rerun()
    return i


@numba.njit(cache=False, error_model="numpy")
def size(n):
    """A size of a new array, after the check NumPy makes (a negative one: ValueError)."""
    if n < 0:
        raise Rerun()
    return n


@numba.njit(cache=False, error_model="numpy")
def within(a, lo, hi):
    """Integer a, after checking that lo <= a <= hi: a result or a Python int that a NumPy
    integer dtype holds (NumPy's scalars warn on an overflow, a Python int that does not fit
    raises OverflowError)."""
    if a < lo or a > hi:
        raise Rerun()
    return a


@numba.njit(cache=False, error_model="numpy")
def exact_within(a, limit):
    """A Python int met with a float dtype of `limit` = 2**mantissa bits: rounded alike by NumPy
    and numba (and compared or divided exactly by Python) only up to there."""
    if a > limit or a < -limit:
        raise Rerun()
    return a


@numba.njit(cache=False, error_model="numpy")
def add_uint(a, b):
    r = a + b
    if r < a:
        raise Rerun()
    return r


@numba.njit(cache=False, error_model="numpy")
def sub_uint(a, b):
    if b > a:
        raise Rerun()
    return a - b


@numba.njit(cache=False, error_model="numpy")
def mul_uint(a, b):
    if b != 0 and a > np.uint64(2**64 - 1) // b:
        raise Rerun()
    return a * b


@numba.njit(cache=False, error_model="numpy")
def neg_uint(a):
    """-a of an unsigned integer: NumPy's scalar warns unless a is 0."""
    if a != 0:
        raise Rerun()
    return a


@numba.njit(cache=False, error_model="numpy")
def divisor_uint(b):
    if b == 0:
        raise Rerun()
    return b


@numba.njit(cache=False, error_model="numpy")
def order_mixed(a, b):
    """-1, 0 or 1 as integer a is below, equal to or above integer b, exactly, for a uint64 met
    with a signed integer (numba compares them as floats; NumPy exactly): one is not negative."""
    if a < 0:  # (a negative one is the signed one)
        return -1
    if b < 0:
        return 1
    ua, ub = np.uint64(a), np.uint64(b)
    return -1 if ua < ub else (1 if ua > ub else 0)


@numba.njit(cache=False, error_model="numpy")
def divisors(a, b, lo):
    """Integer array (or number) divisor b of a, after checking that NumPy's floor_divide and
    remainder neither warn (a zero divisor) nor overflow (lo // -1); `lo` is the dtype's least
    value (0: unsigned)."""
    if np.any(b == 0) or (lo < 0 and np.any(b == -1) and np.any(a == lo)):
        raise Rerun()
    return b


# -- lists: a list value is a numba list, written in place as the interpreter's Python list ----


@numba.njit(cache=False, error_model="numpy")
def empty_list(proto):
    """An empty list of values of the type of `proto`."""
    items = [proto]
    items.pop()
    return items


@numba.njit(cache=False, error_model="numpy")
def list_write(items, i, value, dynamic_size):
    """items[i] = value, or an append at i == len(items) of a growing list; elsewhere (a
    negative index, a gap, past a fixed size) the interpreter raises or fills the gap."""
    n = len(items)
    if i == n and dynamic_size:
        items.append(value)
    elif 0 <= i < n:
        items[i] = value
    else:
        raise Rerun()
    return items


@numba.njit(cache=False, error_model="numpy")
def list_read(items, i):
    """items[i] as Python reads it (a negative index from the end); out of range: IndexError
    by the interpreter."""
    n = len(items)
    if i < 0:
        i += n
    if i < 0 or i >= n:
        raise Rerun()
    return items[i]


@numba.njit(cache=False, error_model="numpy")
def list_pop(items):
    if len(items) == 0:
        raise Rerun()
    return items.pop()


@numba.njit(cache=False, error_model="numpy")
def stack_numbers(items, out, empty_raises):
    """`out` (an array of len(items) of the elements' own dtype: no conversion) holding the list
    of numbers `items`; an empty list gives it empty, or (np.stack, np.array of it) the
    interpreter's error."""
    if len(items) == 0 and empty_raises:
        raise Rerun()
    for k in range(len(items)):
        out[k] = items[k]
    return out
