"""if/else on a symbolic scalar: both branches staged into one cond."""

import numpy as np

import staging


def f(x):
    if x > 0:
        y = x * 2.0
    else:
        y = -x
    return y


SPECS = {"x": staging.TensorSpec([], np.float64)}
