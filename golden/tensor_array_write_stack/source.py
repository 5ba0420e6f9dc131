"""An explicit TensorArray written in a staged loop and stacked."""

import numpy as np

import staging


def f(n):
    ta = staging.TensorArray(np.float64, size=0, dynamic_size=True)
    for i in range(n):
        ta = ta.write(i, i * 0.5)
    return ta.stack()


SPECS = {"n": staging.TensorSpec([], np.int64)}
