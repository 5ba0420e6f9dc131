"""NumPy's own definitions, written with jax.numpy, of the float ops whose XLA forms give other
signed zeros, infinities or NaNs than NumPy's loops (the JAX lowerings of runtime/ops/*).

Each function takes `jnp` (jax.numpy: this module imports no jax) and operands already cast to
the dtypes NumPy computes in; on operands of another kind (integers, complex) it is jax.numpy's
own function, which agrees with NumPy there. The definitions follow NumPy's C sources
(npy_math_internal.h: npy_divmod; loops_minmax: `isnan(a) || a > b ? a : b`; the sign loop; C's
modf), and tests/staging/test_jax_numerics.py compares them bit for bit with eager NumPy on every
pair of special values (±0, ±inf, NaN, ordinary numbers), as arrays and as scalars.
"""

from __future__ import annotations


def _floats(jnp, *xs) -> bool:
    return all(jnp.issubdtype(x.dtype, jnp.floating) for x in xs)


def _divisor(jnp, a, b):
    """`b` as a divisor XLA divides by: its simplifier turns a division by a broadcast value (a
    scalar, a row of sums) into a multiplication by the value's reciprocal, which rounds
    otherwise in about a third of the elements. Where `a` is NaN the quotient is NaN whatever
    the divisor, so where(isnan(a), nan, b) gives the same quotients and is no broadcast."""
    if jnp.shape(b) == jnp.broadcast_shapes(jnp.shape(a), jnp.shape(b)):
        return b
    return jnp.where(jnp.isnan(a), jnp.asarray(jnp.nan, dtype=b.dtype), b)


def divide(jnp, a, b):
    """NumPy's a / b: correctly rounded in every element."""
    if not _floats(jnp, a, b):
        return jnp.divide(a, b)
    return a / _divisor(jnp, a, b)


def divmod_(jnp, a, b):
    """NumPy's (and Python's) float divmod: fmod, then the remainder moved to the divisor's sign
    and the quotient snapped to an integer, a zero of either keeping the sign NumPy gives it."""
    if not _floats(jnp, a, b):
        return jnp.floor_divide(a, b), jnp.remainder(a, b)
    mod = jnp.fmod(a, b)
    div = (a - mod) / _divisor(jnp, a, b)
    nonzero = (mod != 0) | jnp.isnan(mod)  # (C's `if (mod)`: NaN is true)
    adjust = nonzero & ((b < 0) != (mod < 0))
    zero = jnp.zeros_like(mod)
    mod = jnp.where(nonzero, jnp.where(adjust, mod + b, mod), jnp.copysign(zero, b))
    div = jnp.where(adjust, div - 1, div)
    floor = jnp.floor(div)
    floor = jnp.where(div - floor > 0.5, floor + 1, floor)
    quotient = jnp.where((div != 0) | jnp.isnan(div), floor, jnp.copysign(zero, divide(jnp, a, b)))
    by_zero = b == 0  # (fmod's NaN, and a / b: inf or NaN)
    return jnp.where(by_zero, divide(jnp, a, b), quotient), mod


def floor_divide(jnp, a, b):
    if not _floats(jnp, a, b):
        return jnp.floor_divide(a, b)
    return divmod_(jnp, a, b)[0]


def remainder(jnp, a, b):
    if not _floats(jnp, a, b):
        return jnp.remainder(a, b)
    return divmod_(jnp, a, b)[1]


def maximum(jnp, a, b):
    """NumPy's loop: the first operand when it is NaN or greater, else the second (of two equal
    zeros the second; a NaN of either comes out)."""
    if not _floats(jnp, a, b) or a.dtype.itemsize < 4:
        return jnp.maximum(a, b)
    return jnp.where(jnp.isnan(a) | (a > b), a, b)


def minimum(jnp, a, b):
    if not _floats(jnp, a, b) or a.dtype.itemsize < 4:
        return jnp.minimum(a, b)
    return jnp.where(jnp.isnan(a) | (a < b), a, b)


def sign(jnp, x):
    """NumPy's float sign: 1, -1, +0.0 for either zero, NaN for NaN."""
    if not _floats(jnp, x):
        return jnp.sign(x)
    one = jnp.ones_like(x)
    return jnp.where(x > 0, one, jnp.where(x < 0, -one, jnp.where(x == 0, 0 * one, x)))


def modf(jnp, x):
    """C's modf: the fraction has the sign of x (-0.0 for -1.0 and -0.0), ±0.0 for ±inf."""
    whole = jnp.trunc(x)
    fraction = jnp.where(jnp.isinf(x), jnp.zeros_like(x), x - whole)
    return jnp.copysign(fraction, x), whole
