"""Central finite differences in float64: the reference the gradient tests compare with."""

from __future__ import annotations

import numpy as np


def numeric_gradient(f, args: tuple, argnum: int = 0, step: float = 1e-6) -> np.ndarray:
    """d f(*args) / d args[argnum] by central differences, element by element."""
    x = np.array(args[argnum], dtype=np.float64)
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        values = []
        for sign in (1.0, -1.0):
            moved = x.copy()
            moved[index] += sign * step
            changed = list(args)
            changed[argnum] = moved if x.ndim else np.float64(moved)
            values.append(float(f(*changed)))
        grad[index] = (values[0] - values[1]) / (2 * step)
    return grad


def assert_close(actual, expected, rtol: float = 1e-6, atol: float = 1e-8) -> None:
    """Relative error of the whole gradient (its norm) below rtol, or within atol."""
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    error = np.linalg.norm(actual - expected)
    scale = max(np.linalg.norm(expected), 1.0)
    assert error <= rtol * scale or error <= atol, (actual, expected, error / scale)
