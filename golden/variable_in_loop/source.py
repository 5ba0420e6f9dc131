"""Variable updates inside a staged loop keep program order."""

import numpy as np

import staging


TOTAL = staging.Variable(np.zeros(3), name="total")


def f(rows):
    for r in rows:
        TOTAL.assign_add(r)
    return TOTAL.read_value()


SPECS = {"rows": staging.TensorSpec([None, 3], np.float64)}
