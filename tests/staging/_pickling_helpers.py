"""Staged functions at module level, importable by worker processes (tests/staging/test_pickling.py)."""

from __future__ import annotations

import numpy as np

import staging


def clip_sum_plain(x):
    """A loop and a branch on array values: the eager twin of clip_sum."""
    total = 0.0
    for v in x:
        if v > 0.5:
            total += v
        else:
            total -= v
    return total * np.float64(2.0) + x.sum()


clip_sum = staging.function(clip_sum_plain)


@staging.function(input_signature=[staging.TensorSpec([None])])
def scaled(x):
    return x * 3.0 if x.size else x


class Model:
    def __init__(self, scale):
        self.scale = scale

    @staging.function
    def apply(self, x):
        if x.sum() > 0:
            return x * self.scale
        return -x


def run_in_worker(chunk):
    """What a worker returns: the result and how many traces its copy of clip_sum made."""
    before = clip_sum.tracing_count
    result = clip_sum(chunk)
    return result, clip_sum.tracing_count - before


def run_cloudpickled(payload, chunk):
    """A staged function shipped by value with cloudpickle, run in a worker: its result and
    its traces there (it arrives with none)."""
    import cloudpickle

    staged = cloudpickle.loads(payload)
    before = staged.tracing_count
    result = staged(chunk)
    return result, before, staged.tracing_count
