"""list.append in a Python loop: ordinary Python list while tracing."""

import numpy as np

import staging


def f(x):
    parts = []
    for k in range(3):
        parts.append(x * k)
    return parts


SPECS = {"x": staging.TensorSpec([], np.float64)}
