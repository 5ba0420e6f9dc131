"""A Python list, tuple, str or dict read with a key known only when the graph runs
(`table[i]` with a staged `i`: converted code reads it through ag__.item, the python_item op):
the item, its Python type and Python's own errors are eager's."""

import bisect
import os
import tempfile

import numpy as np
import pytest
from conftest import f64, i64

import autograph
import staging


def rule_table(cells, rule):
    table = [(rule >> i) & 1 for i in range(8)]
    out = []
    for c in cells:
        out.append(table[c])
    return out


def alphabet_digit(r):
    alphabet = "0123456789abcdef"
    return alphabet[r]


def mixed_items(i):
    items = [1, 2.5, True, None, "text", np.float32(0.5)]
    return items[i]


def weights_by_key(k):
    weights = {0: 0.5, 1: 2.0, 5: -1.0}
    return weights[k] * 2.0


def grade(score):
    letters = ("F", "D", "C", "B", "A")
    i = 0
    while i < 4 and score >= 60 + 10 * i:
        i += 1
    return letters[i]


def element_of_array_made_here(i):
    table = np.array([10, 20, 30])
    return table[i] + 1


def symbolic_items(x, i):
    pair = [x[0] * 2.0, x[1]]
    return pair[i]


@pytest.mark.parametrize(
    "f, inputs",
    [
        (rule_table, [(np.array([0, 7, 3], dtype=np.int64), 30), (np.zeros(0, np.int64), 90)]),
        (alphabet_digit, [i64(0), i64(15), i64(-1), i64(16), f64(1.0)]),
        (mixed_items, [i64(0), i64(1), i64(2), i64(3), i64(4), i64(5), i64(-6), i64(6)]),
        (weights_by_key, [i64(0), i64(5), i64(2), f64(1.0), np.bool_(True)]),
        (grade, [f64(10.0), f64(65.0), f64(99.0), f64(np.nan)]),
        (element_of_array_made_here, [i64(0), i64(-1), i64(3)]),
        (symbolic_items, [(np.array([1.5, 2.5]), i64(0)), (np.array([1.5, 2.5]), i64(1))]),
    ],
)
def test_items_read_with_a_staged_key_are_eagers(same_as_eager, f, inputs):
    same_as_eager(f, *inputs)


def test_errors_keep_pythons_messages():
    staged = staging.function(alphabet_digit)
    with pytest.raises(IndexError, match="string index out of range"):
        staged(i64(16))
    with pytest.raises(TypeError, match="string indices must be integers, not 'numpy.float64'"):
        staged(f64(1.0))
    with pytest.raises(KeyError, match="2"):
        staging.function(weights_by_key)(i64(2))


def test_the_item_keeps_its_python_type():
    staged = staging.function(mixed_items)
    for i in range(6):
        assert type(staged(i64(i))) is type(mixed_items(i64(i)))


def test_converted_code_reads_computed_keys_through_item():
    code = autograph.to_code(alphabet_digit)
    assert "ag__.item(alphabet, r)" in code
    assert "ag__.item" not in autograph.to_code(lambda x: x[0] + x[1:] + x[-1])


def objects_in_list(i):
    items = [object(), object()]
    return items[i]


def row_of_array_made_here(i):
    table = np.zeros((2, 2))
    row = table[i]
    table[0, 0] = 5.0
    return row


def test_a_row_of_an_array_made_here_is_a_view_as_eagerly(same_as_eager):
    same_as_eager(row_of_array_made_here, i64(0), i64(1), i64(-1))


def test_containers_a_node_cannot_hold_stay_refused_naming_the_line():
    with pytest.raises(staging.errors.SymbolicValueError, match=r"test_python_items\.py:\d+"):
        staging.function(objects_in_list)(i64(0))


def test_jit_compile_refuses_it_naming_the_line():
    from runtime.jax_lowering import LoweringError

    pytest.importorskip("jax")
    with pytest.raises(LoweringError, match=r"test_python_items\.py:\d+: .*python_item"):
        staging.function(alphabet_digit, jit_compile=True)(i64(3))


def test_a_saved_function_reads_the_items():
    staged = staging.function(mixed_items, input_signature=[staging.TensorSpec([], np.int64)])
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "items.npz")
        staged(i64(0))
        staging.save(staged, path)
        loaded = staging.load(path)
        for i in range(6):
            assert repr(loaded(i64(i))) == repr(mixed_items(i64(i)))


def merge_tail(xs):
    left = [1, 2.5, 3]
    merged = []
    i = 0
    while i < len(left) and left[i] < xs[0]:
        merged.append(left[i])
        i += 1
    merged.extend(left[i:])
    return merged, left[:i], left[i::2], left[-i:]


def slice_in_plain_code(i):
    return [4, 5, 6][i:], (7, 8)[:1]


def slice_of_objects(i):
    items = [object(), object()]
    return items[i:]


def slice_of_tuple(i):
    return (1, 2, 3)[i:]


@pytest.mark.parametrize(
    "f, inputs",
    [
        (merge_tail, [np.array([0.0]), np.array([2.0]), np.array([2.7]), np.array([9.0])]),
        (slice_in_plain_code, [i64(0), i64(2), i64(-1), i64(7), i64(-9)]),
    ],
)
def test_a_list_sliced_with_a_staged_bound_is_eagers(same_as_eager, f, inputs):
    same_as_eager(f, *inputs)


def test_converted_code_reads_computed_slices_through_item():
    code = autograph.to_code(merge_tail)
    assert "ag__.item(left, ag__.slice(i, None))" in code
    assert "ag__.item(left, ag__.slice(i, None, 2))" in code
    assert "ag__.item(left, ag__.slice(-i, None))" in code
    assert "ag__.item" not in autograph.to_code(lambda x: x[1:] + x[:-1] + x[::2])


@pytest.mark.parametrize("f", [slice_of_objects, slice_of_tuple])
def test_slices_a_staged_list_cannot_stand_for_stay_refused_naming_the_line(f):
    with pytest.raises(staging.errors.SymbolicValueError, match=r"test_python_items\.py:\d+"):
        staging.function(f)(i64(0))


def grade_letters(scores, cutoffs=(60, 70, 80, 90), letters="FDCBA"):
    grades = []
    for s in scores:
        grades.append(letters[bisect.bisect_right(cutoffs, s)])
    return grades


def searches(x):
    v = x[0]
    return (
        bisect.bisect_left([1, 2.5, 2.5, 4], v),
        bisect.bisect([1, 2], v, 1),
        bisect.bisect((), v),
    )


@pytest.mark.parametrize(
    "f, inputs",
    [
        (grade_letters, [np.array([59.5, 60.0, 95.0, 70.0]), np.zeros(0), np.array([np.nan])]),
        (searches, [np.array([2.5]), np.array([0.0]), np.array([9.0]), np.array([np.nan])]),
    ],
)
def test_a_python_sequence_searched_for_a_staged_value_is_eagers(same_as_eager, f, inputs):
    same_as_eager(f, *inputs)
