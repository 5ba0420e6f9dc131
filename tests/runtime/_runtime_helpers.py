"""Helpers shared by the runtime tests of fused runs (split across threads, compiled kernels)."""

from __future__ import annotations

import numpy as np


def assert_bitwise(a, b):
    """Same dtype, shape and bits (the sign of zeros, NaN payloads included)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a.view(f"u{a.itemsize}"), b.view(f"u{b.itemsize}"))


def chain(x):
    """60 elementwise ops: x * 1.0001 + 0.5 - 0.25, 20 times."""
    for _ in range(20):
        x = x * 1.0001 + 0.5
        x = x - 0.25
    return x
