"""f-strings of staged values in a staged loop: a staged string, printed and joined on every call
with eager's text."""

import numpy as np

import staging


def f(x):
    log = ""
    for i in range(x.shape[0]):
        line = f"{i}: {x[i]:.2f}"
        print(line, "ok" if x[i] > 0 else "low")
        log += line + "; "
    return log


SPECS = {"x": staging.TensorSpec([None], np.float64)}
