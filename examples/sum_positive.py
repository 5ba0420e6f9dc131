"""Sum of the positive entries: `for x in tensor` with `continue` iterates the tensor in the graph."""

import numpy as np

import staging


def sum_positive(values):
    total = 0.0
    for x in values:
        if x <= 0:
            continue
        total += x
    return total


DEMO_FUNCTION = sum_positive
SPECS = {"values": staging.TensorSpec([None], np.float64)}
INPUTS = [(np.array([1.5, -2.0, 3.0, 0.0]),), (np.linspace(-1.0, 1.0, 9),), (np.zeros(0),)]
