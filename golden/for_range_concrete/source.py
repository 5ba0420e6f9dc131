"""for over range(3) with a Python bound: unrolled while tracing."""

import numpy as np

import staging


def f(x):
    for i in range(3):
        x = x * 2.0 + i
    return x


SPECS = {"x": staging.TensorSpec([], np.float64)}
