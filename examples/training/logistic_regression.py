"""Logistic regression trained with staging.GradientTape, Variables and a staged training step.

Run it: python examples/training/logistic_regression.py
"""

from __future__ import annotations

import numpy as np

import staging


def make_data(n: int = 200, seed: int = 0):
    """Two overlapping Gaussian clouds in 2-d, labelled 0 and 1."""
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.normal(-1.0, 1.0, (n // 2, 2)), rng.normal(1.0, 1.0, (n // 2, 2))])
    y = np.concatenate([np.zeros(n // 2), np.ones(n // 2)])
    return x, y


class Model:
    def __init__(self):
        # (not zero: the loss has a kink where a logit is exactly 0)
        self.w = staging.Variable(np.array([0.01, -0.01]), name="w")
        self.b = staging.Variable(0.01, name="b")

    @staging.function
    def loss(self, x, y):
        logits = x @ self.w + self.b
        # log(1 + exp(-|z|)) + max(z, 0) - z*y: the cross-entropy, stable for large |z|
        return np.mean(np.log1p(np.exp(-np.abs(logits))) + np.maximum(logits, 0.0) - logits * y)


def train(steps: int = 200, rate: float = 0.5, seed: int = 0) -> list[float]:
    """The loss at each step of gradient descent."""
    x, y = make_data(seed=seed)
    model = Model()
    losses = []
    for _ in range(steps):
        with staging.GradientTape() as tape:
            loss = model.loss(x, y)
        gw, gb = tape.gradient(loss, [model.w, model.b])
        model.w.assign_sub(rate * gw)
        model.b.assign_sub(rate * gb)
        losses.append(float(loss))
    return losses


if __name__ == "__main__":
    losses = train()
    for step in (0, 10, 50, 100, len(losses) - 1):
        print(f"step {step:4d}  loss {losses[step]:.6f}")
