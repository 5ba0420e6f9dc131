"""A helper marked do_not_convert is called as is."""

import numpy as np

import staging

import autograph

@autograph.do_not_convert
def double(v):
    return v * 2.0


def f(x):
    return double(x) + 1.0


SPECS = {"x": staging.TensorSpec([], np.float64)}
