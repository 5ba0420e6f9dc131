"""autograph.set_loop_options caps a staged loop."""

import numpy as np

import staging

import autograph

def f(n):
    i = 0
    while i < n:
        autograph.set_loop_options(maximum_iterations=5)
        i += 1
    return i


SPECS = {"n": staging.TensorSpec([], np.int64)}
