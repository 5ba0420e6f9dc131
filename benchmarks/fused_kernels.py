"""Benchmark (not a test): the workloads of fused elementwise runs under each way of running them.

    python -m benchmarks.fused_kernels [--rounds N] [--quick]

Rows: the 150-op chain over 100, 1,000,000 and 10,000,000 float32, normalize + ReLU over
4000x1000 float64 (operands that broadcast), Newton's square root on one block of 250,000
float64 (a staged while loop). Columns: the interpreter with compiled kernels (the default),
the interpreter on NumPy's loops (`native_kernels=False`), eager NumPy, `jit_compile="numba"`,
`jit_compile=True` (XLA), a hand-written `@numba.njit` loop and `jax.jit` of the same function,
when numba and JAX are installed. Each cell is the median over `--rounds` rounds of a best-of
timing, the columns of a row interleaved round by round (a noisy spell of a shared machine hits
them alike). "(differs)" marks a column whose result is not bitwise eager NumPy's. Then the
first-kernel compile time: a fresh kernel cache, the seconds from the trace until the kernel
is ready.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings

import numpy as np

import staging

try:
    from .run import best_time, fmt
    from .user_workloads import chain
except ImportError:  # python benchmarks/fused_kernels.py
    from run import best_time, fmt  # type: ignore[no-redef]
    from user_workloads import chain  # type: ignore[no-redef]


def normalize(x, mean, scale, w, b):
    y = (x - mean) / scale
    y = y * w + b
    return np.maximum(y, 0.0) * y + 1.0


def newton_block(x):
    """Newton's iteration to a tolerance on one block (tests/staging/_dask_helpers.py)."""
    y = np.maximum(x, 1.0)
    while np.max(np.abs(y * y - x)) > 1e-9 * np.max(x):
        y = 0.5 * (y + x / y)
    return y


def _numba_versions():
    """Hand-written @numba.njit loops of the workloads (parallel over the cores), or {}."""
    try:
        import numba
    except ImportError:
        return {}
    f32 = np.float32

    @numba.njit(parallel=True, error_model="numpy")
    def chain_nb(x):
        out = np.empty_like(x)
        for i in numba.prange(x.size):
            v = x[i]
            for _ in range(50):
                v = v * f32(1.0001) + f32(0.5)
                v = v - f32(0.25)
            out[i] = v
        return out

    @numba.njit(parallel=True, error_model="numpy")
    def normalize_nb(x, mean, scale, w, b):
        out = np.empty_like(x)
        for i in numba.prange(x.shape[0]):
            for j in range(x.shape[1]):
                y = (x[i, j] - mean[j]) / scale[j]
                y = y * w[j] + b[j]
                out[i, j] = max(y, 0.0) * y + 1.0
        return out

    @numba.njit(parallel=True, error_model="numpy")
    def newton_nb(x):
        y = np.maximum(x, 1.0)
        while np.max(np.abs(y * y - x)) > 1e-9 * np.max(x):
            for i in numba.prange(y.size):
                y[i] = 0.5 * (y[i] + x[i] / y[i])
        return y

    return {"chain": chain_nb, "normalize": normalize_nb, "newton": newton_nb}


def _jax_versions():
    try:
        import jax
    except ImportError:
        return {}
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def newton_jax(x):
        def cond(y):
            return jnp.max(jnp.abs(y * y - x)) > 1e-9 * jnp.max(x)

        return jax.lax.while_loop(cond, lambda y: 0.5 * (y + x / y), jnp.maximum(x, 1.0))

    def ready(f):
        jitted = jax.jit(f)
        return lambda *a: jax.block_until_ready(jitted(*a))

    def normalize_jax(x, mean, scale, w, b):
        y = (x - mean) / scale
        y = y * w + b
        return jnp.maximum(y, 0.0) * y + 1.0

    return {"chain": ready(chain), "normalize": ready(normalize_jax), "newton": ready(newton_jax)}


def _workloads():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4000, 1000))
    norm_args = (
        x,
        x.mean(axis=0),
        x.std(axis=0),
        rng.standard_normal(1000),
        rng.standard_normal(1000),
    )
    block = rng.uniform(1.0, 1000.0, 250_000)
    rows = [
        (f"150-op chain, {n:,} float32", "chain", chain, (np.linspace(0, 1, n, dtype=np.float32),))
        for n in (100, 1_000_000, 10_000_000)
    ]
    rows.append(("normalize + ReLU, 4000x1000 float64", "normalize", normalize, norm_args))
    rows.append(("Newton sqrt, one block of 250,000 float64", "newton", newton_block, (block,)))
    return rows


def _bitwise(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return (
        a.dtype == b.dtype
        and a.shape == b.shape
        and np.array_equal(a.view(np.uint8), b.view(np.uint8))
    )


def _columns(key, func, args, hand_numba, hand_jax) -> list[tuple[str, object]]:
    """(label, zero-argument callable) of each way of running the workload, warmed up."""
    columns = []
    staged = staging.function(func)
    staged(*args)
    columns.append(("kernels", staged))
    numpy_loops = staging.function(func)
    with staging.optimizer_options(native_kernels=False):
        numpy_loops.get_concrete_function(*args)
    columns.append(("NumPy loops", numpy_loops))
    columns.append(("eager", func))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a graph numba cannot compile runs on the interpreter)
        try:
            import numba  # noqa: F401

            compiled = staging.function(func, jit_compile="numba")
            fallback = getattr(compiled.get_concrete_function(*args)._compiled, "fallback", None)
            label = "jit='numba'" + (" (interpreter)" if fallback else "")
            columns.append((label, compiled))
        except ImportError:
            pass
        if hand_jax:
            columns.append(("jit=True (XLA)", staging.function(func, jit_compile=True)))
    if key in hand_numba:
        columns.append(("@numba.njit", hand_numba[key]))
    if key in hand_jax:
        columns.append(("jax.jit", hand_jax[key]))
    return columns


def _wait_for_kernels():
    from runtime import native

    native.wait_for_kernels(300)


def table(rounds: int, quick: bool) -> None:
    hand_numba, hand_jax = _numba_versions(), _jax_versions()
    lines = []
    for label, key, func, args in _workloads():
        want = func(*args)
        columns = _columns(key, func, args, hand_numba, hand_jax)
        _wait_for_kernels()
        notes = {}
        for name, fn in columns:
            got = fn(*args)
            notes[name] = "" if _bitwise(got, want) else " (differs)"
        budget = 0.1 if quick else (0.5 if "10,000,000" not in label else 1.5)
        times: dict[str, list[float]] = {name: [] for name, _ in columns}
        for _ in range(rounds):
            for name, fn in columns:
                times[name].append(best_time(lambda: fn(*args), min_total=budget, repeat=3))
        cells = [
            f"{name} {fmt(statistics.median(times[name]))}{notes[name]}" for name, _ in columns
        ]
        eager = statistics.median(times["eager"])
        ratio = statistics.median(times["kernels"]) / eager
        lines.append(f"{label}: {ratio:.3f}x of eager | " + "; ".join(cells))
        print(lines[-1], flush=True)


def first_kernel_seconds() -> float:
    """From a fresh trace of a new kernel (an empty cache) until it is ready to run."""
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["STAGING_KERNEL_CACHE"] = scratch
        x = np.linspace(0, 1, 1_000_000, dtype=np.float32)

        def fresh(x):  # (ops in an order no other row has: a kernel nothing made before)
            for _ in range(50):
                x = x * 1.0003 - 0.75
                x = x + 0.125
            return x

        f = staging.function(fresh)
        start = time.perf_counter()
        f.get_concrete_function(x)
        _wait_for_kernels()
        return time.perf_counter() - start


def main(argv=None) -> int:
    warnings.simplefilter("ignore")  # (retracing, and graphs jit_compile="numba" leaves alone)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    table(args.rounds, args.quick)
    print(f"first kernel: ready {first_kernel_seconds():.2f} s after its trace")
    return 0


if __name__ == "__main__":
    sys.exit(main())
