"""range(start, stop, step) with symbolic bounds."""

import numpy as np

import staging


def f(start, stop):
    acc = 0
    for i in range(start, stop, 2):
        acc += i
    return acc


SPECS = {"start": staging.TensorSpec([], np.int64), "stop": staging.TensorSpec([], np.int64)}
