"""else clause of a staged for over a tensor."""

import numpy as np

import staging


def f(values):
    result = 0.0
    for v in values:
        if v < 0:
            result = v
            break
    else:
        result = 100.0
    return result


SPECS = {"values": staging.TensorSpec([None], np.float64)}
