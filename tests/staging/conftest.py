"""Shared helpers for the staging tests.

The backend: the staging tests run on the interpreter. The `backend` fixture runs a test with
every `staging.function` it creates compiled by JAX instead (jit_compile=True unless the test
passes jit_compile itself); tests/staging/test_semantics_jax.py uses it to run a representative
set of these tests on both backends. STAGING_TEST_BACKEND=jax applies it to every staging test
(to look for lowering bugs; tests the JAX backend refuses then fail with a LoweringError).
"""

from __future__ import annotations

import os
import sys

import pytest

import staging

BACKENDS = ("interpreter", "jax")


@pytest.fixture(autouse=True)
def _not_eager():
    """Every test starts and ends with staged execution (run_functions_eagerly(False))."""
    staging.run_functions_eagerly(False)
    yield
    staging.run_functions_eagerly(False)


def use_backend(monkeypatch, backend: str) -> None:
    """Functions created from now on (until `monkeypatch` undoes it) run on `backend`: their
    jit_compile default becomes True for "jax" (skips the test when jax is not installed)."""
    if backend == "interpreter":
        return
    if backend != "jax":
        raise ValueError(f"unknown backend {backend!r}: expected one of {BACKENDS}")
    pytest.importorskip("jax")
    module = sys.modules["staging.functions.function"]
    check = module.check_jit_compile

    def jax_by_default(jit_compile):
        return check(True if jit_compile is None else jit_compile)

    monkeypatch.setattr(module, "check_jit_compile", jax_by_default)


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch):
    """Parametrises a test over the interpreter and the JAX backend (see the module docstring)."""
    use_backend(monkeypatch, request.param)
    return request.param


@pytest.fixture(autouse=True)
def _backend_from_environment(monkeypatch):
    chosen = os.environ.get("STAGING_TEST_BACKEND", "").strip().lower()
    if chosen:
        use_backend(monkeypatch, chosen)


@pytest.fixture
def jax_float64():
    """JAX in float64 while the test runs (the XLA backend's own tests expect its default)."""
    jax = pytest.importorskip("jax")
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", previous)
