"""Names first assigned inside branches and loops: defined where Python defines them, carried
out of staged loops that create them, and reported at the line that reads them otherwise."""

import numpy as np
import pytest

import autograph
from staging import errors

HERE = __file__


def assigned_in_both_branches_inside_loop(n):
    i = 0
    s = 0
    while i < n:
        if i > 0:
            y = i
        else:
            y = -i
        s += y
        i += 1
    return s


def assigned_in_both_branches_for(values):
    s = 0.0
    for v in values:
        if v > 0:
            y = v
        else:
            y = -v
        s = s + y
    return s


def defined_before_loop_but_local_to_body(n):
    y = 100
    s = 0
    for i in range(n):
        if i > 1:
            if i > 2:
                y = i
            else:
                y = 2 * i
            s = s + y
    return s


@pytest.mark.parametrize(
    "f, inputs",
    [
        (assigned_in_both_branches_inside_loop, [0, 3, np.int64(0), np.int64(3)]),
        (assigned_in_both_branches_for, [[1.0, -2.0], np.array([1.0, -2.0]), np.zeros(0)]),
        (defined_before_loop_but_local_to_body, [4, np.int64(4), np.int64(1)]),
    ],
)
def test_branch_assignments_inside_loops(same_as_eager, f, inputs):
    same_as_eager(f, *inputs)


def while_creates_var(n):
    i = 0
    while i < n:
        i = n + 1
        j = i + 1
    return i, j


def for_creates_var(values):
    for v in values:
        pass
    return v


def while_creates_structure(n):
    i = 0
    while i < n:
        v = {"a": np.zeros((1, 2)) + i, "b": (i, i * 2.0)}
        i += 1
    return v["a"], v["b"]


@pytest.mark.parametrize(
    "f, inputs",
    [
        (while_creates_var, [np.int64(1), np.int64(5)]),
        (for_creates_var, [np.array([1.0, 2.0]), np.array([3.0])]),
        (while_creates_structure, [np.int64(1), np.int64(3)]),
    ],
)
def test_staged_loop_creates_a_variable(same_as_eager, f, inputs):
    same_as_eager(f, *inputs)


@pytest.mark.parametrize(
    "f, arg, line, name",
    [
        (while_creates_var, np.int64(0), 2, "'j'"),
        (for_creates_var, np.zeros(0), 1, "'v'"),
    ],
)
def test_staged_loop_that_ran_zero_times_raises_unbound_local_error(f, arg, line, name):
    staging = pytest.importorskip("staging")
    if f is for_creates_var:
        # A symbolic length (a static length of 0 skips the loop while tracing).
        staged = staging.function(f, input_signature=[staging.TensorSpec([None], np.float64)])
    else:
        staged = staging.function(f)
    with pytest.raises(UnboundLocalError):
        f(arg)
    with pytest.raises(errors.UndefinedNameError) as e:
        staged(arg)
    assert isinstance(e.value, UnboundLocalError)
    message = str(e.value)
    assert message.startswith(f"{HERE}:{f.__code__.co_firstlineno + line}: ")
    assert f"{name} is assigned only inside this staged" in message and "ran zero times" in message


def test_loop_creating_a_python_object_is_refused():
    staging = pytest.importorskip("staging")

    def creates_object(n):
        i = 0
        while i < n:
            label = object()
            i += 1
        return label

    with pytest.raises(errors.UndefinedNameError) as e:
        staging.function(creates_object)(np.int64(2))
    assert f"{HERE}:{creates_object.__code__.co_firstlineno + 2}: 'label' is first assigned" in str(
        e.value
    )


def test_loop_creating_a_string_gives_it_where_the_loop_ran():
    staging = pytest.importorskip("staging")

    def creates_string(n):
        i = 0
        while i < n:
            label = "x"
            i += 1
        return label

    f = staging.function(creates_string)
    assert f(np.int64(2)) == creates_string(2) == "x"
    with pytest.raises(UnboundLocalError):
        f(np.int64(0))


def returns_possibly_unassigned(c):
    if c:
        y = 1
    return y


def returns_tuple_with_unassigned(n):
    i = 0
    while i < n:
        j = i
        i += 1
    return i, j


def returns_it_later(n):
    i = 0
    while i < n:
        j = i
        i += 1
    t = (i, j)
    return t


@pytest.mark.parametrize(
    "f, arg, line",
    [
        (returns_possibly_unassigned, False, 3),
        (returns_tuple_with_unassigned, 0, 5),
    ],
)
def test_unassigned_name_read_reports_the_reading_line(f, arg, line):
    with pytest.raises(UnboundLocalError):
        f(arg)
    with pytest.raises(errors.UndefinedNameError) as e:
        autograph.convert(f)(arg)
    assert str(e.value).startswith(f"{HERE}:{f.__code__.co_firstlineno + line}: ")
    assert "ag__.ld(" in autograph.to_code(f)


def test_unassigned_name_inside_a_returned_tuple_raises(same_as_eager):
    with pytest.raises(errors.UndefinedNameError):
        autograph.convert(returns_it_later)(0)
    same_as_eager(returns_it_later, 0, 2)


def return_dependent_on_local(c):
    t = np.int64(1)
    if c:
        return t
    t = np.stack([t, t])
    return np.sum(t)


def test_name_dead_after_a_staged_if_is_not_merged(same_as_eager):
    # `t` is a scalar in one branch and a vector in the other, and not read after the `if`.
    same_as_eager(return_dependent_on_local, np.bool_(True), np.bool_(False))
    code = autograph.to_code(return_dependent_on_local)
    assert "ag__.if_stmt(c, if_true, if_false, (retval_, t), ('retval_',))" in code


class _Box:
    pass


def read_but_unused(x, c):
    if c:
        v = x
    w = v  # eagerly UnboundLocalError here when c is False, though w is unused
    return x


def attribute_read_but_unused(x, c):
    o = _Box()
    if c:
        o.b = x
    o.b = o.b  # eagerly AttributeError here when c is False
    return x


@pytest.mark.parametrize(
    "f, error, staged_error, line",
    [
        (read_but_unused, UnboundLocalError, errors.UndefinedNameError, 3),
        (attribute_read_but_unused, AttributeError, errors.MissingAttributeError, 4),
    ],
)
def test_a_read_of_a_name_or_attribute_set_on_some_paths_raises_even_when_unused(
    f, error, staged_error, line
):
    staging = pytest.importorskip("staging")
    g = staging.function(f)
    assert g(np.float64(2.0), np.bool_(True)) == f(np.float64(2.0), np.bool_(True))
    with pytest.raises(error):
        f(np.float64(2.0), np.bool_(False))
    with pytest.raises(staged_error) as info:
        g(np.float64(2.0), np.bool_(False))
    assert isinstance(info.value, error)
    assert str(info.value).startswith(f"{HERE}:{f.__code__.co_firstlineno + line}: ")
    assert "ag__.ld(" in autograph.to_code(f)
