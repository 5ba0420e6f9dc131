"""Python print runs while tracing only; staging.print is part of the graph and runs on every call."""

import numpy as np

import staging


def myadd(a, b):
    for i in range(3):
        staging.print(i)
    c = a + b
    print("tracing")
    return c


DEMO_FUNCTION = myadd
SPECS = {"a": staging.TensorSpec([], np.float64), "b": staging.TensorSpec([], np.float64)}
INPUTS = [(np.float64(1.0), np.float64(2.0)), (np.float64(-0.5), np.float64(4.25))]
