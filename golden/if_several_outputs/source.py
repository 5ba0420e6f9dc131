"""A staged if that assigns several variables, one of them a vector."""

import numpy as np

import staging


def f(x, v):
    if x > 0:
        a = x + 1.0
        w = v * x
    else:
        a = x - 1.0
        w = v - x
    return a, w


SPECS = {"x": staging.TensorSpec([], np.float64), "v": staging.TensorSpec([None], np.float64)}
