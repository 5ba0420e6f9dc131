"""A tuple on one path and None on another (`pair = None`, then `pair = (i, j)` in a staged
branch or loop): one graph value of type `None | (...)`. It is tested with `is None`, indexed
by a number, unpacked and returned, as eagerly (the caller gets the Python tuple or None, with
eager's item types); unpacking or indexing it where it is None raises eager's TypeError when
the graph runs. Every other use is refused naming the line, and so is saving it."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest

import staging
from staging import errors
from tests.staging.test_kinds import line_of
from tests.staging.test_none_kind import assert_same_as_eager

CLOSE = np.array([1.0, 5.0, 1.5])
FAR = np.array([1.0, 5.0, 9.5])
EMPTY = np.zeros(0)


def closest(x, limit):
    pair = None
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            if abs(x[i] - x[j]) < limit:
                pair = (i, x[j])
    return pair


def first_close_neighbours(x, limit):
    pair = None
    i = 0
    while i < len(x) - 1:
        if pair is None and abs(x[i] - x[i + 1]) < limit:
            pair = (i, x[i], (x[i + 1], "next"))
        i += 1
    return pair


def used_where_not_none(x, limit):
    pair = closest(x, limit)
    if pair is None:
        return -1.0
    i, v = pair
    return v * 2 + pair[0] + pair[-1] + i


def unpacked(x, limit):
    i, v = closest(x, limit)
    return v - i


def indexed(x, limit):
    return closest(x, limit)[1]


def returned_beside_a_test(x, limit):
    pair = closest(x, limit)
    return pair, pair is not None, [pair]


def returns_early(x):
    for i in range(len(x)):
        if x[i] < 0:
            return i, x[i]
    return None


@pytest.mark.parametrize(
    "func, argument_lists",
    [
        (closest, [(CLOSE, 1.0), (FAR, 1.0), (CLOSE, 0.2), (EMPTY, 1.0)]),
        (first_close_neighbours, [(CLOSE, 5.0), (FAR, 1.0), (np.array([1.0, 1.1, 1.2]), 1.0)]),
        (used_where_not_none, [(CLOSE, 1.0), (FAR, 1.0)]),
        (unpacked, [(CLOSE, 1.0), (FAR, 1.0)]),
        (indexed, [(CLOSE, 1.0), (FAR, 1.0)]),
        (returned_beside_a_test, [(CLOSE, 1.0), (FAR, 1.0)]),
    ],
)
def test_staged_gives_what_eager_gives(func, argument_lists):
    assert_same_as_eager(func, *argument_lists)


def test_a_function_returning_a_tuple_or_none_from_a_staged_loop():
    assert_same_as_eager(
        returns_early,
        (np.array([1.0, -2.0, -3.0]),),
        (np.array([1.0, 2.0]),),
        (np.array([-0.0, -1.0]),),
    )


def added(x, limit):
    pair = closest(x, limit)
    return np.add(pair, 1)


def printed(x, limit):
    pair = closest(x, limit)
    print(pair)


def length(x, limit):
    pair = closest(x, limit)
    return len(pair)


def out_of_range(x, limit):
    pair = closest(x, limit)
    return pair[2]


@pytest.mark.parametrize(
    "func, text, fragment",
    [
        (added, "np.add", "a tuple on some paths and None on others"),
        (printed, "print(pair)", "a tuple on some paths and None on others"),
        (length, "len(pair)", "len() of a value that is a tuple on some paths"),
        (out_of_range, "pair[2]", "an int index in range(-2, 2), not 2"),
    ],
)
def test_other_uses_are_refused_naming_the_line(func, text, fragment):
    with pytest.raises(errors.BranchMismatchError) as info:
        staging.function(func)(CLOSE, 1.0)
    message = str(info.value)
    assert fragment in message
    assert f"test_optional_tuples.py:{line_of(func, text)}" in message


def test_saving_it_is_refused_naming_the_line():
    f = staging.function(closest)
    f(CLOSE, 1.0)
    with tempfile.TemporaryDirectory() as tmp:
        with pytest.raises(errors.SaveError) as info:
            staging.save(f, os.path.join(tmp, "f.stg"))
    message = str(info.value)
    assert "is not saved" in message
    assert f"test_optional_tuples.py:{line_of(closest, 'if abs(x[i] - x[j])')}" in message
