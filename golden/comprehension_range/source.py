"""A comprehension over range() of a symbolic bound, and one over Python values in the same
function: the first is a staged loop, the second runs while tracing."""

import numpy as np

import staging


def f(n):
    squares = [i * i for i in range(n)]
    weights = [w / 2 for w in (1, 2, 3)]
    return squares, weights


SPECS = {"n": staging.TensorSpec([], np.int64)}
