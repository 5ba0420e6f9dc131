"""break in an inner while leaves only the inner loop."""

import numpy as np

import staging


def f(n):
    count = 0
    i = 0
    while i < n:
        j = 0
        while True:
            if j >= i:
                break
            count += 1
            j += 1
        i += 1
    return count


SPECS = {"n": staging.TensorSpec([], np.int64)}
