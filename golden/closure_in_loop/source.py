"""A lambda reads a variable a staged loop changes: the loop body writes it through the cell."""

import numpy as np

import staging


def f(n):
    a = 0
    times_ten = lambda: a * 10  # noqa: E731
    s = 0
    i = 0
    while i < n:
        a += 1
        s += times_ten()
        i += 1
    return s


SPECS = {"n": staging.TensorSpec([], np.int64)}
