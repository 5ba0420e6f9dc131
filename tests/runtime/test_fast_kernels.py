"""The interpreter's faster forms compute exactly what the plain NumPy forms compute: ufunc.reduce
for reductions, np.array for stacking a list, inline appends, swapped negated conditions and
Variable updates without casts."""

from __future__ import annotations

import numpy as np
import pytest

import runtime.ops  # noqa: F401  (registers the NumPy ops)
import staging
from runtime.core_ops import _list_stack_kernel, update_variable
from runtime.ops.reductions import REDUCTIONS, _ufunc_reduction
from runtime.options import options

_RNG = np.random.default_rng(0)
_VALUES = [
    np.float64(2.5),
    3,
    2.0,
    True,
    np.array(4.0),
    np.arange(6).reshape(2, 3),
    _RNG.random((3, 4)).astype(np.float32),
    np.array([True, False]),
    np.array([], np.int8),
    np.arange(5, dtype=np.uint8),
    np.array([1 + 2j, 3j]),
    np.array([np.nan, 1.0]),
]
_ATTRS = [
    {},
    {"axis": 0},
    {"axis": None, "keepdims": True},
    {"axis": -1, "keepdims": False},
    {"dtype": np.float64},
    {"axis": (0,), "dtype": np.int32},
]


def _outcome(call):
    try:
        return call(), None
    except Exception as exc:  # the error type is part of the behaviour compared
        return None, type(exc)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "any", "all"])
def test_ufunc_reductions_equal_numpy_functions(name):
    func = REDUCTIONS[name][0]
    compared = 0
    for value in _VALUES:
        for attrs in _ATTRS:
            if "dtype" in attrs and name not in ("sum", "prod"):
                continue
            kernel = _ufunc_reduction(name, attrs)
            assert kernel is not None
            with np.errstate(all="ignore"):
                want, want_error = _outcome(lambda: func(value, **attrs))
                got, got_error = _outcome(lambda: kernel(value))
            assert got_error is want_error, (name, value, attrs)
            if want_error is None:
                assert type(got) is type(want), (name, value, attrs)
                assert np.asarray(got).dtype == np.asarray(want).dtype
                assert np.array_equal(got, want, equal_nan=True)
                compared += 1
    assert compared > 20


@pytest.mark.parametrize(
    "elements, dtype, shape",
    [
        ([np.float64(1.5), 2.0, np.float64(-0.0)], np.float64, ()),
        ([np.int32(1), np.int32(7)], np.int64, ()),
        ([np.float32(0.1), np.float32(3e38)], np.float64, ()),
        ([np.arange(3.0), np.ones(3)], np.float64, (3,)),
        ([np.array([True, False])] * 3, np.bool_, (2,)),
        ([np.complex64(1 + 1j), np.complex64(2)], np.complex128, ()),
    ],
)
def test_list_stack_equals_np_stack(elements, dtype, shape):
    got = _list_stack_kernel(np.dtype(dtype), shape, "stack")(list(elements))
    want = np.stack(elements).astype(dtype, copy=False)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("shape", [(), (2,), (None,)])
def test_list_stack_refuses_unwritten_elements(shape):
    value = np.float64(1.0) if shape == () else np.ones(2)
    with pytest.raises(ValueError, match="never written"):
        _list_stack_kernel(np.dtype(np.float64), shape, "stack")([value, None])
    with pytest.raises(ValueError, match="at least one array"):
        _list_stack_kernel(np.dtype(np.float64), shape, "stack")([])


def euler(y0, dt, n):
    ys = []
    y = y0
    for _ in range(n):
        y = y + dt * (-0.5 * y)
        ys.append(y)
    return np.stack(ys)


def test_staged_append_loop_is_inline_and_equals_eager():
    f = staging.function(euler)
    args = (np.float64(1.0), np.float64(0.01), np.int64(50))
    got, want = f(*args), euler(*args)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    assert ".append(" in f.get_concrete_function(*args).executable_source
    with pytest.raises(ValueError):
        f(np.float64(1.0), np.float64(0.01), np.int64(0))  # np.stack of no arrays, as eager
    with pytest.raises(ValueError):
        euler(np.float64(1.0), np.float64(0.01), np.int64(0))


def written_at(n, k):
    ta = staging.TensorArray(np.float64, size=n)
    for i in range(n):
        ta = ta.write(i, np.float64(i) * k)
    return ta.stack()


def test_writes_at_an_index_still_work():
    f = staging.function(written_at)
    np.testing.assert_array_equal(f(np.int64(4), np.float64(2.0)), [0.0, 2.0, 4.0, 6.0])


def skip_negatives(xs):
    total = 0.0
    for x in xs:
        if not x > 0:
            continue
        total += x
    return total


def test_negated_condition_swaps_branches():
    f = staging.function(skip_negatives)
    xs = np.array([1.5, -2.0, 3.0, 0.0, np.nan])
    assert f(xs) == skip_negatives(xs)
    graph = str(f.get_concrete_function(xs).graph)
    assert "logical_not" not in graph and "cond" in graph


@pytest.mark.parametrize(
    "dtype, start, mode, value",
    [
        (np.float64, 1.0, "set", np.float64(2.5)),
        (np.float64, 1.0, "set", 3),
        (np.int32, 1, "set", np.int64(7)),
        (np.int32, 1, "add", np.int64(7)),
        (np.int32, 1, "add", 2),
        (np.float32, 1.0, "sub", np.float64(0.1)),
        (np.float64, [1.0, 2.0], "add", np.array([0.5, 0.25])),
        (np.int64, [1, 2], "set", np.array([3, 4], np.int8)),
    ],
)
def test_variable_updates_keep_the_variables_dtype(dtype, start, mode, value):
    var = staging.Variable(np.asarray(start, dtype=dtype))
    before = np.asarray(start, dtype=dtype)
    update_variable(var, mode, value)
    if mode == "set":
        want = np.asarray(value).astype(dtype)
    else:
        want = (before + value if mode == "add" else before - value).astype(dtype)
    got = var.numpy()
    assert np.asarray(got).dtype == dtype and np.array_equal(got, want)
    assert type(got) is (np.ndarray if want.ndim else np.dtype(dtype).type)
    if isinstance(value, np.ndarray) and mode == "set":
        value[...] = 0  # the variable holds its own copy
        assert np.array_equal(var.numpy(), want)


def sum_rows(xs):
    total = np.zeros(xs.shape[1:])
    count = 0
    for row in xs:
        total = total + row
        count += 1
    return total, count


def first_big(xs):
    found = -1.0
    for x in xs:
        if x > 2:
            found = x
            break
    return found


def index_loop(xs, n):
    i = 0
    total = 0.0
    while i < n:
        total = total + xs[i]
        i = i + 1
    return total, i


@pytest.mark.parametrize("xs", [np.arange(5.0), np.arange(12.0).reshape(4, 3), np.zeros((0, 2))])
@pytest.mark.parametrize("spec", [None, "unknown length"])
def test_for_over_an_array_is_a_python_for_and_equals_eager(xs, spec):
    f = staging.function(
        sum_rows,
        input_signature=[staging.TensorSpec([None, *xs.shape[1:]], xs.dtype)] if spec else None,
    )
    got, want = f(xs), sum_rows(xs)
    assert type(got[1]) is type(want[1]) and got[1] == want[1]
    assert np.asarray(got[0]).tobytes() == np.asarray(want[0]).tobytes()
    if spec or len(xs):  # (a loop over a static empty array is no loop at all)
        source = f.get_concrete_function(xs).executable_source
        assert "for " in source and "while True" not in source


def test_a_loop_with_break_keeps_its_while():
    f = staging.function(first_big)
    xs = np.array([1.0, 3.0, 5.0])
    assert f(xs) == first_big(xs)
    assert "while True" in f.get_concrete_function(xs).executable_source


@pytest.mark.parametrize("n", [0, 2, 3, -1])
def test_an_index_loop_over_an_array_equals_eager(n):
    f = staging.function(index_loop)
    xs = np.arange(3.0)
    got, want = f(xs, np.int64(n)), index_loop(xs, np.int64(n))
    assert got == want and type(got[1]) is type(want[1])
    assert "for " in f.get_concrete_function(xs, np.int64(n)).executable_source


def test_an_index_loop_past_the_end_raises_as_eager():
    f = staging.function(index_loop)
    xs = np.arange(3.0)
    with pytest.raises(IndexError) as eager:
        index_loop(xs, np.int64(5))
    with pytest.raises(IndexError) as staged:
        f(xs, np.int64(5))
    assert str(staged.value) == str(eager.value)


def power_series(x, n):
    term = np.ones_like(x)
    total = np.ones_like(x)
    for i in range(1, n):
        term = term * x / i
        total = total + term
    return total


@pytest.mark.parametrize("n", [np.int64(12), np.int32(3), np.uint8(2), np.int64(0), np.int64(-4)])
def test_range_bound_compared_as_a_python_int_equals_eager(n):
    f = staging.function(power_series)
    x = np.array([0.0, 0.5, -1.0])
    assert f(x, n).tobytes() == power_series(x, n).tobytes()
    assert "int(" in f.get_concrete_function(x, n).executable_source


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def long_sum(x):
    total = x
    for _ in range(60):  # a Python loop: 60 additions in a row, each read once
        total = total + x
    return total


def test_scalar_operators_read_once_are_written_where_they_are_read():
    f = staging.function(collatz)
    with options(unboxed_scalar_loops=False):  # (on NumPy scalars: the operators as written)
        for n in (np.int64(27), np.int64(1), np.int32(97)):
            got, want = f(n), collatz(n)
            assert got == want and type(got) is type(want)
    source = f.get_concrete_function(np.int64(27)).executable_source
    assert " % 2) == 0)" in source and "= (3 * " not in source  # no variable per operator
    g = staging.function(long_sum)
    assert g(np.float64(0.5)) == long_sum(np.float64(0.5))
    depth = max(
        line.count("(")
        for line in g.get_concrete_function(np.float64(0.5)).executable_source.splitlines()
    )
    assert depth <= 12  # nesting is bounded: Python refuses very deep expressions


def int_quotient(a, b):
    return int(a) // int(b) + 1


def test_python_ints_floor_divided_keep_their_own_line():
    # 1 // 0 raises on Python ints: such an op keeps its own line, so the failure names it
    staged = staging.function(int_quotient)
    assert staged(np.int64(7), np.int64(2)) == int_quotient(np.int64(7), np.int64(2))
    with pytest.raises(ZeroDivisionError):
        int_quotient(np.int64(1), np.int64(0))
    with pytest.raises(ZeroDivisionError) as info:
        staged(np.int64(1), np.int64(0))
    assert "floor_divide" in "\n".join(info.value.__notes__)


def shift_pair(n):
    a, b = np.int64(1), np.int64(0)
    i = 0
    while i < n:
        if a > b:
            c = a * 2
        else:
            c = a + 3
        b = a  # the old `a`, read after the `if` that makes the new one
        a = c
        i += 1
    return a, b


def test_branch_results_write_the_loop_variable_unless_its_old_value_is_read_later():
    f = staging.function(collatz)
    source = f.get_concrete_function(np.int64(27)).executable_source
    loop_var = source.split("while True:")[0].split("\n")[-2].split(",")[0].split("=")[0].strip()
    assert f"{loop_var} = ({loop_var} // 2)" in source  # no copy of the branch result
    g = staging.function(shift_pair)
    for n in (np.int64(0), np.int64(1), np.int64(5)):
        got, want = g(n), shift_pair(n)
        assert got == want and [type(v) for v in got] == [type(v) for v in want]


def counted(x, n, start):
    total = x
    last = -1
    for i in range(start, n):
        total = total * 0.5 + i
        last = i
    return total, last


def explicit_counter(n):
    def body(i, acc):
        return i + 1, acc + i * 2

    return staging.while_loop(lambda i, acc: i < n, body, (0, 0))


@pytest.mark.parametrize(
    "n, start",
    [
        (np.int64(5), 0),
        (np.int64(0), 0),
        (np.int64(-3), 0),
        (np.int64(7), 3),
        (np.int64(2), 5),
        (np.int32(4), -2),
    ],
)
def test_a_counted_loop_runs_as_a_python_range_for_with_eager_results(n, start):
    f = staging.function(counted)
    x = np.array([1.0, 2.0])
    got, want = f(x, n, start), counted(x, n, start)
    assert (
        got[0].tobytes() == want[0].tobytes()
        and got[1] == want[1]
        and type(got[1]) is type(want[1])
    )
    assert "in range(" in f.get_concrete_function(x, n, start).executable_source
    # the counter's value after the loop (n when the loop ran, else where it started)
    g = staging.function(explicit_counter, autograph=False)
    assert g(n) == explicit_counter(int(n)) and type(g(n)[0]) is int
    assert "in range(" in g.get_concrete_function(n).executable_source
