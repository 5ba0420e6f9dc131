"""Staged functions at module level for the Dask tests (tests/staging/test_dask.py): decorated
where they are defined, so that their names find them and they pickle by reference; the
workers import this module to unpickle them. Their eager twins are `.python_function`."""

from __future__ import annotations

import numpy as np

import staging


@staging.function
def soft_clip(block):
    """A staged loop over a block's rows with a branch on their values."""
    out = np.empty_like(block)
    for i in range(block.shape[0]):
        row = block[i]
        if row.sum() > 0:
            out[i] = np.tanh(row)
        else:
            out[i] = row * 0.5
    return out


@staging.function
def newton_sqrt(x):
    """Newton's iteration to a tolerance: a while loop whose trip count depends on the data."""
    y = np.maximum(x, 1.0)
    while np.max(np.abs(y * y - x)) > 1e-9 * np.max(x):
        y = 0.5 * (y + x / y)
    return y


def tracing_counts():
    """How many traces each staged function of this module made in this process."""
    return {"soft_clip": soft_clip.tracing_count, "newton_sqrt": newton_sqrt.tracing_count}
