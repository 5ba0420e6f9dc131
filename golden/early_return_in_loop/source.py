"""return from inside a staged loop."""

import numpy as np

import staging


def f(values, target):
    for v in values:
        if v == target:
            return 1
    return 0


SPECS = {"values": staging.TensorSpec([None], np.float64), "target": staging.TensorSpec([], np.float64)}
