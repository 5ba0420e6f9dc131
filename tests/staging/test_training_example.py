"""examples/training/logistic_regression.py converges, to the loss the same loop reaches with
jax.grad (same data, same steps)."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples/training/logistic_regression.py"


def _example():
    spec = importlib.util.spec_from_file_location("logistic_regression_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_training_example_converges():
    losses = _example().train(steps=100)
    assert losses[0] == pytest.approx(np.log(2.0), abs=0.01)
    assert losses[-1] < 0.24
    assert all(b <= a + 1e-12 for a, b in zip(losses, losses[1:]))


def test_the_training_example_matches_the_same_loop_with_jax_grad(jax_float64):
    jax = jax_float64
    jnp = jax.numpy
    example = _example()
    x, y = example.make_data()

    def loss(params):
        w, b = params
        logits = x @ w + b
        return jnp.mean(
            jnp.log1p(jnp.exp(-jnp.abs(logits))) + jnp.maximum(logits, 0.0) - logits * y
        )

    params = (jnp.array([0.01, -0.01]), jnp.float64(0.01))
    theirs = []
    step = jax.grad(loss)
    for _ in range(60):
        theirs.append(float(loss(params)))
        gw, gb = step(params)
        params = (params[0] - 0.5 * gw, params[1] - 0.5 * gb)
    ours = example.train(steps=60)
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)
