"""if without else: the untaken branch passes the variable through."""

import numpy as np

import staging


def f(x):
    if x < 0:
        x = -x
    return x + 1.0


SPECS = {"x": staging.TensorSpec([], np.float64)}
