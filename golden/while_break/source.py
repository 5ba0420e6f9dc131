"""break out of a staged while."""

import numpy as np

import staging


def f(n):
    i = 0
    while i < 100:
        if i * i > n:
            break
        i += 1
    return i


SPECS = {"n": staging.TensorSpec([], np.int64)}
