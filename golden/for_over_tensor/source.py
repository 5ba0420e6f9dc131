"""for x in a tensor: iterates the leading axis in the graph."""

import numpy as np

import staging


def f(values):
    total = 0.0
    for v in values:
        total += v * v
    return total


SPECS = {"values": staging.TensorSpec([None], np.float64)}
