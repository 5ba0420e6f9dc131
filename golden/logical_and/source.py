"""and keeps its short-circuit meaning on symbolic values."""

import numpy as np

import staging


def f(x, y):
    if x > 0 and y > 0:
        r = x + y
    else:
        r = 0.0
    return r


SPECS = {"x": staging.TensorSpec([], np.float64), "y": staging.TensorSpec([], np.float64)}
