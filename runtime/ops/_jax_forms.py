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

import numpy as np


def _floats(jnp, *xs) -> bool:
    return all(jnp.issubdtype(x.dtype, jnp.floating) for x in xs)


def _divisor(jnp, a, b):
    """`b` as a divisor XLA divides by: its simplifier turns a division by a constant or by a
    broadcast value (a scalar, a row of sums) into a multiplication by the value's reciprocal,
    which rounds otherwise in about a third of the elements. Where `a` is NaN the quotient is
    NaN whatever the divisor, so where(isnan(a), nan, b) gives the same quotients and is
    neither (a compare and a select fused into the division's loop; inside jit a constant is
    not told from a run-time value, so every float division takes them)."""
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


def logaddexp(jnp, a, b):
    """npy_logaddexp: x + log(2) for equal operands (exactly), XLA's form otherwise."""
    if not _floats(jnp, a, b):
        return jnp.logaddexp(a, b)
    return jnp.where(a == b, a + np.log(2.0).astype(a.dtype), jnp.logaddexp(a, b))


def logaddexp2(jnp, a, b):
    """npy_logaddexp2: x + 1 for equal operands (exactly: logaddexp2(-1, -1) is 0.0)."""
    if not _floats(jnp, a, b):
        return jnp.logaddexp2(a, b)
    return jnp.where(a == b, a + 1, jnp.logaddexp2(a, b))


def modf(jnp, x):
    """C's modf: the fraction has the sign of x (-0.0 for -1.0 and -0.0), ±0.0 for ±inf."""
    whole = jnp.trunc(x)
    fraction = jnp.where(jnp.isinf(x), jnp.zeros_like(x), x - whole)
    return jnp.copysign(fraction, x), whole


# --- sums, products and scans of floats ------------------------------------------------------

_WIDER = {"float16": "float64", "float32": "float64", "complex64": "complex128"}


def rounded_from_wider(jnp, value, dtype):
    """`value` (accumulated in float64) in `dtype`: rounded once, through float32 for float16
    (NumPy sums float16 in float32 and rounds that sum)."""
    if str(dtype) == "float16":
        value = value.astype(jnp.float32)
    return value.astype(dtype)


def accumulated(jnp, reduce, x, dtype, **kwargs):
    """`reduce` (jnp.sum, jnp.prod) of x's elements cast to `dtype` (NumPy casts each element to
    the result's dtype, then reduces in it). A float32 or float16 result (complex64) is
    accumulated in float64 (complex128) and rounded once: XLA's float32 order loses more than
    NumPy's pairwise sum (a product of 1M values near 1 came out 1e-3 off), while the result
    rounded from float64 is within an ulp of the exact one for fewer than 2**29 elements."""
    x = jnp.asarray(x).astype(dtype)
    wider = _WIDER.get(str(x.dtype))
    if wider is None:
        return reduce(x, **kwargs)
    return rounded_from_wider(jnp, reduce(x.astype(wider), **kwargs), x.dtype)


def divided_by_count(jnp, total, count):
    """NumPy's division of a sum by the number of its elements (np.mean, np.var): an intp
    count, so computed in the common type of the sum's dtype and int64 (float64 for float32)
    and cast back."""
    common = np.result_type(np.dtype(str(total.dtype)), np.int64)
    quotient = divide(jnp, total.astype(common), jnp.asarray(count, dtype=common))
    return quotient.astype(total.dtype)


def sequential_scan(jnp, lax, combine, x, axis):
    """NumPy's float cumsum / cumprod along `axis`: each element the previous result combined
    with the next element, in order (XLA's scan associates otherwise: 975,119 of 1M float32
    prefix sums were more than 1e-6 off NumPy's). The first element is itself (0.0 + -0.0
    would lose its sign). Unrolled 8 times: faster than XLA's own cumsum on CPU."""
    if x.shape[axis] == 0:
        return x
    moved = jnp.moveaxis(x, axis, 0)

    def step(carry, value):
        carry = combine(carry, value)
        return carry, carry

    _, rest = lax.scan(step, moved[0], moved[1:], unroll=8)
    return jnp.moveaxis(jnp.concatenate([moved[:1], rest]), 0, axis)


def _reduced_count(shape, axis) -> int:
    axes = range(len(shape)) if axis is None else axis if isinstance(axis, tuple) else (axis,)
    count = 1
    for a in axes:
        count *= shape[a]
    return count


def mean(jnp, x, axis=None, dtype=None, keepdims=False):
    """numpy/_core/_methods.py's _mean: the sum in float64 for integers and bools, in float32
    for float16 (the result then cast to float16), divided by the intp count."""
    x = jnp.asarray(x)
    kind = np.dtype(str(x.dtype))
    if dtype is None:
        dtype = np.float64 if kind.kind in "iub" else np.float32 if kind == np.float16 else kind
    total = accumulated(jnp, jnp.sum, x, dtype, axis=axis, keepdims=keepdims)
    result = divided_by_count(jnp, total, _reduced_count(x.shape, axis))
    return result.astype(np.float16) if kind == np.float16 and dtype == np.float32 else result


def var(jnp, x, axis=None, dtype=None, ddof=0, keepdims=False):
    """numpy/_core/_methods.py's _var, step by step in its dtypes: the mean (a float16 array's
    sum in float16, which may overflow to inf as NumPy's does), the deviations, their squares
    (|d|**2 of complex ones), their sum, divided by max(count - ddof, 0)."""
    x = jnp.asarray(x)
    kind = np.dtype(str(x.dtype))
    if dtype is None and kind.kind in "iub":
        dtype = np.float64
    count = _reduced_count(x.shape, axis)
    total = accumulated(jnp, jnp.sum, x, dtype or kind, axis=axis, keepdims=True)
    deviations = x - divided_by_count(jnp, total, count)
    if jnp.issubdtype(deviations.dtype, jnp.complexfloating):
        squares = jnp.real(deviations) ** 2 + jnp.imag(deviations) ** 2
    else:
        squares = deviations * deviations
    total = accumulated(jnp, jnp.sum, squares, dtype or squares.dtype, axis=axis, keepdims=keepdims)
    return divided_by_count(jnp, total, max(count - ddof, 0))


def summed_products(jnp, product, out_dtype, *operands, **kwargs):
    """`product` (jnp.matmul, jnp.dot, jnp.einsum ...) of the operands cast to the result's
    dtype, as NumPy computes it. A float32 or float16 (complex64) result is accumulated in
    float64 (complex128) and rounded once: NumPy's BLAS (and its float16 loop) accumulates more
    accurately than XLA's float32 kernels (a 500x500 float32 matmul: 7e-7 against 1.3e-6 off
    the exact products)."""
    cast = [jnp.asarray(x).astype(out_dtype) for x in operands]
    wider = _WIDER.get(str(np.dtype(out_dtype)))
    if wider is None:
        return product(*cast, **kwargs)
    result = product(*cast, preferred_element_type=wider, **kwargs)
    return rounded_from_wider(jnp, result, out_dtype)
