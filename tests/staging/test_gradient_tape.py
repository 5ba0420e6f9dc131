"""staging.GradientTape over staged calls and Variables: training steps, persistence, nested
tapes for second derivatives, and the errors."""

from __future__ import annotations

import numpy as np
import pytest
from _gradient_check import assert_close, numeric_gradient

import staging
from staging import errors

X = np.array([[1.0, 2.0], [0.5, -1.0], [0.0, 1.0], [2.0, 0.3]])
Y = np.array([0.2, -0.1, 0.4, 0.9])


def _model():
    w = staging.Variable(np.array([0.5, -0.3]), name="w")
    b = staging.Variable(0.1, name="b")

    @staging.function
    def predict(x):
        return np.tanh(x @ w + b)

    @staging.function
    def loss_fn(p, y):
        return np.mean((p - y) ** 2)

    return w, b, predict, loss_fn


def _reference_loss(wv, bv):
    return np.mean((np.tanh(X @ wv + bv) - Y) ** 2)


def test_gradients_with_respect_to_variables_and_arguments():
    w, b, predict, loss_fn = _model()
    with staging.GradientTape() as tape:
        loss = loss_fn(predict(X), Y)
    gw, gb, gx, gy = tape.gradient(loss, [w, b, X, Y])
    wv, bv = w.numpy(), b.numpy()
    assert_close(gw, numeric_gradient(lambda v: _reference_loss(v, bv), (wv,)))
    assert_close(gb, numeric_gradient(lambda v: _reference_loss(wv, v), (np.float64(bv),)))
    loss_of_x = lambda x: np.mean((np.tanh(x @ wv + bv) - Y) ** 2)  # noqa: E731
    assert_close(gx, numeric_gradient(loss_of_x, (X,)))
    assert_close(gy, 2 * (Y - np.tanh(X @ wv + bv)) / len(Y))


def test_a_training_loop_traces_the_gradient_once_and_converges():
    w, b, predict, loss_fn = _model()
    losses = []
    for _ in range(60):
        with staging.GradientTape() as tape:
            loss = loss_fn(predict(X), Y)
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.5 * gw)
        b.assign_sub(0.5 * gb)
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0]
    # the same sequence of calls at every step: one gradient function, traced once
    wv, bv = np.array([0.5, -0.3]), 0.1
    for _ in range(60):
        gw = numeric_gradient(lambda v: _reference_loss(v, bv), (wv,))
        gb = numeric_gradient(lambda v: _reference_loss(wv, v), (np.float64(bv),))
        wv, bv = wv - 0.5 * gw, bv - 0.5 * gb
    assert_close(w.numpy(), wv, rtol=1e-6)


def test_a_source_the_target_does_not_depend_on_gets_none():
    w, b, predict, loss_fn = _model()
    other = np.ones(3)
    with staging.GradientTape() as tape:
        loss = loss_fn(predict(X), Y)
    gw, g_other = tape.gradient(loss, [w, other])
    assert gw is not None and g_other is None


def test_persistent_tapes_give_several_gradients_and_others_one():
    @staging.function
    def square(v):
        return np.sum(v * v)

    @staging.function
    def cube(v):
        return np.sum(v**3)

    v = np.array([1.0, 2.0])
    with staging.GradientTape(persistent=True) as tape:
        s, c = square(v), cube(v)
    assert_close(tape.gradient(s, v), 2 * v)
    assert_close(tape.gradient(c, v), 3 * v**2)
    with staging.GradientTape() as once:
        s = square(v)
    once.gradient(s, v)
    with pytest.raises(RuntimeError, match="persistent"):
        once.gradient(s, v)


def test_nested_tapes_give_second_derivatives():
    @staging.function
    def f(v):
        return np.sin(v) * v

    v = np.float64(0.7)
    with staging.GradientTape() as outer:
        with staging.GradientTape() as inner:
            y = f(v)
        dy = inner.gradient(y, v)
    d2y = outer.gradient(dy, v)
    assert dy == pytest.approx(np.cos(v) * v + np.sin(v))
    assert d2y == pytest.approx(2 * np.cos(v) - v * np.sin(v))


def test_variables_read_in_staged_loops_and_branches():
    w = staging.Variable(np.array([0.3, 0.6]))

    @staging.function
    def f(x):
        s = np.zeros(2)
        i = 0
        while i < 3:
            if x > 0:
                s = s + w * x
            else:
                s = s - w
            i += 1
        return np.sum(s * w)

    for x in (np.float64(1.5), np.float64(-2.0)):
        with staging.GradientTape() as tape:
            y = f(x)
        g = tape.gradient(y, w)
        expected = 2 * 3 * x * w.numpy() if x > 0 else -2 * 3 * w.numpy()
        assert_close(g, expected)


def test_a_variable_assigned_then_read_in_a_recorded_call():
    w = staging.Variable(np.array([1.0, 2.0]), name="w")

    @staging.function
    def step(x):
        before = np.sum(w * x)  # reads the value on entry
        w.assign_add(x)  # w = w0 + x
        return before + np.sum(w * w)

    x = np.array([0.5, 1.5])
    w0 = w.numpy()
    with staging.GradientTape() as tape:
        y = step(x)
    gw, gx = tape.gradient(y, [w, x])
    assert_close(gw, x + 2 * (w0 + x))
    assert_close(gx, w0 + 2 * (w0 + x))
    # the recorded call ran again from w's value on entry; w holds what the call left
    assert_close(w.numpy(), w0 + x)
    assert y == pytest.approx(np.sum(w0 * x) + np.sum((w0 + x) ** 2))


def test_a_variable_changed_between_recorded_calls_outside_them_is_refused():
    w = staging.Variable(np.array([1.0, 2.0]), name="w")

    @staging.function
    def scaled(x):
        return w * x

    @staging.function
    def total(y):
        return np.sum(y * w)

    with staging.GradientTape() as tape:
        y = scaled(np.ones(2))
        w.assign(np.array([3.0, 4.0]))  # eager: the tape does not record it
        z = total(y)
    with pytest.raises(errors.GradientError, match="'w' changed between recorded calls"):
        tape.gradient(z, w)


def test_a_recorded_call_drawing_random_numbers_is_refused_and_value_and_grad_works():
    rng = np.random.default_rng(0)

    @staging.function
    def noisy(x):
        mask = rng.random(x.shape) > 0.5  # the draw the error names
        return np.sum(np.where(mask, x * x, 0.0))

    x = np.array([1.0, 2.0, 3.0, 4.0])
    with staging.GradientTape() as tape:
        y = noisy(x)
    with pytest.raises(errors.GradientError, match=r"test_gradient_tape\.py:\d+: random"):
        tape.gradient(y, x)
    value, g = staging.value_and_grad(noisy)(x)
    kept = g != 0  # the same draw gives the value and the gradient
    assert value == pytest.approx(np.sum(x[kept] ** 2))
    assert_close(g[kept], 2 * x[kept])


def test_errors():
    w = staging.Variable(np.array([1.0, 2.0]))

    @staging.function
    def writes_in_a_loop(x):
        for i in range(int(x.shape[0])):
            if x[i] > 0:
                w.assign(w * x)  # the line the error names
        return np.sum(w * 1.0)

    with staging.GradientTape() as tape:
        y = writes_in_a_loop(np.array([2.0, 3.0]))
    with pytest.raises(errors.GradientError, match=r"test_gradient_tape\.py:\d+: the Variable"):
        tape.gradient(y, w)
    with staging.GradientTape() as tape:
        pass
    with pytest.raises(errors.GradientError, match="not returned by a staged call"):
        tape.gradient(np.float64(1.0), w)


def test_output_gradients_and_a_target_that_is_not_a_scalar():
    @staging.function
    def scaled(v):
        return np.sin(v) * 2.0

    v = np.array([0.3, 0.9, 1.4])
    with staging.GradientTape(persistent=True) as tape:
        y = scaled(v)
    assert_close(tape.gradient(y, v), 2.0 * np.cos(v))  # (TF's rule: the sum of the target)
    weights = np.array([1.0, -2.0, 0.5])
    assert_close(tape.gradient(y, v, output_gradients=weights), weights * 2.0 * np.cos(v))


def test_only_watched_variables_when_accessed_ones_are_not_watched():
    w, b, predict, loss_fn = _model()
    with staging.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        loss = loss_fn(predict(X), Y)
    gw, gb = tape.gradient(loss, [w, b])
    assert gw is not None and gb is None
