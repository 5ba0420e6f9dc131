"""list.pop() inside an expression in a staged loop: hoisted, popped when the graph runs."""

import numpy as np

import staging


def f(n):
    items = [1.0, 2.0, 3.0, 4.0]
    total = 0.0
    i = 0
    while i < n:
        total = total + items.pop()
        i += 1
    return total


SPECS = {"n": staging.TensorSpec([], np.int64)}
