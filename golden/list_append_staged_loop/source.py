"""list.append in a staged loop: a TensorArray underneath, a list to the caller."""

import numpy as np

import staging


def f(n):
    squares = []
    for i in range(n):
        squares.append(i * i)
    return squares


SPECS = {"n": staging.TensorSpec([], np.int64)}
