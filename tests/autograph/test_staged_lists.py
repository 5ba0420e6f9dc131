"""Lists appended to or popped from inside converted if/while/for bodies are branch and loop
state: a staged branch or loop appends and pops when the graph runs, as Python would."""

import numpy as np
import pytest
from conftest import f64, i64

import autograph


def append_in_branch(x):
    values = []
    if x > 1.0:
        values.append(x)
    return len(values)


def append_in_both_branches(x):
    values = [x]
    if x > 1.0:
        values.append(x * 2.0)
    else:
        values.append(-x)
        values.append(x)
    return len(values), values[-1]


def pop_in_expression(n):
    items = [1, 2, 3, 4]
    s = 0
    i = 0
    while i < n:
        s = s + items.pop()
        i += 1
    return s, len(items)


def pop_after_read_of_the_list(n):
    items = [1.0, 2.0, 3.0, 4.0]
    t = 0.0
    for _ in range(n):
        t = t + items[-1] * 10 + items.pop()
    return t, len(items)


def pop_as_argument(n):
    source = [1.0, 2.0, 3.0]
    target = [0.0]
    for _ in range(n):
        target.append(source.pop() * 2.0)
    return target, len(source)


def pop_in_branch(x):
    stack = [1.0, 2.0]
    top = 0.0
    if x > 0:
        top = stack.pop()
    return top, len(stack)


def concatenate_in_loop(n):
    s = [0.0]
    for i in range(n):
        s = s + [i * 1.0]
    return s


def prepend_in_loop(n):
    s = [0.0]
    for i in range(n):
        s = [i * 1.0] + s
    return s


@pytest.mark.parametrize(
    "f, inputs",
    [
        (append_in_branch, [f64(0.5), f64(1.5)]),
        (append_in_both_branches, [f64(0.5), f64(1.5)]),
        (pop_in_expression, [i64(0), i64(2), i64(4)]),
        (pop_after_read_of_the_list, [i64(1), i64(3)]),
        (pop_as_argument, [i64(2)]),
        (pop_in_branch, [f64(1.0), f64(-1.0)]),
        (concatenate_in_loop, [i64(0), i64(3)]),
        (prepend_in_loop, [i64(3)]),
    ],
)
def test_lists_changed_in_staged_control_flow(same_as_eager, f, inputs):
    same_as_eager(f, *inputs)


def test_concrete_control_flow_changes_the_python_list(same_as_eager):
    same_as_eager(append_in_branch, 0.5, 1.5)
    assert autograph.convert(pop_after_read_of_the_list)(2) == pop_after_read_of_the_list(2)


def test_pops_are_hoisted_in_python_order():
    code = autograph.to_code(pop_after_read_of_the_list)
    assert (
        "        tmp = t + items[-1] * 10\n"
        "        items, popped = ag__.list_pop(items)\n"
        "        t = tmp + popped\n"
    ) in code
    code = autograph.to_code(pop_as_argument)
    assert (
        "        source, popped = ag__.list_pop(source)\n"
        "        target = ag__.list_append(target, popped * 2.0)\n"
    ) in code


def conditional_pop(items, flag):
    out = 0
    for _ in range(1):
        out = flag and items.pop()
    return out


def test_a_pop_that_may_not_run_is_not_hoisted():
    code = autograph.to_code(conditional_pop)
    assert "ag__.list_pop" not in code
    assert conditional_pop([1, 2], False) == autograph.convert(conditional_pop)([1, 2], False)
    assert conditional_pop([1, 2], True) == autograph.convert(conditional_pop)([1, 2], True)


def _int_after_bools(x, n):
    values = []
    k = 0
    while k < n:
        k += 1
        values.append(x > 0)
    values.append(~len(values))  # a Python int: the list holds it as it is
    return values


def _complex_into_float_list(x, y):
    values = [x * 2.0]
    if x > 0:
        values.append(np.cos(-y))  # a complex128 made while tracing
    return values


def _float32_into_float64_list(x):
    values = [x * 2.0]
    if x > 0:
        values.append(np.float32(0.1))  # the list holds the float32 as it is
    return values


def _negative_int_into_uint8_list(n):
    values = [np.uint8(0)]
    k = 0
    while k < n:
        k += 1
        values.append(~len(values) // len(values))
    return values


def _int_into_float32_list_in_branch(x, c):
    values = [x.astype(np.float32)]
    if c > 0:
        values.append(len(values))
    return np.multiply(values[-1], np.uint16(3))  # uint16 for the Python int, float32 otherwise


def _int_into_float32_list_in_loop(x, c):
    values = [x.astype(np.float32)]
    k = 0
    while k < c:
        k += 1
        values.append(3)
    return np.multiply(values[-1], np.uint16(3))


def _int_into_int64_list_in_loop(x, c):
    values = [x * 2]
    k = 0
    while k < c:
        k += 1
        values.append(k + 1)  # a Python int: the same result type as the int64 below
    return values[-1] + np.int64(1), values[0] * 2.0


@pytest.mark.parametrize(
    "f, cases",
    [
        (_int_after_bools, [(np.float64(1.0), np.int64(1)), (np.float64(-1.0), np.int64(0))]),
        (_complex_into_float_list, [(np.float64(3.0), 3.0 + 0.5j), (np.float64(-3.0), 0.5j)]),
        (_float32_into_float64_list, [(np.float64(3.0),), (np.float64(-3.0),)]),
        (_negative_int_into_uint8_list, [(np.int64(0),), (np.int64(1),), (np.int64(3),)]),
        (_int_into_float32_list_in_branch, [(np.array(5, np.uint16), np.int64(c)) for c in (0, 1)]),
        (
            _int_into_float32_list_in_loop,
            [(np.array(5, np.uint16), np.int64(c)) for c in (0, 1, 2)],
        ),
        (_int_into_int64_list_in_loop, [(np.int64(4), np.int64(c)) for c in (0, 3)]),
    ],
)
def test_a_staged_list_holds_its_elements_as_they_are(f, cases):
    """A Python list holds values of any kinds as they are; so does a staged one: elements of
    several kinds by path make its element type a union (staging.kinds), read back exactly."""
    staging = pytest.importorskip("staging")
    g = staging.function(f)
    for args in cases:
        assert repr(g(*args)) == repr(f(*args))


def extend_after_loop(x, k):
    out = []
    i = 0
    while i < k:
        out.append(x[i])
        i += 1
    out.extend(x[i:])  # the rows of an array of run-time length
    out.extend([7.0, 8.0])
    out.extend(v * 2.0 for v in (1.0, 2.0))  # any iterable, as Python iterates it
    return np.array(out)


@pytest.mark.parametrize("k", [i64(0), i64(2), i64(4)])
@pytest.mark.parametrize("x", [np.arange(4.0), np.array([np.nan, -0.0, 1.0, 2.0])], ids=repr)
def test_extend_of_a_list_built_by_a_staged_loop(same_as_eager, x, k):
    same_as_eager(extend_after_loop, (x, k))


def test_a_list_method_a_staged_list_lacks_is_refused_naming_the_line():
    staging = pytest.importorskip("staging")

    def sort_after_loop(x):
        out = []
        for v in x:
            out.append(v)
        out.sort()
        return out

    with pytest.raises(
        staging.errors.UnsupportedOpError, match=r"test_staged_lists\.py:\d+: list\.sort\(\)"
    ):
        staging.function(sort_after_loop)(np.arange(3.0))


def test_pop_of_another_index_of_a_staged_list_is_refused_naming_the_line():
    staging = pytest.importorskip("staging")

    def pop_first(x):
        out = []
        for v in x:
            out.append(v)
        return out.pop(0)

    with pytest.raises(
        staging.errors.UnsupportedOpError, match=r"test_staged_lists\.py:\d+: list\.pop\(0\)"
    ):
        staging.function(pop_first)(np.arange(3.0))


def balanced(codes):
    stack = []
    for c in codes:
        if c == 40:
            stack.append(c)
        elif c == 41:
            if not stack:
                return False
            stack.pop()
    return len(stack) == 0


def drain(x):
    stack = []
    for v in x:
        if v > 0:
            stack.append(v)
    total = 0.0
    while stack:
        total += stack.pop()
    return total


def drain_until_negative_total(x):
    stack = []
    for v in x:
        stack.append(v)
    total = 0.0
    done = False
    while not done and stack:
        total += stack.pop()
        if total < 0:
            done = True
    return total, bool(stack)


@pytest.mark.parametrize(
    "f, inputs",
    [
        (
            balanced,
            [np.array([40, 41]), np.array([41]), np.array([40, 40, 41]), np.zeros(0, np.int64)],
        ),
        (drain, [np.array([1.0, -2.0, 3.0]), np.zeros(0), np.array([-1.0])]),
        (drain_until_negative_total, [np.array([1.0, -5.0, 2.0]), np.zeros(0), np.array([2.0])]),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_the_truth_of_a_staged_list_is_whether_it_holds_anything(same_as_eager, f, inputs):
    """`not stack`, `while stack:`, `done or stack`: it asked len() of the list while tracing
    (refused), and `x and stack` failed joining the list with a bool (a bare AttributeError)."""
    same_as_eager(f, *inputs)


def pop_in_while_test(n, y):
    items = []
    for _ in range(n):
        items.append(y)
    k = 0
    while k < 2 and items.pop():
        k += 1
    return k


def test_a_pop_in_the_condition_of_a_staged_while_is_refused_naming_the_line():
    """(fuzzer seed 13: the condition's changed list leaked into the loop, a malformed graph that
    failed with an internal KeyError when lowered.)"""
    staging = pytest.importorskip("staging")
    with pytest.raises(
        staging.errors.UnsupportedOpError, match=r"test_staged_lists\.py:\d+: list\.pop\(\) of a"
    ):
        staging.function(pop_in_while_test)(np.int64(3), np.float64(1.0))
