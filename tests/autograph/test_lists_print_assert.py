"""list.append in loops, print during tracing vs staged print, assert staged."""

import numpy as np
import pytest
from conftest import i64

import autograph


def collect(n):
    out = []
    for i in range(n):
        out.append(i * 2)
    return out


def collect_stack(t):
    out = []
    for x in t:
        out.append(x + 1.0)
    return np.stack(out)


def pop_last(n):
    items = [1, 2, 3]
    for i in range(n):
        last = items.pop()
    return items


def test_native_lists(check_native):
    check_native(collect, 0, 3)
    check_native(collect_stack, np.array([1.0, 2.0]))
    check_native(pop_last, 1, 2)


def test_staged_list_append_returns_list(check_staged):
    staging = pytest.importorskip("staging")
    f = staging.function(collect)
    assert [int(v) for v in f(i64(4))] == collect(4)


def test_staged_list_stack(check_staged):
    check_staged(collect_stack, np.array([1.0, 2.0, 5.0]))


def myadd(a, b):
    for i in range(3):
        print(i)
    c = a + b
    print("tracing")
    return c


def test_python_print_runs_on_every_call(capsys):
    """Unlike TensorFlow, where a Python print runs only while tracing: a print in converted code
    is staged, its text fixed where it is Python values only."""
    staging = pytest.importorskip("staging")
    f = staging.function(myadd)
    f(i64(1), i64(2))
    first = capsys.readouterr().out
    f(i64(3), i64(4))
    second = capsys.readouterr().out
    myadd(i64(3), i64(4))
    assert first == second == capsys.readouterr().out == "0\n1\n2\ntracing\n"


def show(x):
    print("x is", x)
    return x


def test_staged_print_matches_eager(capsys):
    staging = pytest.importorskip("staging")
    f = staging.function(show)
    f(np.array([1.5, 2.0]))
    capsys.readouterr()
    f(np.array([1.5, 2.0]))
    staged = capsys.readouterr().out
    show(np.array([1.5, 2.0]))
    assert staged == capsys.readouterr().out


def checked(x):
    assert x > 0, "x must be positive"
    return x


def test_assert_native():
    assert autograph.convert(checked)(2) == 2
    with pytest.raises(AssertionError, match="positive"):
        autograph.convert(checked)(-1)


def test_assert_staged():
    staging = pytest.importorskip("staging")
    f = staging.function(checked)
    assert f(i64(3)) == 3
    with pytest.raises(AssertionError, match="positive"):
        f(i64(-3))


def test_calls_are_converted_recursively(check_native, check_staged):
    def helper(v):
        if v > 0:
            return v
        return -v

    def f(x):
        g = lambda y: helper(y) * 2  # noqa: E731
        return g(x)

    check_native(f, 3, -3)
    check_staged(f, i64(3), i64(-3))


def test_methods(check_native):
    class A:
        def __init__(self, k):
            self.k = k

        def f(self, x):
            while x < self.k:
                x += 1
            return x

    a = A(5)
    assert autograph.convert(a.f)(1) == a.f(1) == 5


def test_explicit_tensor_array_carried_through_staged_for():
    import staging

    def f(n):
        ta = staging.TensorArray(np.float64, size=0, dynamic_size=True)
        for i in range(n):
            ta = ta.write(i, i * 0.5)
        return ta.stack()

    g = staging.function(f)
    for n in (0, 1, 5):
        np.testing.assert_array_equal(g(np.int64(n)), f(np.int64(n)))
    assert g.tracing_count == 1
