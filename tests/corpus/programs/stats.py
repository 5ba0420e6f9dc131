"""Statistics: running moments, histograms, resampling, robust estimates, regression."""

import math
from collections import Counter

import numpy as np

DOMAIN = "statistics"


class InsufficientDataError(ValueError):
    def __init__(self, needed, got):
        super().__init__(f"need at least {needed} observations, got {got}")
        self.needed = needed
        self.got = got


def welford(values):
    n = 0
    mean = 0.0
    m2 = 0.0
    for x in values:
        n += 1
        delta = x - mean
        mean += delta / n
        m2 += delta * (x - mean)
    if n < 2:
        return mean, float("nan")
    return mean, m2 / (n - 1)


def histogram_counts(data, bin_width):
    counts = {}
    for x in data:
        if math.isnan(x):
            counts["nan"] = counts.get("nan", 0) + 1
            continue
        b = math.floor(x / bin_width)
        counts[b] = counts.get(b, 0) + 1
    return counts


def bootstrap_mean_ci(data, n_boot, seed, alpha=0.05):
    if len(data) < 2:
        raise InsufficientDataError(2, len(data))
    rng = np.random.default_rng(seed)
    means = np.empty(n_boot)
    for b in range(n_boot):
        sample = rng.choice(data, size=len(data), replace=True)
        means[b] = sample.mean()
    means.sort()
    lo = means[int(alpha / 2 * n_boot)]
    hi = means[min(n_boot - 1, int((1 - alpha / 2) * n_boot))]
    return lo, hi


def median(values):
    xs = sorted(values)
    n = len(xs)
    if n == 0:
        raise InsufficientDataError(1, 0)
    mid = n // 2
    if n % 2:
        return xs[mid]
    return (xs[mid - 1] + xs[mid]) / 2


def mode_and_ties(values):
    counts = Counter(int(v) for v in values)
    if not counts:
        return None, []
    top = max(counts.values())
    winners = sorted(k for k, c in counts.items() if c == top)
    return winners[0], winners[1:]


def remove_outliers(x, z=2.0):
    kept = x.copy()
    removed = 0
    while len(kept) > 2:
        mu, sd = kept.mean(), kept.std()
        if sd == 0:
            break
        scores = np.abs(kept - mu) / sd
        worst = int(np.argmax(scores))
        if scores[worst] <= z:
            break
        kept = np.delete(kept, worst)
        removed += 1
    return kept, removed


def percentile(values, q):
    if not 0 <= q <= 100:
        raise ValueError(f"q={q} is outside [0, 100]")
    xs = np.sort(values)
    if xs.size == 0:
        return np.nan
    pos = (len(xs) - 1) * q / 100
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(xs) - 1)
    frac = pos - lo
    return xs[lo] * (1 - frac) + xs[hi] * frac


def pearson(x, y):
    n = len(x)
    if n != len(y):
        raise ValueError(f"length mismatch: {n} vs {len(y)}")
    mx, my = sum(x) / n, sum(y) / n
    sxy = sxx = syy = 0.0
    for a, b in zip(x, y):
        sxy += (a - mx) * (b - my)
        sxx += (a - mx) ** 2
        syy += (b - my) ** 2
    if sxx == 0 or syy == 0:
        return 0.0
    return sxy / math.sqrt(sxx * syy)


def weighted_mean(values, weights):
    total_w = 0.0
    acc = 0.0
    for v, w in zip(values, weights):
        if w < 0:
            raise ValueError(f"negative weight {w}")
        if np.isnan(v):
            continue
        acc += v * w
        total_w += w
    return acc / total_w if total_w else float("nan")


def linear_fit(x, y):
    n = x.size
    if n < 2:
        raise InsufficientDataError(2, n)
    xm, ym = x.mean(), y.mean()
    sxx = np.sum((x - xm) ** 2)
    if sxx == 0:
        raise ZeroDivisionError("all x values are equal")
    slope = np.sum((x - xm) * (y - ym)) / sxx
    intercept = ym - slope * xm
    resid = y - (slope * x + intercept)
    r2 = 1 - np.sum(resid**2) / np.sum((y - ym) ** 2) if np.any(y != ym) else 1.0
    return slope, intercept, r2


def kahan_sum(values):
    total = 0.0
    c = 0.0
    for v in values:
        y = v - c
        t = total + y
        c = (t - total) - y
        total = t
    return total


def trimmed_mean(values, proportion):
    xs = np.sort(np.asarray(values, dtype=float))
    k = int(len(xs) * proportion)
    if 2 * k >= len(xs):
        raise InsufficientDataError(2 * k + 1, len(xs))
    core = xs[k : len(xs) - k]
    return core.mean()


def covariance_matrix(data):
    n, d = data.shape
    means = [data[:, j].mean() for j in range(d)]
    cov = np.zeros((d, d))
    for i in range(d):
        for j in range(i, d):
            s = 0.0
            for r in range(n):
                s += (data[r, i] - means[i]) * (data[r, j] - means[j])
            cov[i, j] = cov[j, i] = s / (n - 1)
    return cov


def running_minmax(stream):
    lo, hi = math.inf, -math.inf
    spans = []
    for v in stream:
        if v < lo:
            lo = v
        if v > hi:
            hi = v
        spans.append(hi - lo)
    return lo, hi, spans


def summary_report(samples):
    stats = {"n": len(samples)}
    if len(samples):
        stats["mean"] = round(float(np.mean(samples)), 3)
        stats["min"] = float(np.min(samples))
        stats["max"] = float(np.max(samples))
    lines = [f"{k}={v}" for k, v in stats.items()]
    text = ", ".join(lines)
    print(text)
    return stats


def permutation_test(a, b, n_perm, seed):
    rng = np.random.default_rng(seed)
    observed = abs(a.mean() - b.mean())
    pooled = np.concatenate([a, b])
    count = 0
    for _ in range(n_perm):
        perm = rng.permutation(pooled)
        diff = abs(perm[: len(a)].mean() - perm[len(a) :].mean())
        if diff >= observed:
            count += 1
    return (count + 1) / (n_perm + 1)


def ewma_variance(returns, lam=0.94):
    var = returns[0] ** 2 if len(returns) else 0.0
    history = []
    for r in returns[1:]:
        var = lam * var + (1 - lam) * r * r
        history.append(math.sqrt(var))
    return var, history


CASES = {
    welford: [
        (np.array([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]),),
        (np.array([]),),
        ([3.0],),
        ([1, 2, 3, 4],),
    ],
    histogram_counts: [
        (np.array([0.1, 0.5, 1.2, 2.7, 2.9, -0.3]), 1.0),
        (np.array([np.nan, 1.0, np.nan]), 0.5),
        ([], 1.0),
    ],
    bootstrap_mean_ci: [
        (np.array([1.0, 2.0, 3.0, 4.0, 10.0]), 50, 0),
        (np.array([5.0]), 10, 1),
        (np.array([1.0, 1.0]), 1, 2),
    ],
    median: [
        (np.array([3.0, 1.0, 2.0]),),
        ([4, 1, 3, 2],),
        (np.array([]),),
        (np.array([1.0, np.nan, 0.5]),),
    ],
    mode_and_ties: [
        (np.array([1, 2, 2, 3, 3, 4]),),
        (np.array([]),),
        ([7.9, 7.1, 3.0],),
    ],
    remove_outliers: [
        (np.array([1.0, 1.1, 0.9, 1.0, 10.0, 1.05]), 2.0),
        (np.array([5.0, 5.0, 5.0]),),
        (np.array([1.0, 100.0]),),
    ],
    percentile: [
        (np.array([1.0, 2.0, 3.0, 4.0]), 50),
        (np.array([10.0, 0.0]), 0.0),
        (np.array([]), 90),
        (np.array([1.0]), 101),
    ],
    pearson: [
        (np.array([1.0, 2.0, 3.0]), np.array([2.0, 4.0, 7.0])),
        ([1, 1, 1], [1, 2, 3]),
        (np.array([1.0, 2.0]), np.array([1.0])),
    ],
    weighted_mean: [
        (np.array([1.0, 2.0, np.nan, 4.0]), np.array([1.0, 1.0, 5.0, 2.0])),
        (np.array([1.0]), np.array([0.0])),
        (np.array([1.0, 2.0]), np.array([1.0, -1.0])),
    ],
    linear_fit: [
        (np.array([0.0, 1.0, 2.0, 3.0]), np.array([1.0, 3.0, 5.0, 7.5])),
        (np.array([1.0, 1.0]), np.array([2.0, 3.0])),
        (np.array([1.0]), np.array([1.0])),
        (np.array([0.0, 1.0, 2.0]), np.array([4.0, 4.0, 4.0])),
    ],
    kahan_sum: [
        (np.full(10, 0.1),),
        ([],),
        (np.array([1e16, 1.0, -1e16]),),
    ],
    trimmed_mean: [
        ([1, 2, 3, 4, 100], 0.2),
        (np.array([5.0, 6.0]), 0.5),
        (np.array([2.0, np.nan, 1.0, 3.0]), 0.25),
    ],
    covariance_matrix: [
        (np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 7.0]]),),
        (np.zeros((1, 2)),),
        (np.zeros((3, 0)),),
    ],
    running_minmax: [
        (np.array([3.0, 1.0, 4.0, 1.0, 5.0]),),
        ([],),
        (np.array([2, -2]),),
    ],
    summary_report: [
        (np.array([1.0, 2.5, 4.0]),),
        (np.array([]),),
        ([3, 3],),
    ],
    permutation_test: [
        (np.array([1.0, 2.0, 3.0]), np.array([7.0, 8.0, 9.0]), 30, 0),
        (np.array([1.0]), np.array([1.0]), 5, 1),
        (np.array([1.0, 2.0]), np.array([2.0, 1.0]), 0, 2),
    ],
    ewma_variance: [
        (np.array([0.01, -0.02, 0.015, 0.0]),),
        (np.array([]),),
        (np.array([0.05]), 0.5),
    ],
}
