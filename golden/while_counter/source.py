"""while on a symbolic condition: one while_loop."""

import numpy as np

import staging


def f(n):
    i = 0
    total = 0
    while i < n:
        total += i
        i += 1
    return total


SPECS = {"n": staging.TensorSpec([], np.int64)}
