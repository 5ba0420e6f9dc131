"""any() / all() of a generator expression: a loop that returns at the first item deciding the
answer, so the items after it are not computed (a staged loop with an early exit)."""

import numpy as np

import staging


def f(x, limit):
    some_above = any(v > limit for v in x)
    all_finite = all(np.isfinite(v) for v in x)
    return some_above, all_finite


SPECS = {"x": staging.TensorSpec([None], np.float64), "limit": staging.TensorSpec([], np.float64)}
