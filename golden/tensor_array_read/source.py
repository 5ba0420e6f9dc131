"""A fixed-size TensorArray read back element by element."""

import numpy as np

import staging


def f(values):
    ta = staging.TensorArray(np.float64, size=3)
    ta = ta.write(0, values[0])
    ta = ta.write(1, values[1] * 2.0)
    ta = ta.write(2, ta.read(0) + ta.read(1))
    return ta.read(2), ta.size()


SPECS = {"values": staging.TensorSpec([None], np.float64)}
