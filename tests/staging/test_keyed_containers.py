"""Sets and dicts keyed by values known only when the graph runs (staging.state.keyed): staged and
eager agree on the items, their order and their Python types, on equal keys of different types,
NaN keys and missing keys; what cannot be staged is refused naming the user's line."""

from __future__ import annotations

import collections
import math
from collections import Counter

import numpy as np
import pytest

import staging
from staging import errors
from tests.staging.test_staged_containers import check


def line_of(func, offset: int) -> str:
    return f"{__file__}:{func.__code__.co_firstlineno + offset}:"


INTS = [
    (np.array([1, 2, 2, 3, 1, 1]),),
    (np.array([5]),),
    (np.array([0, 0, 0]),),
    (np.array([-1, 1, -1, 2]),),
]


def counter_of_items(x):
    return Counter(x.tolist())


def set_of_items(x):
    return set(x.tolist()), len(set(x.tolist()))


def counted_in_python_loop(x):
    counts = {}
    for i in range(len(x)):  # (a Python loop: the first dim is known)
        counts[int(x[i])] = counts.get(int(x[i]), 0) + 1
    return counts


def counter_augmented(x):
    totals = Counter()
    for v in x.tolist():
        totals[v] += 1
    return dict(sorted(totals.items())), totals.most_common(2), totals.most_common()


def defaultdict_augmented(x):
    d = collections.defaultdict(int)
    d[int(x[0])] += 10
    return d, d[int(x[0])]


def set_item_straight_line(x):
    d = {"first": 0}
    d[int(x[0])] = float(x[0])
    d[int(x[-1])] = 2.5
    return d, len(d), int(x[0]) in d


def comprehensions_of_staged_items(x):
    pos = {int(v) for v in x if v > 0}
    index = {int(v): i for i, v in enumerate(x) if v != 0}
    return pos, index


def counter_of_generator(x):
    counts = Counter(int(v) for v in x)
    top = max(counts.values()) if counts else 0
    return counts, top, sorted(counts.items())


@pytest.mark.parametrize(
    "func",
    [
        counter_of_items,
        set_of_items,
        counted_in_python_loop,
        counter_augmented,
        defaultdict_augmented,
        set_item_straight_line,
        comprehensions_of_staged_items,
        counter_of_generator,
    ],
)
def test_keys_known_when_the_graph_runs(func):
    check(func, *INTS)


def test_empty_inputs():
    empty = (np.zeros(0, dtype=np.int64),)
    check(counter_of_items, empty)
    check(set_of_items, empty)
    check(comprehensions_of_staged_items, empty)
    check(counter_of_generator, empty)


def equal_keys_of_three_types(x):
    d = {}
    d[int(x[0])] = "int"
    d[float(x[1])] = "float"
    d[bool(x[2])] = "bool"
    return d, set([int(x[0]), float(x[1]), bool(x[2])])


def test_equal_keys_of_different_types_are_one_key():
    check(
        equal_keys_of_three_types,
        (np.array([1.0, 1.0, 1.0]),),
        (np.array([0.0, 1.0, 0.0]),),
        (np.array([2.0, 3.0, 1.0]),),
    )


def nan_keys(x):
    d = {}
    for i in range(len(x)):
        d[float(x[i])] = i
    return len(d), sorted(k for k in d if k == k)


def test_nan_keys_are_pythons():
    check(nan_keys, (np.array([np.nan, 1.0, np.nan, 1.0]),), (np.array([2.0]),))


def read_missing(x, k):
    d = {}
    d[int(x[0])] = 1
    return d[k]


def test_a_missing_key_raises_pythons_key_error():
    staged = staging.function(read_missing)
    assert staged(np.array([3]), 3) == read_missing(np.array([3]), 3) == 1
    with pytest.raises(KeyError) as eager:
        read_missing(np.array([3]), 4)
    with pytest.raises(KeyError) as error:
        staged(np.array([3]), 4)
    assert error.value.args == eager.value.args


def counted_strings(x):
    counts = Counter()
    for v in x.tolist():
        counts[f"k{v}"] += 1
    return counts


def test_staged_strings_as_keys():
    check(counted_strings, *INTS)


def get_with_staged_key(x):
    table = {1: "one", 2: "two"}
    return table.get(int(x[0]), "many")


def test_a_python_dict_read_with_a_staged_key():
    check(get_with_staged_key, (np.array([1]),), (np.array([2]),), (np.array([7]),))


def aliased(x):
    d = {}
    other = d
    d[int(x[0])] = 1
    return other


def set_add(x):
    seen = set()
    seen.add(int(x[0]))
    return seen


@pytest.mark.parametrize(
    "func, offset, error, text",
    [
        (aliased, 3, errors.MutationError, "something else also refers to it"),
        (set_add, 2, errors.UnsupportedOpError, "set.add() with a key known only"),
    ],
)
def test_what_cannot_be_staged_is_refused_naming_the_line(func, offset, error, text):
    with pytest.raises(error) as info:
        staging.function(func)(np.array([1, 2]))
    message = str(info.value)
    assert message.startswith(line_of(func, offset)), message
    assert text in message


def test_results_keep_python_types():
    staged = staging.function(counter_augmented)
    plain, top, _ = staged(np.array([4, 4, 9]))
    assert all(type(k) is int and type(v) is int for k, v in plain.items())
    assert top == [(4, 2), (9, 1)] and all(type(k) is int for k, _ in top)
    assert math.isclose(sum(plain.values()), 3)
