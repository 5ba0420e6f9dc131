"""Many small elementwise ops: the staged graph runs them in place, without per-op allocations."""

import numpy as np

import staging


def smooth_step(x):
    for _ in range(50):
        x = x * 1.0001 + 0.5
        x = x - 0.25
    return np.clip(x, 0.0, 30.0)


DEMO_FUNCTION = smooth_step
SPECS = {"x": staging.TensorSpec([None], np.float32)}
INPUTS = [(np.linspace(0.0, 1.0, 1000, dtype=np.float32),), (np.zeros(3, dtype=np.float32),)]
