"""Tuples appended to a list in staged code (`out.append((i, x[i]))`): one staged list per item
position; the caller gets a Python list of tuples, as eagerly. Refusals name the line."""

from __future__ import annotations

import numpy as np
import pytest

import staging
from staging import errors


def strictly_same(staged, eager, path="result"):
    assert type(staged) is type(eager), f"{path}: {type(staged)} vs {type(eager)}"
    if isinstance(eager, (list, tuple)):
        assert len(staged) == len(eager), f"{path}: {staged!r} vs {eager!r}"
        for i, (a, b) in enumerate(zip(staged, eager)):
            strictly_same(a, b, f"{path}[{i}]")
        return
    if isinstance(eager, (np.ndarray, np.generic)):
        assert staged.dtype == eager.dtype and np.shape(staged) == np.shape(eager), path
        assert np.array_equal(staged, eager, equal_nan=eager.dtype.kind in "fc"), path
        return
    assert staged == eager, f"{path}: {staged!r} vs {eager!r}"


def check(func, *calls):
    staged = staging.function(func)
    for args in calls:
        eager = func(*args)
        strictly_same(staged(*args), eager)
        strictly_same(staged(*args), eager)


def line_of(func, offset: int) -> str:
    return f"{__file__}:{func.__code__.co_firstlineno + offset}:"


def positives(x):
    out = []
    for i in range(len(x)):
        if x[i] > 0:
            out.append((i, x[i]))
    return out


def test_appended_in_a_staged_loop_starting_empty():
    check(
        positives,
        (np.array([1.0, -2.0, 3.0]),),
        (np.array([-1.0, np.nan]),),
        (np.zeros(0),),
        (np.array([2, 0, 5], dtype=np.int8),),
    )


def rle_encode(values):
    runs = []
    i = 0
    n = len(values)
    while i < n:
        j = i
        while j + 1 < n and values[j + 1] == values[i]:
            j += 1
        runs.append((values[i], j - i + 1))
        i = j + 1
    return runs


def test_run_length_encoding():
    check(rle_encode, (np.array([1, 1, 2, 3, 3, 3]),), (np.zeros(0),), (np.array([7.5]),))


def test_a_list_of_tuples_before_the_loop_and_constant_strings():
    def f(x):
        events = [(0, x[0], "change")]
        for i in range(1, len(x)):
            if x[i] != x[i - 1]:
                events.append((i, x[i], "change"))
        return events, len(events)

    def g(x):
        events = [(-1, 0.0, "start")]
        for v in x:
            if v > 0:
                events.append((1, v, "start"))
        return events

    check(f, (np.array([1.0, 1.0, 2.0]),), (np.array([3.0]),))
    check(g, (np.array([1.0, -1.0, 2.0]),), (np.zeros(0),))


def test_read_back_and_popped_in_converted_code():
    def f(x):
        pairs = []
        for i in range(len(x)):
            pairs.append((i, x[i] * 2))
        total = 0.0
        for i, v in pairs:
            total = total + i * v
        last = pairs[-1] if len(x) else (0, 0.0)
        first_index, first_value = pairs.pop()
        return total, last, first_index, first_value, len(pairs)

    check(f, (np.array([1.0, 2.0, 3.0]),), (np.array([5.0]),))


def test_appended_in_a_staged_if():
    def f(x):
        out = []
        if x[0] > 0:
            out.append((1, x[0]))
        return out

    check(f, (np.array([2.0]),), (np.array([-2.0]),))


def signs(x):
    out = []
    for i, v in enumerate(x):
        if v > 0:
            out.append((i, "pos"))
        elif v < 0:
            out.append((v, "neg"))
    return out


def test_a_string_that_changes_between_tuples_is_held_per_tuple():
    check(
        signs,
        (np.array([1.0, -1.0, 0.0, 2.0]),),
        (np.array([-3, 4], dtype=np.int8),),
        (np.array([0.0]),),
        (np.zeros(0),),
    )


def test_none_and_a_number_at_one_position_are_refused():
    def f(x):
        out = []
        for v in x:
            if v > 0:
                out.append((v, None))
            else:
                out.append((v, 1))
        return out

    with pytest.raises(errors.StagingError) as info:
        staging.function(f)(np.array([1.0, -1.0]))
    message = str(info.value)
    assert message.startswith(line_of(f, 6)) and "None" in message


def test_mixing_tuples_and_numbers_is_refused():
    def f(x):
        out = [0.0]
        for v in x:
            out.append((v, v))
        return out

    with pytest.raises(errors.UnsupportedOpError) as info:
        staging.function(f)(np.array([1.0]))
    assert str(info.value).startswith(line_of(f, 3)) and "holds values of one kind" in str(
        info.value
    )

    def g(x):
        out = []
        for v in x:
            out.append((v, v))
            out.append((v,))
        return out

    with pytest.raises(errors.UnsupportedOpError) as info:
        staging.function(g)(np.array([1.0]))
    assert str(info.value).startswith(line_of(g, 4)) and "tuples of 2 items" in str(info.value)


def test_an_array_of_a_list_of_tuples_is_refused():
    def f(x):
        out = []
        for v in x:
            out.append((v, v * 2))
        return np.array(out)

    with pytest.raises(errors.UnsupportedOpError) as info:
        staging.function(f)(np.array([1.0]))
    assert str(info.value).startswith(line_of(f, 4)) and "list of tuples" in str(info.value)
