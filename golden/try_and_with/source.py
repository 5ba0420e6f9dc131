"""try/except and with around a staged if (the context manager is entered while tracing)."""

import contextlib

import numpy as np

import staging

DEFAULTS = {"scale": 2.0}


def f(x):
    try:
        scale = DEFAULTS["scale"]
    except KeyError:
        scale = 1.0
    with contextlib.nullcontext():
        if x > 0:
            return x * scale
    return -x


SPECS = {"x": staging.TensorSpec([], np.float64)}
