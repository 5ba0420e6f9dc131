"""NaN signs in native kernels (runtime/native.py): an operation with one NaN operand gives that
NaN, sign included, as NumPy's loop does; the C compiler may not rewrite `x * -1.0` or
`x / -1.0` into a negation (which flips the NaN's sign)."""

from __future__ import annotations

import numpy as np
import pytest
from _runtime_helpers import assert_bitwise

import staging
from runtime import native

pytestmark = pytest.mark.skipif(not native._find_compiler(), reason="no C compiler on this machine")


@pytest.fixture(autouse=True)
def kernel_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("STAGING_KERNEL_CACHE", str(tmp_path / "kernels"))


def times_minus_one(x, y):
    return (x + y) * -1.0


def over_minus_one(x, y):
    return (x - y) / -1.0


def minus_one_times(x, y):
    return -1.0 * (x * y) + 0.0


@pytest.mark.parametrize("func", [times_minus_one, over_minus_one, minus_one_times])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_nan_operand_keeps_its_sign(func, dtype, monkeypatch):
    answers = []
    original = native.Kernel.__call__
    monkeypatch.setattr(
        native.Kernel,
        "__call__",
        lambda self, *a: answers.append(original(self, *a)) or answers[-1],
    )
    x = np.linspace(-3, 3, 1000).astype(dtype)
    y = x[::-1].copy()
    x[::7], y[3::7] = np.nan, -np.nan  # a NaN of each sign, each with a number
    f = staging.function(func)
    with np.errstate(all="ignore"), staging.optimizer_options(native_min_work=1, threads=1):
        concrete = f.get_concrete_function(x, y)
        assert native.wait_for_kernels(120)
        assert_bitwise(concrete(x, y), func(x, y))
    assert answers == [True]  # computed by the kernel


def test_kernels_that_test_for_nans_keep_their_vectorized_form():
    """-fsignaling-nans stops GCC vectorizing `isnan` (np.maximum / np.minimum kernels would run
    30 times slower): those kernels are compiled without it."""
    assert "-fsignaling-nans" in native._flags("o0[i] = (a0[i] * (-0x1p+0));")
    assert "-fsignaling-nans" not in native._flags("t0 = ((isnan(a0[i]) || ...) ? a0[i] : s0);")


def negated_plus(x, y):
    return -x + y


@pytest.mark.xfail(
    strict=True,
    reason="GCC rewrites -x + y as y - x, which keeps a NaN x's sign; needs the C generation to "
    "emit negation as a sign-bit flip the compiler does not rewrite (docs/limitations.md)",
)
def test_a_negated_nan_operand_keeps_its_sign():
    x = np.full(300, np.nan)
    y = np.linspace(-3, 3, 300)
    f = staging.function(negated_plus)
    with staging.optimizer_options(native_min_work=1, threads=1):
        concrete = f.get_concrete_function(x, y)
        assert native.wait_for_kernels(120)
        assert_bitwise(concrete(x, y), negated_plus(x, y))
