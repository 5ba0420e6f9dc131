"""Seed example: for i in range(n) with a symbolic n becomes one while_loop."""

import numpy as np

import staging


def f(n):
    total = 0
    for i in range(n):
        total += i * i
    return total


SPECS = {"n": staging.TensorSpec([], np.int64)}
