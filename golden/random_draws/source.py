"""Random draws and clock reads run when the graph runs: a generator argument, the legacy
np.random functions, Python's random, a clock, and draws inside a staged loop and branch."""

import random
import time

import numpy as np

import staging


def f(rng, x, n):
    noise = rng.normal(scale=0.5, size=x.shape)
    for i in range(n):
        x = x + rng.integers(0, 3, size=x.shape)
    if x.sum() > 0:
        x = x * np.random.rand()
    return x + noise + random.random(), time.perf_counter()


SPECS = {"rng": np.random.default_rng(0), "x": staging.TensorSpec([None], np.float64),
         "n": staging.TensorSpec([], np.int64)}
