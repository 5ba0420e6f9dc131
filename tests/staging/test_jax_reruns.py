"""jit_compile=True on values where eager NumPy raises, or gives another result, and XLA computes
on silently (runtime/jax_lowering/suspects.py): the call runs again on the interpreter, so the
exception, the warnings and the result are eager's; under an error state that raises, a graph
computing floats runs on the interpreter. A call that has already printed cannot run again and
raises RerunRefused naming the line. Other values stay on the compiled path; NumPy's float
warnings under its default error state are not given (a documented difference)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import staging

pytest.importorskip("jax")

from runtime.jax_lowering.errors import LoweringError  # noqa: E402
from runtime.jax_lowering.suspects import RerunRefused  # noqa: E402
from staging.functions.retracing import RetracingWarning  # noqa: E402


def _outcome(func, args):
    """(result or exception, the messages of the warnings raised), for comparison."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", RetracingWarning)  # (a function staged per case)
        try:
            result = func(*args)
        except Exception as exc:  # noqa: BLE001 - compared with the staged outcome
            result = exc
    return result, [str(w.message) for w in caught]


def _assert_same(staged, eager):
    (a, a_warnings), (b, b_warnings) = staged, eager
    assert a_warnings == b_warnings
    if isinstance(b, Exception):
        assert type(a) is type(b) and str(a) == str(b), (a, b)
        return
    assert type(a) is type(b), (a, b)
    np.testing.assert_array_equal(a, b)
    assert np.asarray(a).dtype == np.asarray(b).dtype


def _compiled(func):
    return staging.function(func, jit_compile=True)


def _check(func, *args):
    staged = _compiled(func)
    for _ in range(2):  # traced and compiled, then from the cache
        _assert_same(_outcome(staged, args), _outcome(func, args))
    return staged


def inv(a):
    return np.linalg.inv(a)


def solve(a, b):
    return np.linalg.solve(a, b)


def cholesky(a):
    return np.linalg.cholesky(a)


def log_of(x):
    return np.log(x) + 1.0


def exp_twice(x):
    return np.exp(x) * 2.0


def floor_divide(a, b):
    return a // b


def mean_of(x):
    return np.mean(x)


def total(x):
    return np.sum(x)


@pytest.mark.parametrize(
    "func, args",
    [
        (inv, (np.zeros((2, 2)),)),
        (inv, (np.array([[1.0, 2.0], [2.0, 4.0]]),)),
        (solve, (np.zeros((2, 2)), np.ones(2))),
        (cholesky, (-np.eye(2),)),
        (floor_divide, (np.array([3, 4]), np.array([1, 0]))),
        (floor_divide, (np.int64(7), np.int64(0))),
    ],
    ids=lambda v: getattr(v, "__name__", None) or "",
)
def test_values_on_which_eager_raises_or_differs_give_eagers_outcome(func, args):
    _check(func, *args)


@pytest.mark.parametrize(
    "func, args",
    [
        (log_of, (np.array([1.0, 0.0, -1.0]),)),
        (exp_twice, (np.array([1.0, 1000.0]),)),
        (mean_of, (np.zeros(0),)),
        (total, (np.array([1e308, 1e308]),)),
    ],
    ids=lambda v: getattr(v, "__name__", None) or "",
)
def test_float_warnings_are_not_given_but_values_are_eagers(func, args):
    """(docs/jax.md: checking every float operation cost several times the computation.)"""
    (staged, staged_warnings), (eager, eager_warnings) = (
        _outcome(_compiled(func), args),
        _outcome(func, args),
    )
    assert eager_warnings and not staged_warnings
    np.testing.assert_allclose(staged, eager, rtol=1e-6)  # (docs/jax.md's float tolerance)


@pytest.mark.parametrize(
    "func, args",
    [
        (inv, (np.eye(2) * 2.0,)),
        (log_of, (np.array([1.0, np.e]),)),
        (log_of, (np.array([np.nan, np.inf]),)),  # (not finite already: NumPy is silent)
        (floor_divide, (np.array([3, 4]), np.array([2, 3]))),
        (total, (np.array([1.0, np.inf]),)),
    ],
    ids=lambda v: getattr(v, "__name__", None) or "",
)
def test_values_eager_is_silent_on_stay_compiled(func, args):
    staged = _check(func, *args)
    compiled = staged.get_concrete_function(*args)._compiled
    assert compiled._interpreter is None  # (no call ran again on the interpreter)


def test_an_error_state_set_around_the_call_is_eagers():
    def reciprocal(x):
        return 1.0 / x

    staged = _compiled(reciprocal)
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError, match="divide by zero"):
            staged(np.array([0.0, 1.0]))
    with np.errstate(divide="ignore"):
        _assert_same(_outcome(staged, (np.array([0.0]),)), ((np.array([np.inf])), []))


def inverse_in_loop(x):
    total = np.zeros((2, 2))
    i = 0
    while i < x.shape[0]:
        if x[i] > 0:
            total = total + np.linalg.inv(np.eye(2) * (x[i] - 1.0))
        i += 1
    return total


@pytest.mark.parametrize(
    "x", [np.array([2.0, 1.0, 3.0]), np.array([-1.0, 2.0]), np.zeros(0)], ids=repr
)
def test_suspects_inside_staged_loops_and_branches(x):
    staged = _compiled(inverse_in_loop)
    for _ in range(2):
        (a, a_warnings), (b, b_warnings) = _outcome(staged, (x,)), _outcome(inverse_in_loop, (x,))
        assert a_warnings == b_warnings and type(a) is type(b), (a, b)
        if not isinstance(b, Exception):
            np.testing.assert_allclose(a, b, rtol=1e-6)


def test_a_variable_is_written_once_by_a_call_run_again():
    v = staging.Variable(np.zeros(2, dtype=np.int64))

    @staging.function(jit_compile=True)
    def update(x):
        v.assign_add(10 // x)
        return v.read_value() * 2

    result, caught = _outcome(update, (np.array([0, 5]),))
    assert caught == ["divide by zero encountered in floor_divide"]
    np.testing.assert_array_equal(result, [0, 4])
    np.testing.assert_array_equal(v.numpy(), [0, 2])


def test_a_print_after_the_suspect_op_prints_once(capsys):
    def divide_then_print(x, y):
        q = x // y
        print("q is", q)
        return q

    args = (np.array([4, 5]), np.array([0, 2]))
    staged = _compiled(divide_then_print)
    eager = _outcome(divide_then_print, args)
    eager_text = capsys.readouterr().out
    _assert_same(_outcome(staged, args), eager)
    assert capsys.readouterr().out == eager_text == "q is [0 2]\n"


def test_a_call_that_printed_before_cannot_run_again():
    def print_then_divide(x, y):
        print("dividing")
        return x // y

    staged = _compiled(print_then_divide)
    with pytest.raises(RerunRefused, match=r"test_jax_reruns\.py:\d+: `.*floor_divide") as info:
        staged(np.array([4]), np.array([0]))
    assert "jit_compile=False" in str(info.value)
    np.testing.assert_array_equal(staged(np.array([4]), np.array([2])), [2])  # (compiled)


# -- suspects inside staged loops and branches: one flag carried with the loop's state ----------


def divide_in_loop(xs, d):
    total = np.int64(0)
    i = 0
    while i < xs.shape[0]:
        total += xs[i] // d + xs[i] % d
        d -= 1
        i += 1
    return total


def divide_in_test(x, d):
    steps = 0
    while x // d > 1:
        x -= 1
        d -= 1
        steps += 1
    return steps, x


def divide_in_branch(xs, d):
    out = np.int64(0)
    for x in xs:
        if x > 2:
            out += x // d
        else:
            out -= 1
    return out


def _no_callbacks(staged, *args):
    compiled = staged.get_concrete_function(*args)._compiled
    assert not compiled.has_callbacks  # (no callback per iteration: the flag is an output)
    return compiled


@pytest.mark.parametrize(
    "func, args",
    [
        (divide_in_loop, (np.arange(4), np.int64(5))),  # never zero
        (divide_in_loop, (np.arange(4), np.int64(2))),  # zero on the third iteration
        (divide_in_loop, (np.arange(4), np.int64(0))),  # zero on the first
        (divide_in_loop, (np.arange(0), np.int64(0))),  # no iteration
        (divide_in_test, (np.int64(9), np.int64(3))),  # the test divides by zero
        (divide_in_test, (np.int64(9), np.int64(0))),
        (divide_in_test, (np.int64(2), np.int64(5))),  # no iteration
        (divide_in_branch, (np.array([3, 1, 4]), np.int64(0))),
        (divide_in_branch, (np.array([1, 1]), np.int64(0))),  # the branch never taken
        (divide_in_branch, (np.array([3, 1, 4]), np.int64(2))),
    ],
    ids=lambda v: getattr(v, "__name__", None) or "",
)
def test_suspects_in_loop_bodies_tests_and_branches_are_one_flag(func, args):
    staged = _check(func, *args)
    _no_callbacks(staged, *args)


def test_a_loop_stops_once_its_flag_holds():
    """XLA's values after a suspect op are not eager's: the loop they drive need not end."""

    def halve_until_zero(x, d):
        n = 0
        while x != 0:
            x = x // d  # eager: 0 once d is 0 (with a warning); XLA: another number
            n += 1
            d = d - 1 if d > 0 else d
        return n

    _check(halve_until_zero, np.int64(-1), np.int64(0))
    _check(halve_until_zero, np.int64(100), np.int64(3))


def test_a_print_in_a_loop_after_the_flag_is_skipped(capsys):
    def divide_then_print(xs, d):
        for x in xs:
            q = x // d
            print("q is", q)
        return d

    args = (np.array([4, 6]), np.int64(0))
    staged = _compiled(divide_then_print)
    eager = _outcome(divide_then_print, args)
    eager_text = capsys.readouterr().out
    _assert_same(_outcome(staged, args), eager)
    assert capsys.readouterr().out == eager_text == "q is 0\nq is 0\n"


def test_a_loop_that_printed_before_its_flag_cannot_run_again(capsys):
    def print_then_divide(xs, d):
        total = np.int64(0)
        for x in xs:
            print("x is", x)
            total += x // (d - x)
        return total

    staged = _compiled(print_then_divide)
    assert staged(np.array([1, 2]), np.int64(5)) == 0  # compiled, no flag
    capsys.readouterr()
    with pytest.raises(RerunRefused, match=r"test_jax_reruns\.py:\d+: `.*floor_divide"):
        staged(np.array([1, 2]), np.int64(2))
    assert capsys.readouterr().out == "x is 1\nx is 2\n"


def test_a_check_after_the_flag_does_not_raise_on_what_xla_computed():
    """XLA's -1 for 7 // 0 would fail the check; eager's 0 (with a warning) passes it."""

    def divide_and_check(xs, d):
        total = np.int64(0)
        for x in xs:
            q = x // d
            if q < 0:  # (a staged raise: pytest rewrites a test module's asserts)
                raise ValueError("negative")
            total += q
        return total

    _check(divide_and_check, np.array([7, 8]), np.int64(0))
    _check(divide_and_check, np.array([7, 8]), np.int64(2))
    _check(divide_and_check, np.array([7, -8]), np.int64(2))  # raises eagerly too


def test_a_staged_function_called_in_a_loop_returns_its_flag():
    @staging.function(jit_compile=True)
    def inner(x, d):
        return x // d

    def outer(xs, d):
        total = np.int64(0)
        for x in xs:
            total += inner(x, d)
            d -= 1
        return total

    for args in [(np.array([4, 5, 6]), np.int64(4)), (np.array([4, 5, 6]), np.int64(1))]:
        _check(outer, *args)


# -- Python numbers known at run time, indices, casts: where XLA's answer is not eager's --------


def _python_int(n):
    """A Python int known only at run time (a weak int in the graph)."""
    k = 0
    if n != 0:
        k = int(n)
    return k


def _python_float(x):
    y = 0.0
    if x != 0:
        y = float(x)
    return y


def triple_n_times(n):
    k = 1
    for _ in range(n):
        k = k * 3
    return k


def python_sum(a, b):
    return _python_int(a) + _python_int(b)


def python_difference(a, b):
    return _python_int(a) - _python_int(b)


def python_negative(a):
    return -_python_int(a)


def python_abs(a):
    return abs(_python_int(a))


def python_power(a, b):
    return _python_int(a) ** _python_int(b)


def python_square(a):
    return _python_int(a) ** 2


def python_left_shift(a, b):
    return _python_int(a) << _python_int(b)


def python_right_shift(a, b):
    return _python_int(a) >> _python_int(b)


def python_true_divide(a, b):
    return _python_int(a) / _python_int(b)


def python_float_divide(a, b):
    return _python_float(a) / _python_float(b)


def python_float_floor_divide(a, b):
    return _python_float(a) // _python_float(b)


def python_float_remainder(a, b):
    return _python_float(a) % _python_float(b)


def python_float_divmod(a, b):
    return divmod(_python_float(a), _python_float(b))


def python_float_power(a, b):
    return _python_float(a) ** _python_float(b)


I64 = np.int64
F64 = np.float64


@pytest.mark.parametrize(
    "func, args",
    [
        (triple_n_times, (I64(50),)),  # 3**50: eager's int grows, XLA's wraps
        (triple_n_times, (I64(39),)),  # the last power of 3 in int64
        (triple_n_times, (I64(40),)),
        (triple_n_times, (I64(0),)),
        (python_sum, (I64(2**62), I64(2**62))),
        (python_sum, (I64(2**62), I64(2**61))),
        (python_sum, (I64(-(2**62)), I64(-(2**62) - 1))),
        (python_difference, (I64(-(2**62)), I64(2**62 + 1))),
        (python_difference, (I64(2**62), I64(-(2**62)))),
        (python_negative, (I64(-(2**63)),)),
        (python_abs, (I64(-(2**63)),)),
        (python_abs, (I64(-5),)),
        (python_square, (I64(2**32),)),
        (python_square, (I64(3037000499),)),  # the largest square in int64
        (python_left_shift, (I64(3), I64(62))),
        (python_left_shift, (I64(1), I64(70))),
        (python_left_shift, (I64(1), I64(62))),
        (python_left_shift, (I64(1), I64(-1))),  # ValueError: negative shift count
        (python_right_shift, (I64(5), I64(-1))),
        (python_right_shift, (I64(-5), I64(100))),
        (python_true_divide, (I64(1), I64(0))),  # ZeroDivisionError
        (python_true_divide, (I64(7), I64(2))),
        (python_float_divide, (F64(1.0), F64(0.0))),
        (python_float_divide, (F64(1.0), F64(4.0))),
        (python_float_floor_divide, (F64(3.0), F64(0.0))),
        (python_float_floor_divide, (F64(-7.0), F64(2.0))),
        (python_float_remainder, (F64(3.0), F64(0.0))),
        (python_float_remainder, (F64(-7.0), F64(2.0))),
        (python_float_divmod, (F64(3.0), F64(0.0))),
        (python_float_divmod, (F64(7.0), F64(-2.0))),
        (python_float_power, (F64(0.0), F64(-1.0))),  # ZeroDivisionError
        (python_float_power, (F64(-8.0), F64(0.5))),  # a complex in Python
        (python_float_power, (F64(10.0), F64(400.0))),  # OverflowError
        (python_float_power, (F64(-8.0), F64(3.0))),
        (python_float_power, (F64(2.0), F64(np.nan))),
    ],
    ids=lambda v: getattr(v, "__name__", None) or "",
)
def test_python_numbers_known_at_run_time_give_pythons_outcome(func, args):
    _check(func, *args)


def test_a_power_of_python_ints_known_at_run_time_is_refused_naming_the_line():
    """Python's int ** int is an int or (a negative exponent) a float: a value of two dtypes,
    which one XLA value cannot be; the interpreter gives Python's (tests/staging/test_weak_types)."""
    staged = _compiled(python_power)
    with pytest.raises(LoweringError, match=r"test_jax_reruns\.py:\d+: .*int \*\* int is an int"):
        staged(I64(2), I64(3))


def item(x, i):
    return x[i]


def column(x, i):
    return x[1:, i]


def store(x, i):
    x = x.copy()
    x[i] = 5.0
    return x


def taken(x, i):
    return np.take(x, i)


@pytest.mark.parametrize(
    "func, args",
    [
        (item, (np.arange(3.0), I64(3))),  # IndexError; XLA clamps
        (item, (np.arange(3.0), I64(-4))),
        (item, (np.arange(3.0), I64(-3))),
        (item, (np.arange(3.0), I64(2))),
        (item, (np.arange(3.0), np.array([0, 5]))),
        (item, (np.arange(3.0), np.array([0, -1]))),
        (item, (np.zeros(0), I64(0))),
        (column, (np.ones((2, 3)), I64(3))),
        (column, (np.ones((2, 3)), I64(2))),
        (store, (np.arange(3.0), I64(3))),  # IndexError; XLA drops the write
        (store, (np.arange(3.0), I64(-1))),
        (taken, (np.arange(3.0), I64(3))),
        (taken, (np.arange(3.0), I64(1))),
    ],
    ids=lambda v: getattr(v, "__name__", None) or "",
)
def test_indices_known_at_run_time_out_of_range_raise_eagers_index_error(func, args):
    _check(func, *args)


def to_int64(x):
    return x.astype(np.int64)


def to_int8(x):
    return x.astype(np.int8)


def to_uint8(x):
    return x.astype(np.uint8)


def python_int_of(x):
    return int(x)


def python_int_plus_int8(a):
    return _python_int(a) + np.int8(1)


def uint8_of_python_int(a):
    return np.uint8(_python_int(a))


@pytest.mark.parametrize(
    "func, args",
    [
        (to_int64, (np.array([np.nan, 1.0]),)),  # RuntimeWarning: invalid value in cast
        (to_int64, (np.array([1e30, -np.inf]),)),
        (to_int64, (np.array([1.5, -2.5]),)),
        (to_int64, (np.zeros(0),)),
        (to_int8, (np.array([300.0]),)),  # NumPy wraps, XLA saturates
        (to_uint8, (np.array([-1.0]),)),
        (to_uint8, (np.array([-0.5, 255.9]),)),
        (python_int_of, (F64(np.nan),)),  # ValueError
        (python_int_of, (F64(np.inf),)),  # OverflowError
        (python_int_of, (F64(1e30),)),  # a big int
        (python_int_of, (F64(-2.5),)),
        (python_int_of, (np.uint64(2**64 - 1),)),
        (python_int_plus_int8, (I64(300),)),  # OverflowError (NEP 50)
        (python_int_plus_int8, (I64(-129),)),
        (python_int_plus_int8, (I64(126),)),
        (uint8_of_python_int, (I64(300),)),  # OverflowError
        (uint8_of_python_int, (I64(-1),)),
        (uint8_of_python_int, (I64(255),)),
    ],
    ids=lambda v: getattr(v, "__name__", None) or "",
)
def test_casts_of_values_the_type_does_not_hold_give_eagers_outcome(func, args):
    _check(func, *args)


def count_from(n):
    k = 9223372036854775800  # (a counter 8 steps below the top of int64)
    i = 0
    while i < n:
        k += 1
        i += 1
    return k


def test_a_counter_near_the_top_of_int64_is_checked():
    _check(count_from, I64(3))
    _check(count_from, I64(20))  # eager's int grows past int64


def test_counters_and_the_indices_they_bound_have_no_flag():
    """`i += 1` from 0 cannot leave int64 in a feasible run; `for x in xs` reads xs[i] with i
    below the length: no flag (no check per iteration, no output read per call)."""

    def collatz(n):
        steps = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

    def total(xs):
        out = 0
        for x in xs:
            out += x
        return out

    for func, args in [(collatz, (I64(27),)), (total, (np.arange(5),))]:
        staged = _check(func, *args)
        assert not staged.get_concrete_function(*args)._compiled.flag_output
