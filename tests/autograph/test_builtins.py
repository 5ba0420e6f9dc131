"""min, max and sum on symbolic values keep Python's semantics (first extreme operand as it is,
left fold)."""

import numpy as np
import pytest

from staging import errors

HERE = __file__


def min_max(x, y):
    return min(x, y), max(x, y)


def min_max_of_three(x, y, z):
    return min(x, y, z), max(x, y, z), min([x, y]), max((z, y))


def with_python_number(x):
    return min(x, 2), max(x, 5)


def over_tensor(x):
    return min(x), max(x)


def total(n):
    values = []
    for i in range(n):
        values.append(i * 0.1)
    return sum(values), sum(values, 1.0)


def total_of_tensor(x):
    return sum(x)


def absolute(x, y):
    return abs(x), abs(y - x)


nan = np.float64(np.nan)


@pytest.mark.parametrize(
    "f, args",
    [
        (min_max, (np.float64(1.0), np.float64(2.0))),
        (min_max, (np.float64(2.0), np.float64(1.0))),
        (min_max, (nan, np.float64(2.0))),  # a NaN first operand is never replaced
        (min_max, (np.float64(1.0), nan)),  # a later NaN is never chosen
        (min_max, (np.float64(0.0), np.float64(-0.0))),
        (min_max_of_three, (np.int32(3), np.int32(1), np.int32(2))),
        (min_max_of_three, (np.int32(1), np.int32(1), np.int32(0))),
        (with_python_number, (np.int32(3),)),
        (with_python_number, (np.int32(9),)),
        (over_tensor, (np.array([1.0, np.nan, 0.0]),)),
        (over_tensor, (np.array([np.nan, 1.0]),)),
        (over_tensor, (np.array([3, 1, 2], np.int32),)),
        (over_tensor, (np.array([], np.int32),)),  # ValueError, as Python's
        (total, (np.int64(3),)),
        (total_of_tensor, (np.array([0.1, 0.2, 0.3]),)),  # Python's order of additions
        (total_of_tensor, (np.array([[1, 2], [3, 4]], np.int32),)),
        (absolute, (np.float64(-1.5), np.int32(3))),
    ],
)
def test_staged_builtins_match_python(same_as_eager, f, args):
    same_as_eager(f, args)


def test_signed_zero_kept_as_python_keeps_it():
    staging = pytest.importorskip("staging")
    staged = staging.function(min_max)(np.float64(0.0), np.float64(-0.0))
    eager = min_max(np.float64(0.0), np.float64(-0.0))
    assert [np.signbit(v) for v in staged] == [np.signbit(v) for v in eager]


def test_sum_of_an_empty_staged_list_is_start_as_eagerly():
    staging = pytest.importorskip("staging")
    assert total(0) == (0, 1.0)
    staged = staging.function(total)
    for n in (0, 3):
        eager, result = total(n), staged(np.int64(n))
        assert result == eager and [type(v) for v in result] == [type(v) for v in eager]


def mixed_dtypes(x, y):
    return min(x, y)


def float_and_int_literal(x):
    return max(x, 2)


@pytest.mark.parametrize(
    "f, args",
    [
        (mixed_dtypes, (np.int32(1), np.float64(2.0))),
        (mixed_dtypes, (np.int32(3), np.float64(2.0))),
        (float_and_int_literal, (np.float64(1.0),)),
        (float_and_int_literal, (np.float64(3.0),)),
    ],
)
def test_operands_of_different_types_give_the_chosen_one_as_it_is(f, args):
    staging = pytest.importorskip("staging")
    expected, got = f(*args), staging.function(f)(*args)
    assert type(got) is type(expected) and got == expected


def of_arrays(x, y):
    return min(x, y)


def test_min_of_arrays_is_refused_like_python():
    staging = pytest.importorskip("staging")
    with pytest.raises(ValueError):
        of_arrays(np.ones(2), np.zeros(2))
    with pytest.raises(errors.SymbolicValueError) as e:
        staging.function(of_arrays)(np.ones(2), np.zeros(2))
    assert f"{HERE}:{of_arrays.__code__.co_firstlineno + 1}:" in str(e.value)
    assert "np.minimum" in str(e.value)
