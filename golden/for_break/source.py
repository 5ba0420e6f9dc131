"""break out of a staged for over range(n)."""

import numpy as np

import staging


def f(values, limit):
    total = 0.0
    for v in values:
        if total > limit:
            break
        total += v
    return total


SPECS = {"values": staging.TensorSpec([None], np.float64), "limit": staging.TensorSpec([], np.float64)}
