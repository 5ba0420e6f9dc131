"""Dict and tuple outputs; the if assigns inside a loop with a Python accumulator."""

import numpy as np

import staging


def f(x, v):
    stats = {"max": np.max(v), "min": np.min(v)}
    if x > stats["max"]:
        label = 1
    else:
        label = 0
    return {"label": label, "range": (stats["min"], stats["max"])}


SPECS = {"x": staging.TensorSpec([], np.float64), "v": staging.TensorSpec([None], np.float64)}
