"""Signal processing: smoothing, filters, peak detection, envelopes, resampling."""

import math
from collections import deque

import numpy as np

DOMAIN = "signal processing"


class FilterDesignError(ValueError):
    pass


def moving_average(x, window):
    if window <= 0:
        raise ValueError("window must be positive")
    buf = deque(maxlen=window)
    total = 0.0
    out = []
    for v in x:
        if len(buf) == window:
            total -= buf[0]
        buf.append(v)
        total += v
        out.append(total / len(buf))
    return np.array(out)


def exp_smooth(x, alpha):
    s = None
    smoothed = np.empty_like(x, dtype=float)
    for i, v in enumerate(x):
        if s is None or np.isnan(s):
            s = v
        else:
            s = alpha * v + (1 - alpha) * s
        smoothed[i] = s
    return smoothed


def fir_filter(x, taps):
    n, m = len(x), len(taps)
    y = np.zeros(n)
    for i in range(n):
        acc = 0.0
        for k in range(m):
            if i - k < 0:
                break
            acc += taps[k] * x[i - k]
        y[i] = acc
    return y


def biquad_lowpass(x, cutoff, fs, q=0.7071):
    if not 0 < cutoff < fs / 2:
        raise FilterDesignError(f"cutoff {cutoff} Hz must lie in (0, {fs / 2}) Hz")
    w0 = 2 * math.pi * cutoff / fs
    alpha = math.sin(w0) / (2 * q)
    cosw = math.cos(w0)
    b0 = b2 = (1 - cosw) / 2
    b1 = 1 - cosw
    a0, a1, a2 = 1 + alpha, -2 * cosw, 1 - alpha
    x1 = x2 = y1 = y2 = 0.0
    y = np.zeros_like(x, dtype=float)
    for n, xn in enumerate(x):
        yn = (b0 * xn + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2) / a0
        x2, x1 = x1, xn
        y2, y1 = y1, yn
        y[n] = yn
    return y


def find_peaks(x, threshold=0.0, min_distance=1):
    peaks = []
    last = -min_distance
    for i in range(1, len(x) - 1):
        if x[i] > threshold and x[i] > x[i - 1] and x[i] >= x[i + 1]:
            if i - last >= min_distance:
                peaks.append(i)
                last = i
            elif x[i] > x[peaks[-1]]:
                peaks[-1] = i
                last = i
    return peaks


def zero_crossings(x):
    count = 0
    rising = []
    prev = None
    for i, v in enumerate(x):
        if np.isnan(v):
            continue
        if prev is not None and (prev < 0) != (v < 0):
            count += 1
            if v >= 0:
                rising.append(i)
        prev = v
    return count, rising


def median_filter(x, k=3):
    if k % 2 == 0:
        raise ValueError(f"kernel size must be odd, got {k}")
    half = k // 2
    padded = np.pad(x, half, mode="edge") if len(x) else x
    out = np.empty(len(x))
    for i in range(len(x)):
        out[i] = np.median(padded[i : i + k])
    return out


def normalize_peak(x, target=1.0):
    peak = np.max(np.abs(x)) if x.size else 0.0
    if peak == 0:
        return x.copy(), 1.0
    gain = target / peak
    return x * gain, gain


def sliding_max(x, k):
    dq = deque()
    result = []
    for i, v in enumerate(x):
        while dq and x[dq[-1]] <= v:
            dq.pop()
        dq.append(i)
        if dq[0] <= i - k:
            dq.popleft()
        if i >= k - 1:
            result.append(x[dq[0]])
    return result


def debounce(samples, stable_count):
    state = samples[0] if len(samples) else 0
    candidate, run = state, 0
    changes = []
    for t, s in enumerate(samples):
        if s == state:
            run = 0
            continue
        if s == candidate:
            run += 1
        else:
            candidate, run = s, 1
        if run >= stable_count:
            state = candidate
            changes.append((t, int(state)))
            run = 0
    return state, changes


def rms_envelope(x, frame):
    n_frames = len(x) // frame
    env = np.zeros(n_frames)
    for f in range(n_frames):
        chunk = x[f * frame : (f + 1) * frame]
        env[f] = math.sqrt(float(np.mean(chunk**2)))
    loudest = int(np.argmax(env)) if n_frames else -1
    return env, loudest


def autocorrelation_lag(x, max_lag):
    x = x - np.mean(x)
    denom = np.dot(x, x)
    best_lag, best = 0, -np.inf
    acf = []
    for lag in range(1, max_lag + 1):
        r = np.dot(x[:-lag], x[lag:]) / denom
        acf.append(r)
        if r > best:
            best, best_lag = r, lag
    return best_lag, acf


def decimate(x, factor):
    assert factor >= 1, "factor must be at least 1"
    kernel = np.ones(factor) / factor
    out = []
    for start in range(0, len(x) - factor + 1, factor):
        out.append(float(np.dot(x[start : start + factor], kernel)))
    return out


def clip_count(x, lo, hi):
    clipped = x.copy()
    n_low = n_high = 0
    for i in range(len(clipped)):
        if clipped[i] < lo:
            clipped[i] = lo
            n_low += 1
        elif clipped[i] > hi:
            clipped[i] = hi
            n_high += 1
    print(f"clipped {n_low} low and {n_high} high samples")
    return clipped


def derivative_events(t, y, rate_limit):
    events = {}
    for i in range(1, len(t)):
        dt = t[i] - t[i - 1]
        try:
            rate = (y[i] - y[i - 1]) / dt
        except ZeroDivisionError:
            events[i] = "duplicate timestamp"
            continue
        if abs(rate) > rate_limit:
            events[i] = "rise" if rate > 0 else "fall"
    return events


def hysteresis_threshold(x, high, low):
    active = False
    segments = []
    start = None
    for i, v in enumerate(x):
        if not active and v >= high:
            active, start = True, i
        elif active and v <= low:
            active = False
            segments.append((start, i))
    if active:
        segments.append((start, len(x)))
    return segments


def goertzel_power(x, k):
    n = len(x)
    w = 2 * math.pi * k / n
    coeff = 2 * math.cos(w)
    s_prev = s_prev2 = 0.0
    for sample in x:
        s = sample + coeff * s_prev - s_prev2
        s_prev2, s_prev = s_prev, s
    return s_prev2**2 + s_prev**2 - coeff * s_prev * s_prev2


def schmitt_count(x, lo, hi):
    high = False
    rises = 0
    falls = 0

    def update(v):
        nonlocal high, rises, falls
        if not high and v > hi:
            high = True
            rises += 1
        elif high and v < lo:
            high = False
            falls += 1

    for v in x:
        update(v)
    return rises, falls, high


def pairwise_slopes(t, y):
    def pairs(seq):
        for i in range(len(seq) - 1):
            yield seq[i], seq[i + 1]

    slopes = []
    for (t0, t1), (y0, y1) in zip(pairs(t), pairs(y)):
        slopes.append((y1 - y0) / (t1 - t0))
    steepest = max(slopes, key=abs) if slopes else None
    return slopes, steepest


CASES = {
    moving_average: [
        (np.array([1.0, 2.0, 3.0, 4.0, 5.0]), 3),
        (np.array([]), 2),
        (np.array([1.0, np.nan, 3.0]), 1),
        (np.array([1, 2, 3]), 0),
    ],
    exp_smooth: [
        (np.array([1.0, 2.0, 3.0, 10.0]), 0.5),
        (np.array([np.nan, 1.0, 2.0]), 0.3),
        (np.array([], dtype=float), 0.5),
        (np.array([4, 8, 6]), 0.25),
    ],
    fir_filter: [
        (np.array([1.0, 0.0, 0.0, 0.0]), np.array([0.5, 0.3, 0.2])),
        (np.array([]), np.array([1.0])),
        (np.array([1.0, 2.0, 3.0]), np.array([])),
        (np.array([-1.0, 2.0, -3.0, 4.0]), [0.25, 0.25, 0.25, 0.25]),
    ],
    biquad_lowpass: [
        (np.sin(np.arange(16) * 0.9), 100.0, 1000.0),
        (np.zeros(3), 10.0, 100.0, 1.0),
        (np.ones(4), 600.0, 1000.0),
        (np.array([]), 50.0, 1000.0),
    ],
    find_peaks: [
        (np.array([0.0, 2.0, 1.0, 3.0, 1.0, 0.5, 4.0, 0.0]),),
        (np.array([0.0, 2.0, 1.0, 3.0, 1.0, 0.5, 4.0, 0.0]), 1.0, 3),
        (np.array([1.0]),),
        (np.array([1.0, 1.0, 1.0]), -1.0),
    ],
    zero_crossings: [
        (np.array([1.0, -1.0, -2.0, 3.0, np.nan, -1.0]),),
        (np.array([]),),
        (np.array([0.0, -0.0, 0.0]),),
    ],
    median_filter: [
        (np.array([1.0, 9.0, 2.0, 3.0, 8.0]),),
        (np.array([]), 3),
        (np.array([4.0, 1.0]), 5),
        (np.array([1.0, 2.0]), 2),
    ],
    normalize_peak: [
        (np.array([0.5, -2.0, 1.0]),),
        (np.zeros(3),),
        (np.array([]), 2.0),
        (np.array([1.0, np.nan]),),
    ],
    sliding_max: [
        (np.array([1, 3, -1, -3, 5, 3, 6, 7]), 3),
        (np.array([]), 2),
        (np.array([2.0, 1.0]), 5),
    ],
    debounce: [
        (np.array([0, 0, 1, 0, 1, 1, 1, 0, 0, 0]), 2),
        (np.array([], dtype=int), 3),
        (np.array([1, 1, 1]), 1),
    ],
    rms_envelope: [
        (np.array([1.0, -1.0, 2.0, -2.0, 0.5, 0.5]), 2),
        (np.array([1.0, 2.0]), 3),
        (np.array([3.0, 4.0, 0.0]), 1),
    ],
    autocorrelation_lag: [
        (np.array([1.0, 0.0, -1.0, 0.0, 1.0, 0.0, -1.0, 0.0]), 4),
        (np.array([1.0, 2.0, 3.0]), 0),
        (np.array([2.0, 2.0, 2.0]), 1),
    ],
    decimate: [
        (np.arange(10.0), 3),
        (np.array([1.0, 2.0]), 4),
        (np.arange(4.0), 0),
    ],
    clip_count: [
        (np.array([-5.0, 0.0, 5.0, 10.0]), -1.0, 6.0),
        (np.array([]), 0.0, 1.0),
        (np.array([np.nan, 2.0]), 0.0, 1.0),
    ],
    derivative_events: [
        ([0.0, 1.0, 2.0, 2.0, 3.0], [0.0, 5.0, 5.5, 6.0, 0.0], 2.0),
        (np.array([0.0, 1.0, 1.0]), np.array([0.0, 5.0, 4.0]), 2.0),
        ([0.0], [1.0], 1.0),
    ],
    hysteresis_threshold: [
        (np.array([0.0, 0.6, 0.9, 0.7, 0.2, 0.8, 0.95, 0.5]), 0.8, 0.3),
        (np.array([]), 1.0, 0.0),
        (np.array([1.0, 1.0]), 0.5, 0.1),
    ],
    goertzel_power: [
        (np.cos(2 * np.pi * 2 * np.arange(8) / 8), 2),
        (np.ones(4), 0),
        (np.array([1.0]), 1),
    ],
    schmitt_count: [
        (np.array([0.0, 0.6, 0.4, 0.9, 0.1, 0.95]), 0.2, 0.8),
        (np.array([]), 0.0, 1.0),
        (np.array([2.0, 2.0]), 0.5, 1.0),
    ],
    pairwise_slopes: [
        (np.array([0.0, 1.0, 3.0]), np.array([0.0, 2.0, -2.0])),
        (np.array([1.0]), np.array([5.0])),
        ([0, 2], [1, 2]),
    ],
}
