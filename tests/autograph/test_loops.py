"""while / for conversion: break, continue, return, else clauses, nested loops, staged loops."""

import numpy as np
import pytest
from conftest import f64, i64

import autograph
import staging


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def loop_heavy(x, n):
    i = 0
    total = 0
    while i < n:
        if x[i] > 10:
            break
        elif x[i] < 0:
            total -= 1
        else:
            total += x[i]
        for j in range(3):
            if j == 1:
                continue
            total += j
        i += 1
    return total


def sum_positive(t):
    s = 0.0
    for x in t:
        if x < 0:
            continue
        s += x
    return s


def triangle(n):
    s = 0
    for i in range(n):
        s += i
    return s


def find_first(t, v):
    for i in range(len(t)):
        if t[i] == v:
            return i
    return -1


def loop_else(n):
    for i in range(n):
        if i == 3:
            found = True
            break
    else:
        found = False
    return found


def while_else(n):
    k = 0
    while k < n:
        k += 1
        if k * k > 20:
            break
    else:
        k = -1
    return k


def nested_break(n):
    count = 0
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            count += 1
        if count > 10:
            break
    return count


def deep_continue(n):
    total = 0
    for i in range(n):
        if i % 2 == 0:
            if i % 3 == 0:
                continue
            total += 100
        total += i
    return total


def enumerate_zip(a, b):
    acc = 0
    for i, (x, y) in enumerate(zip(a, b)):
        acc += i * x + y
    return acc


def loop_target_after(n):
    i = -1
    for i in range(n):
        pass
    return i


@pytest.mark.parametrize(
    "f, inputs",
    [
        (collatz, [1, 6, 27]),
        (triangle, [0, 1, 5]),
        (loop_else, [2, 5]),
        (while_else, [3, 10]),
        (nested_break, [2, 5, 8]),
        (deep_continue, [0, 7, 13]),
        (loop_target_after, [0, 4]),
    ],
)
def test_native_matches_python(check_native, f, inputs):
    check_native(f, *inputs)


def test_native_loop_heavy(check_native):
    check_native(
        loop_heavy,
        (np.array([1, 2, 3, 4]), 4),
        (np.array([1, -5, 30, 2]), 4),
        (np.array([20]), 1),
        (np.array([], dtype=int), 0),
    )


def test_native_tensor_like(check_native):
    check_native(sum_positive, np.array([1.0, -2.0, 3.0]), np.array([-1.0]))
    check_native(find_first, (np.array([4, 5, 6]), 5), (np.array([4, 5, 6]), 9))
    check_native(enumerate_zip, ([1, 2, 3], [4, 5, 6]), ([1], [2, 3]))


def test_staged_collatz(check_staged):
    f = check_staged(collatz, i64(1), i64(6), i64(27))
    assert f.tracing_count == 1


def test_staged_for_over_tensor_with_continue(check_staged):
    check_staged(sum_positive, np.array([1.0, -2.0, 3.0]), np.array([-1.0, 5.0, 0.5]))


def test_staged_range_with_symbolic_bound(check_staged):
    f = check_staged(triangle, i64(0), i64(1), i64(5), i64(10))
    assert f.tracing_count == 1


def test_staged_loop_heavy(check_staged):
    check_staged(loop_heavy, (np.array([1, 2, 3, 4]), i64(4)), (np.array([1, -5, 30, 2]), i64(4)))


def test_staged_break_and_else(check_staged):
    check_staged(while_else, i64(3), i64(10))


def test_staged_return_in_loop(check_staged):
    f = check_staged(
        find_first,
        (np.array([4, 5, 6]), i64(5)),
        (np.array([4, 5, 6]), i64(9)),
        (np.array([7, 7, 7]), i64(7)),
        (np.array([1, 2, 3]), i64(3)),
    )
    assert f.tracing_count == 1
    assert "retval_ = ag__.UndefinedReturnValue()" in autograph.to_code(find_first)


def first_above(x, limit):
    i = 0
    while i < x.shape[0]:
        if x[i] > limit:
            return x[i] * 2.0
        i += 1
    return -1.0


def test_staged_return_in_while_loop(check_staged):
    x = np.array([0.5, 3.0, 9.0])
    f = check_staged(first_above, (x, f64(1.0)), (x, f64(5.0)), (x, f64(10.0)), (x, f64(-1.0)))
    assert f.tracing_count == 1


def index_of_first_large(x, v):
    count = 0
    for i in range(x.shape[0]):
        if x[i] <= v:
            count += 1
        else:
            return i * 10 + count
    return -count


def test_staged_return_in_else_branch_of_loop(check_staged):
    # The branch that returns is traced second: the first is traced again with a placeholder.
    x = np.array([1, 2, 8, 3])
    check_staged(index_of_first_large, (x, i64(5)), (x, i64(0)), (x, i64(9)))


def first_pair_with_sum(x, target):
    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            if i < j and x[i] + x[j] == target:
                return i * 100 + j
    return -1


def test_staged_return_in_nested_loops(check_staged):
    x = np.array([3, 1, 4, 1, 5])
    check_staged(first_pair_with_sum, (x, i64(9)), (x, i64(2)), (x, i64(100)), (x, i64(4)))


def maybe_returns(x, n):
    for i in range(n):
        if x[i] > 2:
            return x[i]


def test_return_in_loop_without_final_return():
    staging = pytest.importorskip("staging")
    converted = autograph.convert(maybe_returns)
    assert converted(np.array([1, 3]), 2) == 3
    assert converted(np.array([1, 1]), 2) is None
    assert "return ag__.return_value(retval_, do_return)" in autograph.to_code(maybe_returns)
    # Staged, the result is the element or None, by path, as in Python.
    staged = staging.function(maybe_returns)
    assert staged(np.array([1, 3]), i64(2)) == 3
    assert staged(np.array([1, 1]), i64(2)) is None
    assert staged(np.array([1, 1]), i64(0)) is None


def test_set_loop_options_maximum_iterations():
    def f(n):
        i = 0
        while i < n:
            autograph.set_loop_options(maximum_iterations=3)
            i += 1
        return i

    assert autograph.convert(f)(10) == 3
    assert "opts=dict(maximum_iterations=3)" in autograph.to_code(f)


def test_staged_maximum_iterations(check_staged):
    staging = pytest.importorskip("staging")

    def f(n):
        i = 0
        while i < n:
            autograph.set_loop_options(maximum_iterations=3)
            i += 1
        return i

    assert staging.function(f)(i64(10)) == 3


# `continue` in the `else:` clause of an inner loop continues the outer loop.


def continue_in_inner_else(n):
    s = 0
    for i in range(n):
        for j in range(3):
            s += j
        else:
            continue
        s += 100
    return s


def continue_in_inner_else_after_break(n, m):
    s = 0
    for i in range(n):
        for j in range(3):
            if j == m:
                break
            s += j
        else:
            continue
        s += 100
    return s


def continue_in_inner_while_else(n, m):
    s = 0
    i = 0
    while i < n:
        i += 1
        j = 0
        while j < 3:
            if j == m:
                break
            j += 1
            s += j
        else:
            if i % 2 == 0:
                continue
            s += 1000
        s += 100
    return s


def test_continue_in_inner_loop_else_compiles():
    code = autograph.to_code(continue_in_inner_else)
    assert not any(line.strip() == "continue" for line in code.splitlines())
    assert "continue_ = True" in autograph.to_code(continue_in_inner_else_after_break)


@pytest.mark.parametrize(
    "f, inputs",
    [
        (continue_in_inner_else, [(0,), (2,)]),
        (continue_in_inner_else_after_break, [(3, 1), (3, 5), (0, 0)]),
        (continue_in_inner_while_else, [(4, 1), (4, 7), (1, 7)]),
    ],
)
def test_continue_in_inner_loop_else(same_as_eager, f, inputs):
    autograph_inputs = [tuple(np.int64(a) for a in args) for args in inputs]
    check = autograph.convert(f)
    for args in inputs:
        assert check(*args) == f(*args)
    same_as_eager(f, *autograph_inputs)


# -- shape invariants ---------------------------------------------------------------


def grows_with_invariant(x, n):
    i = 0
    while i < n:
        autograph.set_loop_options(shape_invariants=[(x, (None,))])
        x = np.concatenate([x, x[:1]])
        i += 1
    return x


def breaks_its_invariant(x, n):
    i = 0
    while i < n:
        autograph.set_loop_options(shape_invariants=[(x, (2, None))])
        x = np.concatenate([x, x], axis=0)
        i += 1
    return x


def unknown_rank_invariant(x, n):
    i = 0
    while i < n:
        autograph.set_loop_options(shape_invariants=[(x, None)])
        x = np.pad(x, 1, constant_values=i)
        i += 1
    return x


def unknown_rank_invariant_rank_changes(x, n):
    i = 0
    while i < n:
        autograph.set_loop_options(shape_invariants=[(x, None)])
        x = x[None]
        i += 1
    return x


def test_an_unknown_rank_invariant_is_every_dim_unknown_at_the_rank_of_the_value():
    f = staging.function(unknown_rank_invariant)
    for n in (0, 1, 3):
        staged, eager = f(np.ones((2, 3)), np.int64(n)), unknown_rank_invariant(np.ones((2, 3)), n)
        assert staged.dtype == eager.dtype and staged.shape == eager.shape
        np.testing.assert_array_equal(staged, eager)
    assert "f64[?,?]" in str(f.get_concrete_function(np.ones((2, 3)), np.int64(3)).graph)


def test_shape_invariant_declares_the_loop_variable_type():
    f = staging.function(grows_with_invariant)
    for n in (0, 3):
        np.testing.assert_array_equal(
            f(np.arange(2.0), np.int64(n)), grows_with_invariant(np.arange(2.0), n)
        )
    graph = str(f.get_concrete_function(np.arange(2.0), np.int64(3)).graph)
    assert "f64[?]" in graph


@pytest.mark.parametrize(
    "fn, words",
    [
        (
            breaks_its_invariant,
            "after an iteration, which its shape invariant f64[2,?] does not accept",
        ),
        (
            unknown_rank_invariant_rank_changes,
            "loop variable 'x' has 2 dims before the loop and 3 after an "
            "iteration; its shape invariant has an unknown rank",
        ),
    ],
)
def test_shape_invariant_violations_are_refused(fn, words):
    with pytest.raises(staging.errors.LoopVariableError) as info:
        staging.function(fn)(np.ones((2, 3)), np.int64(2))
    assert words in str(info.value)
    assert f"test_loops.py:{fn.__code__.co_firstlineno + 2}:" in str(info.value)


def continue_whose_test_raises(x, n):
    a = 0.5
    for e in x:
        if a < (n % e):  # a `continue` ending the body: the test still runs (and may raise)
            continue
    return a


def test_a_trailing_continue_keeps_its_test():
    args = (np.array([2.5 - 3.25j]), np.int32(3))
    with pytest.raises(TypeError):  # int32 % complex128
        continue_whose_test_raises(*args)
    with pytest.raises(TypeError, match="remainder"):
        staging.function(continue_whose_test_raises)(*args)
    real = (np.array([2.0, 5.0]), np.int32(3))
    assert staging.function(continue_whose_test_raises)(*real) == continue_whose_test_raises(*real)


# -- names read only on the paths that did not jump -----------------------------------------


def list_read_after_a_continue(x, n):
    k = 0
    total = 0.0
    while k < n:
        k += 1
        if x[k % 2] > 0:
            parts = [x[k % 2], x[0]]  # a list made in the body ...
            if parts[0] > 1.5:
                continue
        else:
            continue
        total += parts[-1]  # ... read only on the paths that did not `continue`
    return total


def list_read_after_a_break(x):
    total = 0.0
    for v in x:
        if v < 0:
            break
        else:
            pair = [v, v * 2]
            if v > 3:
                break
        total += pair[1]
    return total


def test_a_name_read_only_after_a_jump_is_not_a_loop_variable():
    code = autograph.to_code(list_read_after_a_continue)
    assert "(k, total), ('k', 'total'))" in code  # `parts` is the body's own
    assert "(total, break_), ('total', 'break_'))" in autograph.to_code(list_read_after_a_break)


def test_lists_made_and_read_between_jumps_in_a_staged_loop(same_as_eager):
    # Lowering the jump put the read under `if not continue_:`, which made the list look
    # read at the loop head: a loop variable first assigned in the loop (refused).
    same_as_eager(
        list_read_after_a_continue,
        (np.array([1.0, 2.0]), np.int64(3)),
        (np.array([1.0, 1.0]), np.int64(3)),
        (np.array([-1.0, 2.0]), np.int64(4)),
        (np.array([1.0, 2.0]), np.int64(0)),
    )
    same_as_eager(
        list_read_after_a_break, np.array([1.0, 2.0, -1.0, 4.0]), np.array([3.0]), np.zeros(0)
    )


_VERBOSE = False


class _Box:
    pass


def _return_no_traced_path_takes(x, n):
    box = _Box()
    box.b = np.int64(0)
    k = 0
    while k < n:
        k += 1
        if _VERBOSE:  # a Python condition: the `return` is never traced
            return box, k
    box.b = np.int8(x)  # after the loop: another dtype, fine when the loop cannot have returned
    return box.b, k


def test_a_return_flag_no_traced_path_sets_leaves_the_code_after_the_loop_unconditional():
    # (seed 351) the loop's `do_return` flag went through the staged loop unchanged, yet was a
    # tensor after it: everything after the loop became a staged `if` on it, and the attribute
    # given another dtype there was refused
    staging = pytest.importorskip("staging")
    f = staging.function(_return_no_traced_path_takes)
    for n in (0, 3):
        assert repr(f(np.int64(5), np.int64(n))) == repr(
            _return_no_traced_path_takes(np.int64(5), np.int64(n))
        )
    graph = str(f.get_concrete_function(np.int64(5), np.int64(3)).graph)
    assert graph.count(" = cond ") == 0, graph
