"""NumPy arrays made while tracing that receive staged values (`out = np.zeros(n); out[i] = v`):
they become staged values, staged and eager agree bit for bit (casting included), and where
something else refers to the array (another name, a view, a container, the caller) the write
is refused naming the line, never made on a copy the others do not see."""

from __future__ import annotations

import numpy as np
import pytest

import autograph
import staging
from staging import errors


def strictly_same(staged, eager, path="result"):
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
    assert staged == eager, f"{path}: {staged!r} vs {eager!r}"


def check(func, *calls):
    staged = staging.function(func)
    for args in calls:
        eager = func(*args)
        strictly_same(staged(*args), eager)  # the trace
        strictly_same(staged(*args), eager)  # the cached graph
    return staged


def refused(func, *args) -> str:
    with pytest.raises(errors.MutationError) as info:
        staging.function(func)(*args)
    return str(info.value)


def line_of(func, offset: int) -> str:
    return f"{__file__}:{func.__code__.co_firstlineno + offset}:"


VECTORS = [(np.array([1.5, -2.0, 4.0]),), (np.array([np.nan, 0.0, -0.0]),), (np.zeros(3),)]


# -- filled at the top level and in loops ------------------------------------------------------


def test_filled_at_the_top_level():
    def f(x):
        out = np.zeros(3)
        out[0] = x[0]
        out[1] += x[1]
        out[2] = 7.0
        return out

    check(f, *VECTORS)


def test_filled_in_a_loop_run_natively():
    def simple_returns(prices):
        out = np.empty(len(prices) - 1) if len(prices) > 1 else np.empty(0)
        for i in range(1, len(prices)):
            out[i - 1] = prices[i] / prices[i - 1] - 1
        return out

    check(simple_returns, *VECTORS, (np.array([2.0]),), (np.zeros(0),))


def test_filled_in_a_staged_loop():
    def f(x, n):
        out = np.zeros(3)
        for i in range(n):
            out[i % 3] = out[i % 3] + x[i % 3] * i
        return out

    for n in (0, 1, 5):
        check(f, *[(v, np.int64(n)) for (v,) in VECTORS])


def test_filled_in_a_staged_while_loop_and_staged_ifs():
    def f(x):
        out = np.full(3, -1.0)
        i = 0
        while i < len(x) and x[i] > -10:
            if x[i] > 0:
                out[i] = x[i]
            else:
                out[i] = 0.0
            i += 1
        return out, i

    check(f, *VECTORS)


def test_loops_that_become_staged_after_native_iterations():
    def first_positives(x):
        out = np.zeros(3)
        for i in range(3):  # a symbolic `break` stages the rest of the range
            if x[i] > 5:
                break
            out[i] = x[i]
        return out

    def while_positive(x):
        out = np.full(3, -1.0)
        i = 0
        while i < 3 and (i < 1 or x[i] > 0):  # concrete, then symbolic
            out[i] = x[i] * 2
            i += 1
        return out

    calls = [(np.array([1.0, 7.0, 2.0]),), (np.array([1.0, 2.0, 3.0]),), (np.array([9.0, -1, 0]),)]
    check(first_positives, *calls)
    check(while_positive, *calls)


def test_written_in_one_branch_of_a_staged_if():
    def f(x):
        out = np.zeros(2)
        if x[0] > 0:
            out[0] = 1.0
        return out

    check(f, (np.ones(2),), (-np.ones(2),))


def test_augmented_assignment_of_a_name():
    def logistic(X, y, epochs):
        w = np.zeros(X.shape[1])
        for _ in range(epochs):
            p = 1 / (1 + np.exp(-(X @ w)))
            w += 0.5 * X.T @ (y - p) / len(y)
        return w

    X = np.array([[1.0, 2.0], [1.0, -1.0], [1.0, 0.5]])
    check(logistic, (X, np.array([1.0, 0.0, 1.0]), 5), (X, np.zeros(3), 0))


def test_augmented_assignment_in_a_staged_if():
    def f(x):
        w = np.zeros(2)
        if x[0] > 0:
            w += 1.0
        else:
            w -= x
        return w

    check(f, (np.ones(2),), (-np.ones(2),))


def test_concrete_array_carried_by_a_native_loop_into_a_staged_if():
    def pagerank_like(x):
        new = np.full(2, 0.5)
        for u in range(2):
            if x[u] > 0:
                new += x[u]
            else:
                new -= 1.0
        return new

    check(pagerank_like, (np.array([1.0, -1.0]),), (np.array([-3.0, 2.0]),))


def test_a_zero_d_array_stays_an_array():
    def f(x):
        acc = np.array(0.0)
        acc += x[0]
        return acc

    check(f, *VECTORS)


# -- staged indices and NumPy's casting --------------------------------------------------------


def test_staged_index():
    def counting(values, max_value):
        counts = np.zeros(max_value + 1, dtype=int)
        for v in values:
            counts[v] += 1
        return counts

    check(counting, (np.array([0, 2, 2, 3]), 3), (np.zeros(0, dtype=np.int64), 2))

    def put(i):
        dist = np.full(4, np.inf)
        dist[i] = 0.0
        return dist

    check(put, (np.int64(2),), (np.int64(-1),))


def test_casting_follows_numpy():
    def f(x):
        out = np.zeros(3, dtype=int)
        out[0] = x[0]  # a float into an int array: truncated, as eagerly
        out[1] = 2.7
        small = np.zeros(2, dtype=np.uint8)
        small[0] = x[1]
        flags = np.zeros(2, dtype=bool)
        flags[1] = x[0]
        return out, small, flags

    check(f, (np.array([3.9, 7.0]),), (np.array([-1.5, 255.0]),), (np.array([0.0, 0.0]),))


def test_rows_and_slices():
    def f(x):
        grid = np.zeros((2, 3))
        grid[0] = x
        grid[1, 1:] = x[:2] * 2
        grid[0] += 1.0
        grid[:, 0] = grid[:, 0] - x[0]
        return grid

    check(f, *VECTORS)


# -- aliases: refused, never written on a copy -------------------------------------------------


def test_another_name_for_the_array_is_refused():
    def f(x):
        out = np.zeros(2)
        other = out
        out[0] = x[0]
        return other

    message = refused(f, np.ones(2))
    assert message.startswith(line_of(f, 3))
    assert "the names 'other', 'out'" in message


def test_a_view_taken_before_the_write_sees_it():
    def f(x):
        out = np.zeros((2, 2))
        row = out[0]  # `out` is written later: it becomes a staged value here
        out[0, 1] = x[0]
        return row[1], row, out

    check(f, (np.array([5.0, 6.0]),), (np.array([np.nan, 0.0]),))


def test_filled_through_views_of_rows():
    def f(x):
        out = np.zeros((2, 3))
        for i in range(2):
            row = out[i]
            row[0] = x[i]
            row[2] = 1.0
        return out

    def g(x, n):
        out = np.zeros((3, 2))
        for i in range(n):
            row = out[i % 3]
            row[1] = row[1] + x[i % 3]
        return out

    check(f, (np.array([1.0, 2.0]),), (np.array([-0.0, np.inf]),))
    check(g, (np.arange(3.0), np.int64(4)), (np.arange(3.0), np.int64(0)))


def test_an_element_read_keeps_the_array_concrete():
    def f(x):
        counts = np.zeros(3, dtype=int)
        counts[1] = 4
        n = counts[1]  # a NumPy scalar, not a view: `counts` stays a NumPy array
        names = ["a", "b", "c", "d", "e"]
        return names[n], x

    check(f, (np.ones(1),))


def test_a_view_made_otherwise_is_refused():
    def f(x):
        out = np.zeros((2, 2))
        cols = out.T  # a view the converter does not see being taken
        out[0, 1] = x[0]
        return cols

    message = refused(f, np.ones(2))
    assert message.startswith(line_of(f, 3)) and "the views 'cols'" in message


def test_writing_through_a_view_of_an_aliased_array_is_refused():
    def f(x):
        out = np.zeros((2, 3))
        keep = [out]
        for i in range(2):
            row = out[i]
            row[0] = x[i]
        return keep

    message = refused(f, np.ones(2))
    assert message.startswith(line_of(f, 5)) and "the array it is a view of" in message


def test_views_taken_after_the_write_see_later_writes():
    def f(x):
        out = np.zeros((2, 2))
        out[0, 0] = x[0]
        row = out[0]
        out[0, 1] = x[1]
        return row, out

    check(f, (np.array([1.0, 2.0]),))


def test_an_array_in_a_list_is_refused():
    def f(x):
        out = np.zeros(2)
        keep = [out]
        out[0] = x[0]
        return keep

    assert refused(f, np.ones(2)).startswith(line_of(f, 3))


def test_an_array_passed_to_a_helper_is_refused():
    def fill(a, v):
        a[0] = v

    def f(x):
        out = np.zeros(2)
        fill(out, x[0])
        return out

    assert refused(f, np.ones(2)).startswith(line_of(fill, 1))


def test_a_staged_loop_writing_an_aliased_array_is_refused():
    def f(x, n):
        w = np.zeros(2)
        w0 = w
        for i in range(n):
            w += x
        return w0

    message = refused(f, np.ones(2), np.int64(3))
    assert message.startswith(line_of(f, 3)) and "loop variable 'w'" in message


def test_an_alias_of_a_loop_variable_of_a_native_loop_is_refused():
    def f(x):
        w = np.zeros(2)
        i = 0
        keep = w
        while i < 2:
            w += x
            i += 1
        return keep

    def g(x):  # the alias is taken after the first write made `w` staged: it follows
        w = np.zeros(2)
        keep = None
        i = 0
        while i < 3:
            if i == 1:
                keep = w
            w += x
            i += 1
        return keep

    assert refused(f, np.ones(2)).startswith(line_of(f, 5))
    check(g, (np.ones(2),), (np.array([np.nan, -1.0]),))


def test_a_staged_if_writing_an_aliased_array_is_refused():
    def f(x):
        w = np.zeros(2)
        w0 = w
        if x[0] > 0:
            w += 1.0
        return w0

    assert refused(f, np.ones(2)).startswith(line_of(f, 4))


GLOBAL_TABLE = np.zeros(3)


def test_a_global_array_is_refused():
    def f(x):
        GLOBAL_TABLE[0] = x[0]
        return x

    message = refused(f, np.ones(2))
    assert message.startswith(line_of(f, 1)) and "global" in message
    assert not GLOBAL_TABLE.any()


def test_an_array_held_by_an_attribute_is_refused():
    class Holder:
        def __init__(self):
            self.values = np.zeros(2)

    def f(x):
        h = Holder()
        h.values[0] = x[0]
        return h.values

    assert refused(f, np.ones(2)).startswith(line_of(f, 2))


# -- the converted form, and eager converted code ----------------------------------------------


def test_converted_form():
    def f(x):
        out = np.zeros(3)
        for i in range(3):
            out[i] = x[i]
        n = 0
        n += 1
        return out, n

    code = autograph.to_code(f)
    assert "nonlocal out\n        out = ag__.setitem(out, i, ag__.item(x, i))" in code
    assert "arrays=('out',)" in code and "n = ag__.iadd(n, 1)" in code
    x = np.arange(3.0)
    out, n = autograph.convert(f)(x)  # eagerly: written in place, as Python does
    assert np.array_equal(out, x) and n == 1
