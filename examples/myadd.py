"""print and staging.print are part of the graph: they print on every call (in TensorFlow a Python
print runs only while tracing)."""

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
