"""Functions whose saved files are kept in golden/saved (tests/saving/test_saved_golden.py): a
change of the saved format shows as a diff of these files, and old files must keep loading."""

import numpy as np

import staging

WEIGHTS = np.array([[0.5, -1.0], [2.0, 0.25]])
STEP = staging.Variable(np.zeros(2), name="step")


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@staging.function
def affine(x):
    return x @ WEIGHTS + 1.0


def stateful(x, scale=2.0):
    STEP.assign_add(affine(x)[0])
    return {"state": STEP.read_value() * scale, "pair": (x.sum(), "tag")}


def collect(x):
    values = []
    for v in x:
        if v > 0:
            values.append(v * 2.0)
        else:
            print("skipping", v)
    assert len(values) > 0, "nothing positive"
    return np.stack(values)


# name -> (function, positional specs, inputs to run the loaded function on)
SAVED = {
    "collatz_steps": (collatz_steps, [staging.TensorSpec([], np.int64)], [np.int64(27)]),
    "stateful": (stateful, [staging.TensorSpec([2, 2], np.float64)], [np.array([[1.0, 2.0], [3.0, 4.0]])]),
    "collect": (collect, [staging.TensorSpec([None], np.float64)], [np.array([1.5, -2.0, 3.0])]),
}
