"""Names assigned on only some paths of a staged `if` (or first assigned inside a staged loop):
staged code answers whenever the path that assigns the name ran, and raises UnboundLocalError
(an UndefinedNameError) naming the name and the user's file:line where Python raises."""

import numpy as np
import pytest

import staging
from staging import errors

HERE = __file__


def if_creates(c):
    if c > 0:
        v = c * 2.0
    return v


def else_creates(c):
    if c > 0:
        pass
    else:
        v = np.float32(2.5)
    return v


def nested_creates(a, b):
    if a > 0:
        if b > 0:
            v = np.int32(1)
        else:
            v = np.int32(2)
    else:
        if b > 0:
            v = np.int32(3)
    return v * 2


def read_only_where_assigned(c):
    if c > 0:
        x = np.arange(3.0) * c
    if c > 0:
        return x.sum()
    return np.float64(-1)


def for_initializes_in_first_iteration(xs):
    s = 0
    for i in xs:
        if i == xs[0]:
            x = 0
        else:
            x += 1
        s = s * 10 + x
    return s


def while_initializes_in_first_iteration(n):
    s = 0
    while n > 0:
        if n > 0:
            y = 0
        else:
            y += 1
        s = s * 10 + y
        n -= 1
    return s


def range_initializes_variant(n):
    for i in range(n):
        if i == 0:
            a = 1
        else:
            a = a + 1
    return a


def range_reads_before_assigning(n):
    for i in range(n):
        if i == 1:
            a = 1
        else:
            a = a + 1  # unbound on the first iteration: Python raises here
    return a


def one_branch_string(c):
    if c > 0:
        d = "text"
    return d


def one_branch_list(c):
    if c > 0:
        d = [c, c + 1]
    return d


def maybe_into_loop(c, n):
    if c > 0:
        x = 1
    for i in range(n):
        x = x + i
    return x


def assigned_in_some_iterations(n):
    for i in range(n):
        if i > 2:
            x = i
    return x


def _outcome(f, *args):
    try:
        return "value", f(*args)
    except UnboundLocalError as e:
        return "unbound", e


def _check_same(f, *args):
    staged = staging.function(f)
    kind, eager = _outcome(f, *args)
    staged_kind, result = _outcome(staged, *args)
    assert staged_kind == kind, (eager, result)
    if kind == "value":
        assert type(result) is type(np.asarray(eager)[()]) or type(result) is type(eager)
        assert np.asarray(result).dtype == np.asarray(eager).dtype or isinstance(eager, int)
        np.testing.assert_array_equal(result, eager)
    else:
        assert isinstance(result, errors.UndefinedNameError)
        name = str(eager).split("'")[1]
        assert f"cannot access local variable '{name}'" in str(result)
        assert str(result).startswith(f"{HERE}:")
    return result


@pytest.mark.parametrize(
    "f, argss",
    [
        (if_creates, [(np.float64(3.0),), (np.float64(-1.0),)]),
        (else_creates, [(np.int64(1),), (np.int64(-1),)]),
        (nested_creates, [(np.int64(a), np.int64(b)) for a in (-1, 1) for b in (-1, 1)]),
        (read_only_where_assigned, [(np.float64(2.0),), (np.float64(-2.0),)]),
        (
            for_initializes_in_first_iteration,
            [(np.array([1]),), (np.array([1, 2]),), (np.array([1, 2, 3]),)],
        ),
        (while_initializes_in_first_iteration, [(np.int64(1),), (np.int64(3),)]),
        (range_initializes_variant, [(np.int64(1),), (np.int64(4),)]),
        (range_reads_before_assigning, [(np.int64(1),), (np.int64(3),)]),
    ],
)
def test_staged_matches_eager(f, argss):
    for args in argss:
        _check_same(f, *args)


def test_list_and_data_dependent_shape():
    staged = staging.function(one_branch_list)
    assert staged(np.int64(2)) == [2, 3]
    with pytest.raises(UnboundLocalError):
        staged(np.int64(-2))
    staged = staging.function(if_creates_range)
    np.testing.assert_array_equal(staged(np.int64(3)), np.arange(3))
    with pytest.raises(UnboundLocalError):
        staged(np.int64(-2))


def if_creates_range(n):
    if n > 0:
        r = np.arange(n)  # a length known only at run time
    return r


def test_unbound_read_names_the_reading_line():
    staged = staging.function(if_creates)
    assert staged(np.float64(1.5)) == 3.0
    with pytest.raises(errors.UndefinedNameError) as e:
        staged(np.float64(-1.5))
    assert isinstance(e.value, UnboundLocalError)
    assert str(e.value).startswith(f"{HERE}:{if_creates.__code__.co_firstlineno + 3}: ")
    assert "cannot access local variable 'v' where it is not associated with a value" in str(
        e.value
    )


def test_read_in_loop_body_before_assignment_names_its_line():
    staged = staging.function(range_reads_before_assigning)
    with pytest.raises(errors.UndefinedNameError) as e:
        staged(np.int64(2))
    assert str(e.value).startswith(
        f"{HERE}:{range_reads_before_assigning.__code__.co_firstlineno + 5}: "
    )
    assert "'a'" in str(e.value)


def test_one_trace_serves_both_paths():
    staged = staging.function(else_creates)
    assert staged(np.int64(-3)) == np.float32(2.5)
    with pytest.raises(UnboundLocalError):
        staged(np.int64(3))
    assert staged.tracing_count == 1


def test_ordinary_function_graph_has_no_flag():
    def both(c):
        if c > 0:
            v = 1.0
        else:
            v = 2.0
        return v

    text = str(staging.function(both).get_concrete_function(np.float64(1.0)).graph)
    cond_line = next(line for line in text.splitlines() if "= cond" in line)
    assert "assert" not in text and "," not in cond_line.split("=")[0]


def test_loop_that_ran_zero_times():
    staged = staging.function(range_initializes_variant)
    with pytest.raises(UnboundLocalError):
        range_initializes_variant(0)
    with pytest.raises(errors.UndefinedNameError) as e:
        staged(np.int64(0))
    assert "'a'" in str(e.value) and str(e.value).startswith(f"{HERE}:")


@pytest.mark.parametrize(
    "f, args, line, message",
    [
        (
            maybe_into_loop,
            (np.int64(1), np.int64(2)),
            3,
            "'x' is assigned on only some paths before",
        ),
        (
            assigned_in_some_iterations,
            (np.int64(5),),
            1,
            "'x' may be left unassigned by an iteration",
        ),
    ],
)
def test_remaining_refusals_name_file_line_and_name(f, args, line, message):
    with pytest.raises(errors.UndefinedNameError) as e:
        staging.function(f)(*args)
    assert isinstance(e.value, UnboundLocalError)
    assert str(e.value).startswith(f"{HERE}:{f.__code__.co_firstlineno + line}: ")
    assert message in str(e.value)


def numpy_calls_on_maybe_assigned(x, n):
    if x > 0:
        v = np.float64(x) * 2
    elif n < 0.5:
        return np.float64(-1.0), np.float64(-1.0)
    w = np.multiply(v, 3)  # a ufunc call: v is unassigned where x <= 0 and n >= 0.5
    return w, np.stack([v, w]).sum()  # a NumPy function with v inside a list


@pytest.mark.parametrize("args", [(np.float64(2.0), 1.0), (np.float64(-2.0), 0.0)])
def test_numpy_functions_read_a_name_assigned_on_some_paths(args):
    # Was a TypeError ("operand 'MaybeUndefined' does not support ufuncs") on the path that
    # assigns v, where Python answers.
    assert staging.function(numpy_calls_on_maybe_assigned)(*args) == numpy_calls_on_maybe_assigned(
        *args
    )


def test_a_numpy_call_on_an_unassigned_name_raises_unbound_local_error_at_its_line():
    with pytest.raises(UnboundLocalError):
        numpy_calls_on_maybe_assigned(np.float64(-2.0), 1.0)
    with pytest.raises(errors.UndefinedNameError) as info:
        staging.function(numpy_calls_on_maybe_assigned)(np.float64(-2.0), 1.0)
    line = numpy_calls_on_maybe_assigned.__code__.co_firstlineno + 5
    assert str(info.value).startswith(f"{HERE}:{line}: cannot access local variable 'v'")


@pytest.mark.parametrize("c", [1, -1])
def test_an_object_assigned_in_one_branch_is_itself_where_assigned(c):
    # A string (or any object that is not tensors and numbers) assigned in only one branch was
    # refused while tracing; it is the same object on every call that assigns it, and the
    # name's run-time flag raises UnboundLocalError where Python does.
    staged = staging.function(one_branch_string)
    if c > 0:
        assert staged(np.int64(c)) == one_branch_string(np.int64(c)) == "text"
        return
    with pytest.raises(UnboundLocalError):
        one_branch_string(np.int64(c))
    with pytest.raises(errors.UndefinedNameError) as info:
        staged(np.int64(c))
    assert str(info.value).startswith(f"{HERE}:{one_branch_string.__code__.co_firstlineno + 3}: ")


class Box:
    pass


def object_made_in_a_while_else(x):
    k = 0
    while k < 3:
        k += 1
        if x > k:
            return k * 10
    else:  # runs when the loop did not return: a staged `if` on the return flag
        o = Box()
        o.a = 5
    return o.a + k


@pytest.mark.parametrize("x", [0.5, 2.5, 7.0])
def test_an_object_made_on_the_paths_that_do_not_return_is_used_after(x):
    # Was refused: "'o' is assigned in only one branch ... not a tensor or number" (seed 47).
    args = (np.float64(x),)
    assert staging.function(object_made_in_a_while_else)(*args) == object_made_in_a_while_else(
        *args
    )


def _length(a):
    return len(a)


def passed_to_a_helper(x, n):
    if n >= 1:
        v = x
    else:
        for e in x:
            if e > 100:
                return -1
        return -2  # this path returns: v is assigned wherever it is read
    return _length(v)  # the argument is read here, with its run-time check


@pytest.mark.parametrize("n", [2, 0])
def test_a_name_assigned_on_some_paths_passed_to_a_function_is_read_at_the_call(n):
    # Was refused inside the helper (len() of the unchecked value; seed 65).
    args = (np.array([1.0, 2.0, 3.0]), np.int64(n))
    assert staging.function(passed_to_a_helper)(*args) == passed_to_a_helper(*args)


def object_written_after_a_loop_that_may_return(x):
    k = 0
    while k < 3:
        k += 1
        if x > k:
            return k * 10.0
    else:
        o = Box()
        o.a = 5
    o.b = x * 2  # an attribute write: `o` is read here, with its run-time check
    d = {"k": o}
    d["k"].c = 1
    return o.a + o.b + o.c


@pytest.mark.parametrize("x", [0.5, 2.5, 7.0])
def test_an_attribute_written_on_an_object_assigned_on_some_paths(x):
    # Was an AttributeError on the MaybeUndefined standing for `o` (seed 31).
    args = (np.float64(x),)
    assert staging.function(object_written_after_a_loop_that_may_return)(
        *args
    ) == object_written_after_a_loop_that_may_return(*args)
