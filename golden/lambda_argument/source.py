"""A lambda passed to a user function."""

import numpy as np

import staging


def apply_twice(g, v):
    return g(g(v))


def f(x):
    return apply_twice(lambda v: v * v + 1.0, x)


SPECS = {"x": staging.TensorSpec([], np.float64)}
