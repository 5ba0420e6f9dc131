"""Python's view of symbolic arrays of known shape: iteration, unpacking, list(), zip() and
comprehensions, .tolist() and .item(), compared with eager Python bit for bit; the refusals
where the number of items is only known when the graph runs."""

from __future__ import annotations

import collections
import itertools

import numpy as np
import pytest

import staging
from staging import errors


def strictly_same(staged, eager, path="result"):
    """Same structure, Python types, dtypes, shapes and bits (NaN where NaN)."""
    assert type(staged) is type(eager), f"{path}: {type(staged)} vs {type(eager)}"
    if isinstance(eager, (list, tuple)):
        assert len(staged) == len(eager), path
        for i, (a, b) in enumerate(zip(staged, eager)):
            strictly_same(a, b, f"{path}[{i}]")
        return
    if isinstance(eager, (np.ndarray, np.generic)):
        assert staged.dtype == eager.dtype and np.shape(staged) == np.shape(eager), path
        assert np.array_equal(staged, eager, equal_nan=eager.dtype.kind in "fc"), path
        return
    if isinstance(eager, float) and eager != eager:
        assert staged != staged, path
        return
    assert staged == eager, f"{path}: {staged!r} vs {eager!r}"


def check(func, *calls, autograph=True):
    staged = staging.function(func, autograph=autograph)
    for args in calls:
        eager = func(*args)
        strictly_same(staged(*args), eager)  # the trace
        strictly_same(staged(*args), eager)  # the cached graph
    return staged


def line_of(func, offset: int) -> str:
    return f"{__file__}:{func.__code__.co_firstlineno + offset}:"


POINTS = [
    (np.array([[1.0, 2.0], [3.0, -4.0], [0.5, np.nan]]),),
    (np.zeros((0, 2)),),
    (np.array([[7, 8]], dtype=np.int8),),
]


# -- iteration --------------------------------------------------------------------------------


def _shoelace(points):
    """Library-style code iterating an array (not converted: a helper called by a builtin)."""
    return sum(x * y for x, y in points)


def test_iterating_unpacking_in_unconverted_code():
    def f(points):
        total = 0.0
        for x, y in points:
            total = total + x * y
        return total, list(points), [tuple(row) for row in points]

    check(f, *POINTS, autograph=False)


def test_comprehensions_and_generators_in_converted_code_unroll():
    def f(points):
        sums = [x + y for x, y in points]
        firsts = [row[0] for row in points if True]
        return sums, firsts, _shoelace(points), max(len(points), 0)

    check(f, *POINTS)


def test_unpacking_a_row_of_known_length():
    def f(row):
        a, b = row
        first, *rest = row
        return a - b, first, rest

    check(f, (np.array([3.0, 1.5]),), (np.array([np.nan, -0.0]),))


def test_unpacking_a_row_of_another_length_raises_as_eagerly():
    def f(row):
        a, b = row
        return a

    staged = staging.function(f)
    for arg in (np.ones(3), np.ones(1)):
        with pytest.raises(ValueError) as eager:
            f(arg)
        with pytest.raises(ValueError) as got:
            staged(arg)
        assert str(got.value) == str(eager.value)


def test_zip_and_enumerate_outside_a_for_statement():
    def f(xs, ws):
        weighted = [w * x for x, w in zip(xs, ws)]
        indexed = [(i, x) for i, x in enumerate(xs, 1)]
        return weighted, indexed, sum(x for _, x in enumerate(ws))

    check(f, (np.array([1.0, 2.0]), np.array([0.5, 0.25])), (np.zeros(0), np.zeros(0)))


def test_a_tensor_zipped_with_a_numpy_array_made_while_tracing():
    def centroid(points, weights=None):
        if weights is None:
            weights = np.ones(len(points))
        cx = cy = 0.0
        for (x, y), w in zip(points, weights):  # a staged loop over both
            cx += w * x
            cy += w * y
        return cx, cy

    check(centroid, (np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 3.0]]),), (np.zeros((0, 2)),))


def test_a_converted_for_statement_stays_a_staged_loop():
    def f(xs):
        total = 0.0
        for x in xs:
            total += x
        return total

    staged = check(f, (np.arange(4.0),))
    graph = str(staged.get_concrete_function(np.arange(4.0)).graph)
    assert "while_loop" in graph and graph.count("getitem") == 1


def test_iterating_a_2d_array_gives_views():
    def f(x):
        y = x.copy()
        for row in y:
            row[0] = -1.0
        return y

    check(f, (np.ones((3, 2)),), autograph=False)


def test_iterating_needs_a_known_length():
    # (a comprehension or list() over it is a staged loop: tests/autograph/test_comprehensions.py,
    # tests/autograph/test_run_time_length_lists.py; a tuple has its length while tracing)
    def f(x):
        return tuple(x)

    with pytest.raises(errors.SymbolicValueError) as info:
        staging.function(f).get_concrete_function(staging.TensorSpec([None], np.float64))
    message = str(info.value)
    assert message.startswith(line_of(f, 1))
    assert "its first dim is unknown while tracing" in message
    assert "write a `for` statement" in message


def test_iterating_a_scalar_raises_as_eagerly():
    def f(x):
        return list(x.sum())

    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        staging.function(f)(np.ones(2))

    def g(n):
        return list(len(n) * 1)

    with pytest.raises(TypeError, match="'int' object is not iterable"):
        staging.function(g).get_concrete_function(staging.TensorSpec([None], np.float64))


def test_iterating_a_very_long_array_is_refused():
    def f(x):
        return sum(list(x))

    with pytest.raises(errors.SymbolicValueError) as info:
        staging.function(f)(np.zeros(10_001))
    assert str(info.value).startswith(line_of(f, 1)) and "10001 Python values" in str(info.value)


def test_iterating_a_range_with_a_symbolic_bound_in_python_code():
    def f(n):
        return list(itertools.accumulate(range(n)))  # (sum(i for i in range(n)) is staged)

    with pytest.raises(errors.SymbolicValueError) as info:
        staging.function(f)(np.int64(3))
    assert str(info.value).startswith(line_of(f, 1))
    assert "the number of items is unknown while tracing" in str(info.value)


# -- tolist and item --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        np.array([[1.5, np.nan], [-0.0, np.inf]]),
        np.array([3, -1, 2**40], dtype=np.int64),
        np.array([250, 3], dtype=np.uint8),
        np.array([True, False]),
        np.array([1 + 2j]),
        np.float32(0.1),
        np.zeros((0, 3)),
        np.zeros((2, 0)),
        np.array(7, dtype=np.int16),
    ],
)
def test_tolist_gives_python_numbers(value):
    check(lambda x: x.tolist(), (value,))


def test_tolist_results_feed_python_code():
    def f(x):
        values = x.tolist()
        return values[::-1], len(values), values + [0], [v * 2 for v in values]

    check(f, (np.array([3, 1, 2]),))


@pytest.mark.parametrize(
    "call",
    [lambda x: x.sum().item(), lambda x: x[1:2].item(), lambda x: x.item(2), lambda x: x.item(-1)],
)
def test_item(call):
    check(call, (np.array([0.25, -3.0, 9.5]),))


def test_item_of_a_matrix_and_errors():
    check(lambda m: (m.item(1, 0), m.item((0, 1)), m.item(3)), (np.arange(4).reshape(2, 2),))
    with pytest.raises(ValueError, match="can only convert an array of size 1"):
        staging.function(lambda x: x.item())(np.ones(2))


def test_tolist_needs_a_known_shape():
    def f(x):
        return x.tolist()

    with pytest.raises(errors.SymbolicValueError) as info:
        staging.function(f).get_concrete_function(staging.TensorSpec([None, 2], np.float64))
    message = str(info.value)
    assert message.startswith(line_of(f, 1)) and "(None, 2)" in message


def test_tolist_of_strings_is_refused():
    def f(x):
        return x.tolist()

    with pytest.raises(errors.UnsupportedOpError) as info:
        staging.function(f)(np.array(["a", "b"]))
    assert str(info.value).startswith(line_of(f, 1)) and "Python objects" in str(info.value)


def test_tolist_of_a_python_number_raises_as_eagerly():
    def f(x):
        n = len(x) + 0
        return n.tolist()

    with pytest.raises(AttributeError, match="'int' object has no attribute 'tolist'"):
        staging.function(f).get_concrete_function(staging.TensorSpec([None], np.float64))


# -- symbolic values are no dict keys ---------------------------------------------------------


def test_counting_symbolic_values_makes_a_staged_counter():
    def f(x):
        return collections.Counter(x.tolist())

    for x in (np.array([1, 2, 2]), np.zeros(0, dtype=np.int64), np.array([True, False])):
        assert staging.function(f)(x) == f(x)


def test_a_frozenset_of_symbolic_values_is_refused():
    def f(x):
        return frozenset(x.tolist())

    with pytest.raises(errors.SymbolicValueError) as info:
        staging.function(f)(np.array([1, 2, 2]))
    message = str(info.value)
    assert message.startswith(line_of(f, 1)) and "hash()" in message and "np.unique" in message


def test_an_array_is_unhashable_as_eagerly():
    def f(x):
        return {x: 1}

    with pytest.raises(TypeError, match="unhashable type: 'numpy.ndarray'"):
        staging.function(f)(np.ones(2))
