"""Calling a method of a user object from a converted function."""

import numpy as np

import staging


class Scaler:
    def __init__(self, factor):
        self.factor = factor

    def apply(self, v):
        if v > 0:
            return v * self.factor
        return v


SCALER = Scaler(3.0)


def f(x):
    return SCALER.apply(x) + 1.0


SPECS = {"x": staging.TensorSpec([], np.float64)}
