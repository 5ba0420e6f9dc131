"""assert inside a staged loop."""

import numpy as np

import staging


def f(values):
    total = 0.0
    for v in values:
        assert v >= 0
        total += v
    return total


SPECS = {"values": staging.TensorSpec([None], np.float64)}
