"""if on a Python bool: runs natively while tracing, only one branch is staged."""

import numpy as np

import staging


def f(x, negate):
    if negate:
        x = -x
    return x * 3.0


SPECS = {"x": staging.TensorSpec([], np.float64), "negate": True}
