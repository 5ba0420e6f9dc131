"""Gradient descent with staging.grad inside a staged loop that stops at a tolerance."""

import numpy as np

import staging


def rosenbrock(p):
    return (1.0 - p[0]) ** 2 + 100.0 * (p[1] - p[0] ** 2) ** 2


slope = staging.grad(rosenbrock)


def descend(start, rate):
    p = start
    steps = 0
    g = slope(p)
    while np.sqrt(np.sum(g * g)) > 1e-3 and steps < 2000:
        p = p - rate * g
        g = slope(p)
        steps += 1
    return p, steps


DEMO_FUNCTION = descend
SPECS = {"start": staging.TensorSpec([2], np.float64), "rate": 0.001}
INPUTS = [(np.array([-1.0, 1.5]), 0.001), (np.array([0.5, 0.2]), 0.002), (np.ones(2), 0.001)]
