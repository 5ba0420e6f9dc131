"""Closures read the current value of the variables they close over: names a nested function
or lambda reads are written through the enclosing function's cells by branch and loop bodies,
staged or not."""

import numpy as np
import pytest

import autograph

HERE = __file__


def lambda_reads_loop_variable(n):
    a = 0
    g = lambda: a * 10  # noqa: E731 - the closure under test
    s = 0
    i = 0
    while i < n:
        a += 1
        s += g()
        i += 1
    return s


def function_reads_branch_variable(x):
    scale = 1.0

    def scaled(v):
        return v * scale

    if x > 0:
        scale = 3.0
    else:
        scale = -2.0
    return scaled(x)


def late_binding(values):
    fns = []
    for v in values:
        fns.append(lambda: v)
    return [f() for f in fns]


def late_binding_with_default(values):
    fns = []
    for v in values:
        fns.append(lambda v=v: v)
    return [f() for f in fns]


def closure_in_for_over_tensor(x):
    total = 0.0
    k = 0.0
    add_k = lambda t: t + k  # noqa: E731
    for row in x:
        k = row * 2.0
        total = add_k(total)
    return total, k


def method_of_local_class(n):
    i = 0

    class Reader:
        def __call__(self):
            return i

    read = Reader()
    s = 0
    while i < n:
        s = s * 10 + read()
        i += 1
    return s


def nested_branch_in_loop(n):
    a = 0
    get = lambda: a  # noqa: E731
    s = 0
    for i in range(n):
        if i % 2 == 0:
            a = a + 10
        else:
            a = a - 1
        s = s + get()
    return s, a


@pytest.mark.parametrize(
    "f, inputs",
    [
        (lambda_reads_loop_variable, [0, 3, np.int64(0), np.int64(3)]),
        (function_reads_branch_variable, [2.0, -2.0, np.float64(2.0), np.float64(-2.0)]),
        (closure_in_for_over_tensor, [np.array([1.0, 2.0, 3.0]), np.zeros(0)]),
        (method_of_local_class, [3, np.int64(3), np.int64(0)]),
        (nested_branch_in_loop, [5, np.int64(5), np.int64(0)]),
    ],
)
def test_closures_see_current_values(same_as_eager, f, inputs):
    converted = autograph.convert(f)
    for x in inputs:
        assert np.all(np.asarray(converted(x)) == np.asarray(f(x)))
    same_as_eager(f, *inputs)


def test_lambdas_made_in_a_loop_bind_late_as_in_python(same_as_eager):
    assert late_binding([1, 2, 3]) == [3, 3, 3]
    assert autograph.convert(late_binding)([1, 2, 3]) == [3, 3, 3]
    assert autograph.convert(late_binding_with_default)([1, 2, 3]) == [1, 2, 3]
    same_as_eager(late_binding, ([1, 2, 3],), ([],))
    same_as_eager(late_binding_with_default, ([1, 2, 3],))


def test_converted_form_reaches_cells_through_get_and_set_state():
    code = autograph.to_code(lambda_reads_loop_variable)
    assert "    def loop_body(s, i):\n        nonlocal a\n" in code
    assert "    def get_state():\n        return (a,)\n" in code
    assert "    def set_state(values_):\n        nonlocal a\n        a, = values_\n" in code
    assert (
        "ag__.while_stmt(lambda s, i: i < n, loop_body, (s, i), ('s', 'i'), cells=('a',), "
        "get_state=get_state, set_state=set_state)"
    ) in code
    # Names no closure reads stay parameters.
    assert "nonlocal" not in autograph.to_code(nested_branch_in_loop).split("get_state")[0].replace(
        "nonlocal a", ""
    )
