"""Nested list comprehensions without conditions over tensors of known length: their rows are
taken one by one while tracing (ag__.comprehension_iter), so the result has a known length."""

import numpy as np

import staging


def f(x, y):
    table = [[a * b for b in y] for a in x]
    first, second = [sum(row) for row in table]
    return table, first - second


SPECS = {"x": staging.TensorSpec([2], np.float64), "y": staging.TensorSpec([3], np.float64)}
