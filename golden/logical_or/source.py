"""or on symbolic values."""

import numpy as np

import staging


def f(x, y):
    if x > 1.0 or y < -1.0:
        r = 1
    else:
        r = 2
    return r


SPECS = {"x": staging.TensorSpec([], np.float64), "y": staging.TensorSpec([], np.float64)}
