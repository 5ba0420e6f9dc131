"""assert on a symbolic value is staged."""

import numpy as np

import staging


def f(x):
    assert x > 0, "x must be positive"
    return np.sqrt(x)


SPECS = {"x": staging.TensorSpec([], np.float64)}
