"""else clause of a staged while: runs unless the loop breaks."""

import numpy as np

import staging


def f(n):
    i = 0
    found = -1
    while i < n:
        if i * 7 % 5 == 3:
            found = i
            break
        i += 1
    else:
        found = -2
    return found


SPECS = {"n": staging.TensorSpec([], np.int64)}
