"""A converted user function called from a staged loop."""

import numpy as np

import staging


def step(x):
    if x % 2 == 0:
        return x // 2
    return 3 * x + 1


def f(n, k):
    for _ in range(k):
        n = step(n)
    return n


SPECS = {"n": staging.TensorSpec([], np.int64), "k": staging.TensorSpec([], np.int64)}
