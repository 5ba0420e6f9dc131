"""`return` inside staged control flow: tuples and nested structures as return values, returns
inside nested symbolic `if`s, and a clear refusal for a function that returns a value on one
path and None on another."""

import numpy as np
import pytest

import autograph

HERE = __file__


def returns_tuple_from_loop(n):
    i = 0
    while i < n:
        if i > 2:
            return i, i * 2
        i += 1
    return i, -1


def returns_structure_from_for(x):
    for v in x:
        if v > 1.0:
            return {"value": v, "pair": (v, v * 2.0)}
    return {"value": -1.0, "pair": (0.0, 0.0)}


def nested_ifs_without_loop(c1, c2):
    if c1:
        if c2:
            return 1
    return 2


def nested_ifs_tuple(x):
    if x > 0:
        if x < 5:
            return x, x + 1.0
        return x * 2.0, x
    return -x, x


def returns_in_loop_or_its_else(n):
    for i in range(n):
        return 1
    else:  # no break: runs whenever the loop ends, so every path returns
        k = 0
        while k < n:
            k += 1
        else:
            return k


def returns_from_nested_loop_or_after_else(n):
    for i in range(1, n):
        for j in range(n):
            if j > i:
                break  # the inner loop's break: the outer one still ends only through its else
            return i * 10
    else:
        return -1


def returns_from_while_true(n):
    k = 0
    while True:
        k += 1
        if k > n:
            return k


def returning_branch_leaves_another_type(x, n):
    if x > 0:
        v = -n  # an int8 that is never read: this branch returns
        return x > 1.0
    else:
        v = np.sqrt(n) > x  # a bool
    return v


def returning_else_leaves_another_type(x, n):
    if x <= 0:
        v = np.sqrt(n) > x
    else:
        v = -n
        return x > 1.0
    return v


def returns_a_list_from_nested_ifs_in_a_loop(n, y):
    # (seed 349) the inner `if` makes the list a staged one; the outer `if`, whose other path
    # does not return, needed a placeholder for it
    items = [np.sqrt(y)]
    for item in items:
        if item != y:
            continue
        if y == n:
            pass
        else:
            return items
    return items


@pytest.mark.parametrize(
    "f, inputs",
    [
        (returns_a_list_from_nested_ifs_in_a_loop, [(1, np.array(v)) for v in (0.0, 1.0, 4.0)]),
        (
            returning_branch_leaves_another_type,
            [(np.float64(x), np.int8(4)) for x in (-1.0, 0.5, 2.0)],
        ),
        (
            returning_else_leaves_another_type,
            [(np.float64(x), np.int8(4)) for x in (-1.0, 0.5, 2.0)],
        ),
        (returns_in_loop_or_its_else, [np.int64(n) for n in (0, 1, 3)]),
        (returns_from_nested_loop_or_after_else, [np.int64(n) for n in (0, 1, 2, 4)]),
        (returns_from_while_true, [np.int64(n) for n in (0, 3)]),
        (returns_tuple_from_loop, [np.int64(0), np.int64(2), np.int64(6)]),
        (returns_structure_from_for, [np.array([0.5, 3.0, 4.0]), np.array([0.5, 0.2, 0.1])]),
        (
            nested_ifs_without_loop,
            [(np.bool_(a), np.bool_(b)) for a in (True, False) for b in (True, False)],
        ),
        (nested_ifs_tuple, [np.float64(v) for v in (-1.0, 2.0, 7.0)]),
    ],
)
def test_staged_returns_match_python(same_as_eager, f, inputs):
    staged = same_as_eager(f, *inputs)
    assert staged.tracing_count == 1


def returns_value_or_falls_off(x):
    if x > 0:
        if x < 5:
            return x
    else:
        return x * x * x


def returns_in_else_of_a_loop_that_breaks(n):
    for i in range(n):
        if i > 1:
            break
    else:
        return 5


def returns_none_on_one_path(x):
    if x > 0:
        return None
    return x


def returns_two_dtypes(x, c):
    if c:
        return x
    return x.astype(np.float32)


@pytest.mark.parametrize(
    "f, inputs",
    [
        (returns_value_or_falls_off, [np.float64(v) for v in (1.0, 7.0, -1.0)]),
        (returns_in_else_of_a_loop_that_breaks, [np.int64(n) for n in (0, 1, 4)]),
        (returns_none_on_one_path, [np.float64(v) for v in (1.0, -1.0)]),
    ],
)
def test_staged_function_returning_none_on_some_paths_matches_python(same_as_eager, f, inputs):
    same_as_eager(f, *inputs)  # (the result is None | f64[]: None where that path returns it)


def returns_pair_or_none(x):
    if x > 0:
        return x, x
    return None


def test_a_tuple_on_one_path_and_none_on_another_is_returned_as_python_does(same_as_eager):
    same_as_eager(returns_pair_or_none, np.float64(1.0), np.float64(-1.0), 2, -2)


def test_concrete_falling_off_returns_none():
    converted = autograph.convert(returns_value_or_falls_off)
    assert converted(2.0) == 2.0 and converted(7.0) is None and converted(-1.0) == -1.0
    assert "return ag__.return_value(retval_, do_return)" in autograph.to_code(
        returns_value_or_falls_off
    )


def returns_none_everywhere(x, out):
    if x > 0:
        out.append(1)
        return
    out.append(2)


def test_staged_function_returning_none_on_every_path():
    staging = pytest.importorskip("staging")
    out = []
    assert staging.function(returns_none_everywhere)(np.float64(1.0), out) is None


class _Box:
    pass


def returns_or_makes_an_object(x, n, y):
    # (seed 363) the object made in one branch was the placeholder of the returning branch, as
    # made by the first trace; the second trace made another: "a Box and a Box"
    if y == n:
        return n > 0
    elif x:
        box = _Box()
        box.a = n >= n
    else:
        return y > 1
    return box.a


def test_an_object_made_on_one_path_while_the_others_return(same_as_eager):
    same_as_eager(
        returns_or_makes_an_object,
        *[
            (np.bool_(x), np.int64(n), np.int64(y))
            for x in (False, True)
            for n, y in ((0, 0), (0, 2), (1, 0))
        ],
    )


def returns_a_list_from_a_staged_loop(x, n):
    # (seed 435) the return value first set inside the loop is a list: its placeholder before
    # the loop is an empty list, which the loop stages with the body's element type
    items = [n]
    for i in range(n):
        if i >= 0:
            return items
    items.append(n + 1)
    return items


def test_a_list_returned_from_inside_a_staged_loop(same_as_eager):
    same_as_eager(returns_a_list_from_a_staged_loop, *[(1.0, np.int32(k)) for k in (0, 1, 3)])


def returns_a_dict_that_gains_a_key_later(x, n, y):
    # (seed 445) the placeholder of the dict a returning branch leaves was made from the dict as
    # it was, and filled from it once it had gained a key: an internal StopIteration, deferred
    # into the graph as the user's RuntimeError
    d = {"a": x * 2.0}
    v = d["a"]
    if y < x:
        d["c"] = x + 1.0
        d["e"] = d["a"] + 1.0
    else:
        if n > 1:
            return d
    return v


def test_a_dict_that_gains_a_key_in_one_branch_while_another_returns_it():
    # the dict is a staged container (a branch writes its items); the function returns it on
    # one path and a float on another, which one staged value cannot be
    staging = pytest.importorskip("staging")
    with pytest.raises(
        staging.errors.BranchMismatchError, match=r"'return value' cannot be one value"
    ):
        staging.function(returns_a_dict_that_gains_a_key_later)(np.float64(1.0), 2, np.float64(3.0))


@pytest.mark.parametrize("c", [np.bool_(True), np.bool_(False)])
def test_a_staged_return_of_two_dtypes_is_the_path_takens(c):
    staging = pytest.importorskip("staging")
    eager, staged = (
        returns_two_dtypes(np.float64(1.5), c),
        staging.function(returns_two_dtypes)(np.float64(1.5), c),
    )
    assert type(staged) is type(eager) and staged == eager
