"""Machine learning by hand: gradient descent, clustering, perceptrons, nearest neighbours."""

import math
from collections import Counter

import numpy as np

DOMAIN = "machine learning"


class DivergedError(FloatingPointError):
    pass


def gradient_descent(X, y, lr, epochs, tol=1e-9):
    w = np.zeros(X.shape[1])
    losses = []
    for epoch in range(epochs):
        pred = X @ w
        err = pred - y
        loss = float(np.mean(err**2))
        if not math.isfinite(loss):
            raise DivergedError(f"loss became {loss} at epoch {epoch}")
        losses.append(loss)
        if len(losses) > 1 and abs(losses[-2] - loss) < tol:
            break
        w -= lr * 2 * X.T @ err / len(y)
    return w, losses


def kmeans(points, k, iters, seed):
    rng = np.random.default_rng(seed)
    centers = points[rng.choice(len(points), size=k, replace=False)]
    labels = np.zeros(len(points), dtype=int)
    for it in range(iters):
        d = ((points[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
        new_labels = d.argmin(axis=1)
        if it > 0 and np.array_equal(new_labels, labels):
            break
        labels = new_labels
        for j in range(k):
            members = points[labels == j]
            if len(members):
                centers[j] = members.mean(axis=0)
    return centers, labels


def perceptron(X, y, max_epochs=20):
    w = np.zeros(X.shape[1])
    b = 0.0
    mistakes = 0
    for epoch in range(max_epochs):
        errors = 0
        for xi, yi in zip(X, y):
            if yi * (xi @ w + b) <= 0:
                w += yi * xi
                b += yi
                errors += 1
        mistakes += errors
        if errors == 0:
            return w, b, epoch + 1, mistakes
    return w, b, max_epochs, mistakes


def knn_predict(train_X, train_y, query, k=3):
    dists = [(float(np.linalg.norm(x - query)), int(label)) for x, label in zip(train_X, train_y)]
    dists.sort()
    votes = Counter(label for _, label in dists[:k])
    if not votes:
        raise ValueError("no training data")
    best = max(votes.values())
    return min(label for label, v in votes.items() if v == best)


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def logistic_regression(X, y, lr=0.5, epochs=50):
    w = np.zeros(X.shape[1])
    for _ in range(epochs):
        p = sigmoid(X @ w)
        w += lr * X.T @ (y - p) / len(y)
    p = sigmoid(X @ w)
    eps = 1e-12
    loss = -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))
    accuracy = np.mean((p > 0.5) == (y == 1))
    return w, loss, accuracy


def one_hot(labels, n_classes=None):
    if n_classes is None:
        n_classes = int(max(labels)) + 1 if len(labels) else 0
    out = np.zeros((len(labels), n_classes))
    for i, label in enumerate(labels):
        if label < 0 or label >= n_classes:
            raise IndexError(f"label {label} outside 0..{n_classes - 1}")
        out[i, label] = 1.0
    return out


def confusion(y_true, y_pred):
    classes = sorted(set(y_true) | set(y_pred))
    index = {c: i for i, c in enumerate(classes)}
    m = np.zeros((len(classes), len(classes)), dtype=int)
    for t, p in zip(y_true, y_pred):
        m[index[t], index[p]] += 1
    precision = {}
    for c in classes:
        col = m[:, index[c]].sum()
        precision[c] = m[index[c], index[c]] / col if col else 0.0
    return m, precision


def minibatches(X, y, batch_size, seed):
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(X))
    batches = []
    for start in range(0, len(X), batch_size):
        idx = order[start : start + batch_size]
        batches.append((X[idx].sum(), y[idx].tolist()))
    return batches


def early_stopping(val_losses, patience):
    best = math.inf
    best_epoch = -1
    waited = 0
    for epoch, loss in enumerate(val_losses):
        if loss < best:
            best, best_epoch, waited = loss, epoch, 0
        else:
            waited += 1
            if waited >= patience:
                print(f"stopping at epoch {epoch}, best was {best_epoch}")
                return best_epoch, best
    return best_epoch, best


def decision_stump(x, y):
    best = (math.inf, None, None)
    for threshold in np.unique(x):
        for sign in (1, -1):
            pred = np.where(sign * (x - threshold) >= 0, 1, -1)
            err = np.sum(pred != y)
            if err < best[0]:
                best = (err, threshold, sign)
    return best


def softmax_rows(logits):
    out = np.empty_like(logits, dtype=float)
    for i, row in enumerate(logits):
        shifted = row - np.max(row)
        e = np.exp(shifted)
        out[i] = e / e.sum()
    return out


def learning_rate_schedule(base, epochs, warmup, decay="cosine"):
    rates = []
    for e in range(epochs):
        if e < warmup:
            lr = base * (e + 1) / warmup
        elif decay == "cosine":
            progress = (e - warmup) / max(1, epochs - warmup)
            lr = 0.5 * base * (1 + math.cos(math.pi * progress))
        elif decay == "step":
            lr = base * 0.1 ** ((e - warmup) // 10)
        else:
            raise ValueError(f"unknown decay {decay}")
        rates.append(lr)
    return rates


_XOR_X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])

CASES = {
    gradient_descent: [
        (np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]), np.array([1.0, 3.0, 5.0]), 0.1, 50),
        (np.ones((2, 1)), np.array([2.0, 2.0]), 0.1, 0),
        (np.array([[1.0], [10.0]]), np.array([1.0, 10.0]), 5.0, 200),
    ],
    kmeans: [
        (np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.2]]), 2, 10, 0),
        (np.array([[1.0, 1.0], [2.0, 2.0]]), 1, 0, 1),
        (np.zeros((3, 2)), 2, 5, 2),
    ],
    perceptron: [
        (np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-2.0, -1.0]]), np.array([1, 1, -1, -1])),
        (_XOR_X, np.array([-1, 1, 1, -1]), 5),
        (np.zeros((0, 2)), np.zeros(0)),
    ],
    knn_predict: [
        (np.array([[0.0], [1.0], [5.0], [6.0]]), np.array([0, 0, 1, 1]), np.array([0.5])),
        (np.array([[0.0], [1.0]]), np.array([2, 3]), np.array([0.5]), 2),
        (np.zeros((0, 1)), np.zeros(0), np.array([1.0])),
    ],
    logistic_regression: [
        (np.array([[1.0, -2.0], [1.0, -1.0], [1.0, 1.0], [1.0, 2.0]]), np.array([0, 0, 1, 1])),
        (np.ones((2, 1)), np.array([1.0, 1.0]), 0.1, 0),
        (_XOR_X, np.array([0.0, 1.0, 1.0, 0.0]), 1.0, 5),
    ],
    one_hot: [
        (np.array([0, 2, 1]),),
        (np.array([], dtype=int),),
        ([1, 3], 3),
    ],
    confusion: [
        ([0, 1, 1, 2], [0, 1, 2, 2]),
        ([], []),
        (np.array([1, 1]), np.array([0, 0])),
    ],
    minibatches: [
        (np.arange(10.0).reshape(5, 2), np.arange(5), 2, 0),
        (np.zeros((0, 2)), np.zeros(0), 3, 1),
        (np.ones((3, 1)), np.array([1, 2, 3]), 5, 2),
    ],
    early_stopping: [
        ([1.0, 0.8, 0.85, 0.9, 0.7], 2),
        ([], 3),
        (np.array([0.5, 0.4, 0.3]), 1),
        (np.array([np.nan, 1.0, 2.0]), 1),
    ],
    decision_stump: [
        (np.array([1.0, 2.0, 3.0, 4.0]), np.array([-1, -1, 1, 1])),
        (np.array([]), np.array([])),
        (np.array([5.0, 5.0]), np.array([1, -1])),
    ],
    softmax_rows: [
        (np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]),),
        (np.zeros((0, 3)),),
        (np.array([[1000, 1000]]),),
        (np.array([[np.inf, 0.0]]),),
    ],
    learning_rate_schedule: [
        (0.1, 6, 2),
        (1.0, 0, 3),
        (0.5, 25, 0, "step"),
        (0.5, 3, 1, "linear"),
    ],
}
