"""Seed example (myadd): a Python print runs only while tracing; staging.print is staged."""

import numpy as np

import staging


def f(a, b):
    for i in range(3):
        staging.print(i)
    c = a + b
    print("tracing")
    return c


SPECS = {"a": staging.TensorSpec([], np.float64), "b": staging.TensorSpec([], np.float64)}
