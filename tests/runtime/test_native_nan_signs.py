"""NaN signs in compiled kernels (runtime/native.py): an operation with one NaN operand gives that
NaN, sign included, as NumPy's loop does; LLVM may not rewrite `x * -1.0` or `x / -1.0` into a
negation (which flips the NaN's sign): the constants are the kernel's arguments, not literals."""

from __future__ import annotations

import numpy as np
import pytest
from _runtime_helpers import assert_bitwise

import staging
from runtime import native

pytestmark = pytest.mark.skipif(not native._kernels_usable(), reason="numba is not installed")


@pytest.fixture(autouse=True)
def kernel_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("STAGING_KERNEL_CACHE", str(tmp_path / "kernels"))


def times_minus_one(x, y):
    return (x + y) * -1.0


def over_minus_one(x, y):
    return (x - y) / -1.0


def minus_one_times(x, y):
    return -1.0 * (x * y) + 0.0


def _kernel_answers(monkeypatch) -> list:
    """What each compiled kernel's call returns, from now on (True: the kernel computed it)."""
    answers: list = []
    original = native.Kernel.__call__
    monkeypatch.setattr(
        native.Kernel,
        "__call__",
        lambda self, *a: answers.append(original(self, *a)) or answers[-1],
    )
    return answers


@pytest.mark.parametrize("func", [times_minus_one, over_minus_one, minus_one_times])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_nan_operand_keeps_its_sign(func, dtype, monkeypatch):
    answers = _kernel_answers(monkeypatch)
    x = np.linspace(-3, 3, 1000).astype(dtype)
    y = x[::-1].copy()
    x[::7], y[3::7] = np.nan, -np.nan  # a NaN of each sign, each with a number
    f = staging.function(func)
    with np.errstate(all="ignore"), staging.optimizer_options(native_min_work=1, threads=1):
        concrete = f.get_concrete_function(x, y)
        assert native.wait_for_kernels(120)
        assert_bitwise(concrete(x, y), func(x, y))
    assert answers == [True]  # computed by the kernel


def negated_plus(x, y):
    return -x + y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_negated_nan_operand_keeps_its_sign(dtype, monkeypatch):
    """LLVM would rewrite -x + y as y - x (which keeps a NaN x's sign): the negation is a sign-bit
    flip it does not see as one."""
    answers = _kernel_answers(monkeypatch)
    x = np.full(300, np.nan, dtype)
    x[::3] = -np.nan
    y = np.linspace(-3, 3, 300).astype(dtype)
    f = staging.function(negated_plus)
    with staging.optimizer_options(native_min_work=1, threads=1):
        concrete = f.get_concrete_function(x, y)
        assert native.wait_for_kernels(120)
        assert_bitwise(concrete(x, y), negated_plus(x, y))
    assert answers == [True]  # computed by the kernel
