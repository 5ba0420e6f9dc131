"""Tuple unpacking and augmented assignment in a staged loop."""

import numpy as np

import staging


def f(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


SPECS = {"n": staging.TensorSpec([], np.int64)}
