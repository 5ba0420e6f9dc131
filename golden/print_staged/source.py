"""print with a symbolic argument becomes a staged print."""

import numpy as np

import staging


def f(x):
    print("x is", x)
    return x + 1.0


SPECS = {"x": staging.TensorSpec([], np.float64)}
