"""Lists built in staged code that used to be refused: `[0] * n` with a count known only when
the graph runs, np.array(lst, dtype) of a list whose items are of several kinds, lists of tuples
whose str items differ, slices and concatenations of lists of tuples, and a staged `if` whose
paths give an empty Python list and a staged list inside a tuple. Each compared with eager."""

import numpy as np
import pytest
from conftest import f64, i64

import staging
from staging import errors


def padded(row):
    merged = []
    for v in row:
        if v != 0:
            merged.append(v)
    merged += [0] * (len(row) - len(merged))
    return np.array(merged, dtype=row.dtype), merged


def repeated_both_ways(x):
    n = 0
    for v in x:
        if v > 0:
            n += 1
    return [1.5, "x"] * n, n * ["a"], [] * n, [7] * np.int32(n)


def hull(points):
    pts = sorted(map(tuple, points))
    if len(pts) <= 2:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1], [(0, "start")] + lower[1:] + []


def signals(prices):
    out = []
    for t in range(1, len(prices)):
        if prices[t] > prices[t - 1]:
            out.append((t, "buy"))
        elif prices[t] < prices[t - 1]:
            out.append((t, "sell"))
    return out


def trades(values, total):
    if total == 0:
        return values.copy(), []
    made = []
    for i, v in enumerate(values):
        if v > total / len(values):
            made.append((i, float(v)))
    return values / total, made


def kept_or_empty(values, limit):
    if limit > 0:
        kept = []
        for v in values:
            if v < limit:
                kept.append(v)
        return 1, kept
    return 0, []


def empty_or_kept(values, limit):
    if limit <= 0:
        return 0, []
    kept = []
    for v in values:
        if v < limit:
            kept.append(v)
    return 1, kept


CASES = [
    (padded, [i64([2, 0, 2, 4]), i64([0, 0]), np.array([3, 0, 1], dtype=np.int32), i64([])]),
    (repeated_both_ways, [f64([1.0, -1.0, 2.0]), f64([]), f64([-1.0])]),
    (
        hull,
        [
            np.array([[0, 0], [1, 1], [2, 2], [2, 0], [0, 2], [1, 0]]),
            np.array([[0.0, 0.0], [1.0, 0.0]]),
            np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 0.0]]),
            np.array([[3, 1], [0, 0], [1, 3], [2, 2]]),
        ],
    ),
    (signals, [f64([1.0, 2.0, 1.5, 1.5, 3.0]), f64([]), f64([2.0])]),
    (
        trades,
        [(f64([1.0, 3.0, 2.0]), 6.0), (f64([1.0]), 0.0), (f64([]), 1.0), (i64([5, 1]), 6)],
    ),
    (kept_or_empty, [(f64([1.0, 5.0]), 2.0), (f64([1.0]), -1.0), (f64([]), 3.0)]),
    (empty_or_kept, [(f64([1.0, 5.0]), 2.0), (f64([1.0]), -1.0), (f64([]), 3.0)]),
]


@pytest.mark.parametrize("f, inputs", CASES, ids=[c[0].__name__ for c in CASES])
def test_lists_built_in_staged_code_are_eagers(same_as_eager, f, inputs):
    same_as_eager(f, *inputs)


def test_results_keep_eagers_python_types():
    array, merged = staging.function(padded)(np.array([2, 0, 1], dtype=np.int32))
    assert array.dtype == np.int32 and type(merged) is list and type(merged[-1]) is int
    out = staging.function(signals)(f64([1.0, 2.0, 1.0]))
    assert out == [(1, "buy"), (2, "sell")] and type(out[0][0]) is int


def test_a_zero_d_array_count_is_refused_naming_the_line():
    def f(x):
        n = np.array(0)
        for v in x:
            if v > 0:
                n = n + 1
        return [0] * n

    with pytest.raises(errors.StagingError) as info:
        staging.function(f)(f64([1.0]))
    assert str(info.value).startswith(f"{__file__}:{f.__code__.co_firstlineno + 5}:")


def test_an_item_a_staged_list_cannot_hold_is_refused_naming_the_line():
    def f(x):
        n = 0
        for v in x:
            if v > 0:
                n += 1
        return [None] * n

    with pytest.raises(errors.UnsupportedOpError) as info:
        staging.function(f)(f64([1.0]))
    message = str(info.value)
    assert message.startswith(f"{__file__}:{f.__code__.co_firstlineno + 5}:")
    assert "this list" in message and "not None" in message


def test_a_float_count_is_refused_naming_the_line():
    def f(x):
        n = 0.0
        for v in x:
            if v > 0:
                n += 1.0
        return [0] * n

    with pytest.raises(errors.StagingError) as info:
        staging.function(f)(f64([1.0]))
    assert str(info.value).startswith(f"{__file__}:{f.__code__.co_firstlineno + 5}:")
