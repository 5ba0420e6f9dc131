"""A staged for nested in a staged for."""

import numpy as np

import staging


def f(n, m):
    total = 0
    for i in range(n):
        for j in range(m):
            total += i * j
    return total


SPECS = {"n": staging.TensorSpec([], np.int64), "m": staging.TensorSpec([], np.int64)}
