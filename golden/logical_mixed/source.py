"""and/or/not combined, with a Python operand that decides statically."""

import numpy as np

import staging


def f(x, y, strict):
    ok = (x > 0 or y > 0) and not (strict and x == y)
    return ok


SPECS = {"x": staging.TensorSpec([], np.float64), "y": staging.TensorSpec([], np.float64), "strict": False}
