"""TensorFlow and JAX versions of the benchmark workloads, measured only when they are installed.

Neither is a dependency: `frameworks()` imports whatever is present. Each workload method takes
the same inputs as the staged benchmark, checks its result against the eager one, and returns a
warmed-up zero-argument callable (or, for the one-off timings, the seconds it took).
TensorFlow runs the very same Python functions through `tf.function` (its AutoGraph converts the
loops); JAX cannot trace Python `while` over traced values, so its versions use `lax` loops.
"""

from __future__ import annotations

import importlib
import inspect
import linecache
import time

import numpy as np


def _try_import(name):
    try:
        return importlib.import_module(name)
    except Exception:  # absent, or broken in this environment: no figures
        return None


class Jax:
    label = "JAX"

    def __init__(self, jax):
        self.jax = jax
        self.jnp = jax.numpy
        self.lax = jax.lax
        jax.config.update("jax_enable_x64", True)  # int64 / float64 like the staged runs

    def _ready(self, fn, *args):
        jitted = self.jax.jit(fn)

        def call():
            return self.jax.block_until_ready(jitted(*args))

        return jitted, call

    def call_overhead(self, add_one, x):
        _, call = self._ready(add_one, x)
        assert float(call()) == float(add_one(x))
        return call

    def first_call_lax(self, n, xs):
        """jit + compile + run of a lax version of the 16-line loop function, in seconds."""
        lax, jnp = self.lax, self.jnp

        def loop_heavy(n, xs):
            def body(state):
                n, steps, total = state
                n = lax.cond(n % 2 == 0, lambda m: m // 2, lambda m: 3 * m + 1, n)
                total = total + jnp.sum(jnp.where(xs < 0, 0, xs))
                return n, steps + 1, total

            def cond(state):
                return (state[0] != 1) & (state[0] <= 1000000)

            _, steps, total = lax.while_loop(cond, body, (n, jnp.int64(0), jnp.int64(0)))
            return steps, total

        start = time.perf_counter()
        self.jax.block_until_ready(self.jax.jit(loop_heavy)(n, xs))
        return time.perf_counter() - start  # JAX cannot trace the Python loops of the original

    def collatz(self, collatz, n):
        lax = self.lax

        def staged(n):
            def body(state):
                n, steps = state
                return lax.cond(n % 2 == 0, lambda m: m // 2, lambda m: 3 * m + 1, n), steps + 1

            return lax.while_loop(lambda s: s[0] != 1, body, (n, 0))[1]

        _, call = self._ready(staged, n)
        assert int(call()) == collatz(n)
        return call

    def sum_even(self, sum_even, xs):
        jnp = self.jnp
        _, call = self._ready(lambda xs: jnp.sum(jnp.where(xs % 2 == 0, xs, 0)), xs)
        assert int(call()) == sum_even(xs)
        return call

    def chain(self, chain, x):
        _, call = self._ready(chain, x)
        np.testing.assert_allclose(np.asarray(call()), chain(x), rtol=1e-5)
        return call


REJECTED = "original rejected; with `total = np.int64(0)`"


def _sum_even_typed(xs):
    """The sum-even workload as TensorFlow accepts it: an int64 accumulator from the start."""
    total = np.int64(0)
    for x in xs:
        if x % 2 != 0:
            continue
        total += x
    return total


def _typed_accumulator(fresh_function):
    """A maker of the loop function with `total = np.int64(0)`, the form TensorFlow accepts."""

    def make():
        func = fresh_function()
        source = inspect.getsource(func).replace("total = 0", "total = np.int64(0)")
        namespace = {"np": np}
        filename = f"<tf variant of {func.__name__}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), namespace)
        return namespace[func.__name__]

    return make


class TensorFlow:
    label = "TF"

    def __init__(self, tf):
        self.tf = tf

    def _ready(self, fn, *args):
        f = self.tf.function(fn)
        tensors = [self.tf.constant(a) for a in args]

        def call():
            return f(*tensors)

        call()
        return call

    def call_overhead(self, add_one, x):
        call = self._ready(add_one, x)
        assert float(call()) == float(add_one(x))
        return call

    def conversion(self, fresh_function):
        start = time.perf_counter()
        self.tf.autograph.to_graph(fresh_function())
        return time.perf_counter() - start

    def first_call(self, fresh_function, n, xs):
        n, xs = self.tf.constant(n), self.tf.constant(xs)
        note = None
        try:
            self.tf.function(fresh_function())(n, xs)
        except TypeError:
            note = REJECTED
            fresh_function = _typed_accumulator(fresh_function)
        f = self.tf.function(fresh_function())
        start = time.perf_counter()
        f(n, xs)
        seconds = time.perf_counter() - start
        return seconds if note is None else (seconds, note)

    def collatz(self, collatz, n):
        call = self._ready(collatz, n)
        assert int(call()) == collatz(n)
        return call

    def sum_even(self, sum_even, xs):
        try:
            call, note = self._ready(sum_even, xs), None
        except TypeError:  # `total = 0` is int32 to TF, the elements int64
            call, note = self._ready(_sum_even_typed, xs), REJECTED
        assert int(call()) == sum_even(xs)
        return call if note is None else (call, note)

    def chain(self, chain, x):
        call = self._ready(chain, x)
        np.testing.assert_allclose(call().numpy(), chain(x), rtol=1e-5)
        return call


class StagedJit:
    """The very same staged functions with `staging.function(f, jit_compile=True)`: our graphs
    lowered to JAX and compiled by XLA (docs/jax.md), next to the hand-written JAX versions."""

    label = "jit_compile=True"

    def __init__(self, staging):
        self.staging = staging

    def _ready(self, fn, *args, exact=True):
        staged = self.staging.function(fn, jit_compile=True)
        got, want = staged(*args), fn(*args)
        assert np.array_equal(got, want) if exact else np.allclose(got, want, rtol=1e-5)
        return lambda: staged(*args)

    def call_overhead(self, add_one, x):
        return self._ready(add_one, x)

    def collatz(self, collatz, n):
        return self._ready(collatz, n)

    def sum_even(self, sum_even, xs):
        return self._ready(sum_even, xs)

    def chain(self, chain, x):
        return self._ready(chain, x, exact=False)  # (XLA may fuse and reassociate: docs/jax.md)


def frameworks() -> list:
    """The frameworks installed here (possibly none)."""
    found = []
    tf = _try_import("tensorflow")
    if tf is not None:
        found.append(TensorFlow(tf))
    jax = _try_import("jax")
    if jax is not None:
        found.append(StagedJit(importlib.import_module("staging")))
        found.append(Jax(jax))
    return found
