"""return inside a staged if."""

import numpy as np

import staging


def f(x):
    if x > 10.0:
        return x * 2.0
    y = x + 1.0
    return -y


SPECS = {"x": staging.TensorSpec([], np.float64)}
