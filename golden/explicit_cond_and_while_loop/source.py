"""staging.cond and staging.while_loop called directly."""

import numpy as np

import staging


def f(x, n):
    y = staging.cond(x > 0, lambda: x + 1.0, lambda: x - 1.0)
    _, z = staging.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc * 2.0), (0, y))
    return z


SPECS = {"x": staging.TensorSpec([], np.float64), "n": staging.TensorSpec([], np.int64)}
