"""An array-API (2024.12) namespace over NumPy in which every function runs through
`staging.function`: the public conformance suite (data-apis/array-api-tests) tests staged
results against the standard. Arrays are NumPy's; each call traces (once per signature) and
runs the staged graph. See docs/testing.md for the command.
"""

from __future__ import annotations

import functools
import types

import numpy as np

import staging

__array_api_version__ = "2024.12"

FUNCTIONS = """
abs acos acosh add asin asinh atan atan2 atanh bitwise_and bitwise_left_shift bitwise_invert
bitwise_or bitwise_right_shift bitwise_xor ceil clip conj copysign cos cosh divide equal exp expm1
floor floor_divide greater greater_equal hypot imag isfinite isinf isnan less less_equal log log1p
log2 log10 logaddexp logical_and logical_not logical_or logical_xor maximum minimum multiply
negative nextafter not_equal positive pow real reciprocal remainder round sign signbit sin sinh
square sqrt subtract tan tanh trunc
arange asarray empty empty_like eye full full_like linspace meshgrid ones ones_like tril triu
zeros zeros_like
astype broadcast_arrays broadcast_to concat expand_dims flip moveaxis permute_dims repeat reshape
roll squeeze stack tile unstack
argmax argmin count_nonzero nonzero searchsorted where
unique_all unique_counts unique_inverse unique_values
argsort sort
cumulative_prod cumulative_sum diff max mean min prod std sum var
all any
matmul matrix_transpose tensordot vecdot
take take_along_axis
can_cast finfo iinfo isdtype result_type
""".split()

LINALG = """
cholesky cross det diagonal eigh eigvalsh inv matmul matrix_norm matrix_power matrix_rank
matrix_transpose outer pinv qr slogdet solve svd svdvals tensordot trace vecdot vector_norm
""".split()

FFT = """
fft ifft fftn ifftn rfft irfft rfftn irfftn hfft ihfft fftfreq rfftfreq fftshift ifftshift
""".split()

# Answered from dtypes alone: nothing to stage.
_STATIC = {"finfo", "iinfo", "isdtype", "can_cast", "result_type"}


def _staged(func, name):
    def call(*args, **kwargs):
        return func(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    staged = staging.function(call)

    @functools.wraps(func)  # NumPy's name and signature, for the suite's signature tests
    def api(*args, **kwargs):
        return staged(*args, **kwargs)

    api.staged = staged
    return api


def _namespace_of(module, names, prefix=""):
    space = {}
    for name in names:
        func = getattr(module, name)
        space[name] = func if name in _STATIC else _staged(func, prefix + name)
    return space


globals().update(_namespace_of(np, FUNCTIONS))
linalg = types.SimpleNamespace(**_namespace_of(np.linalg, LINALG, "linalg_"))
fft = types.SimpleNamespace(**_namespace_of(np.fft, FFT, "fft_"))

e, inf, nan, newaxis, pi = np.e, np.inf, np.nan, np.newaxis, np.pi
bool = np.bool_  # noqa: A001 (the standard's name)
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float32, float64, complex64, complex128 = np.float32, np.float64, np.complex64, np.complex128


from_dlpack = np.from_dlpack  # no array argument to stage


def __array_namespace_info__():
    return np.__array_namespace_info__()
