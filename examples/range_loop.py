"""Power series: `for i in range(n)` with a symbolic `n` is one while_loop, whatever n is."""

import numpy as np

import staging


def exp_series(x, n):
    term = np.ones_like(x)
    total = np.ones_like(x)
    for i in range(1, n):
        term = term * x / i
        total = total + term
    return total


DEMO_FUNCTION = exp_series
SPECS = {"x": staging.TensorSpec([None], np.float64), "n": staging.TensorSpec([], np.int64)}
INPUTS = [(np.array([0.0, 0.5, 1.0]), np.int64(12)), (np.array([-1.0, 2.0]), np.int64(20))]
