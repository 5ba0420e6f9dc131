"""A Variable captured by reference; assign_add is a stateful node."""

import numpy as np

import staging


COUNTER = staging.Variable(0.0, name="counter")


def f(x):
    COUNTER.assign_add(x)
    return COUNTER.read_value() * 2.0


SPECS = {"x": staging.TensorSpec([], np.float64)}
