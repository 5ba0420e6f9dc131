"""Seed example: Collatz-style while with an if inside."""

import numpy as np

import staging


def f(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


SPECS = {"n": staging.TensorSpec([], np.int64)}
