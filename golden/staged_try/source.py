"""A staged try: the user's exception raised in a staged branch, caught with NumPy's LinAlgError
when the graph runs (else and finally kept as Python runs them)."""

import numpy as np

import staging


class SingularSystem(ValueError):
    def __init__(self, message, size):
        super().__init__(message)
        self.size = size


def f(a, b, tol):
    attempts = 0
    try:
        if tol <= 0:
            raise SingularSystem("tolerance must be positive", b.shape[0])
        x = np.linalg.solve(a, b)
    except np.linalg.LinAlgError as e:
        x = np.linalg.pinv(a) @ b
        attempts = -1
    else:
        attempts = attempts + 1
    finally:
        attempts = attempts + 1
    return x, attempts


SPECS = {
    "a": staging.TensorSpec([3, 3], np.float64),
    "b": staging.TensorSpec([3], np.float64),
    "tol": staging.TensorSpec([], np.float64),
}
