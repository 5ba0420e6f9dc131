"""Central finite differences in float64: the reference the gradient tests compare with."""

from __future__ import annotations

import numpy as np


def numeric_gradient(f, args: tuple, argnum: int = 0, step: float = 1e-6) -> np.ndarray:
    """d f(*args) / d args[argnum] by central differences, element by element. For a complex
    argument z = x + iy, JAX's convention: df/dx - 1j df/dy (both parts perturbed)."""
    complex_ = np.iscomplexobj(args[argnum])
    x = np.array(args[argnum], dtype=np.complex128 if complex_ else np.float64)
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        for unit, weight in ((1.0, 1.0), (1j, -1j)) if complex_ else ((1.0, 1.0),):
            values = []
            for sign in (1.0, -1.0):
                moved = x.copy()
                moved[index] += sign * step * unit
                changed = list(args)
                changed[argnum] = moved if x.ndim else moved[()]
                values.append(float(f(*changed)))
            grad[index] += weight * (values[0] - values[1]) / (2 * step)
    return grad


def assert_close(actual, expected, rtol: float = 1e-6, atol: float = 1e-8) -> None:
    """Relative error of the whole gradient (its norm) below rtol, or within atol."""
    dtype = np.complex128 if np.iscomplexobj(expected) else np.float64
    actual = np.asarray(actual, dtype=dtype)
    expected = np.asarray(expected, dtype=dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    error = np.linalg.norm(actual - expected)
    scale = max(np.linalg.norm(expected), 1.0)
    assert error <= rtol * scale or error <= atol, (actual, expected, error / scale)
