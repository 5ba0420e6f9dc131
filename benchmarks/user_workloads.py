"""The benchmarks' workloads, as users write them (plain functions): benchmarks/run.py times
each staged and plain (the same function, undecorated), benchmarks/jax_backend.py with
jit_compile=True against hand-written jax.jit code."""

from __future__ import annotations

import numpy as np

import staging


def add_one(x):
    return x + 1


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def sum_even(xs):
    total = 0
    for x in xs:
        if x % 2 != 0:
            continue
        total += x
    return total


def chain(x):
    for _ in range(50):
        x = x * 1.0001 + 0.5
        x = x - 0.25
    return x


def newton_sqrt(a, tol):
    """Square roots of an array by Newton's method, until the worst residual is below tol."""
    x = a
    err = np.max(np.abs(x * x - a))
    while err > tol:
        x = 0.5 * (x + a / x)
        err = np.max(np.abs(x * x - a))
    return x


def bisection(lo, hi, tol):
    """The root of x**3 - 2x - 5 in [lo, hi] by bisection on float64 scalars."""
    while hi - lo > tol:
        mid = (lo + hi) / 2
        if mid**3 - 2 * mid - 5 > 0:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


def euler(y0, dt, n):
    """Explicit Euler steps of y' = -y/2, every state appended to a list and stacked."""
    ys = []
    y = y0
    for _ in range(n):
        y = y + dt * (-0.5 * y)
        ys.append(y)
    return np.stack(ys)


def fill(n):
    """`out = np.zeros(n)` filled element by element in a loop."""
    out = np.zeros(n)
    for i in range(n):
        out[i] = i * 0.5
    return out


class RunningMean:
    """A running mean held in Variables, updated by `update` (staged or not: see make_means)."""

    def __init__(self):
        self.total = staging.Variable(np.float64(0.0))
        self.count = staging.Variable(np.int64(0))

    def update(self, x):
        self.total.assign_add(x)
        self.count.assign_add(1)
        return self.total / self.count


class StagedRunningMean(RunningMean):
    update = staging.function(RunningMean.update)


def feed(mean, xs):
    """Calls mean.update for every element of xs; the last mean."""
    result = None
    for x in xs:
        result = mean.update(x)
    return result


NEWTON_ARGS = (np.linspace(1.0, 100.0, 100), 1e-10)
BISECTION_ARGS = (np.float64(0.0), np.float64(5.0), np.float64(1e-12))
EULER_ARGS = (np.float64(1.0), np.float64(0.01), np.int64(100))
MEAN_INPUTS = np.random.default_rng(0).random(1000)
