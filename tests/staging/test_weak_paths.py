"""A value that is a Python number on one path and a NumPy value on another: staged equals eager
wherever the joined type gives the eager answer, and is refused (naming the line and the
variable) where it would not."""

from __future__ import annotations

import numpy as np
import pytest

import staging
from staging import errors


def line_of(func, text):
    lines, first = __import__("inspect").getsourcelines(func)
    return first + next(i for i, line in enumerate(lines) if text in line)


def exp_of_joined(c, y):
    s = y if c > 0 else 3  # a uint8 value on one path, the Python int 3 on the other
    return np.exp(s)  # eagerly float16 for the uint8 and float64 for the Python int


def test_op_whose_result_type_depends_on_the_path_is_refused():
    eager = [exp_of_joined(np.float64(c), np.uint8(2)) for c in (1.0, -1.0)]
    assert [v.dtype for v in eager] == [np.float16, np.float64]
    with pytest.raises(errors.BranchMismatchError) as info:
        staging.function(exp_of_joined)(np.float64(1.0), np.uint8(2))
    message = str(info.value)
    assert message.startswith(f"{__file__}:{line_of(exp_of_joined, 'np.exp(s)')}: exp:")
    assert "is a Python int on some paths and a uint8 scalar on others" in message
    assert f"meet at {__file__}:{line_of(exp_of_joined, 's = y if')}" in message
    assert "float64 scalar eagerly" in message and "float16 scalar staged" in message


def add_after_if(c, y):
    if c > 0:
        v = y
    else:
        v = False  # a Python bool on this path, an int64 value on the other
    return np.add(v, np.bool_(True))


def test_variable_joined_in_a_staged_if_is_named():
    with pytest.raises(errors.BranchMismatchError) as info:
        staging.function(add_after_if)(np.float64(1.0), np.int64(4))
    message = str(info.value)
    assert message.startswith(
        f"{__file__}:{line_of(add_after_if, 'return np.add')}: add: 'v' is a Python bool"
    )


def cast_where_set(c, y):
    s = y if c > 0 else np.uint8(3)
    return np.exp(s)


@pytest.mark.parametrize("c", [1.0, -1.0])
def test_the_same_program_with_one_type_on_every_path_agrees(c):
    args = (np.float64(c), np.uint8(2))
    eager, staged = cast_where_set(*args), staging.function(cast_where_set)(*args)
    assert type(staged) is type(eager) and staged.dtype == eager.dtype and staged == eager


def documented_join(c, y):
    s = y if c > 0 else 3  # the Python 3 becomes int32, the type 3 + y has
    return s * 2 + 1, s > 2, np.exp(s)


def test_ops_that_give_the_same_type_on_every_path_are_staged():
    staged_f = staging.function(documented_join)
    args = (np.float64(1.0), np.int32(5))
    assert [(type(v), v) for v in staged_f(*args)] == [(type(v), v) for v in documented_join(*args)]
    # On the path where s is the Python 3 eagerly, staged s is np.int32(3): the same values, and
    # the documented conversion (docs/semantics.md) shows only in the Python types of the results.
    args = (np.float64(-1.0), np.int32(5))
    eager, staged = documented_join(*args), staged_f(*args)
    assert eager == (7, True, np.exp(3)) and type(eager[0]) is int and type(eager[1]) is bool
    assert staged == eager and type(staged[0]) is np.int32 and type(staged[1]) is np.bool_
    assert type(staged[2]) is type(eager[2]) is np.float64


def accumulate_then_sqrt(x):
    total = 0
    for v in x:
        total += v
    return np.sqrt(total), total


@pytest.mark.parametrize("x", [np.arange(4, dtype=np.float32), np.arange(3, dtype=np.int8)])
def test_loop_accumulator_starting_as_a_python_number_is_not_refused(x):
    # Only after zero iterations is `total` still the Python 0 (docs/semantics.md); after one or
    # more it has x's dtype, as eagerly.
    spec = staging.TensorSpec([None], x.dtype)
    staged_f = staging.function(accumulate_then_sqrt, input_signature=[spec])
    eager, staged = accumulate_then_sqrt(x), staged_f(x)
    for e, s in zip(eager, staged):
        assert type(s) is type(e) and s.dtype == e.dtype and s == e


def first_iteration_differs(x):
    s = False
    for v in x:
        s = np.exp(s) + v  # first iteration: np.exp(False) is float16; later np.exp(float32)
    return s


def test_loop_body_whose_first_iteration_differs_agrees_or_is_refused():
    x = np.arange(3, dtype=np.float32)
    eager = first_iteration_differs(x)
    try:
        staged = staging.function(first_iteration_differs)(x)
    except errors.StagingError as error:
        assert str(error).startswith(f"{__file__}:")
        assert "'s'" in str(error)
    else:
        assert type(staged) is type(eager) and staged.dtype == eager.dtype and staged == eager


def print_joined(c, y):
    total = 3 + (y if c > 0 else 3)  # a Python int on one path, a float64 scalar on the other
    print("total", total)  # eagerly `6` on that path; a float64 would print `6.0`
    return c


def test_printing_a_value_whose_text_depends_on_the_path_is_refused():
    with pytest.raises(errors.BranchMismatchError) as info:
        staging.function(print_joined)(np.float64(-1.0), np.float64(2.0))
    message = str(info.value)
    assert message.startswith(f"{__file__}:{line_of(print_joined, 'print(')}: print:")
    assert "a Python int on some paths and a float64 scalar on others" in message
    assert "print differently (`1` and `1.0`)" in message


def print_same_text(c, y):
    total = 3 + (y if c > 0 else 3)  # a Python int or an int32 value: both print as `6`
    print("total", total)
    return total


@pytest.mark.parametrize("c", [1.0, -1.0])
def test_printing_a_value_that_prints_alike_on_every_path_agrees(c, capsys):
    args = (np.float64(c), np.int32(3))
    eager = print_same_text(*args)
    eager_text = capsys.readouterr().out
    staged = staging.function(print_same_text)(*args)
    assert capsys.readouterr().out == eager_text and staged == eager


def invert_joined(c, y):
    a = y if c > 0 else True  # a uint8 value, or the Python True: ~True is -2, ~np.uint8(1) is 254
    return ~a


def test_sign_changing_op_on_an_unsigned_join_is_refused():
    assert invert_joined(np.float64(-1.0), np.uint8(2)) == -2
    with pytest.raises(errors.BranchMismatchError) as info:
        staging.function(invert_joined)(np.float64(-1.0), np.uint8(2))
    assert str(info.value).startswith(f"{__file__}:{line_of(invert_joined, 'return ~a')}: invert: ")


def negate_joined(c, y):
    a = y if c > 0 else 0.1  # a complex128, or the Python float 0.1: -0.1 vs (-0.1-0j)
    return -a, a * -2.0, a + 1.0


def test_an_op_giving_a_real_made_complex_a_negative_zero_imaginary_part_is_refused():
    assert negate_joined(np.float64(-1.0), np.complex128(2))[0] == -0.1
    with pytest.raises(errors.BranchMismatchError) as info:
        staging.function(negate_joined)(np.float64(-1.0), np.complex128(2))
    assert str(info.value).startswith(
        f"{__file__}:{line_of(negate_joined, 'return -a')}: negative: "
    )

    def add_only(c, y):
        a = y if c > 0 else 0.1
        return a + 1.0  # (1.1+0j): the documented join conversion, the same value

    for c in (np.float64(-1.0), np.float64(1.0)):
        assert staging.function(add_only)(c, np.complex128(2)) == add_only(c, np.complex128(2))


def invert_of_quotient(c, y):
    v = 2 if c > 0 else y  # a Python int, or a float64
    a = v // v  # the same value in both places: 1 (int) or 1.0 (float64)
    return ~a  # -2 eagerly on the int path, a TypeError on the float64 one


def test_a_joined_value_read_twice_by_one_op_is_one_value_on_each_path():
    assert invert_of_quotient(np.float64(1.0), np.float64(1.5)) == -2
    with pytest.raises(errors.BranchMismatchError) as info:
        staging.function(invert_of_quotient)(np.float64(1.0), np.float64(1.5))
    assert str(info.value).startswith(
        f"{__file__}:{line_of(invert_of_quotient, 'return ~a')}: invert: "
    )


def method_of_joined(c, y):
    if c > 0:
        v = y
    else:
        v = 0  # a Python int: eagerly its astype() raises AttributeError
    return v.astype(np.int8)


def test_ndarray_method_of_a_value_that_is_a_python_number_on_another_path_is_refused():
    with pytest.raises(AttributeError):
        method_of_joined(np.float64(-1.0), np.complex128(2))
    with pytest.raises(errors.BranchMismatchError) as info:
        staging.function(method_of_joined)(np.float64(-1.0), np.complex128(2))
    message = str(info.value)
    assert message.startswith(
        f"{__file__}:{line_of(method_of_joined, 'v.astype')}: 'v' is a Python int"
    )
    assert "has no attribute 'astype'" in message


def continue_in_while(x):
    s = 0
    while x > 0:
        x -= 1
        if x % 2 > 0:
            continue  # s stays what it was: on the first iteration, the Python 0
        s += x
    return s


@pytest.mark.parametrize("x", [np.int32(5), np.int32(6), np.int32(1)])
def test_loop_variable_starting_as_a_python_int_meets_an_int32_in_a_staged_if(x):
    # The branch keeping s (a Python int known only at run time) meets the one making it int32:
    # s is int32, as eagerly after the first `s += x`.
    eager, staged = continue_in_while(x), staging.function(continue_in_while)(x)
    assert type(staged) is type(eager) is np.int32 and staged == eager


def big_number_meets_int32(k, y):
    n = 0
    for _ in range(k):
        n = n + 2**40  # a Python int known only at run time, beyond int32
    return n if y > 0 else y


def test_python_int_known_at_run_time_that_does_not_fit_raises_overflow_error():
    assert big_number_meets_int32(np.int64(0), np.int32(3)) == 0
    staged = staging.function(big_number_meets_int32)
    assert staged(np.int64(0), np.int32(3)) == 0
    with pytest.raises(OverflowError) as info:  # eagerly a Python int 2**40: out of int32's range
        staged(np.int64(1), np.int32(3))
    assert isinstance(info.value, errors.NumberDoesNotFitError)  # a refusal naming the join
    assert str(info.value).startswith(
        f"{__file__}:{line_of(big_number_meets_int32, 'return n if')}: "
    )
    assert "is a Python int here that does not fit int32" in str(info.value)


def bitwise_of_joined(c, n):
    m = n if c > 0 else 1.5  # the Python int n meets 1.5: a float after the `if`
    return m & 1  # eagerly fine for the int n; a float has no `&`


def test_op_that_fails_only_with_the_joined_type_is_refused():
    assert bitwise_of_joined(np.float64(1.0), 3) == 1
    with pytest.raises(errors.BranchMismatchError) as info:
        staging.function(bitwise_of_joined)(np.float64(1.0), 3)
    message = str(info.value)
    assert message.startswith(
        f"{__file__}:{line_of(bitwise_of_joined, 'return m & 1')}: bitwise_and: "
    )
    assert "a Python int on some paths and a Python float on others" in message


def explicit_abs_of_joined(x, n):
    y = n if x else x  # the Python int n on one path, an int8 value on the other
    return np.abs(y)  # np.abs(5) is a strong np.int64; np.abs(np.int8(5)) an int8


def operator_abs_of_joined(x, n):
    y = n if x else x
    return abs(y)  # abs(5) stays the Python int 5: int8 on the other path absorbs it


def test_explicit_ufunc_on_a_python_number_path_is_strong_and_refused():
    eager = [explicit_abs_of_joined(np.int8(x), 5) for x in (3, 0)]
    assert [type(v) for v in eager] == [np.int64, np.int8]
    with pytest.raises(errors.BranchMismatchError) as info:
        staging.function(explicit_abs_of_joined)(np.int8(3), 5)
    message = str(info.value)
    assert message.startswith(
        f"{__file__}:{line_of(explicit_abs_of_joined, 'return np.abs')}: absolute:"
    )
    assert "an int64 scalar eagerly on the first and an int8 scalar staged" in message


@pytest.mark.parametrize("x", [3, 0])
def test_python_abs_of_the_same_joined_value_agrees(x):
    args = (np.int8(x), 5)
    eager, staged = operator_abs_of_joined(*args), staging.function(operator_abs_of_joined)(*args)
    assert type(staged) is np.int8 and staged == eager


def floor_divide_joined(x, n, m):
    s = 7  # a Python int on one path
    if x > 0:
        s = n  # an int32 on the other
    r = 0
    for i in range(m):  # i: a Python int known at run time, 0 on the first iteration
        r = r + s // i
    return r


def test_division_by_zero_of_a_python_number_on_some_paths_is_refused_when_it_runs():
    f = staging.function(floor_divide_joined)
    # A nonzero divisor: the same value on every path.
    assert f(np.float32(1), np.int32(3), np.int32(0)) == floor_divide_joined(
        np.float32(1), np.int32(3), np.int32(0)
    )
    with pytest.raises(ZeroDivisionError):
        floor_divide_joined(np.float32(-1), np.int32(3), np.int32(1))  # Python's 7 // 0
    with np.errstate(divide="ignore"):
        assert (
            floor_divide_joined(np.float32(1), np.int32(3), np.int32(1)) == 0
        )  # NumPy's int32(3) // 0
    for x in (np.float32(-1), np.float32(1)):
        # One graph for both paths: it cannot tell which ran, so it refuses, naming the line.
        with pytest.raises(errors.ZeroDivisorError) as info:
            f(x, np.int32(3), np.int32(1))
        assert isinstance(info.value, ZeroDivisionError)
        message = str(info.value)
        assert message.startswith(
            f"{__file__}:{line_of(floor_divide_joined, 'r = r + s // i')}: floor_divide: "
        )
        assert "'s' is a Python int on some paths and an int32 scalar on others" in message


def divide_joined_by_array_value(x, n, d):
    s = 7 if x > 0 else n  # a Python int or an int32
    return s // d  # d an int32: NumPy's division on every path, never Python's


def test_division_by_a_numpy_divisor_is_numpy_on_every_path():
    with np.errstate(divide="ignore"):
        for x in (np.float32(-1), np.float32(1)):
            args = (x, np.int32(3), np.int32(0))
            assert (
                staging.function(divide_joined_by_array_value)(*args)
                == divide_joined_by_array_value(*args)
                == 0
            )


def square_of_joined(v, n):
    return (v if n <= -2 else 300) ** 2  # the Python int 300 on one path, an int16 on the other


def test_integer_arithmetic_that_wraps_where_a_python_int_would_not_is_refused_when_it_runs():
    f = staging.function(square_of_joined)
    assert (
        f(np.int16(3), np.int64(-5)) == square_of_joined(np.int16(3), np.int64(-5)) == 9
    )  # no wrap
    assert square_of_joined(np.int16(3), np.int64(1)) == 90000  # Python's int: 300 ** 2
    with np.errstate(over="ignore"):
        assert square_of_joined(np.int16(300), np.int64(-5)) == np.int16(24464)  # NumPy's wraps
    for args in ((np.int16(3), np.int64(1)), (np.int16(300), np.int64(-5))):
        with pytest.raises(errors.WrappedIntegerError) as info:  # was np.int16(24464) for 90000
            f(*args)
        assert isinstance(info.value, OverflowError)
        message = str(info.value)
        assert message.startswith(
            f"{__file__}:{line_of(square_of_joined, 'return (v if')}: pow: the result "
            f"wrapped around in int16"
        )
        assert "is a Python int on some paths and an int16 scalar on others" in message


def explicit_add_of_python_kinds(n, y):
    return np.add(y, 1 if n < 2 else y)  # the Python int 1 or the Python bool y


def explicit_add_same_dtype_on_every_path(n, y):
    return np.add(1.5, 1 if n < 2 else y)  # float64 whether the other operand is a bool or an int


def test_explicit_ufunc_on_python_numbers_of_different_kinds_on_the_paths():
    # np.add(True, True) is np.True_, np.add(True, 1) np.int64(2): one path gives a bool.
    assert type(explicit_add_of_python_kinds(np.int32(3), True)) is np.bool_
    with pytest.raises(errors.BranchMismatchError) as info:  # was np.int64(2) for np.True_
        staging.function(explicit_add_of_python_kinds)(np.int32(3), True)
    assert str(info.value).startswith(
        f"{__file__}:{line_of(explicit_add_of_python_kinds, 'return np.add')}: add: "
    )
    for n in (np.int32(3), np.int32(0)):
        staged = staging.function(explicit_add_same_dtype_on_every_path)(n, True)
        eager = explicit_add_same_dtype_on_every_path(n, True)
        assert type(staged) is type(eager) is np.float64 and staged == eager


def dtype_after_accumulating(x, n):
    s = 0  # a Python int until the loop's first iteration
    for i in range(n):
        s = s + x
    return s.dtype


def sum_after_while(x, n, c):
    s = 0
    k = 0
    while k < n:
        k += 1
        s = s + x
    if c > 0:
        return s.sum()  # read inside a staged `if` after the loop
    return s * 1


@pytest.mark.parametrize("jit", [False, True])
def test_an_attribute_a_python_number_lacks_raises_after_a_loop_that_ran_zero_times(jit):
    f = staging.function(dtype_after_accumulating, jit_compile=jit)
    x = np.int16(3)
    assert f(x, np.int64(2)) == dtype_after_accumulating(x, np.int64(2)) == np.int16
    with pytest.raises(AttributeError):
        dtype_after_accumulating(x, np.int64(0))
    with pytest.raises(errors.MissingAttributeError) as info:  # was dtype('int16')
        f(x, np.int64(0))
    assert isinstance(info.value, AttributeError)
    message = str(info.value)
    assert message.startswith(
        f"{__file__}:{line_of(dtype_after_accumulating, 'return s.dtype')}: 'int' object "
        f"has no attribute 'dtype'"
    )
    assert (
        "'s' is a Python int before the staged loop" in message
        and "which ran zero times" in message
    )


def test_the_zero_trip_check_reaches_reads_inside_a_later_staged_if():
    f = staging.function(sum_after_while)
    x = np.float32(1.5)
    for n, c in ((2, 1.0), (0, -1.0), (3, -1.0)):
        eager, staged = sum_after_while(x, np.int64(n), c), f(x, np.int64(n), c)
        np.testing.assert_array_equal(staged, eager)
    with pytest.raises(AttributeError):
        sum_after_while(x, np.int64(0), 1.0)
    with pytest.raises(errors.MissingAttributeError):
        f(x, np.int64(0), 1.0)


def dtype_after_two_loops(x, n, m):
    s = 0
    for i in range(n):
        s = s + x
    for j in range(m):
        s = s + x
    return s.dtype


@pytest.mark.parametrize("jit", [False, True])
def test_the_zero_trip_check_follows_the_number_through_several_loops(jit):
    f = staging.function(dtype_after_two_loops, jit_compile=jit)
    x = np.int32(3)
    for n, m in ((1, 0), (0, 1), (2, 3)):
        assert f(x, np.int64(n), np.int64(m)) == dtype_after_two_loops(x, np.int64(n), np.int64(m))
    with pytest.raises(AttributeError):
        dtype_after_two_loops(x, np.int64(0), np.int64(0))
    with pytest.raises(
        errors.MissingAttributeError, match=r"before the staged loops \(2, the last at"
    ):
        f(x, np.int64(0), np.int64(0))


def test_a_number_a_later_loop_may_pass_through_unchanged_is_refused_where_its_attribute_is_read():
    def f(x, n, m, c):
        s = 0
        for i in range(n):
            s = s + x
        k = 0
        while k < m:
            k += 1
            if c:
                s = s + x
        return s.dtype

    with pytest.raises(AttributeError):  # eagerly, when neither loop changed s
        f(np.int32(3), np.int64(0), np.int64(2), np.bool_(False))
    with pytest.raises(errors.LoopVariableError, match="'s' is a Python int on some paths"):
        staging.function(f)(np.int32(3), np.int64(1), np.int64(1), np.bool_(True))


def test_a_number_a_staged_if_after_the_loop_may_pass_through_is_refused_where_its_attribute_is_read():
    def f(x, n, c):
        s = 0
        for i in range(n):
            s = s + x
        if c:
            s = s * 2
        return s.dtype

    with pytest.raises(AttributeError):  # eagerly, when the loop ran zero times and c is False
        f(np.int32(3), np.int64(0), np.bool_(False))
    with pytest.raises(errors.BranchMismatchError, match="'s' is a Python int on some paths"):
        staging.function(f)(np.int32(3), np.int64(2), np.bool_(True))


def negated_int_or_float(n, z):
    return -(0 if n == z else -2.0)  # the Python int 0 on one path, a Python float on the other


def test_a_negated_zero_that_is_an_int_on_some_path_is_refused_when_it_runs():
    f = staging.function(negated_int_or_float)
    assert f(np.int8(2), 0.0) == negated_int_or_float(np.int8(2), 0.0) == 2.0
    assert negated_int_or_float(np.int8(0), 0.0) == 0  # the int 0: no sign
    with pytest.raises(errors.SignedZeroError) as info:  # was -0.0
        f(np.int8(0), 0.0)
    assert str(info.value).startswith(
        f"{__file__}:{line_of(negated_int_or_float, 'return -(0 if')}: negative: the result is -0.0"
    )


def or_of_and_in_a_loop(n, y):
    count = 0
    for i in range(n):
        if (n and y) or (not i):  # `n and y`: the int8 n or the Python int y
            continue
        count += 1
    return count


@pytest.mark.parametrize("n", [0, 1, 3])
def test_truth_of_a_joined_value_in_or_is_not_taken_for_a_user_method_call(n):
    # `or` converts its operand with .astype(bool) internally: that is not the user's `.astype`
    # (was refused: "a Python int has no attribute 'astype'"; seed 51).
    args = (np.int8(n), 2)
    assert staging.function(or_of_and_in_a_loop)(*args) == or_of_and_in_a_loop(*args)


def uint16_of_bool_or_complex(x, n, y):
    k = 0
    a = np.uint16(0)
    while k < n:
        k += 1
        a = np.uint16(x if k else y)  # the Python bool x (k >= 1), or the complex y: never taken
    return a


def test_a_real_scalar_type_of_a_value_that_is_a_python_complex_on_some_path_is_refused():
    # np.uint16(True) is 1; np.uint16(1j) raises TypeError. The joined value is a complex
    # staged: was a TypeError when the graph ran (seed 81), now refused naming the line.
    args = (True, np.int64(2), complex(-1.0, 1.0))
    assert uint16_of_bool_or_complex(*args) == 1
    with pytest.raises(errors.BranchMismatchError) as info:
        staging.function(uint16_of_bool_or_complex)(*args)
    assert str(info.value).startswith(
        f"{__file__}:{line_of(uint16_of_bool_or_complex, 'a = np.uint16(x if')}: "
    )
    assert "a Python bool on some paths and a Python complex on others" in str(info.value)


def explicit_add_of_literal_and_joined(x, y):
    return np.add(-1, 3 if x > 0 else y)  # np.add(-1, 3) is an int64; the staged value a float16


def test_explicit_ufunc_of_a_literal_and_a_python_number_path_is_checked_as_numpy():
    # The literal -1 was not taken for a Python number on that path (seed 87: float16 staged
    # where eager gives int64).
    args = (np.float64(1.0), np.float16(3.0))
    assert type(explicit_add_of_literal_and_joined(*args)) is np.int64
    with pytest.raises(errors.BranchMismatchError) as info:
        staging.function(explicit_add_of_literal_and_joined)(*args)
    assert "an int64 scalar eagerly on the first and a float16 scalar staged" in str(info.value)


def or_of_two_joined_values(x, n):
    v = n - (~n) if x > 0 else -np.minimum(True, 1.5)  # the Python int 7, or a float64
    return (v if 3 > v else 100) | v  # on the int path, both operands are ints


def test_an_op_that_works_when_several_joined_inputs_are_python_numbers_at_once_is_refused():
    # Each input alone as an int still failed (int | float), so the TypeError reached the user
    # as if eager failed too (seed 89); together they are the int path, where `|` works.
    assert or_of_two_joined_values(np.float64(1.0), 3) == 103
    with pytest.raises(errors.BranchMismatchError) as info:
        staging.function(or_of_two_joined_values)(np.float64(1.0), 3)
    assert "bitwise_or works eagerly on the first and fails staged" in str(info.value)


def test_an_unused_sum_of_a_run_time_python_int_and_a_numpy_integer_still_raises():
    def f(x, n, y):
        v = (n >> 1) if x != 1 else -n  # a Python int known when the graph runs
        v += np.uint32(y)  # NEP 50: OverflowError when v < 0
        v = 5
        return x

    g = staging.function(f)
    for x in (np.array(1, np.uint32), np.array(3, np.uint32)):
        args = (x, 3, np.array(0, np.uint16))
        if x == 1:
            with pytest.raises(OverflowError):
                f(*args)
            with pytest.raises(OverflowError):
                g(*args)
        else:
            assert g(*args) == f(*args)


def test_a_numpy_integer_of_a_python_int_that_does_not_fit_is_refused_when_it_runs():
    def f(n, c):
        v = np.uint8(n if c else 300)  # the Python int 300 on one path: OverflowError eagerly
        return n

    g = staging.function(f)
    with pytest.raises(OverflowError):
        f(np.int64(0), np.bool_(False))
    with pytest.raises(
        errors.NumberDoesNotFitError, match="np.uint8: the value does not fit it"
    ) as info:
        g(np.int64(0), np.bool_(False))
    assert isinstance(info.value, OverflowError)
    assert g(np.int64(7), np.bool_(True)) == f(np.int64(7), np.bool_(True))


def test_joined_values_that_are_python_numbers_together_are_checked_together():
    def f(x, n):
        v = 0 if n < x else -x
        w = 1 if n < x else x
        return np.where(v == v, v, w)  # all Python ints on one path: int64

    assert f(np.array(2, np.uint8), 0).dtype == np.int64
    with pytest.raises(
        errors.BranchMismatchError, match="with all of them Python numbers this gives an int64"
    ):
        staging.function(f)(np.array(2, np.uint8), 0)


def test_a_remainder_of_python_ints_on_some_path_giving_negative_zero_is_refused_when_it_runs():
    def f(x, n):
        v = np.exp(x) if x == n else x  # a Python int on the path where x != n
        return (-v) % v

    assert f(-3, np.int64(2)) == 0 and type(f(-3, np.int64(2))) is int
    with pytest.raises(errors.SignedZeroError, match="`%` of Python ints"):
        staging.function(f)(-3, np.int64(2))


def test_a_float_conversion_that_was_a_python_int_before_a_loop_is_checked_when_it_runs():
    def f(x, n):
        v = -9
        for _ in range(n):
            v = np.float64(x)
        return np.uint32(v)  # OverflowError eagerly when the loop ran zero times

    with pytest.raises(OverflowError):
        f(np.float64(2.0), np.int64(0))
    g = staging.function(f)
    with pytest.raises(errors.NumberDoesNotFitError):
        g(np.float64(2.0), np.int64(0))
    assert g(np.float64(2.0), np.int64(2)) == f(np.float64(2.0), np.int64(2))


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")  # the staged cast runs first
def test_a_numpy_integer_of_a_complex_that_is_a_python_int_on_some_path_is_checked():
    def f(x, c):
        v = np.maximum(3, x) if c else ~False  # complex64, or the Python int -1
        return np.uint32(v)

    with pytest.raises(OverflowError):
        f(np.complex64(3 + 2.5j), np.bool_(False))
    with pytest.raises(errors.NumberDoesNotFitError):
        staging.function(f)(np.complex64(3 + 2.5j), np.bool_(False))


def test_an_explicit_ufunc_of_a_complex_that_is_a_python_int_on_some_path_and_a_float64_is_refused():
    def f(v):
        c = 300 if 2.5 > v else 2.5 - 1.0j  # the Python int 300, or a Python complex
        return np.multiply(c, v)  # float64 for the int eagerly, complex128 for the complex

    assert type(f(np.float64(-1.0))) is np.float64
    with pytest.raises(
        errors.BranchMismatchError, match="gives a float64 scalar eagerly on the first"
    ):
        staging.function(f)(np.float64(-1.0))


def test_a_loop_variable_the_body_makes_a_python_number_is_checked_on_later_iterations():
    def f(n, y):
        s = np.float64(0.5)
        for i in range(n):
            print(y % s)  # on the second iteration s is the Python int 2: uint64 % int is uint64
            s = len([1, 2])
        return s

    with pytest.raises(
        errors.LoopVariableError, match="gives a uint64 scalar eagerly on the first"
    ):
        staging.function(f)(np.int64(2), np.uint64(3))


def remainder_after_a_loop(x, n, d):
    v = n  # a Python int until the loop's first iteration
    k = 0
    while k < 3 and not x:
        k += 1
        v -= np.float64(0.5)
    return v % d, v // d


@pytest.mark.parametrize("jit", [False, True])
def test_a_division_by_zero_of_the_number_a_loop_left_unchanged_raises_as_python_does(jit):
    # Seed 255: eagerly `0 % 0` of Python ints raises; staged it was NaN.
    f = staging.function(remainder_after_a_loop, jit_compile=jit)
    for args in (
        (np.int8(0), 4, 0),
        (np.int8(0), 4, 2),
        (np.int8(1), 4, 3),
    ):  # ran, or no zero divisor
        with np.errstate(all="ignore"):
            staged, eager = f(*args), remainder_after_a_loop(*args)
        np.testing.assert_array_equal(np.array(staged, dtype=float), np.array(eager, dtype=float))
    with pytest.raises(ZeroDivisionError):
        remainder_after_a_loop(np.int8(1), 4, 0)
    with pytest.raises(errors.ZeroDivisorError) as info:
        f(np.int8(1), 4, 0)
    assert str(info.value).startswith(
        f"{__file__}:{line_of(remainder_after_a_loop, 'return v % d')}: remainder: "
    )
    assert "'v' is still a Python int because the staged loop at" in str(info.value)
    assert "ran zero times" in str(info.value)


def index_joined(x, n, c):
    if n:
        v = 0  # a Python int ...
    else:
        v = np.cos(c > n)  # ... or a float16
    return x[v % len(x)]


def test_an_index_that_is_an_int_on_some_path_and_a_float_staged_is_refused_naming_it():
    # Seed 257: eagerly the int path indexes; staged the float16 raised a bare IndexError.
    x = np.array([1.0, 2.0])
    assert index_joined(x, np.int64(2), 1) == 1.0
    with pytest.raises(errors.BranchMismatchError) as info:
        staging.function(index_joined)(x, np.int64(2), 1)
    message = str(info.value)
    assert message.startswith(
        f"{__file__}:{line_of(index_joined, 'return x[v % len(x)]')}: 'v' is a Python int "
        f"on some paths and a float16 scalar on others"
    )
    assert "as an index it works eagerly on the first and fails staged (IndexError" in message


def dtype_after_an_op_keeping_the_number(x, n):
    s = 1
    k = 0
    while k < n:
        k += 1
        s = s + x  # float64 once the loop runs
    s = s + 0  # the Python int + 0 is still a Python int when it ran zero times
    s = s * 2
    return s.dtype


def test_the_zero_trip_check_follows_the_number_through_ops_that_keep_it_a_python_number():
    # Seed 273: the op's result forgot the loop, and `.dtype` read the staged float64.
    f = staging.function(dtype_after_an_op_keeping_the_number)
    assert f(np.float64(0.5), np.int64(2)) == dtype_after_an_op_keeping_the_number(
        np.float64(0.5), np.int64(2)
    )
    with pytest.raises(AttributeError):
        dtype_after_an_op_keeping_the_number(np.float64(0.5), np.int64(0))
    with pytest.raises(
        errors.MissingAttributeError, match="'s' is a Python int before the staged loop at"
    ):
        f(np.float64(0.5), np.int64(0))


def _int_or_draw(a):
    if not (a > a):
        return 1
    return np.random.uniform(-2.0, 2.0, 1)[0]


def test_a_sum_of_joined_values_that_are_both_python_ints_on_a_path_keeps_that_path():
    # (seed 347) `v = h(x); v += h(y)`: each a Python int or a float64; on the path where both are
    # ints the sum is an int, and `v >> 1` works eagerly there; it raised NumPy's TypeError staged
    def f(x, y):
        v = _int_or_draw(x)
        v += _int_or_draw(y)
        return v >> 1

    assert f(np.bool(False), np.bool(False)) == 1
    with pytest.raises(
        errors.BranchMismatchError,
        match="right_shift: .* is a Python int on some paths and a float64 scalar on others",
    ) as info:
        staging.function(f)(np.bool(False), np.bool(False))
    assert str(info.value).startswith(f"{__file__}:{line_of(f, 'v >> 1')}:")


def _float_or_int(x):
    k = 0
    while k < 3 and x > 5:
        k += 1
        return -2.0  # a Python float on this path
    return ~(k ^ 5)  # a Python int on this one


def test_a_loop_keeps_the_other_types_its_initial_value_has():
    # (seed 359) s is a Python float or int (joined: a float); a staged loop that may run zero
    # times then carried only the float, and `s - n` (an int32 eagerly) became a float64
    def f(x, n, y):
        s = _float_or_int(x)
        k = 0
        while k < 3 and y:
            k += 1
            s = np.float64(k) + 0.5
        s -= n
        return s

    args = (np.uint32(1), np.int32(1), np.uint64(0))
    assert type(f(*args)) is np.int32
    with pytest.raises(
        errors.LoopVariableError,
        match="subtract: 's' is a Python int on some paths and a float64 scalar on others",
    ):
        staging.function(f)(*args)


def test_an_op_python_refuses_on_the_number_a_loop_left_unchanged_raises_when_it_ran_zero_times():
    # (seed 361) `s > 1j` with s a Python int when the loop ran zero times: Python raises
    # TypeError; the staged int64 compared with the complex and returned True
    def f(n, y):
        s = 1
        s = s + 0
        k = 0
        while k < n:
            k += 1
            s //= y
        return s > 1j

    with pytest.raises(TypeError):
        f(np.int64(0), np.True_)
    g = staging.function(f)
    with pytest.raises(
        errors.LoopVariableError,
        match="'s' is still a Python int because the staged loop at .* ran "
        "zero times, and there Python raises TypeError",
    ) as info:
        g(np.int64(0), np.True_)
    assert isinstance(info.value, TypeError)
    assert g(np.int64(2), np.True_) == np.int64(1) > 1j  # it ran: NumPy's comparison, as eagerly


def test_an_op_failing_on_both_paths_with_different_errors_is_refused_naming_the_value():
    # (seed 439) `(n if c else 1j) // n` with n = 0: eagerly ZeroDivisionError on the int path;
    # staged the complex value's TypeError, a different error
    def f(x, n):
        return (n if x < 2 else 1.0j) // n

    with pytest.raises(ZeroDivisionError):
        f(np.float64(1.0), 0)
    with pytest.raises(
        errors.BranchMismatchError,
        match="floor_divide raises ZeroDivisionError eagerly on the "
        "first and fails staged \\(TypeError",
    ):
        staging.function(f)(np.float64(1.0), 0)


class _Holder:
    pass


def test_a_run_time_check_before_a_line_that_fails_while_tracing_raises_first():
    # (seed 445) eagerly `n // (y if x == y else n)` raises ZeroDivisionError for n = 0 before a
    # later line reads a missing attribute; staged, that later line's AttributeError was raised
    # while tracing, ahead of the division's run-time check
    def f(x, n, y):
        box = _Holder()
        print(n // (y if x == y else n))
        if y > 100:
            return box.missing
        return box.missing + 1

    with pytest.raises(ZeroDivisionError):
        f(complex(3.0, 2.5), 0, np.int64(3))
    with pytest.raises(errors.ZeroDivisorError):
        staging.function(f)(complex(3.0, 2.5), 0, np.int64(3))
    with pytest.raises(AttributeError):  # no zero divisor: the attribute, as eagerly
        staging.function(f)(complex(3.0, 2.5), 2, np.int64(3))


def test_a_numpy_integer_of_a_value_that_is_a_python_float_on_some_path_is_checked():
    # (seed 495) np.uint32 of a Python float raises OverflowError where the truncated value does
    # not fit; the staged float64 was cast without a check (4294967293 for -3.25)
    def f(x, c):
        v = x if c > 0 else np.float64(2.0)
        return np.uint32(v)

    g = staging.function(f)
    for x in (-0.5, 3.25, 4294967295.5):
        assert g(x, np.float64(1.0)) == f(x, np.float64(1.0))
    for x in (-3.25, 4294967296.0):
        with pytest.raises(OverflowError):
            f(x, np.float64(1.0))
        with pytest.raises(errors.NumberDoesNotFitError, match="a Python float on some paths"):
            g(x, np.float64(1.0))
    assert g(-3.25, np.float64(-1.0)) == f(-3.25, np.float64(-1.0))


def test_an_in_place_operator_with_a_python_int_known_at_run_time_keeps_the_arrays_dtype():
    # (seed 501) `a += k` with k a Python int loop counter (known at run time) and a a uint32 0-d
    # array: NumPy casts k as a Python int (uint32 + int is uint32); its staged type rule took
    # k as an int64 and refused the cast into the uint32 array
    def f(a):
        k = 0
        while k < 2 and a > 0:
            k += 1
            a += k
        return a

    for a in (np.array(5, np.uint32), np.uint32(5), np.array(250, np.uint8)):
        a2 = a.copy() if isinstance(a, np.ndarray) else a
        got, want = staging.function(f)(a), f(a2)
        assert repr(got) == repr(want)


def test_a_division_of_python_numbers_in_a_loop_raises_before_a_later_line_that_fails_while_tracing():
    # (seed 489) `v //= i << 2` divides the Python int v by 0 on the first iteration (Python's
    # ZeroDivisionError when the graph runs); `~x[...]` of a float32 array, later, raised its
    # TypeError while tracing, ahead of it
    def f(x, n, y):
        v = y
        for i in range(n):
            v //= i << 2
        return ~x[v % len(x)]

    x = np.array([-3.25, 0.1], dtype=np.float32)
    with pytest.raises(ZeroDivisionError):
        f(x, np.uint8(2), 5)
    with pytest.raises(ZeroDivisionError):
        staging.function(f)(x, np.uint8(2), 5)
    with pytest.raises(TypeError):  # the loop does not run: the TypeError, as eagerly
        staging.function(f)(x, np.uint8(0), 5)
