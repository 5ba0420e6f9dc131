"""for over a Python list of tensors: unrolled while tracing."""

import numpy as np

import staging


def f(a, b):
    total = 0.0
    for t in [a, b, a]:
        total = total + t
    return total


SPECS = {"a": staging.TensorSpec([], np.float64), "b": staging.TensorSpec([], np.float64)}
