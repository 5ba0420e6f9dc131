"""Python numbers known only at run time (weak types): every binary operator, every pair of a
Python number with a NumPy scalar or another Python number, gives the eager value, type and
dtype (NEP 50), or the eager exception."""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest

import staging

PYTHON_NUMBERS = [True, 3, 2.5, 1.5 + 0.5j]
NUMPY_SCALARS = [
    np.dtype(t).type(v)
    for t, v in (
        (np.bool_, True),
        (np.int8, 3),
        (np.int16, 3),
        (np.int32, 3),
        (np.int64, 3),
        (np.uint8, 3),
        (np.uint16, 3),
        (np.uint32, 3),
        (np.uint64, 3),
        (np.float16, 2.5),
        (np.float32, 2.5),
        (np.float64, 2.5),
        (np.complex64, 1.5 + 0.5j),
        (np.complex128, 1.5 + 0.5j),
    )
]
BINARY = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<<": operator.lshift,
    ">>": operator.rshift,
    "<": operator.lt,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    ">=": operator.ge,
}


def run(func, *args):
    """('ok', value) or ('error', exception type)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return "ok", func(*args)
        except Exception as exc:  # noqa: BLE001 - the type is what is compared
            return "error", exc


def describe(value):
    if isinstance(value, np.generic):
        return ("numpy", value.dtype)
    return ("python", type(value))


def same_number(a, b) -> bool:
    if isinstance(a, (complex, np.complexfloating)):
        return same_number(a.real, b.real) and same_number(a.imag, b.imag)
    if a != a:
        return b != b
    return a == b


def symbolic(python_number, flag):
    """`python_number`, as a value of the graph known only when it runs (a staged `if` gives
    it; flag > 0 when the graph runs)."""
    other = (
        type(python_number)(not python_number)
        if isinstance(python_number, bool)
        else type(python_number)(0)
    )
    return staging.cond(flag > 0, lambda: python_number, lambda: other)


def check(op, left, right, weak_left: bool, weak_right: bool):
    def staged_fn(flag, *arrays):
        it = iter(arrays)
        a = (
            symbolic(left, flag)
            if weak_left
            else (next(it) if isinstance(left, np.generic) else left)
        )
        b = (
            symbolic(right, flag)
            if weak_right
            else (next(it) if isinstance(right, np.generic) else right)
        )
        return op(a, b)

    inputs = [v for v in (left, right) if isinstance(v, np.generic)]
    expected = run(op, left, right)
    got = run(staging.function(staged_fn, autograph=False), np.int64(1), *inputs)
    context = f"{left!r} {op} {right!r}"
    if expected[0] == "error":
        assert got[0] == "error", (
            f"{context}: eager raises {expected[1]!r}, staged returns {got[1]!r}"
        )
        assert isinstance(got[1], type(expected[1])), (
            f"{context}: {got[1]!r} is not a {type(expected[1])}"
        )
        return
    assert got[0] == "ok", f"{context}: eager gives {expected[1]!r}, staged raises {got[1]!r}"
    assert describe(got[1]) == describe(expected[1]), (
        f"{context}: {got[1]!r} vs eager {expected[1]!r}"
    )
    assert same_number(got[1], expected[1]), f"{context}: {got[1]!r} vs eager {expected[1]!r}"


@pytest.mark.parametrize("symbol", sorted(BINARY))
def test_python_number_with_numpy_scalar(symbol):
    op = BINARY[symbol]
    for p in PYTHON_NUMBERS:
        for s in NUMPY_SCALARS:
            check(op, p, s, weak_left=True, weak_right=False)
            check(op, s, p, weak_left=False, weak_right=True)


@pytest.mark.parametrize("symbol", sorted(BINARY))
def test_python_number_with_python_number(symbol):
    op = BINARY[symbol]
    for a in PYTHON_NUMBERS:
        for b in PYTHON_NUMBERS:
            check(op, a, b, weak_left=True, weak_right=False)  # b a literal
            check(op, a, b, weak_left=True, weak_right=True)


@pytest.mark.parametrize("symbol", sorted(BINARY))
def test_numpy_scalar_pairs(symbol):
    op = BINARY[symbol]
    for a in NUMPY_SCALARS:
        for b in NUMPY_SCALARS[::3]:
            check(op, a, b, weak_left=False, weak_right=False)


def test_unary_operators_on_python_numbers():
    for op in (operator.neg, operator.pos, operator.abs, operator.invert):
        for p in PYTHON_NUMBERS:
            check(lambda a, _b, op=op: op(a), p, 0, weak_left=True, weak_right=False)


def test_out_of_range_python_int_with_small_dtype_raises_as_eagerly():
    check(operator.add, 300, np.int8(1), weak_left=True, weak_right=False)  # OverflowError
    check(operator.add, -1, np.uint8(1), weak_left=True, weak_right=False)


def test_a_counter_that_starts_as_a_python_int_keeps_the_arrays_dtype():
    def acc(values):
        s = 0
        for v in values:
            s = s * 10 + v
        return s

    def scaled(x, n):
        total = 0
        for i in range(n):
            total = total + i * x
        return total

    for dtype in (np.int8, np.int32, np.uint16, np.float32):
        values = np.arange(1, 4, dtype=dtype)
        eager, staged = acc(values), staging.function(acc)(values)
        assert describe(staged) == describe(eager) and staged == eager
        x = dtype(2)
        eager, staged = scaled(x, np.int64(4)), staging.function(scaled)(x, np.int64(4))
        assert describe(staged) == describe(eager) and staged == eager


def test_python_counters_come_back_as_python_numbers():
    def count(n):
        steps = 0
        while n > 1:
            n = n // 2
            steps += 1
        return steps, steps / 2

    f = staging.function(count)
    for n in (np.int64(1), np.int64(37)):
        staged, eager = f(n), count(n)
        assert staged == eager and [type(v) for v in staged] == [type(v) for v in eager] == [
            int,
            float,
        ]
    graph = str(f.get_concrete_function(np.int64(37)).graph)
    assert "int = const 0" in graph  # the graph text shows Python numbers as `int`, `float`, ...


def test_len_and_unknown_dims_are_python_ints():
    def g(x):
        return len(x), x.shape[0] * 2

    f = staging.function(g, input_signature=[staging.TensorSpec([None], np.float32)])
    staged, eager = f(np.ones(5, np.float32)), g(np.ones(5, np.float32))
    assert staged == eager and [type(v) for v in staged] == [int, int]


def test_a_power_of_python_ints_is_an_int_or_a_float_by_its_exponent():
    def g(n):
        e = 0
        for _ in range(n):
            e = e - 1
        return 2**e, e**2

    f = staging.function(g)
    for n in (0, 1, 3):
        staged, eager = f(np.int64(n)), g(np.int64(n))
        assert staged == eager and [type(v) for v in staged] == [type(v) for v in eager]
    assert [type(v) for v in f(np.int64(0))] == [int, int]
    assert [type(v) for v in f(np.int64(2))] == [float, int]


def test_a_power_of_python_ints_keeps_pythons_errors_and_big_ints():
    def g(a, b):
        return int(a) ** int(b)

    f = staging.function(g)
    assert f(np.int64(2), np.int64(70)) == g(np.int64(2), np.int64(70)) == 2**70
    assert f(np.int64(-2), np.int64(-3)) == g(np.int64(-2), np.int64(-3)) == -0.125
    with pytest.raises(ZeroDivisionError):
        f(np.int64(0), np.int64(-1))


def test_joining_python_numbers_follows_python_and_nep50():
    def g(flag, x):
        a = 0  # an int ...
        if flag > 0:
            a = 0.5  # ... or a float
        b = 1  # an int ...
        if flag > 0:
            b = x  # ... or an int8 value
        return a, b

    f = staging.function(g)
    for flag in (np.int64(0), np.int64(1)):
        staged, eager = f(flag, np.int8(7)), g(flag, np.int8(7))
        assert staged == eager and [type(v) for v in staged] == [type(v) for v in eager]
    # on the path where the Python number stays, it comes back as that number (staging.kinds)
    staged = f(np.int64(0), np.int8(7))
    assert type(staged[0]) is int and type(staged[1]) is int
