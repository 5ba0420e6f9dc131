"""Staged results have the Python type eager code gives: NumPy scalar, 0-d array or Python number."""

from __future__ import annotations

import numpy as np
import pytest

import staging


def assert_identical(staged, eager):
    """Same structure, Python types (a NumPy scalar is not a 0-d array), dtypes and values."""
    assert type(staged) is type(eager), (staged, eager)
    if isinstance(eager, (list, tuple)):
        assert len(staged) == len(eager)
        for s, e in zip(staged, eager):
            assert_identical(s, e)
        return
    if isinstance(eager, (np.ndarray, np.generic)):
        assert staged.dtype == eager.dtype and np.shape(staged) == np.shape(eager)
        np.testing.assert_array_equal(staged, eager)
        return
    assert staged == eager


def scalar_types(y, z):
    return (
        np.complex64(y),
        np.int8(y),
        np.float32(z),
        np.float64(y + 1),
        y.astype(np.int8),
        np.complex64(3),
    )


@pytest.mark.parametrize(
    "args",
    [
        (np.array(-2, dtype=np.int8), np.arange(3)),  # 0-d arrays: the scalar type gives a scalar
        (np.int8(-2), np.arange(3.0)),
        (np.array(7, dtype=np.int8), np.array(2.5)),
    ],
)
def test_numpy_scalar_types_called_on_0d_values_give_scalars(args):
    eager = scalar_types(*args)
    staged = staging.function(scalar_types)(*args)
    assert_identical(staged, eager)
    assert isinstance(staged[0], np.complex64)  # not a 0-d array, although x.astype keeps one
    assert isinstance(staged[4], type(eager[4]))


def numpy_calls_on_python_numbers(x, n):
    k = 0
    while k < n:  # k: a Python int known only at run time
        k += 1
    b = k < 3
    return (
        np.multiply(b, k),
        b * k,
        np.add(k, 2),
        k + 2,
        np.negative(k),
        -k,
        np.abs(k + 0.5),
        abs(k - 5),
        np.multiply(k, x),
        np.logical_not(b),
        np.add(k, 2.5),
        np.add(True, b),
    )


@pytest.mark.parametrize(
    "args", [(np.float32(2), np.int64(4)), (np.float32(2), np.int64(0)), (np.float32(2), 2)]
)
def test_numpy_ufuncs_called_on_python_numbers_give_numpy_scalars(args):
    # `np.multiply(b, k)` is NumPy's (np.int64), `b * k` Python's (int), as eagerly.
    eager = numpy_calls_on_python_numbers(*args)
    staged = staging.function(numpy_calls_on_python_numbers)(*args)
    assert_identical(staged, eager)
    assert type(staged[0]) is np.int64 and type(staged[1]) is int


def complex_products(a, b, y):
    u = y / np.sum(b.real)  # a Python complex over a float64 scalar: complex's own `/` (a complex)
    return (
        a * b,
        np.multiply(a, b),
        b * a,
        a * 2.5,
        2j * a,
        np.multiply(u, y),
        u,
        a * np.complex64(1 + 2j),
        np.multiply(a, np.float64(0.5)),
    )


def test_products_of_complex_scalars_are_the_operators_or_the_ufuncs_as_written():
    # On NumPy's complex scalars `a * b` is the scalar type's product and np.multiply(a, b) the
    # ufunc's loop; they differ in the last bit for many inputs (where the loop fuses a multiply
    # and an add). The staged function computes each as written. (Seed 251.)
    staged = staging.function(complex_products)
    rng = np.random.default_rng(5)
    for dtype in (np.complex128, np.complex64):
        for _ in range(60):
            a, b = (dtype(complex(*rng.normal(size=2) * 3)) for _ in range(2))
            y = complex(*rng.normal(size=2))
            assert_identical(staged(a, b, y), complex_products(a, b, y))


def test_a_bool_array_squared_with_the_power_operator_is_int8_as_numpy_makes_it():
    # (seed 369) ndarray.__pow__ squares for `** 2`: int8 for a bool array (np.power gives int64,
    # and so does a np.bool_ scalar's `** 2`); the staged type said int64, and `<< 1` after it
    # gave int64 where eagerly int8
    def f(x):
        return (x**2) << 1, x**2.0, x**3

    for x in (np.array([False, True]), np.array(True), np.True_):
        staged, eager = staging.function(f)(x), f(x)
        for s, e in zip(staged, eager):
            assert type(s) is type(e) and np.asarray(s).dtype == np.asarray(e).dtype
            np.testing.assert_array_equal(s, e)
