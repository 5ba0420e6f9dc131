"""continue in a staged while."""

import numpy as np

import staging


def f(n):
    i = 0
    odd = 0
    while i < n:
        i += 1
        if i % 2 == 0:
            continue
        odd += i
    return odd


SPECS = {"n": staging.TensorSpec([], np.int64)}
