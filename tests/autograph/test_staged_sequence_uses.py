"""Staged values used where Python needs an int or a sequence: a Python list zipped with a staged
array (read at the loop counter), chr() of a staged int and ord() of a staged string, slices of
a list built by a staged loop (a list, not an array), sorted() of one by a key of tuples or
strs, np.array of a staged container, a staged list as the condition of an `if`, and a staged
branch that raises while the other changes a staged list. Each compared with eager code."""

import numpy as np
import pytest
from conftest import f64, i64

import staging


class KindError(Exception):
    pass


def labels_of_positives(values, labels):
    picked = []
    for v, label in zip(values, labels):
        if v > 0:
            picked.append(label)
    return picked


def weighted_by_list(values, weights):
    total = 0.0
    for i, (v, w) in enumerate(zip(values, weights)):
        if v > 1:
            total += v * w + i
    return total


def letters(codes):
    out = []
    vowels = 0
    for c in codes:
        ch = chr(c)
        if ch.lower() in "aeiou":
            vowels += 1
        out.append(ord(ch) - 64)
    return vowels, out


def first_letter(codes):
    return chr(codes[0]) + "!"


def slices(xs, k, j):
    out = []
    for x in xs:
        if x > 0:
            out.append(x)
    return out[:k], out[j:], out[::-1], out[1:k:2], len(out[k:j])


def ranked_by_tuple(names, scores):
    totals = {}
    for name, score in zip(names, scores):
        totals[name] = totals.get(name, 0) + score
    ranked = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))
    return ranked[:2]


def sorted_keys_as_array(ids, values):
    best = {}
    for i, v in zip(ids.tolist(), values):
        if i not in best or v > best[i]:
            best[i] = v
    keys = sorted(best)
    return np.array(keys, dtype=ids.dtype), np.array([best[k] for k in keys])


def words(codes):
    found = []
    word = []
    for c in codes:
        if c > 0:
            word.append(c)
        elif word:
            found.append(len(word))
            word = []
    return found


def balance(amounts, kinds):
    total = 0.0
    rejected = []
    for i, (amount, kind) in enumerate(zip(amounts, kinds)):
        if kind == "in":
            total += amount
        elif kind == "out":
            if total - amount < 0:
                rejected.append(i)
            else:
                total -= amount
        else:
            raise KindError(kind)
    return total, rejected


CASES = [
    (
        labels_of_positives,
        [
            (f64([1.0, -2.0, 3.0]), ["a", "b", "c"]),
            (f64([]), []),
            (f64([-1.0]), ["x"]),
            (f64([1.0, 2.0]), ["only one"]),
        ],
    ),
    (
        weighted_by_list,
        [(f64([1.0, 2.0, 3.0]), [0.5, 1, 2.0]), (f64([]), []), (f64([5.0, 5.0]), [1])],
    ),
    (
        letters,
        [i64([65, 98, 105, 122]), i64([]), (np.array([0x45], dtype=np.uint8),), i64([-1])],
    ),
    (first_letter, [i64([72]), i64([0x110000]), i64([])]),
    (
        slices,
        [
            (i64([1, -2, 3, 4, 5]), 2, 1),
            (i64([]), 3, -1),
            (i64([5, 6, 7]), -1, -5),
            (i64([5, 6, 7]), 10, -10),
        ],
    ),
    (
        ranked_by_tuple,
        [
            (["b", "a", "b", "c"], f64([1.0, 2.0, 1.0, 0.5])),
            ([], f64([])),
            (["z", "y"], f64([1.0, 1.0])),
        ],
    ),
    (
        sorted_keys_as_array,
        [
            (i64([3, 1, 3, 2]), f64([1.0, 2.0, 3.0, 4.0])),
            (i64([]), f64([])),
            (i64([7]), f64([0.5])),
        ],
    ),
    (words, [i64([1, 2, 0, 3, 0, 0, 4]), i64([]), i64([0, 0]), i64([5, 5, 5])]),
    (
        balance,
        [
            (f64([100.0, 30.0, 90.0, 20.0]), ["in", "out", "out", "in"]),
            (f64([]), []),
            (f64([10.0]), ["move"]),
            (f64([5.0, 10.0]), ["in", "out"]),
        ],
    ),
]


@pytest.mark.parametrize("f, inputs", CASES, ids=[c[0].__name__ for c in CASES])
def test_staged_values_used_as_python_needs_them_are_eagers(same_as_eager, f, inputs):
    same_as_eager(f, *inputs)


def test_results_keep_eagers_python_types():
    staged = staging.function(slices)
    a, b, c, d, n = staged(i64([1, -2, 3, 4, 5]), 2, 1)
    assert type(a) is list and type(c) is list and type(n) is int
    assert staged(i64([1, 2]), 1, 0)[0] == [1]
    vowels, out = staging.function(letters)(i64([65, 66]))
    assert type(vowels) is int and out == [1, 2] and type(out[0]) is int
    assert type(staging.function(first_letter)(i64([72]))) is str
    ranked = staging.function(ranked_by_tuple)(["b", "a", "b"], f64([1.0, 2.0, 1.0]))
    assert ranked == [("a", 2.0), ("b", 2.0)] and type(ranked[0]) is tuple


def test_chr_out_of_range_raises_pythons_error():
    staged = staging.function(first_letter)
    with pytest.raises(ValueError, match=r"chr\(\) arg not in range"):
        staged(i64([-5]))
    with pytest.raises(ValueError, match=r"chr\(\) arg not in range"):
        first_letter(i64([-5]))


def test_chr_of_a_staged_float_is_pythons_type_error():
    def f(x):
        return chr(x * 1.5)

    with pytest.raises(TypeError):
        f(f64([2.0])[0])
    with pytest.raises(TypeError):
        staging.function(f)(f64([2.0])[0])


def test_ord_of_a_longer_staged_string_raises_as_eagerly():
    def f(x):
        return ord(f"{x}")

    assert staging.function(f)(np.int64(7)) == f(np.int64(7)) == 55
    with pytest.raises(TypeError):
        f(np.int64(70))
    with pytest.raises(TypeError):
        staging.function(f)(np.int64(70))


def test_a_slice_bound_that_is_not_an_integer_raises_pythons_type_error():
    def f(xs, k):
        out = []
        for x in xs:
            out.append(x)
        return out[: k * 0.5]

    with pytest.raises(TypeError, match="slice indices must be integers"):
        f(i64([1, 2]), 2)
    with pytest.raises(TypeError, match="slice indices must be integers"):
        staging.function(f)(i64([1, 2]), 2)


def fields_as_bytes(codes):
    fields = []
    current = []
    for c in codes:
        if c == 44:
            fields.append(bytes(current).decode())
            current = []
        else:
            current.append(int(c))
    return fields


def test_bytes_of_a_staged_list_decodes_when_the_graph_runs():
    # (other uses of it are refused: tests/autograph/test_run_time_length_lists.py)
    codes = i64([104, 105, 44, 33])
    assert staging.function(fields_as_bytes)(codes) == fields_as_bytes(codes) == ["hi"]
