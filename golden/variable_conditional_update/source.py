"""A Variable assigned in one branch of a staged if."""

import numpy as np

import staging


BEST = staging.Variable(-1.0, name="best")


def f(x):
    if x > BEST.read_value():
        BEST.assign(x)
    return BEST.read_value()


SPECS = {"x": staging.TensorSpec([], np.float64)}
