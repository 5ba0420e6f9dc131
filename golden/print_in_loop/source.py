"""print in a staged loop prints on every iteration."""

import numpy as np

import staging


def f(n):
    i = 0
    while i < n:
        print("step", i)
        i += 1
    return i


SPECS = {"n": staging.TensorSpec([], np.int64)}
