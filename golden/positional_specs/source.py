"""SPECS may be a list of positional specs; float32 inputs."""

import numpy as np

import staging


def f(x, y):
    if np.all(x > y):
        z = x - y
    else:
        z = y - x
    return z


SPECS = [staging.TensorSpec([2], np.float32), staging.TensorSpec([2], np.float32)]
