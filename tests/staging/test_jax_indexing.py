"""Writes through views under jit_compile=True: what the XLA lowering of `x[index] = v` gives,
compared with eager NumPy, including the forms XLA's own passes mishandle."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax")

import staging  # noqa: E402

A = np.random.default_rng(3).uniform(-2, 2, size=(3, 4))


def reversed_view_filled(x):
    y = x.copy()
    v = y[::-1, 1::2]
    v[...] = 0.5
    v[0] = -1
    return y, v, y[1]


def reversed_rows_filled(x):
    y = x.copy()
    v = y[::-1]
    v[0:3] = 2.0  # (every row: a whole-axis slice)
    v[1, ::2] = -3.0
    return y


def whole_axes(x):
    y = x.copy()
    y[...] = 1.5
    z = x.copy()
    z[:, :] = x[::-1]
    w = x.copy()
    w[..., 0:4] = 7.0
    return y, z, w


@pytest.mark.parametrize("fn", [reversed_view_filled, reversed_rows_filled, whole_axes])
def test_whole_array_writes_through_reversed_views_compile(fn, jax_float64):
    # (XLA aborted the process compiling a whole-array scatter into a reversed view, jax 0.10:
    # such a write lowers to a broadcast of the value)
    staged = staging.function(fn, jit_compile=True)
    got, want = staged(A), fn(A)
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        assert type(g) is type(w) and g.dtype == w.dtype and np.array_equal(g, w)
