"""`x @= y` and `np.<ufunc>(..., out=x)` where x is a Python number on some paths and an array on
others (a value of several kinds, staging.kinds): on the array's path the array is written; on
the number's path the staged call raises what eager code raises there. A ufunc with no Python
operator used to fail there with "'NoneType' object is not callable" (runtime/ops/elementwise.py,
ufunc_out's kernel: found by the type checker)."""

from __future__ import annotations

import numpy as np
import pytest

import staging


def sin_into(flag, a):
    x = 0
    if flag > 0:
        x = np.zeros(a.shape)
    np.sin(a, out=x)
    return x


def arctan2_into(flag, a):
    x = 0.0
    if flag > 0:
        x = np.ones(a.shape)
    np.arctan2(a, 2.0, out=x)
    return x


def matmul_into(flag, a):
    x = 0
    if flag > 0:
        x = np.zeros(a.shape)
    np.matmul(a, a, out=x)
    return x


def matmul_in_place(flag, a):
    x = 2
    if flag > 0:
        x = np.eye(a.shape[0])
    x @= a
    return x


def _outcome(func, args):
    try:
        return "value", func(*args)
    except Exception as exc:  # noqa: BLE001 - compared with the staged outcome
        return "raises", exc


def _assert_same_as_eager(func, args):
    staged = staging.function(func)
    kind, eager = _outcome(func, args)
    for _ in range(2):  # traced, then from the cache
        staged_kind, result = _outcome(staged, args)
        assert staged_kind == kind, (result, eager)
        if kind == "raises":
            assert type(result) is type(eager) and str(result) == str(eager), (result, eager)
        else:
            assert type(result) is type(eager) and result.dtype == eager.dtype
            assert result.tobytes() == eager.tobytes()


SQUARES = [
    np.arange(9.0).reshape(3, 3),
    np.full((2, 2), np.nan),
    np.array([[-0.0, np.inf], [1e308, -1e-308]]),
    np.zeros((0, 0)),
]
VECTORS = [np.arange(4.0), np.array([np.nan, -0.0, np.inf]), np.zeros(0)]


@pytest.mark.parametrize("flag", [np.int64(1), np.int64(0)], ids=["array", "number"])
@pytest.mark.parametrize("a", VECTORS + SQUARES, ids=repr)
@pytest.mark.parametrize("func", [sin_into, arctan2_into])
def test_a_ufunc_writing_into_a_python_number_raises_as_eagerly(func, a, flag):
    """np.sin(a, out=0): TypeError "return arrays must be of ArrayType"."""
    _assert_same_as_eager(func, (flag, a))


@pytest.mark.parametrize("flag", [np.int64(1), np.int64(0)], ids=["array", "number"])
@pytest.mark.parametrize("a", SQUARES, ids=repr)
def test_matmul_into_a_python_number_raises_as_eagerly(a, flag):
    """np.matmul(a, a, out=0): NumPy's TypeError, though Python has an operator for it (@)."""
    _assert_same_as_eager(matmul_into, (flag, a))


@pytest.mark.parametrize("flag", [np.int64(1), np.int64(0)], ids=["array", "number"])
@pytest.mark.parametrize("a", SQUARES, ids=repr)
def test_matmul_in_place_on_a_python_number_raises_as_eagerly(a, flag):
    """`x @= a` with x the Python 2: Python's `2 @ a`, NumPy's ValueError (a number has no dims)."""
    _assert_same_as_eager(matmul_in_place, (flag, a))


def add_into(flag, a):
    x = 0.0
    if flag > 0:
        x = np.zeros(a.shape)
    np.add(a, 1.0, out=x)
    return x


def multiply_into_number(flag, a):
    x = float(flag)  # a Python number on every path
    np.multiply(a, 2.0, out=x)
    return x


def add_in_place(flag, a):
    x = 0.0
    if flag > 0:
        x = np.zeros(a.shape)
    x += a
    return x


@pytest.mark.parametrize("flag", [np.int64(1), np.int64(0)], ids=["array", "number"])
@pytest.mark.parametrize("a", VECTORS + SQUARES, ids=repr)
@pytest.mark.parametrize("func", [add_into, multiply_into_number, add_in_place])
def test_a_ufunc_with_a_python_operator_into_a_python_number(func, a, flag):
    """np.add(a, 1.0, out=0.0) raises NumPy's TypeError though Python has `+`; `x += a` on the
    number is Python's `x + a` (the staged call used to compute `x + a` for both)."""
    _assert_same_as_eager(func, (flag, a))
