"""An if nested inside another if's branches."""

import numpy as np

import staging


def f(a, b):
    if a > 0:
        if b > 0:
            r = a + b
        else:
            r = a - b
    else:
        r = b
    return r


SPECS = {"a": staging.TensorSpec([], np.float64), "b": staging.TensorSpec([], np.float64)}
