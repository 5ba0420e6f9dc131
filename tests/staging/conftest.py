"""Shared helpers for the staging tests.

The backend: the staging tests run on the interpreter. The `backend` fixture runs a test with
every `staging.function` it creates compiled by JAX instead (jit_compile=True unless the test
passes jit_compile itself); tests/staging/test_semantics_jax.py uses it to run a representative
set of these tests on both backends. STAGING_TEST_BACKEND=jax applies it to every staging test
(to look for lowering bugs; tests the JAX backend refuses then fail with a LoweringError).
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings

import pytest

import staging

BACKENDS = ("interpreter", "jax", "numba")


@pytest.fixture(autouse=True)
def _not_eager():
    """Every test starts and ends with staged execution (run_functions_eagerly(False))."""
    staging.run_functions_eagerly(False)
    yield
    staging.run_functions_eagerly(False)


def use_backend(monkeypatch, backend: str) -> None:
    """Functions created from now on (until `monkeypatch` undoes it) run on `backend`: their
    jit_compile default becomes True for "jax", "numba" for "numba" (skips the test when that
    library is not installed)."""
    if backend == "interpreter":
        return
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: expected one of {BACKENDS}")
    pytest.importorskip(backend)
    default = True if backend == "jax" else backend
    module = sys.modules["staging.functions.function"]
    check = module.check_jit_compile

    def backend_by_default(jit_compile):
        return check(default if jit_compile is None else jit_compile)

    monkeypatch.setattr(module, "check_jit_compile", backend_by_default)


@contextlib.contextmanager
def _quiet_fallbacks(backend: str):
    """Under the numba backend, a graph numba does not compile runs on the interpreter with a
    NumbaFallbackWarning: expected for most tests, which check what the interpreter does."""
    with warnings.catch_warnings():
        if backend == "numba":
            from runtime.numba_backend import NumbaFallbackWarning

            warnings.filterwarnings("ignore", category=NumbaFallbackWarning)
        yield


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch):
    """Parametrises a test over the interpreter and the compiled backends (see the module
    docstring)."""
    use_backend(monkeypatch, request.param)
    with _quiet_fallbacks(request.param):
        yield request.param


@pytest.fixture(autouse=True)
def _backend_from_environment(request, monkeypatch):
    chosen = os.environ.get("STAGING_TEST_BACKEND", "").strip().lower()
    for mark in request.node.iter_markers("differs_on"):
        if mark.args[0] == chosen:
            pytest.skip(f"a documented difference of the {chosen} backend: {mark.args[1]}")
    if chosen:
        use_backend(monkeypatch, chosen)
    with _quiet_fallbacks(chosen):
        yield


@pytest.fixture
def jax_float64():
    """JAX in float64 while the test runs (the XLA backend's own tests expect its default)."""
    jax = pytest.importorskip("jax")
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", previous)
