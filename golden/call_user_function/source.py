"""Calls to user functions are converted too."""

import numpy as np

import staging


def clip(v, lo, hi):
    if v < lo:
        v = lo
    elif v > hi:
        v = hi
    return v


def f(x):
    return clip(x, -1.0, 1.0) * 10.0


SPECS = {"x": staging.TensorSpec([], np.float64)}
