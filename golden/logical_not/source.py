"""not on a symbolic value."""

import numpy as np

import staging


def f(x):
    positive = x > 0
    return not positive


SPECS = {"x": staging.TensorSpec([], np.float64)}
