"""Seed example (myadd): print and staging.print are both staged (they print on every call; in
TensorFlow a Python print runs only while tracing)."""

import numpy as np

import staging


def f(a, b):
    for i in range(3):
        staging.print(i)
    c = a + b
    print("tracing")
    return c


SPECS = {"a": staging.TensorSpec([], np.float64), "b": staging.TensorSpec([], np.float64)}
