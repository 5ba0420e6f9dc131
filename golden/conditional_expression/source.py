"""a if c else b on a symbolic condition."""

import numpy as np

import staging


def f(x):
    y = x * 2.0 if x > 0 else x / 2.0
    return y


SPECS = {"x": staging.TensorSpec([], np.float64)}
