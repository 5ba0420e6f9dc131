"""Nested conditional expressions."""

import numpy as np

import staging


def f(x):
    return 1 if x > 1.0 else (0 if x > -1.0 else -1)


SPECS = {"x": staging.TensorSpec([], np.float64)}
