"""Every staged ufunc on every numeric dtype, with Python bool/int/float/complex numbers on either
side: the staged result has NumPy's dtype, shape and bits, and what NumPy refuses is refused with
the same error type."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _library_helpers import assert_identical

import staging
from runtime.ops import UFUNCS

DTYPES = [
    np.bool_,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
]
PYTHON_NUMBERS = [True, 3, -2, 2.5, -0.0, 1.5 - 0.5j]
RAW = np.array([0, 1, 2, 5, 7, -1, -3, 100])


def values(dtype):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        x = RAW.astype(dtype)
        if np.dtype(dtype).kind in "fc":
            x = x / 4 + (0.5j if np.dtype(dtype).kind == "c" else 0)
    return x.astype(dtype)


def _call(ufunc, x, number, side):
    return ufunc(x, number) if side == 0 else ufunc(number, x)


def _eager(fn, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return fn(*args), None
        except Exception as exc:  # noqa: BLE001 (any error NumPy raises must be raised staged)
            return None, type(exc)


def _check_cases(ufunc, x, cases):
    """cases: (name, callable of x). The ones NumPy computes are staged in one function; each
    one NumPy refuses must be refused staged with the same error type."""
    good, bad = [], []
    for name, fn in cases:
        expected, error = _eager(fn, x)
        (bad if error else good).append((name, fn, expected, error))
    if good:
        staged_fn = staging.function(
            lambda x: tuple(fn(x) for _, fn, _, _ in good), autograph=False
        )
        got, error = _eager(staged_fn, x)
        assert error is None, f"{ufunc.__name__} on {x.dtype}: staged raised {error}"
        for (name, _, expected, _), result in zip(good, got):
            assert_identical(result, expected, f"np.{ufunc.__name__}{name} on {x.dtype}")
    for name, fn, _, error in bad:
        _, staged_error = _eager(staging.function(fn, autograph=False), x)
        assert staged_error is not None and issubclass(staged_error, error), (
            f"np.{ufunc.__name__}{name} on {x.dtype}: NumPy raises {error.__name__}, staged {staged_error}"
        )


BINARY = [
    u
    for u in UFUNCS.values()
    if u.nin == 2 and u.__name__ not in ("matmul", "vecdot", "matvec", "vecmat")
]
UNARY = [u for u in UFUNCS.values() if u.nin == 1 and u.__name__ != "isnat"]


@pytest.mark.parametrize("ufunc", BINARY, ids=[u.__name__ for u in BINARY])
def test_binary_ufunc_with_python_numbers_on_either_side(ufunc):
    for dtype in DTYPES:
        cases = [
            (
                f"(x, {n!r})" if side == 0 else f"({n!r}, x)",
                lambda x, n=n, side=side: _call(ufunc, x, n, side),
            )
            for n in PYTHON_NUMBERS
            for side in (0, 1)
        ]
        cases.append(("(x, x[::-1])", lambda x: ufunc(x, x[::-1])))
        _check_cases(ufunc, values(dtype), cases)


@pytest.mark.parametrize("ufunc", UNARY, ids=[u.__name__ for u in UNARY])
def test_unary_ufunc_on_every_dtype(ufunc):
    for dtype in DTYPES:
        _check_cases(
            ufunc, values(dtype), [("(x)", lambda x: ufunc(x)), ("(x[0])", lambda x: ufunc(x[0]))]
        )


def test_ldexp_keeps_numpys_loop_for_python_numbers():
    """A Python number reaches ldexp as it is: NumPy picks the float16 loop for an int16 exponent
    and the float64 loop for a uint64 mantissa (casting the number to the array's dtype would
    give float32, or no loop at all)."""
    e = np.arange(3, dtype=np.int16)
    m = np.arange(3, dtype=np.uint64)
    f = staging.function(
        lambda e, m: (np.ldexp(0, e), np.ldexp(1.5, e), np.ldexp(m, 0), np.ldexp(m, 2)),
        autograph=False,
    )
    expected = (np.ldexp(0, e), np.ldexp(1.5, e), np.ldexp(m, 0), np.ldexp(m, 2))
    assert expected[0].dtype == np.float16 and expected[2].dtype == np.float64
    for got, want in zip(f(e, m), expected):
        assert_identical(got, want)
