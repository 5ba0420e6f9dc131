"""Collatz steps: a data-dependent `while` with an `if` inside becomes one while_loop with a cond."""

import numpy as np

import staging


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


DEMO_FUNCTION = collatz_steps
SPECS = {"n": staging.TensorSpec([], np.int64)}
INPUTS = [(np.int64(6),), (np.int64(27),), (np.int64(97),)]
