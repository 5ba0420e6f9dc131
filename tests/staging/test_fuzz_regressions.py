"""Defects the differential fuzzer (tests/fuzz) found, each reduced to a program compared staged
against eager on several inputs."""

from __future__ import annotations

import collections
import contextlib
import heapq
import io
import math
import statistics

import numpy as np
import pytest

import staging
from staging import errors


def outcome(func, *args):
    """(result or exception class, printed text) of one call."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            value = func(*args)
        except Exception as error:  # noqa: BLE001 - the error is the outcome
            value = type(error)
    return repr(value), out.getvalue()


def assert_staged_equals_eager(func, *calls):
    staged = staging.function(func)
    for args in calls:
        assert outcome(staged, *args) == outcome(func, *args), args


# -- a `try` with `except` and `else:` but no `finally:` ---------------------------------------
# The flag that runs the `else:` block was assigned only where the body ran to its end: when a
# clause caught an error, reading it raised UndefinedNameError (eager returned).


def divide_or_default(x, k):
    try:
        q = 10 // k
    except ZeroDivisionError:
        q = -1
    else:
        q = q + 1
    return q * x


def raise_caught_then_else(x):
    try:
        if x > 0:
            raise ValueError("positive", x)
        y = x * 2.0
    except ValueError:
        y = x - 1.0
    else:
        y = y + 10.0
    return y


@pytest.mark.parametrize("k", [0, 2, np.int64(0), np.int64(3)])
def test_try_except_else_without_finally(k):
    assert_staged_equals_eager(divide_or_default, (np.float64(1.5), k), (np.float64(-2.0), k))


def test_try_else_after_a_staged_raise_caught():
    calls = [(np.float64(v),) for v in (1.5, -0.5, 0.0, float("nan"))]
    assert_staged_equals_eager(raise_caught_then_else, *calls)


# -- a deque holding staged values, returned -------------------------------------------------
# It was returned as it was while tracing, holding staging.Tensor objects.


def deque_of_values(x):
    q = collections.deque([x / 2])
    q.appendleft(x)
    return q


def deque_as_list(x):
    q = collections.deque([x / 2])
    q.appendleft(x)
    return list(q), len(q)


def test_a_returned_deque_of_staged_values_is_refused_naming_the_function():
    with pytest.raises(errors.LeakedTensorError) as info:
        staging.function(deque_of_values)(np.float64(3.0))
    line = deque_of_values.__code__.co_firstlineno
    assert f"{__file__}:{line}: deque_of_values returns a deque holding a value" in str(info.value)
    assert "list(q)" in str(info.value)


def test_a_deque_of_staged_values_returned_as_a_list():
    calls = [(np.float64(v),) for v in (3.0, -1.0, float("nan"))] + [(np.array([1.0, 2.0]),)]
    assert_staged_equals_eager(deque_as_list, *calls)


# -- min/max over a complex tensor ---------------------------------------------------------------
# NumPy's complex scalars compare with `<` (lexicographically), so Python's min/max of a complex
# array returns; staged, they raised TypeError as for Python complex numbers.


def extremes(x):
    return min(x), max(x)


def extremes_of_a_list_built_in_a_loop(x, n):
    items = []
    for i in range(n):
        items.append(x[i % x.shape[0]] * (i - 1))
    return min(items), max(items)


NAN = float("nan")


@pytest.mark.parametrize(
    "values",
    [
        [1 + 2j, 1 + 1j, complex(NAN), 0.5 + 9j],
        [complex(1, NAN), 1 + 1j, 2 - 1j],
        [complex(NAN), 1 + 1j, complex(0, NAN)],
        [2 + 0j],
        [],
    ],
)
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_min_max_of_a_complex_tensor(values, dtype):
    assert_staged_equals_eager(extremes, (np.array(values, dtype=dtype),))


def test_min_max_of_a_complex_list_built_by_a_staged_loop():
    x = np.array([1 + 2j, complex(NAN, 1), -1 - 1j])
    assert_staged_equals_eager(
        extremes_of_a_list_built_in_a_loop, (x, np.int64(4)), (x, np.int64(1)), (x, np.int64(0))
    )


# -- an error raised while tracing, after a staged print or draw ------------------------------
# Python prints (or draws) and then raises; the error was raised while tracing, before the graph
# ran the print: the staged call printed nothing (and left NumPy's random state as it was).


def print_then_shift(x, y):
    print("start", x)
    return y >> 3  # TypeError for a float or complex y


def print_then_divide(x, k):
    print(f"{x:.2f}")
    return 7 // k  # ZeroDivisionError for a Python 0


def draw_then_shift(x, y):
    v = np.random.uniform(0.0, 1.0) + x
    return v, y >> 1


@pytest.mark.parametrize("y", [np.float64(2.0), np.complex64(3.0), np.int8(16), 2.5])
def test_a_print_before_an_error_raised_while_tracing(y):
    assert_staged_equals_eager(print_then_shift, (np.int16(1), y), (np.int16(-4), y))


@pytest.mark.parametrize("k", [0, 3])
def test_a_print_before_a_division_by_a_python_zero(k):
    assert_staged_equals_eager(print_then_divide, (np.float64(1.25), k), (np.float64(-2.0), k))


@pytest.mark.parametrize("y", [np.float32(1.0), np.int64(7)])
def test_a_draw_before_an_error_raised_while_tracing(y):
    staged = staging.function(draw_then_shift)
    for x in (np.float64(1.0), np.float64(-1.0)):
        np.random.seed(5)
        eager = outcome(draw_then_shift, x, y), np.random.uniform()
        np.random.seed(5)
        assert (outcome(staged, x, y), np.random.uniform()) == eager


# -- int() / float() of a NumPy complex scalar ----------------------------------------------------
# np.complex128's __int__ / __float__ convert the real part (with a ComplexWarning); staged,
# they raised TypeError as for a Python complex number or a 0-d complex array.


def int_and_float_of(x):
    return int(x * 2), float(x)


@pytest.mark.parametrize("x", [np.complex128(1.5 - 2j), np.complex64(-3.25 + 1j)])
def test_int_and_float_of_a_numpy_complex_scalar(x):
    with pytest.warns(np.exceptions.ComplexWarning):
        assert_staged_equals_eager(int_and_float_of, (x,), (type(x)(0.5 + 9j),))


def test_int_of_a_0d_complex_array_raises_as_eagerly():
    assert_staged_equals_eager(int_and_float_of, (np.array(1.5 + 1j),))


# -- np.linalg calls whose result nothing reads ---------------------------------------------------
# Eagerly np.linalg.solve of a singular matrix raises LinAlgError even when the result is unused;
# staged, the unread node was dropped and the call returned.


def solve_unused(a, b):
    try:
        np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        return -1.0
    return b.sum()


def inv_unused(a):
    np.linalg.inv(a)
    return a.sum()


def test_an_unread_linalg_solve_still_raises():
    b = np.ones(2)
    assert_staged_equals_eager(
        solve_unused, (np.eye(2), b), (np.zeros((2, 2)), b), (np.ones((2, 2)), b)
    )
    assert_staged_equals_eager(inv_unused, (np.eye(2),), (np.zeros((2, 2)),))


# -- library calls that mutate a Python container inside staged control flow ---------------------
# `l.insert(...)`, `d.setdefault(...)`, `s.add(...)`, `q.appendleft(...)`, `heapq.heappush(l, ...)`
# in a staged branch ran once while tracing, for every path: the container changed whether or
# not the branch ran. They are refused, naming the line; outside staged control flow they run.


def insert_if(x, n):
    items = [1.0]
    if n > 5:
        items.insert(0, x)
    return items


def setdefault_if(x, n):
    d = {"a": x}
    if n > 5:
        d.setdefault("b", x)
    return len(d)


def add_in_loop(x, n):
    seen = set()
    for i in range(n):
        seen.add(3)
    return len(seen) + x


def appendleft_if(x, n):
    q = collections.deque()
    if n > 5:
        q.appendleft(x)
    return len(q)


def heappush_if(x, n):
    heap = []
    if n > 5:
        heapq.heappush(heap, 2.0)
    return len(heap)


def mutations_outside_staged_control_flow(x, n):
    items, d, s, q, heap = [1.0], {}, set(), collections.deque(), []
    items.insert(0, x)
    d.setdefault("b", x)
    s.add(3)
    q.appendleft(x)
    heapq.heappush(heap, 2.0)
    if n > 5:
        x = x + 1.0
    return items, d["b"], len(s), q.popleft(), heap, x


@pytest.mark.parametrize(
    "func", [insert_if, setdefault_if, add_in_loop, appendleft_if, heappush_if]
)
def test_a_container_mutated_by_a_call_in_staged_control_flow_is_staged(func):
    """(It changed the container once, while tracing, whatever the path: refused, then staged
    as a container changed in staged control flow.)"""
    assert_staged_equals_eager(
        func, (np.float64(7.0), np.int8(3)), (np.float64(7.0), np.int8(9)), (np.float64(-1.0), 0)
    )


def test_container_mutations_outside_staged_control_flow_run():
    assert_staged_equals_eager(
        mutations_outside_staged_control_flow,
        (np.float64(7.0), np.int8(3)),
        (np.float64(-1.5), np.int8(9)),
    )


# -- a refusal raised while tracing a `try` whose `finally:` raises or returns -------------------
# The `finally:` block's own `raise` replaced the refusal (Python's rule for a pending error):
# the staged call raised the program's error without the prints before it.


class CleanupError(ValueError):
    pass


def refused_then_finally_raises(x, n):
    try:
        print("before", x)
        items = statistics.mean([x, 2.0 * x])  # library code given a symbolic value: refused
    finally:
        raise CleanupError("cleanup")
    return items


def refused_then_finally_returns(x, n):
    try:
        items = statistics.mean([x, 2.0 * x])
    finally:
        return x  # noqa: B012 - what is tested


@pytest.mark.parametrize("func", [refused_then_finally_raises, refused_then_finally_returns])
def test_a_refusal_is_not_replaced_by_the_finally_block(func):
    with pytest.raises(errors.SymbolicValueError) as info:
        staging.function(func)(np.float64(1.0), np.int8(2))
    assert str(info.value).startswith(f"{__file__}:")
    assert "statistics.mean() is library code" in str(info.value)


def finally_raises_after_a_python_error(x, k):
    try:
        print("before", x)
        q = 10 // k
    finally:
        raise CleanupError("cleanup")
    return q


def test_a_finally_block_still_replaces_the_programs_own_error():
    assert_staged_equals_eager(
        finally_raises_after_a_python_error, (np.float64(1.0), 0), (np.float64(2.0), 3)
    )


# -- list methods a staged list does not have --------------------------------------------------
# `l.extend(...)` after a staged loop popped from `l` raised AttributeError ('StagedList' object
# has no attribute 'extend') when the graph ran, as if it were the program's error.


def extend_after_a_staged_pop(x, n):
    items = [n, n]
    for _ in range(n):
        items.pop()
    items.extend([x])
    return len(items)


def test_extend_of_a_staged_list_is_staged():
    assert_staged_equals_eager(
        extend_after_a_staged_pop, (np.float64(1.0), np.int8(1)), (np.float64(1.0), np.int8(0))
    )


# -- an index read whose result nothing reads --------------------------------------------------
# Eagerly `v = x[n]` raises IndexError for an n out of bounds even when v is never read; staged,
# the unread getitem was dropped and the call returned.


def unread_index(x, n):
    v = x[n]  # noqa: F841 - what is tested
    return x * 2


def unread_index_in_try(x, n):
    try:
        v = x[n]  # noqa: F841
    except KeyError:
        return x
    return x + 1


@pytest.mark.parametrize("func", [unread_index, unread_index_in_try])
def test_an_unread_index_out_of_bounds_still_raises(func):
    x = np.array([1.0, 2.0])
    assert_staged_equals_eager(
        func, (x, np.int64(1)), (x, np.int64(2)), (x, np.int64(-3)), (x, np.int64(-2))
    )


# -- `q.pop()` / `q.append(v)` of a deque inside staged control flow ------------------------------
# Converted as a list's pop and append, they changed the deque once, while tracing, for both
# branches of a staged `if`.


def deque_pop_if(x, y):
    q = collections.deque([y])
    if x > 0:
        q.pop()
    return len(q)


def deque_append_if(x, y):
    q = collections.deque([y])
    if x > 0:
        q.append(x)
    return len(q)


@pytest.mark.parametrize("func", [deque_pop_if, deque_append_if])
def test_a_deque_pop_or_append_in_a_staged_if_is_staged(func):
    assert_staged_equals_eager(
        func, (np.float64(-1.0), np.float64(2.0)), (np.float64(1.0), np.float64(2.0))
    )


# -- str(), repr() and print() of an exception holding staged values -----------------------------
# print(e) of a caught `Limit(n)` printed "<staging.Tensor i64[] ...>" for n.


class Limit(ArithmeticError):
    def __init__(self, value):
        super().__init__("limit", value)
        self.value = value


def describe_caught(x, n):
    try:
        if n > 1:
            raise Limit(n)
        if n > 0:
            raise CleanupError(x)
        raise CleanupError()
    except Limit as error:
        print("limit", error, x)
        return f"{error!r}|{error}|" + str(error) + repr(error)
    except CleanupError as error:
        print("cleanup", error)
        return f"{error!r}|{error}|" + str(error) + repr(error)


def test_an_exception_holding_staged_values_formats_as_eagerly():
    assert_staged_equals_eager(
        describe_caught,
        *[(np.float64(1.5), np.int64(k)) for k in (2, 1, 0, 3)],
    )


class Shouting(ValueError):
    def __str__(self):
        return "!"


def print_shouting(x):
    try:
        raise Shouting(x)
    except Shouting as error:
        print(error)
    return x


def test_an_exception_with_its_own_str_holding_staged_values_is_refused():
    with pytest.raises(errors.UnsupportedOpError, match="with its own __str__") as info:
        staging.function(print_shouting)(np.float64(1.0))
    assert str(info.value).startswith(f"{__file__}:")


# -- int() of inf or NaN whose result only an unread write uses ----------------------------------
# `o[int(v) % 3] -= 1` into an array nothing reads afterwards: eagerly int(-inf) raises
# OverflowError; staged, the unread write and the int() it needed were dropped.


def unread_write_at_int_index(x):
    o = np.zeros(3)
    o[int(x[0]) % len(o)] -= 1.0
    return x.sum()


def test_an_unread_int_of_inf_still_raises():
    assert_staged_equals_eager(
        unread_write_at_int_index,
        (np.array([2.5, 1.0]),),
        (np.array([-np.inf, 1.0]),),
        (np.array([np.nan, 1.0]),),
    )


# -- `in` of a staged list ---------------------------------------------------------------------
# `v in l` of a list a staged loop pops from raised TypeError ("argument of type 'StagedList' is
# not iterable") when the graph ran, as if it were the program's error.


def contains_after_a_staged_pop(x, n):
    items = [x, x + 1]
    for _ in range(n):
        items.pop()
    return 3.0 in items


def test_in_of_a_staged_list_is_refused():
    with pytest.raises(errors.UnsupportedOpError, match="`in` of a list") as info:
        staging.function(contains_after_a_staged_pop)(np.float64(1.0), np.int64(1))
    assert str(info.value).startswith(f"{__file__}:")


# -- heapq of a staged list --------------------------------------------------------------------
# heapq.heappush of a list a staged loop pops from raised TypeError ("heappush() argument 1
# must be list, not StagedList") when the graph ran, as if it were the program's error.


def heappush_after_a_staged_pop(x, n):
    heap = [x, x + 1]
    for _ in range(n):
        heap.pop()
    heapq.heappush(heap, 2.0)
    return len(heap)


def test_heapq_of_a_staged_list_is_refused():
    with pytest.raises(errors.UnsupportedOpError, match=r"heapq\.heappush\(\) of a list") as info:
        staging.function(heappush_after_a_staged_pop)(np.float64(1.0), np.int64(1))
    assert str(info.value).startswith(f"{__file__}:")


# -- an operand of several kinds next to a buffer the result may reuse -------------------------
# np.minimum(x - 1, 0 if n else n): the second operand is a Python int or an int64 scalar by
# path; writing the code that reuses x - 1's buffer for the result crashed (AttributeError).


def minimum_with_a_union(x, n):
    return np.minimum(x - 1, 0 if n else n)


@pytest.mark.parametrize("n", [np.int64(3), np.int64(0)])
def test_a_union_operand_of_an_in_place_ufunc(n):
    assert_staged_equals_eager(
        minimum_with_a_union, (np.array([0.0, 0.5, -3.25]), n), (np.array([2.0, 1.0, 0.0]), n)
    )


# -- a `finally:` block that raises after a `try` that may raise when the graph runs --------------
# Eagerly the block's error replaces the `try`'s; staged, the error the `try` raised when the
# graph ran came out (math.log's ValueError in place of the block's IndexError or FuzzError).


def log_then_pop(x, n):
    try:
        v = math.log(x < n)  # noqa: F841 - ValueError for x >= n
    except LookupError:
        pass
    finally:
        items = []
        items.pop()


def log_then_raise(x, n):
    try:
        print("body", x)
        v = math.log(x < n)  # noqa: F841
    finally:
        print("finally", x)
        raise CleanupError("r", x)


def log_then_raise_in_a_branch(x, n):
    if x > 0:
        try:
            v = math.log(x < n)  # noqa: F841
        finally:
            raise CleanupError("r", 1)
    return x


@pytest.mark.parametrize("func", [log_then_pop, log_then_raise, log_then_raise_in_a_branch])
def test_a_finally_block_that_raises_replaces_a_run_time_error(func):
    assert_staged_equals_eager(
        func, (np.int32(7), 2), (np.int32(1), 2), (np.int32(-1), 2), (np.int32(2), 2)
    )


# -- a cell variable assigned in a staged `try` body before the line that raises ------------------
# (fuzzer seed 12) With `o1` also written by a nested function (`nonlocal o1`: a cell variable),
# the clause saw `o1` as it was before the `try` and the call returned zeros where Python returns
# the draw the body assigned before raising; the same `try` on a plain local is refused.


class _Limit(ArithmeticError):
    pass


def draw_then_raise_in_try():
    o1 = np.zeros(3)
    try:
        o1 = np.random.randn(len(o1))
        raise _Limit(0)
    except ArithmeticError:
        pass

    def g(t):
        nonlocal o1
        o1 = t

    return o1


def test_a_cell_variable_assigned_before_a_raise_in_a_staged_try_is_refused():
    import inspect

    with pytest.raises(errors.UnsupportedConstructError, match="its body assigns 'o1'") as info:
        staging.function(draw_then_raise_in_try)()
    line = inspect.getsourcelines(draw_then_raise_in_try)[1] + 2
    assert str(info.value).startswith(f"{__file__}:{line}:")


# -- a loop body that raises after changing a staged container (fuzzer seed 15) --------------------
# The stand-in of the heap on the raising path read `.weak` of a list type: an internal
# AttributeError raised when the graph ran, where Python raises the program's own error.


class _HeapError(ValueError):
    pass


def push_then_raise(x, n):
    heap = []
    k = 0
    while k < n + 1:
        k += 1
        heapq.heappush(heap, x)
        if 1:
            raise _HeapError("r12")
        else:
            heap.pop()


@pytest.mark.parametrize("x", [np.float64(1.0), np.bool_(False)], ids=repr)
def test_a_body_raising_after_changing_a_staged_heap_raises_eagers_error_or_is_refused(x):
    """Eager's error where the heap's items can have a stand-in; otherwise a refusal naming
    the line (never an internal error)."""
    with pytest.raises((_HeapError, errors.UnsupportedConstructError)) as info:
        staging.function(push_then_raise)(x, np.int64(0))
    if isinstance(info.value, errors.UnsupportedConstructError):
        assert str(info.value).startswith(f"{__file__}:")
        assert "raises on one path" in str(info.value)
    else:
        assert str(info.value) == "r12"
