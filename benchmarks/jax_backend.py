"""The JAX backend (jit_compile=True) against hand-written jax.jit code, in one run.

    python benchmarks/jax_backend.py [--quick] [--cpu]

Prints, per workload, the staged function compiled by JAX (NumPy outputs, and jax.Array
outputs with jit_compile="device"), hand-written jax.jit code of the same computation, and
the interpreter; then the first call (trace + lower + compile) next to jax.jit's own
first call of the hand-written version. Results are checked equal before timing; the four
versions of a workload are timed in turns, best of the rounds. --cpu times the process's CPU
time (time.process_time) instead of wall time: steadier on a shared machine, but it adds up
the time of every thread XLA runs a computation on.
"""

from __future__ import annotations

import sys
import time
import timeit
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

try:
    import jax
    import jax.numpy as jnp
except ImportError:
    sys.exit("jax is not installed: pip install '.[jax]'")

import staging  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from user_workloads import add_one, chain, collatz, sum_even  # noqa: E402

QUICK = "--quick" in sys.argv
TIMER = time.process_time if "--cpu" in sys.argv else time.perf_counter


def best_times(fns, min_total=0.3, repeat=5) -> list:
    """The best time per call of each of `fns`, timed in turns (one round times each once), so
    that a change in the machine's load falls on all of them alike."""
    if QUICK:
        min_total, repeat = min_total / 4, 3
    numbers = []
    for fn in fns:
        number = 1
        while (
            timeit.timeit(fn, number=number, timer=TIMER) < min_total / repeat and number < 1 << 20
        ):
            number *= 2
        numbers.append(number)
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, (fn, number) in enumerate(zip(fns, numbers)):
            best[i] = min(best[i], timeit.timeit(fn, number=number, timer=TIMER) / number)
    return best


def fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:8.2f} us"
    return f"{seconds * 1e3:8.2f} ms"


def divide_loop(xdn):
    """A staged loop dividing by an integer known at run time: a flag per iteration (an integer
    division by zero runs the call again on the interpreter), carried with the loop."""
    x, d, n = xdn[0], xdn[1], xdn[2]
    total = np.int64(0)
    i = 0
    while i < n:
        total += (x + i) // d
        i += 1
    return total


# -- the same, hand-written for jax.jit ------------------------------------------------


def divide_loop_jax(xdn):
    x, d, n = xdn[0], xdn[1], xdn[2]
    return jax.lax.fori_loop(jnp.int64(0), n, lambda i, t: t + (x + i) // d, jnp.int64(0))


def collatz_jax(n):
    def body(carry):
        n, steps = carry
        n = jnp.where(n % 2 == 0, n // 2, 3 * n + 1)
        return n, steps + 1

    return jax.lax.while_loop(lambda c: c[0] != 1, body, (n, jnp.int64(0)))[1]


def sum_even_jax(xs):
    return jnp.sum(jnp.where(xs % 2 == 0, xs, 0))


def chain_jax(x):
    for _ in range(50):
        x = x * jnp.float32(1.0001) + jnp.float32(0.5)
        x = x - jnp.float32(0.25)
    return x


def add_one_jax(x):
    return x + 1


def row(label, staged, device, hand, interpreted):
    print(
        f"{label:<34} {fmt(staged)} {fmt(device)} {fmt(hand)} {fmt(interpreted)}   "
        f"{staged / hand:5.2f}x {device / hand:5.2f}x"
    )


def compare(label, func, hand_func, x):
    staged = staging.function(func, jit_compile=True)
    device = staging.function(func, jit_compile="device")
    interpreted = staging.function(func)
    hand = jax.jit(hand_func)
    with jax.enable_x64(True):
        want = np.asarray(hand(x))
    got = staged(x)
    assert np.allclose(np.asarray(got), want, rtol=1e-6), (label, got, want)
    assert np.allclose(np.asarray(device(x)), want, rtol=1e-6)
    assert np.allclose(np.asarray(interpreted(x)), np.asarray(got), rtol=1e-6)

    def run_hand():
        with jax.enable_x64(True):
            jax.block_until_ready(hand(x))

    row(
        label,
        *best_times(
            [
                lambda: staged(x),
                lambda: jax.block_until_ready(device(x)),
                run_hand,
                lambda: interpreted(x),
            ]
        ),
    )


def first_call(label, func, hand_func, x):
    t = time.perf_counter()
    staging.function(func, jit_compile=True)(x)
    staged = time.perf_counter() - t
    with jax.enable_x64(True):
        t = time.perf_counter()
        jax.block_until_ready(jax.jit(lambda v: hand_func(v))(x))  # a new function: traced anew
        hand = time.perf_counter() - t
    print(f"{label:<34} {fmt(staged)} {fmt(hand)}")


def main():
    warnings.simplefilter("ignore")  # each workload stages its function anew on purpose
    print(f"{'first call (fresh function)':<34} {'staged':>11} {'jax.jit':>11}")
    x_big = np.linspace(0, 1, 1_000_000, dtype=np.float32)
    xs = np.arange(1000, dtype=np.int64)
    first_call("Collatz 837799", collatz, collatz_jax, np.int64(837799))
    first_call("sum-even over 1000 int64", sum_even, sum_even_jax, xs)
    first_call("150-op chain, 1M float32", chain, chain_jax, x_big)
    print()
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}; times are best per call")
    print(
        f"{'workload':<34} {'staged':>11} {'staged dev':>11} {'jax.jit':>11} {'interp':>11}   "
        f"{'ratio':>6} {'dev':>6}"
    )
    x_small = np.linspace(0, 1, 100, dtype=np.float32)
    compare("call overhead, x + 1 (f64 scalar)", add_one, add_one_jax, np.float64(1.0))
    compare("Collatz 837799", collatz, collatz_jax, np.int64(837799))
    compare("sum-even over 1000 int64", sum_even, sum_even_jax, xs)
    compare("loop of 100 (x + i) // d, int64", divide_loop, divide_loop_jax, np.array([7, 3, 100]))
    compare("150-op chain, 100 float32", chain, chain_jax, x_small)
    compare("150-op chain, 1M float32", chain, chain_jax, x_big)


if __name__ == "__main__":
    main()
