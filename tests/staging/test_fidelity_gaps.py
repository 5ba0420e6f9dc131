"""Staged equals eager for constructs found missing by the reference-test shim and the fuzzer:
`in` on a symbolic array, np.size, np.pad with a symbolic fill value, an unknown-rank shape
invariant. Each compares the staged result with the eager one (values, dtypes, Python types)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _staging_helpers import assert_same

import staging


def first_common(xs, ys):
    s = 0
    for c in xs:
        if c in ys:
            break
        s = s * 10 + c
    else:
        s = -1000
    return s


@pytest.mark.parametrize(
    "ys",
    [
        np.array([], np.int32),
        np.array([1, 2], np.int32),
        np.array([3, 4], np.int32),
        np.array([[2, 9], [7, 7]], np.int32),
    ],
)
def test_in_on_a_symbolic_array_is_numpys_any_of_equal(ys):
    xs = np.array([1, 2], np.int32)
    assert_same(staging.function(first_common)(xs, ys), first_common(xs, ys))


def membership(x, ys):
    return x in ys, x not in ys, 2.0 in ys


@pytest.mark.parametrize("x", [np.int32(2), np.float64(2.5), 3])
def test_in_gives_a_python_bool_as_eagerly(x):
    ys = np.array([1, 2, 3], np.int32)
    staged, eager = staging.function(membership)(x, ys), membership(x, ys)
    assert staged == eager
    assert [type(v) for v in staged] == [type(v) for v in eager] == [bool, bool, bool]


def in_python_list(x):
    return 3 in [1, 2, x]


def test_in_on_a_python_list_is_pythons():
    assert staging.function(in_python_list)(5) is in_python_list(5) is False


def sizes(x):
    return np.size(x), np.size(x, 1), np.size(x, -1)


def size_of_axes(x):
    return np.size(x, (0, 1))  # a tuple of axes: NumPy 2.3 and later


def test_np_size_of_a_symbolic_array():
    x = np.zeros((3, 2))
    assert staging.function(sizes)(x) == sizes(x)
    try:
        want = size_of_axes(x)
    except TypeError:  # (this NumPy takes one axis only: so must the staged call)
        with pytest.raises(TypeError):
            staging.function(size_of_axes)(x)
    else:
        assert staging.function(size_of_axes)(x) == want
    unknown = staging.function(sizes, input_signature=[staging.TensorSpec([None, 2], np.float64)])
    for n in (0, 4):
        x = np.zeros((n, 2))
        staged, eager = unknown(x), sizes(x)
        assert staged == eager and [type(v) for v in staged] == [type(v) for v in eager]


def size_bad_axis(x):
    return np.size(x, 2)


def test_np_size_axis_out_of_range_raises_numpys_error():
    with pytest.raises((np.exceptions.AxisError, IndexError)) as eager:  # (IndexError: NumPy 2.2)
        size_bad_axis(np.zeros((3, 2)))
    with pytest.raises(type(eager.value)):
        staging.function(size_bad_axis)(np.zeros((3, 2)))


def grows(m, n):
    i = 0
    while i < n:
        m = np.pad(m, [[1, 1], [1, 1]], constant_values=i)
        i += 1
    return m


_grows = staging.function(grows)


@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.uint8])
def test_np_pad_with_a_symbolic_fill_value(n, dtype):
    m = np.zeros((2, 2), dtype)
    assert_same(_grows(m, np.int32(n)), grows(m, n))


def pad_with_float(m, v):
    return np.pad(m, 1, constant_values=v)


def test_np_pad_casts_a_symbolic_fill_value_as_numpy_does():
    m = np.zeros((2, 2), np.int32)
    assert_same(
        staging.function(pad_with_float)(m, np.float64(2.75)), pad_with_float(m, np.float64(2.75))
    )


# -- found by the differential fuzzer ----------------------------------------------------------


def count_from_one(n, x):
    s = 0
    k = 0
    for i in range(1, n):
        s = s + i * x
        k += 1
    return k, s


_count_from_one = staging.function(count_from_one)


@pytest.mark.parametrize(
    "n", [np.uint8(0), np.uint8(3), np.int8(-128), np.int16(2), np.int64(4), np.array(3)]
)
def test_range_takes_its_bounds_as_python_ints(n):
    """range(1, np.uint8(0)) is empty (Python converts the bound with __index__); uint8 arithmetic
    on the bounds would wrap to 255 iterations. The counter is a Python int, as eagerly."""
    x = np.int8(2)
    staged, eager = _count_from_one(n, x), count_from_one(n, x)
    assert staged[0] == eager[0] and type(staged[0]) is type(eager[0]) is int
    if eager[0]:
        assert_same(staged[1], eager[1])


@pytest.mark.parametrize("n", [np.float64(3.0), np.True_, np.array([3])])
def test_range_of_a_non_integer_raises_type_error_as_eagerly(n):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            want = count_from_one(n, 1)
    except TypeError:
        pass
    else:  # NumPy 2.2 still takes a bool scalar as an int (deprecated): so does the staged range
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            assert staging.function(count_from_one)(n, 1) == want
        return
    with pytest.raises(TypeError) as info:
        staging.function(count_from_one)(n, 1)
    assert "test_fidelity_gaps.py:" in str(info.value) and "range()" in str(info.value)


def mod_by_zero(x, n, y):
    v = (y if n > 0 else x) % 0
    return v


def test_an_op_that_raises_on_the_python_number_path_raises_there():
    """`(y if c else x) % 0` with a Python float x: eagerly ZeroDivisionError when x is chosen,
    NaN when the float64 y is. Staged, the same on each path: the value is what the path made
    it (staging.kinds), and the error names the line."""
    f = staging.function(mod_by_zero)
    with pytest.raises(ZeroDivisionError):
        mod_by_zero(0.0, 0, np.float64(2.0))
    with pytest.raises(ZeroDivisionError) as info:
        f(0.0, np.int64(0), np.float64(2.0))
    line = mod_by_zero.__code__.co_firstlineno + 1
    assert f"test_fidelity_gaps.py:{line}" in "".join(getattr(info.value, "__notes__", []))
    with np.errstate(invalid="ignore"):
        staged, eager = f(0.0, np.int64(1), np.float64(2.0)), mod_by_zero(0.0, 1, np.float64(2.0))
    assert type(staged) is type(eager) and np.isnan(staged) and np.isnan(eager)


def lists_in_returned_tuple(y):
    items = []
    if y > 0:
        return items, items
    else:
        items.append(np.float64(y))
        return items, items


def lists_and_int_in_returned_tuple(y):
    items = []
    if y > 0:
        return items, len(items)
    else:
        items.append(np.float64(y))
        return items, items


def test_staged_lists_inside_a_returned_tuple():
    f = staging.function(lists_in_returned_tuple)
    for y in (np.float64(1.0), np.float64(-2.0)):
        staged, eager = f(y), lists_in_returned_tuple(y)
        assert type(staged) is tuple and [list(s) for s in staged] == [list(e) for e in eager]


def test_a_staged_list_against_an_int_in_a_returned_tuple_is_refused_by_name():
    with pytest.raises(staging.errors.BranchMismatchError) as info:
        staging.function(lists_and_int_in_returned_tuple)(np.float64(1.0))
    assert "'return value[1]'" in str(info.value)
    assert (
        f"test_fidelity_gaps.py:{lists_and_int_in_returned_tuple.__code__.co_firstlineno + 2}:"
        in str(info.value)
    )


def complex_against_float64(x, y):
    return x != y[0], x == y[0], y[0] == x


@pytest.mark.parametrize("x", [complex(-1.0, -3.25), complex(2.0, 0.0)])
def test_python_complex_equals_float64_scalar_is_a_python_bool(x):
    """`1j == np.float64(2)` is complex's own == (np.float64 subclasses float): a Python bool;
    `np.float64(2) == 1j` is NumPy's: an np.bool. Staged code keeps the operand order."""
    y = np.array([2.0])
    staged, eager = staging.function(complex_against_float64)(x, y), complex_against_float64(x, y)
    assert staged == eager
    assert [type(v) for v in staged] == [type(v) for v in eager] == [bool, bool, np.bool_]


def loops_forever():
    n = np.int32(0)
    c = True
    while c:
        c = staging.constant(True)
    return n


def test_a_staged_loop_that_never_ends_is_kept():
    """Python loops forever; the staged loop's results are unused, and dead-code elimination
    used to drop it (the call returned). It is kept: the staged call loops forever too."""
    graph = str(staging.function(loops_forever).get_concrete_function().graph)
    assert "while_loop" in graph


def body_raises(x, n):
    s = 0
    for i in range(1, n):
        print("at", i)
        v = ~x  # TypeError for a float array, eagerly when the loop runs
        s += 1
    return s


_body_raises = staging.function(body_raises)


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_an_error_in_a_loop_body_is_raised_only_when_the_loop_runs(n, capsys):
    x = np.array([1.5])
    try:
        eager = body_raises(x, np.int64(n))
    except TypeError as error:
        eager = error
    eager_out = capsys.readouterr().out
    try:
        staged = _body_raises(x, np.int64(n))
    except TypeError as error:
        staged = error
    assert capsys.readouterr().out == eager_out
    if isinstance(eager, Exception):
        assert type(staged) is type(eager) and str(staged) == str(eager)  # NumPy's own message
        line = body_raises.__code__.co_firstlineno + 4
        assert f"test_fidelity_gaps.py:{line}: raised while running" in _notes(staged)
    else:
        assert staged == eager and type(staged) is type(eager)


def both_branches_raise_in_a_loop(x, n, k):
    s = 0
    for i in range(1, n):
        if k > 0:
            v = ~x
        else:
            v = np.where(x > 1, ~x, i)
        s += 1
    return s


def test_both_branches_raising_in_a_loop_that_does_not_run_is_not_an_error():
    x = np.array([1.5])
    f = staging.function(both_branches_raise_in_a_loop)
    assert f(x, np.int64(1), np.int64(1)) == both_branches_raise_in_a_loop(x, 1, 1) == 0
    with pytest.raises(TypeError):
        f(x, np.int64(2), np.int64(0))


def while_body_raises(x, n):
    while n > 0:
        n -= 1
        x = x[5]  # IndexError for a short array
    return x


def test_an_index_error_in_a_while_body():
    f = staging.function(while_body_raises)
    x = np.arange(3.0)
    assert_same(f(x, np.int64(0)), while_body_raises(x, 0))
    with pytest.raises(IndexError):
        while_body_raises(x, 1)
    with pytest.raises(IndexError):
        f(x, np.int64(1))


def mixed_list(y, x):
    items = [0.5]
    if y > 0:
        items.append(x)
    return len(items)


@pytest.mark.parametrize("y", [np.int64(1), np.int64(-1)])
def test_a_staged_list_holds_a_mix_as_a_python_list_does(y):
    assert staging.function(mixed_list)(y, np.uint64(3)) == mixed_list(y, np.uint64(3))


def write_into_a_dict_made_in_the_outer_branch(x, n):
    k = 1
    if n > 1:
        d = {"a": x * 2.0, "b": n}
        if x > 0:
            d["a"] = x * 3.0
    return x + 1.0, k


@pytest.mark.parametrize(
    "x, n",
    [
        (np.float64(-1.0), np.int64(0)),
        (np.float64(2.0), np.int64(3)),
        (np.float64(-2.0), np.int64(3)),
    ],
)
def test_a_write_into_an_object_a_branch_made_and_dropped_is_not_merged(x, n):
    """The inner `if` writes d['a'] of a dict the outer branch made; nothing sees d after the
    outer `if`, so there is nothing to merge (it used to leak the inner branch's tensor)."""
    f = staging.function(write_into_a_dict_made_in_the_outer_branch)
    assert_same(f(x, n), write_into_a_dict_made_in_the_outer_branch(x, n))


def append_to_a_closed_over_list(x, y):
    items = [x * 1.0]

    def last():
        return items[-1]

    if y > x:
        items.append(last())
    else:
        k = 0
        while k < 2:
            k += 1
            for item in items:
                print("item", item)
    return len(items)


@pytest.mark.parametrize(
    "x, y", [(np.float64(1.0), np.float64(0.0)), (np.float64(0.0), np.float64(1.0))]
)
def test_an_append_in_one_branch_to_a_closed_over_list_stays_in_that_branch(x, y, capsys):
    """`items` is a cell variable (the nested function reads it): the branch that appends
    changes a staged copy, so the other branch still sees one element."""
    eager = append_to_a_closed_over_list(x, y)
    eager_out = capsys.readouterr().out
    staged = staging.function(append_to_a_closed_over_list)(x, y)
    assert capsys.readouterr().out == eager_out
    assert staged == eager


def numpy_error_in_a_branch(x, y):
    if y > 0:
        v = np.sign(x)  # np.sign(True): UFuncTypeError (a TypeError) eagerly, when it runs
    else:
        v = y
    return v


def _notes(error) -> str:
    return "\n".join(getattr(error, "__notes__", []))


def test_a_numpy_error_in_a_branch_is_raised_only_when_the_branch_runs():
    f = staging.function(numpy_error_in_a_branch)
    assert_same(f(True, np.float64(-1.0)), numpy_error_in_a_branch(True, np.float64(-1.0)))
    with pytest.raises(TypeError) as eager:
        numpy_error_in_a_branch(True, np.float64(1.0))
    for _ in range(2):  # the trace, then a cache hit
        with pytest.raises(TypeError) as info:
            f(True, np.float64(1.0))
        # NumPy's own UFuncTypeError, with its message and arguments
        assert type(info.value) is type(eager.value) and str(info.value) == str(eager.value)
        assert info.value.args == eager.value.args
        # the line that raised (np.sign), not the `if`, in a note
        line = numpy_error_in_a_branch.__code__.co_firstlineno + 2
        assert f"test_fidelity_gaps.py:{line}: raised while running" in _notes(info.value)


def both_branches_raise(x, k):
    if np.any(x > 0):
        v = x // x  # floor_divide of complex: TypeError, when this branch runs
    else:
        v = k // False  # ZeroDivisionError, when this one runs
    return v


def same_error_in_both_branches(x, k):
    if np.any(x > 0):
        v = x // x
    else:
        v = x % x  # TypeError as well
    return v


@pytest.mark.parametrize(
    "x, error", [(np.array([1j, 2j]), TypeError), (np.array([-1j]), ZeroDivisionError)]
)
def test_branches_raising_different_errors_raise_the_taken_branchs(x, error):
    # both branches raise while traced: the `if` raises on every path, the error of the branch
    # the call takes (was refused, BranchesRaiseError)
    with pytest.raises(error) as eager:
        both_branches_raise(x, 3)
    f = staging.function(both_branches_raise)
    for _ in range(2):
        with pytest.raises(error) as staged:
            f(x, 3)
        assert type(staged.value) is type(eager.value) and str(staged.value) == str(eager.value)


def test_branches_raising_one_error_type_raise_it():
    with pytest.raises(TypeError) as eager:
        same_error_in_both_branches(np.array([1j]), 3)
    with pytest.raises(TypeError) as staged:
        staging.function(same_error_in_both_branches)(np.array([1j]), 3)
    assert type(staged.value) is type(eager.value)  # the first branch's error, as it was raised
    assert "floor_divide" in str(staged.value)


def zero_d_array_or_number(x, y):
    return np.where(y, y, 0) if x > 0 else -1  # a 0-d array (np.where of Python values) or an int


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_a_concrete_zero_d_array_joined_with_a_number_stays_an_array(x):
    args = (np.float32(x), True)
    eager, staged = zero_d_array_or_number(*args), staging.function(zero_d_array_or_number)(*args)
    assert staged == eager
    assert isinstance(staged, np.ndarray) == isinstance(
        eager, np.ndarray
    )  # was np.int64(1) for array(1)


def dict_made_in_each_iteration(x):
    s = x[0] * 0
    for e in x:
        d = {"a": e}  # a new dict on every iteration, written and dropped
        d["a"] = d["a"] * 2
        s = s + d["a"]
    return s


def test_an_object_each_iteration_makes_and_writes_is_not_a_loop_variable():
    # Each trace of the body made a new dict: it was taken for a new loop place every time
    # ("loop variable types did not settle"; fuzzer seeds 39, 41).
    x = np.array([7, 3, 5], dtype=np.int16)
    staged = staging.function(dict_made_in_each_iteration)(x)
    assert staged == dict_made_in_each_iteration(x) and staged.dtype == np.int16


def explicit_ufunc_of_python_complex_and_float64(z, x):
    v = x * 1.0
    return np.add(z, v), z + v, np.subtract(z, v)


def test_an_explicit_ufunc_of_a_python_complex_and_a_float64_scalar_is_numpys():
    # `z + v` is complex's own operator (a Python complex); np.add(z, v) is NumPy's
    # complex128 (was a Python complex; fuzzer seed 59, a dtype-stable program).
    args = (complex(0.1, 1.0), np.float64(2.0))
    eager = explicit_ufunc_of_python_complex_and_float64(*args)
    staged = staging.function(explicit_ufunc_of_python_complex_and_float64)(*args)
    assert (
        [type(v) for v in staged]
        == [type(v) for v in eager]
        == [np.complex128, complex, np.complex128]
    )
    assert staged == eager


def unused_scalar_conversion(x, y):
    v = -x if y > 2 else -300  # a Python float or the Python int -300
    for i in range(3):
        w = x / np.uint8(v)  # unused: eagerly np.uint8(-300) raises all the same
    return v


def test_an_unused_conversion_of_a_python_number_that_raises_is_kept():
    # Was dropped as dead code, so the staged call returned where eager raised (seed 63).
    f = staging.function(unused_scalar_conversion)
    for args in ((0.0, np.float64(1.0)), (5.0, np.float64(3.0))):
        with pytest.raises(OverflowError):
            unused_scalar_conversion(*args)
        with pytest.raises(OverflowError):
            f(*args)
    with np.errstate(divide="ignore"):
        assert f(-5.0, np.float64(3.0)) == unused_scalar_conversion(-5.0, np.float64(3.0)) == 5.0


def abs_of_complex_scalar(z):
    return np.abs(z), abs(z), np.abs(z * 2), abs(z * 2)


@pytest.mark.parametrize("z", [complex(-3.25, 0.1), complex(1e300, 3e299), complex(0.1, -0.3)])
def test_abs_of_a_complex_scalar_is_the_builtins_and_np_abs_the_ufuncs(z):
    # abs() of a np.complex128 is the scalar type's own, which can differ from np.absolute's
    # loop in the last bit (3.251538097577822 vs 3.2515380975778214): both are kept apart (was
    # the builtin's answer for np.abs too; fuzzer seed 71, a dtype-stable program).
    args = (np.complex128(z),)
    eager, staged = abs_of_complex_scalar(*args), staging.function(abs_of_complex_scalar)(*args)
    for e, s in zip(eager, staged):
        assert type(s) is type(e) and s.tobytes() == e.tobytes()


def raises_in_a_branch_then_later(x, y):
    v = 1
    if y > 0:
        w = {"a": 1}["b"]  # KeyError, only when this branch runs
    else:
        v = 3
    return (v <= 2).astype(np.int8)  # AttributeError (a Python bool), only on the other path


@pytest.mark.parametrize("y", [1.0, -1.0])
def test_an_error_traced_after_a_branch_that_raises_is_raised_where_python_raises_it(y):
    # Was the AttributeError while tracing, for every call: on the calls taking the first
    # branch Python raises the KeyError (seed 51).
    args = (np.float64(1.0), np.float64(y))
    with pytest.raises(Exception) as eager:
        raises_in_a_branch_then_later(*args)
    with pytest.raises(type(eager.value)) as staged:
        staging.function(raises_in_a_branch_then_later)(*args)
    assert str(staged.value) == str(eager.value)
    line = "w = {" if y > 0 else "return (v <= 2)"
    assert f"{__file__}:{_line_of(raises_in_a_branch_then_later, line)}: " in _notes(staged.value)


def _line_of(func, text):
    import inspect

    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, line in enumerate(lines) if text in line)
