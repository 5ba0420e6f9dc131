"""if/elif/else chain: nested conds."""

import numpy as np

import staging


def f(x):
    if x > 0:
        s = 1
    elif x < 0:
        s = -1
    else:
        s = 0
    return s


SPECS = {"x": staging.TensorSpec([], np.float64)}
