"""Attributes set on only some paths of a staged `if`, and loops over Python lists whose
`break`/`return` condition becomes symbolic: staged as Python runs them (same values, same
exception types), or refused naming the line."""

import numpy as np
import pytest

import staging
from staging import errors


class Box:
    pass


# -- an attribute set in one branch only --------------------------------------------------------


def set_then_return_early(x):
    o = Box()
    o.a = 1
    if x > 0:
        o.b = 3
    else:
        return -1
    return o.a + o.b


def set_in_one_branch_read_after(x):
    o = Box()
    if x > 0:
        o.b = x * 2
    return o.b + 1  # AttributeError eagerly when x <= 0


def set_in_one_branch_then_in_another(x):
    o = Box()
    if x > 0:
        o.b = x
    if x > 1:
        o.b = o.b * 2  # read only where the first branch ran
    return np.stack([o.b, x]) if x > 0.5 else np.stack([x, x])


def numpy_function_of_it(x):
    o = Box()
    if x > 0:
        o.b = x
    return np.sqrt(o.b)


def hasattr_and_getattr(x):
    o = Box()
    if x > 0:
        o.b = x
    return hasattr(o, "b"), getattr(o, "b", -1.0)


def printed(x):
    o = Box()
    if x > 0:
        o.b = x
    print("b is", o.b)
    return x


@pytest.mark.parametrize(
    "f, inputs",
    [
        (set_then_return_early, [1.0, -1.0]),
        (set_in_one_branch_read_after, [2.0, -1.0]),
        (set_in_one_branch_then_in_another, [0.3, 0.7, 2.0]),
        (numpy_function_of_it, [4.0, -4.0]),
        (hasattr_and_getattr, [1.0, -1.0]),
        (printed, [1.0, -1.0]),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_an_attribute_set_on_some_paths_behaves_as_in_python(f, inputs, same_as_eager):
    staged = same_as_eager(f, *[(np.float64(v),) for v in inputs])
    assert staged.experimental_get_tracing_count() == 1


def test_the_missing_attribute_error_is_an_attribute_error_at_the_reading_line():
    staged = staging.function(set_in_one_branch_read_after)
    with pytest.raises(AttributeError) as info:
        staged(np.float64(-1.0))
    line = set_in_one_branch_read_after.__code__.co_firstlineno + 4
    assert str(info.value).startswith(f"{__file__}:{line}: 'Box' object has no attribute 'b'")
    assert isinstance(info.value, errors.StagingError)
    assert staged(np.float64(3.0)) == 7.0  # the same trace, on a path that sets it


def test_hasattr_gives_a_python_bool():
    flag, value = staging.function(hasattr_and_getattr)(np.float64(-2.0))
    assert flag is False and value == -1.0


def key_set_in_one_branch(x):
    d = {"name": object(), "n": 0.0}  # (an object: a staged dict cannot hold it)
    if x > 0:
        d["k"] = x
    return len(d)


def attribute_then_staged_loop(x, n):
    o = Box()
    if x > 0:
        o.b = x
    i = 0
    while i < n:
        o.b = x + i
        i += 1
    return o.b


def test_what_stays_refused_names_the_place_and_the_line():
    with pytest.raises(errors.UndefinedNameError) as info:  # `in`, len() see a dict's keys
        staging.function(key_set_in_one_branch)(np.float64(1.0))
    line = key_set_in_one_branch.__code__.co_firstlineno + 2
    assert str(info.value).startswith(f"{__file__}:{line}: dict['k'] is set in only one branch")
    with pytest.raises(errors.UndefinedNameError) as info:
        staging.function(attribute_then_staged_loop)(np.float64(1.0), np.int64(3))
    line = attribute_then_staged_loop.__code__.co_firstlineno + 5
    assert str(info.value).startswith(
        f"{__file__}:{line}: Box.b is set on only some paths before this staged loop"
    )


# -- a loop over a Python list whose break / return condition turns symbolic ---------------------


def break_over_list(x, items):
    total = x * 0
    for v in items:
        if total > 5:
            break
        total = total + v * x
    return total


def return_from_list_loop(x, items):
    for v in items:
        if x * v > 5:
            return v
        x = x + 1
    return -1


def append_until(x, items):
    out = []
    for v in items:
        if x > v:
            break
        out.append(v * x)
    return out


def break_then_else(x, items):
    n = 0
    for v in items:
        if x < v:
            break
        n += 1
    else:
        n = -n
    return n


@pytest.mark.parametrize(
    "f",
    [break_over_list, return_from_list_loop, append_until, break_then_else],
    ids=lambda f: f.__name__,
)
def test_a_list_loop_with_a_symbolic_break_matches_python(f, same_as_eager):
    same_as_eager(f, *[(np.float64(x), [1, 2, 3, 4]) for x in (0.5, 1.0, 2.5, 3.0, 10.0)])


def test_a_list_loop_with_a_symbolic_break_traces_once():
    staged = staging.function(return_from_list_loop)
    results = [staged(np.float64(x), [1, 2, 3, 4]) for x in (0.5, 1.0, 3.0, 10.0)]
    assert results == [
        return_from_list_loop(np.float64(x), [1, 2, 3, 4]) for x in (0.5, 1.0, 3.0, 10.0)
    ]
    assert all(type(r) is int for r in results)
    assert staged.experimental_get_tracing_count() == 1


# -- NumPy attributes of a value that is a Python number when the graph runs --------------------


def counter_astype(x, n):
    k = 0
    while k < n and x > 0:
        k += 1
    return k.astype(np.uint8)  # k is a Python int: AttributeError eagerly


def joined_dtype(x, y):
    if x > 0:
        v = x + 2
    else:
        v = 300  # a Python int on this path: it has no .dtype
    return y.astype(v.dtype)


def test_numpy_attributes_of_python_numbers_fail_as_in_python():
    with pytest.raises(AttributeError, match="'int' object has no attribute 'astype'"):
        staging.function(counter_astype)(np.float64(1.0), np.int64(3))
    with pytest.raises(AttributeError):
        counter_astype(np.float64(1.0), np.int64(3))
    with pytest.raises(errors.BranchMismatchError) as info:
        staging.function(joined_dtype)(np.int64(1), np.float64(2.5))
    assert "'v' is a Python int or an int64 scalar depending on the path" in str(info.value)
    assert "`.dtype` exists for only some of them" in str(info.value)
