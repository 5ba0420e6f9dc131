"""A loop variable whose shape grows is generalised to an unknown dim."""

import numpy as np

import staging


def f(x, n):
    i = 0
    while i < n:
        x = np.concatenate([x, x[:1]])
        i += 1
    return x


SPECS = {"x": staging.TensorSpec([None], np.float64), "n": staging.TensorSpec([], np.int64)}
