"""The backward pass's negations folded away (staging.gradients.signs): `(-g) * c` becomes
`g * (-c)` and `a + (-u)` becomes `a - u` in the gradient's own nodes, with the same numbers
(NaNs may change their sign bit), while the forward values stay eager's bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import staging
from staging.gradients import signs


def relax(x):
    y = x
    for _ in range(20):
        y = y - 0.001 * (y * y * y - x)
    return np.sum(y)


def negated(x):
    return np.sum(-x) - np.sum(x * -2.0)


def shifted(x, y):
    return np.sum(-x + y * 3.0), -x + y


INPUTS = [
    np.linspace(0.5, 1.5, 8),
    np.array([0.0, -0.0, 1e300, -1e-300, 2.0]),
    np.array([np.inf, 1.0, -np.inf]),
    np.array([np.nan, 1.0, -np.nan]),
]


def _unrewritten(monkeypatch, fn, *args, **options):
    with monkeypatch.context() as m:
        m.setattr(signs, "rewrite", lambda graph, start: None)
        return staging.grad(fn, **options).python_function(*args)


def _negations(graph) -> int:
    return sum(1 for n in graph.walk() if n.op == "negative")


@pytest.mark.parametrize("x", INPUTS, ids=range(len(INPUTS)))
@pytest.mark.parametrize("fn", [relax, negated])
def test_the_gradient_is_the_same_numbers(fn, x, monkeypatch):
    with np.errstate(all="ignore"):
        want = _eager_gradient(fn, x, monkeypatch)
        got = staging.grad(fn)(x)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want, equal_nan=True)
    finite = ~np.isnan(want)
    assert got[finite].tobytes() == want[finite].tobytes()  # (zeros' signs too)


def _eager_gradient(fn, x, monkeypatch):
    """The same gradient without the rewrite, run eagerly through the tracing machinery."""
    staged = staging.function(lambda x: _unrewritten(monkeypatch, fn, x))
    return staged(x)


def test_the_backward_pass_has_fewer_negations(monkeypatch):
    x = INPUTS[0]
    rewritten = staging.grad(relax).get_concrete_function(x).graph
    with monkeypatch.context() as m:
        m.setattr(signs, "rewrite", lambda graph, start: None)
        plain = staging.function(lambda x: staging.grad(relax).python_function(x))
        plain_graph = plain.get_concrete_function(x).graph
    assert _negations(plain_graph) >= 20
    assert _negations(rewritten) < _negations(plain_graph) / 4


def test_forward_values_keep_eagers_bits():
    x = np.array([np.nan, -np.nan, 0.0, 1.0])
    y = np.array([1.0, 2.0, -0.0, np.nan])
    (total, value), grads = staging.value_and_grad(shifted, has_aux=True)(x, y)
    eager_total, eager_value = shifted(x, y)
    assert value.tobytes() == eager_value.tobytes()
    assert np.asarray(total).tobytes() == np.asarray(eager_total).tobytes()
    assert np.array_equal(grads, -np.ones(4))


def test_a_gradient_that_is_a_negation_is_returned():
    x = np.array([1.0, -2.0, 3.0])
    assert np.array_equal(staging.grad(lambda x: np.sum(-x))(x), -np.ones(3))
    assert np.array_equal(staging.grad(negated)(x), np.ones(3))
