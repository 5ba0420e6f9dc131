"""and / or / not / chained comparisons keep Python's short-circuit meaning."""

import numpy as np
import pytest
from conftest import f64, i64

import autograph
import staging


def guarded(x):
    return x != 0 and 12 // x > 2


def either(x, y):
    if x > 0 or y > 0:
        return 1
    return 0


def negate(x):
    return not x > 3


def chained(x):
    return 0 < x < 10


def chained_call(x):
    calls = []

    def mid():
        calls.append(1)
        return x

    ok = 0 < mid() < 10
    return ok, len(calls)


@pytest.mark.parametrize(
    "f, inputs",
    [
        (guarded, [0, 3, 5, 10]),
        (either, [(1, -1), (-1, 1), (-1, -1)]),
        (negate, [1, 5]),
        (chained, [-1, 5, 20]),
        (chained_call, [-1, 5, 20]),
    ],
)
def test_native_matches_python(check_native, f, inputs):
    check_native(f, *inputs)


def test_right_side_does_not_run():
    seen = []

    def right():
        seen.append(1)
        return True

    def f(x):
        return x > 0 and right()

    autograph.convert(f)(-1)
    assert seen == []


def test_converted_form():
    code = autograph.to_code(guarded)
    assert "ag__.and_(x != 0, lambda: 12 // x > 2)" in code


def test_staged_short_circuit(check_staged):
    # 12 // 0 never runs: the right side is in the untaken branch of a staged cond.
    check_staged(guarded, i64(0), i64(3), i64(5))


def test_staged_or_and_chained(check_staged):
    check_staged(either, (i64(1), i64(-1)), (i64(-1), i64(-1)))
    check_staged(chained, i64(-1), i64(5), i64(20))


def values_or_and(x, y):
    return x or y, x and y, x or 2.5, y and x


def bool_operands(x, y):
    return (x > 1) or (y > 1), (x > 1) and (y < 1)


def first_nonpositive(x, n):
    i = 0
    while i < n and x[i] > 0:  # x[n] must never be read
        i += 1
    return i


def test_staged_or_and_keep_values(check_staged):
    # Same dtype on both sides: Python's value semantics (x or y is x if x is true, else y).
    inputs = [
        (f64(x), f64(y)) for x, y in [(0.0, 3.0), (2.0, 3.0), (2.0, 0.0), (0.0, 0.0), (-1.5, 4.0)]
    ]
    f = check_staged(values_or_and, *inputs)
    assert f.tracing_count == 1
    staged = f(f64(0.0), f64(3.0))
    assert [np.asarray(v).dtype for v in staged] == [np.float64] * 4
    assert staged[0] == 3.0 and staged[1] == 0.0


def test_staged_or_and_on_booleans_stay_boolean(check_staged):
    f = check_staged(
        bool_operands, (f64(0.0), f64(3.0)), (f64(2.0), f64(0.0)), (f64(0.0), f64(0.5))
    )
    assert all(np.asarray(v).dtype == np.bool_ for v in f(f64(2.0), f64(0.0)))


def test_staged_and_does_not_evaluate_right_side_at_run_time(check_staged):
    x = np.array([1, 2, 3])
    check_staged(first_nonpositive, (x, i64(3)), (np.array([1, -2, 3]), i64(3)), (x, i64(0)))


def mixed_and_value(x, y):
    return x and (y > 0)


def mixed_or_value(x, y):
    return x or (y > 0)


def mixed_and_test(x, y):
    if x and (y > 0):
        return 1.0
    return -1.0


def mixed_or_test(x, y):
    while x or (y > 0):
        x = np.maximum(x - 1.0, 0.0)
        y = y - 1.0
    return x + y


def test_staged_mixed_dtypes_in_a_test_use_the_truth_value(same_as_eager):
    # Only the truth value is used: the staged `and`/`or` gives the chosen operand's truth.
    args = [(f64(0.0), f64(1.0)), (f64(2.0), f64(1.0)), (f64(2.0), f64(-1.0))]
    same_as_eager(mixed_and_test, *args)
    same_as_eager(mixed_or_test, *args, (f64(0.0), f64(-1.0)))
    code = autograph.to_code(mixed_or_test)
    assert "ag__.or_(x, lambda: y > 0), loop_body" in code.replace("lambda x, y: ", "")


def test_staged_mixed_dtypes_as_a_value_give_the_chosen_operand(same_as_eager):
    # Python gives the float x or the bool y > 0 depending on x: the staged value is either,
    # by path (a value of two kinds: staging.kinds).
    assert (
        mixed_and_value(f64(0.0), f64(1.0)) == 0.0
        and mixed_and_value(f64(2.0), f64(1.0)) is np.True_
    )
    assert "ag__.and_(x, lambda: y > 0, value=True)" in autograph.to_code(mixed_and_value)
    args = [(f64(0.0), f64(1.0)), (f64(2.0), f64(1.0)), (f64(2.0), f64(-1.0))]
    same_as_eager(mixed_and_value, *args)
    same_as_eager(mixed_or_value, *args)


def _and_value_with_a_list(x):
    return x and [1, 2]


def test_operands_that_cannot_be_one_value_are_refused_where_the_value_is_used():
    staging = pytest.importorskip("staging")
    with pytest.raises(staging.errors.SymbolicValueError) as e:
        staging.function(_and_value_with_a_list)(f64(1.0))
    line = _and_value_with_a_list.__code__.co_firstlineno + 1
    assert str(e.value).startswith(f"{__file__}:{line}: `x and y` with a symbolic x")


def same_kind_python_number(x):
    return x or 2.5, x and 7.0


def test_staged_or_with_a_python_number_of_the_same_kind(same_as_eager):
    same_as_eager(same_kind_python_number, f64(0.0), f64(3.0))


def _or_with_a_negative_int(x, y):
    if y or x:  # only the truth value is used
        return 1
    return 2


def _or_value_with_a_negative_int(x, y):
    return y or x


def test_a_python_int_that_does_not_fit_the_left_operands_dtype_is_used_by_its_truth():
    # (seed 353) `y or x` with a uint8 y and the Python int -2: taken as a value of y's dtype,
    # refused as "-2 does not fit uint8" even in an `if`, where eagerly only its truth counts
    staging = pytest.importorskip("staging")
    f = staging.function(_or_with_a_negative_int)
    for x, y in ((-2, np.uint8(0)), (0, np.uint8(0)), (0, np.uint8(3))):
        assert f(x, y) == _or_with_a_negative_int(x, y)
        assert repr(staging.function(_or_value_with_a_negative_int)(x, y)) == repr(
            _or_value_with_a_negative_int(x, y)
        )


# -- a symbolic number `in` a Python collection of numbers ------------------------------------


def _count_words(codes):
    words = 0
    in_word = False
    for c in codes:
        if c in (10, 32, 9):
            in_word = False
        elif not in_word:
            in_word = True
            words += 1
    return words


def _memberships(x):
    return (x in (1, 2.5, True), x not in [0, 7], x in {3, 4.0}, x in {}, x not in ())


@pytest.mark.parametrize(
    "codes",
    [np.array([72, 32, 105, 10, 9, 33]), np.array([], dtype=np.int64), np.array([9, 9, 65])],
    ids=repr,
)
def test_a_symbolic_number_in_a_tuple_in_a_staged_loop(codes):
    """`c in (10, 32, 9)` compares c with each element when the graph runs (it asked the truth
    of a symbolic comparison: refused)."""
    staged = staging.function(_count_words)
    result = staged(codes)
    assert result == _count_words(codes) and type(result) is int


@pytest.mark.parametrize(
    "x",
    [np.float64(1.0), np.float64(2.5), np.int64(4), np.int8(0), np.float32(np.nan), np.bool_(True)],
    ids=repr,
)
def test_membership_of_a_symbolic_number_is_a_python_bool_as_eagerly(x):
    staged = staging.function(_memberships)(x)
    eager = _memberships(x)
    assert staged == eager
    assert [type(v) for v in staged] == [type(v) for v in eager] == [bool] * 5


def test_an_array_in_a_tuple_is_still_refused_naming_the_line():
    """Python asks the truth of `array == element`: ambiguous for an array, refused staged."""

    def f(x):
        return x in (1, 2)

    with pytest.raises(staging.errors.SymbolicValueError, match=r"test_logical\.py:\d+"):
        staging.function(f)(np.arange(3.0))
