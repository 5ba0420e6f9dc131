"""A list comprehension and a generator expression with a condition on staged values: each is a
function with a `for` and an `if`, called where it stood (a staged loop appending to a list)."""

import numpy as np

import staging


def f(x):
    positives = [v for v in x if v > 0]
    count = sum(1 for v in x if v > 0)
    return positives, count


SPECS = {"x": staging.TensorSpec([None], np.float64)}
