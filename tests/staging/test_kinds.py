"""A value that is a Python number on one path and a NumPy value on another (staging.kinds): when
the graph runs it is what the path taken made it, so every result, Python type and error is
eager's. Only a decision made while tracing that differs between the kinds is refused, naming
the line and the value.

The programs come from the differential fuzzer's findings against the earlier model (which
converted the Python number where paths met, and refused or checked what that changed)."""

from __future__ import annotations

import inspect
import json
import warnings

import numpy as np
import pytest

import staging
from staging import errors


def line_of(func, text):
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, line in enumerate(lines) if text in line)


def _outcome(func, args):
    """('value', result) or ('raises', exception type), with NumPy's warnings silenced."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return "value", func(*args)
        except Exception as exc:  # noqa: BLE001 - compared with the staged outcome
            return "raises", exc


def assert_identical(staged, eager):
    """The same value with the same Python types, recursively; arrays bit for bit."""
    assert type(staged) is type(eager), f"{staged!r} ({type(staged)}) vs {eager!r} ({type(eager)})"
    if isinstance(eager, (tuple, list)):
        assert len(staged) == len(eager)
        for s, e in zip(staged, eager):
            assert_identical(s, e)
    elif isinstance(eager, (np.ndarray, np.generic)):
        assert staged.dtype == eager.dtype and np.shape(staged) == np.shape(eager)
        assert np.asarray(staged).tobytes() == np.asarray(eager).tobytes(), (staged, eager)
    elif isinstance(eager, float):
        assert repr(staged) == repr(eager)  # (-0.0 and nan included)
    else:
        assert staged == eager


def assert_same_as_eager(func, args, jit_compile=None):
    """Staged (traced, then run again from the cache) gives eager's result or error type."""
    staged_f = staging.function(func, jit_compile=jit_compile)
    kind, eager = _outcome(func, args)
    for _ in range(2):
        staged_kind, staged = _outcome(staged_f, args)
        if kind == "raises":
            assert staged_kind == "raises", f"{func.__name__}{args}: {staged!r}, eager {eager!r}"
            assert isinstance(staged, type(eager)), (
                f"{func.__name__}{args}: {staged!r} vs {eager!r}"
            )
            assert not isinstance(staged, errors.StagingError) or isinstance(
                eager, errors.StagingError
            ), f"{func.__name__}{args}: refused ({staged}) where eager raises {eager!r}"
        else:
            assert staged_kind == "value", f"{func.__name__}{args}: staged raises {staged!r}"
            assert_identical(staged, eager)


# -- programs ------------------------------------------------------------------------------


def exp_of_joined(c, y):
    s = y if c > 0 else 3  # a uint8 value on one path, the Python int 3 on the other
    return np.exp(s)  # eagerly float16 for the uint8 and float64 for the Python int


def add_after_if(c, y):
    if c > 0:
        v = y
    else:
        v = False  # a Python bool on this path, an int64 value on the other
    return np.add(v, np.bool_(True))


def documented_join(c, y):
    s = y if c > 0 else 3
    return s * 2 + 1, s > 2, np.exp(s)


def accumulate_then_sqrt(x):
    total = 0
    for v in x:
        total += v
    return np.sqrt(total), total


def first_iteration_differs(x):
    s = False
    for v in x:
        s = np.exp(s) + v  # first iteration: np.exp(False) is float16; later np.exp(float32)
    return s


def invert_joined(c, y):
    a = y if c > 0 else True  # ~True is -2, ~np.uint8(1) is 254
    return ~a


def negate_joined(c, y):
    a = y if c > 0 else 0.1  # a complex128, or the Python float 0.1: -0.1 vs (-0.1-0j)
    return -a, a * -2.0, a + 1.0


def invert_of_quotient(c, y):
    v = 2 if c > 0 else y  # a Python int, or a float64
    a = v // v  # 1 (int) or 1.0 (float64)
    return ~a  # -2 eagerly on the int path, a TypeError on the float64 one


def continue_in_while(x):
    s = 0
    while x > 0:
        x -= 1
        if x % 2 > 0:
            continue
        s += x
    return s


def big_number_meets_int32(k, y):
    n = 0
    for _ in range(k):
        n = n + 2**40  # a Python int known only at run time, beyond int32
    return n if y > 0 else y


def bitwise_of_joined(c, n):
    m = n if c > 0 else 1.5
    return m & 1  # fine for the int n; a float has no `&`


def explicit_abs_of_joined(x, n):
    y = n if x else x  # the Python int n, or an int8 value
    return np.abs(y)  # np.abs(5) is np.int64; np.abs(np.int8(5)) an int8


def operator_abs_of_joined(x, n):
    y = n if x else x
    return abs(y)  # abs(5) stays the Python int 5


def floor_divide_joined(x, n, m):
    s = 7
    if x > 0:
        s = n
    r = 0
    for i in range(m):
        r = r + s // i  # 7 // 0 raises; np.int32(3) // 0 is 0 with a warning
    return r


def divide_joined_by_array_value(x, n, d):
    s = 7 if x > 0 else n
    return s // d


def square_of_joined(v, n):
    return (v if n <= -2 else 300) ** 2  # Python's 90000, or an int16 that may wrap


def explicit_add_of_python_kinds(n, y):
    return np.add(y, 1 if n < 2 else y)  # np.add(True, True) is np.True_, np.add(True, 1) int64


def explicit_add_same_dtype_on_every_path(n, y):
    return np.add(1.5, 1 if n < 2 else y)


def sum_after_while(x, n, c):
    s = 0
    k = 0
    while k < n:
        k += 1
        s = s + x
    if c > 0:
        return s * 3
    return s * 1


def negated_int_or_float(n, z):
    return -(0 if n == z else -2.0)  # -0 is the int 0; -(-2.0) is 2.0


def or_of_and_in_a_loop(n, y):
    count = 0
    for i in range(n):
        if (n and y) or (not i):
            continue
        count += 1
    return count


def explicit_add_of_literal_and_joined(x, y):
    return np.add(-1, 3 if x > 0 else y)  # np.add(-1, 3) is an int64; with y a float16


def or_of_two_joined_values(x, n):
    v = n - (~n) if x > 0 else -np.minimum(True, 1.5)  # the Python int 7, or a float64
    return (v if 3 > v else 100) | v


def remainder_after_a_loop(x, n, d):
    v = n
    k = 0
    while k < 3 and not x:
        k += 1
        v -= np.float64(0.5)
    return v % d, v // d


def index_joined(x, n, c):
    if n:
        v = 0
    else:
        v = np.cos(c > n)  # a float16: not an index
    return x[v % len(x)]


def returned_python_float(c):
    x = 0.0
    if c > 0:
        x = c * 2.0
    return x


def accumulate_rows(m):
    total = 0
    for row in m:
        total += row  # the Python 0, then an array: eagerly a new array, then written in place
    return total


def uint32_of_float_path(x, c):
    v = x if c > 0 else np.float64(2.0)
    return np.uint32(v)  # OverflowError for a Python float out of range


def uint8_of_300(n, c):
    return np.uint8(n if c else 300)


def remainder_negative_zero(x, n):
    v = np.exp(x) if x == n else x
    return (-v) % v


def where_of_python_ints(x, n):
    v = 0 if n < x else -x
    w = 1 if n < x else x
    return np.where(v == v, v, w)


def loop_keeps_initial_kinds(x, n, y):
    k = 0
    s = -2.0 if x > 5 else ~(k ^ 5)
    while k < 3 and y:
        k += 1
        s = np.float64(k) + 0.5
    s -= n
    return s


def compare_with_complex_after_loop(n, y):
    s = 1
    s = s + 0
    k = 0
    while k < n:
        k += 1
        s //= y
    return s > 1j


def floor_divide_complex_or_int(x, n):
    return (n if x < 2 else 1.0j) // n


def in_place_with_run_time_int(a):
    k = 0
    while k < 2 and a > 0:
        k += 1
        a += k
    return a


def dtype_of_mixed_after_loop(x, n):
    s = 0
    for _ in range(n):
        s = s + x
    return s * 2


def multiply_complex_or_int(v):
    c = 300 if 2.5 > v else 2.5 - 1.0j
    return np.multiply(c, v)


def print_of_joined(c, y):
    total = 3 + (y if c > 0 else 3)  # `6` for the Python int, `6.0` for the float64
    print("total", total)
    return total


def loop_body_makes_a_python_number(n, y):
    s = np.float64(0.5)
    out = []
    for _ in range(n):
        out.append(y % s)  # on the second iteration s is the Python int 2
        s = len([1, 2])
    return s, out


class _Box:
    pass


def unused_shift_of_a_box_attribute(x):
    box = _Box()
    box.a = np.random.uniform(0, 0, 1)
    if x:
        box.a = 0
    unused = box.a >> 3  # TypeError for the float64 array eagerly, though nothing reads it
    return x


def len_and_loop_over_two_dtypes(x, n, y):
    if y:
        v = x
    else:
        v = x != n  # uint64 on one path, bool on the other: the same length
    count = 0
    for e in v:
        if v[n % len(v)]:
            count += 1
    return len(v), count


def complex_compared_with_an_element_of_two_kinds(x, y):
    items = [y if y else x]  # a float64 or a uint16 scalar
    return 1.0j != items[0], 1.0j == items[0]  # Python's bool for the float64, NumPy's otherwise


PROGRAMS = [
    (exp_of_joined, [(np.float64(1.0), np.uint8(2)), (np.float64(-1.0), np.uint8(2))]),
    (add_after_if, [(np.float64(1.0), np.int64(4)), (np.float64(-1.0), np.int64(4))]),
    (documented_join, [(np.float64(1.0), np.int32(5)), (np.float64(-1.0), np.int32(5))]),
    (accumulate_then_sqrt, [(np.arange(4, dtype=np.float32),), (np.arange(3, dtype=np.int8),)]),
    (accumulate_then_sqrt, [(np.zeros(0, np.float32),)]),
    (first_iteration_differs, [(np.arange(3, dtype=np.float32),), (np.zeros(0, np.float32),)]),
    (invert_joined, [(np.float64(-1.0), np.uint8(2)), (np.float64(1.0), np.uint8(2))]),
    (negate_joined, [(np.float64(-1.0), np.complex128(2)), (np.float64(1.0), np.complex128(2))]),
    (invert_of_quotient, [(np.float64(1.0), np.float64(1.5)), (np.float64(-1.0), np.float64(1.5))]),
    (continue_in_while, [(np.int32(5),), (np.int32(6),), (np.int32(1),), (np.int32(0),)]),
    (big_number_meets_int32, [(np.int64(0), np.int32(3)), (np.int64(1), np.int32(3))]),
    (bitwise_of_joined, [(np.float64(1.0), 3), (np.float64(-1.0), 3)]),
    (explicit_abs_of_joined, [(np.int8(3), 5), (np.int8(0), 5)]),
    (operator_abs_of_joined, [(np.int8(3), 5), (np.int8(0), 5)]),
    (
        floor_divide_joined,
        [
            (np.float32(1), np.int32(3), np.int32(0)),
            (np.float32(-1), np.int32(3), np.int32(1)),
            (np.float32(1), np.int32(3), np.int32(1)),
            (np.float32(-1), np.int32(3), np.int32(0)),
        ],
    ),
    (
        divide_joined_by_array_value,
        [(np.float32(-1), np.int32(3), np.int32(0)), (np.float32(1), np.int32(3), np.int32(0))],
    ),
    (
        square_of_joined,
        [
            (np.int16(3), np.int64(-5)),
            (np.int16(3), np.int64(1)),
            (np.int16(300), np.int64(-5)),
        ],
    ),
    (explicit_add_of_python_kinds, [(np.int32(3), True), (np.int32(0), True)]),
    (explicit_add_same_dtype_on_every_path, [(np.int32(3), True), (np.int32(0), True)]),
    (
        sum_after_while,
        [
            (np.float32(1.5), np.int64(2), 1.0),
            (np.float32(1.5), np.int64(0), -1.0),
            (np.float32(1.5), np.int64(0), 1.0),
            (np.float32(1.5), np.int64(3), -1.0),
        ],
    ),
    (negated_int_or_float, [(np.int8(2), 0.0), (np.int8(0), 0.0)]),
    (or_of_and_in_a_loop, [(np.int8(0), 2), (np.int8(1), 2), (np.int8(3), 2)]),
    (explicit_add_of_literal_and_joined, [(np.float64(1.0), np.float16(3.0))]),
    (explicit_add_of_literal_and_joined, [(np.float64(-1.0), np.float16(3.0))]),
    (or_of_two_joined_values, [(np.float64(1.0), 3), (np.float64(-1.0), 3)]),
    (
        remainder_after_a_loop,
        [
            (np.int8(0), 4, 0),
            (np.int8(0), 4, 2),
            (np.int8(1), 4, 3),
            (np.int8(1), 4, 0),
        ],
    ),
    (
        index_joined,
        [(np.array([1.0, 2.0]), np.int64(2), 1), (np.array([1.0, 2.0]), np.int64(0), 1)],
    ),
    (returned_python_float, [(np.float64(-1.0),), (np.float64(2.0),)]),
    (accumulate_rows, [(np.ones((3, 2)),), (np.ones((0, 2)),)]),
    (
        uint32_of_float_path,
        [
            (-0.5, np.float64(1.0)),
            (3.25, np.float64(1.0)),
            (-3.25, np.float64(1.0)),
            (4294967296.0, np.float64(1.0)),
            (-3.25, np.float64(-1.0)),
        ],
    ),
    (uint8_of_300, [(np.int64(0), np.bool_(False)), (np.int64(7), np.bool_(True))]),
    (remainder_negative_zero, [(-3, np.int64(2)), (2, np.int64(2))]),
    (where_of_python_ints, [(np.array(2, np.uint8), 0), (np.array(2, np.uint8), 5)]),
    (
        loop_keeps_initial_kinds,
        [
            (np.uint32(1), np.int32(1), np.uint64(0)),
            (np.uint32(9), np.int32(1), np.uint64(0)),
            (np.uint32(1), np.int32(1), np.uint64(1)),
        ],
    ),
    (compare_with_complex_after_loop, [(np.int64(0), np.True_), (np.int64(2), np.True_)]),
    (floor_divide_complex_or_int, [(np.float64(1.0), 0), (np.float64(3.0), 2)]),
    (
        in_place_with_run_time_int,
        [(np.array(5, np.uint32),), (np.uint32(5),), (np.array(250, np.uint8),)],
    ),
    (dtype_of_mixed_after_loop, [(np.int16(3), np.int64(2)), (np.int16(3), np.int64(0))]),
    (multiply_complex_or_int, [(np.float64(-1.0),), (np.float64(3.0),)]),
    (loop_body_makes_a_python_number, [(np.int64(2), np.uint64(3)), (np.int64(0), np.uint64(3))]),
    (unused_shift_of_a_box_attribute, [(np.bool_(False),), (np.bool_(True),)]),
    (
        complex_compared_with_an_element_of_two_kinds,
        [(np.uint16(2), np.float64(2.5)), (np.uint16(2), np.float64(0.0))],
    ),
    (
        len_and_loop_over_two_dtypes,
        [(np.array([1, 5, 0], dtype=np.uint64), 3, y) for y in (np.True_, np.False_)],
    ),
]


@pytest.mark.parametrize(
    "func, args",
    [(f, a) for f, cases in PROGRAMS for a in cases],
    ids=lambda v: v.__name__ if callable(v) else "",
)
def test_staged_gives_eagers_answer_on_every_path(func, args):
    assert_same_as_eager(func, args)


@pytest.mark.parametrize("c", [np.float64(1.0), np.float64(-1.0)])
def test_printed_text_is_eagers(c, capsys):
    args = (c, np.float64(3.0))
    eager = print_of_joined(*args)
    eager_text = capsys.readouterr().out
    staged = staging.function(print_of_joined)(*args)
    assert capsys.readouterr().out == eager_text
    assert_identical(staged, eager)


def test_a_returned_python_number_stays_one():
    """json.dumps of the result works as eagerly (a NumPy scalar would not serialise)."""
    f = staging.function(returned_python_float)
    assert json.dumps(f(np.float64(-1.0))) == json.dumps(returned_python_float(np.float64(-1.0)))


@staging.function
def _inner(s):
    return np.exp(s)


def _via_call(c, u):
    s = 0
    if c > 0:
        s = u
    return _inner(s)


def _via_helper(c, u):
    s = 0
    if c > 0:
        s = u
    return _plain_inner(s)


def _plain_inner(s):
    return np.exp(s)


@pytest.mark.parametrize("program", [_via_call, _via_helper])
@pytest.mark.parametrize("c", [np.int64(0), np.int64(1)])
def test_a_nested_staged_call_receives_every_kind(program, c):
    """The kinds travel into a nested staged function's trace (its signature) and back."""
    assert_same_as_eager(program, (c, np.int8(3)))


def test_a_nested_call_traces_once_per_kind_signature():
    def outer(c, u):
        s = 0
        if c > 0:
            s = u
        return inner(s)

    inner = staging.function(lambda s: s * 2)
    staged = staging.function(outer)
    staged(np.int64(1), np.int8(3))
    signature = inner.pretty_printed_concrete_signatures()
    assert "int | i8[]" in signature


def assert_on_a_sum(n, x):
    total = 0  # the Python 0 when the loop runs no iteration, an int64 scalar after
    for i in range(n):
        total += x[i]
    assert total < 10, total  # a Python bool or a NumPy bool: a 0-d condition on every path
    return total


@pytest.mark.parametrize("n", [np.int64(0), np.int64(2), np.int64(3)])
def test_an_assert_on_a_condition_of_several_kinds_is_staged(n):
    x = np.arange(4, 8)
    assert_same_as_eager(assert_on_a_sum, (n, x))
    if n == 3:  # 4 + 5 + 6: eager's message, and a note naming the assert's line
        with pytest.raises(AssertionError) as info:
            staging.function(assert_on_a_sum)(n, x)
        assert str(info.value) == "15"
        assert (
            f"{__file__}:{line_of(assert_on_a_sum, 'assert total < 10')}: "
            in (info.value.__notes__[0])
        )


def appended_in_a_staged_loop(n, x):
    out = []
    for i in range(n):
        v = 0.0
        if x[i] > 1:
            v = x[i] * 2.0  # a float64 scalar; the Python 0.0 on the other path
        out.append(v)
    return out


@pytest.mark.parametrize("n", [np.int64(0), np.int64(1), np.int64(3)])
def test_a_list_appended_in_a_staged_loop_holds_elements_of_each_kind(n):
    x = np.arange(4.0)
    assert_same_as_eager(appended_in_a_staged_loop, (n, x))
    graph = staging.function(appended_in_a_staged_loop).get_concrete_function(n, x).graph
    assert str(graph.outputs[0].type) == "list[float | f64[]]"


def test_a_list_write_joins_the_kinds_of_its_value_into_the_element_type():
    from runtime.registry import get_op, infer_kinds
    from runtime.types import ListType, TensorType, join_types

    joined = join_types(TensorType.python_scalar(float), TensorType(np.float64, ()))
    write = get_op("list_write")
    index = TensorType.python_scalar(int)
    for start in (ListType(None), ListType(TensorType.python_scalar(float))):
        attrs = {"dynamic_size": True}
        assert write.infer(start, index, joined, **attrs) == ListType(joined)  # the rule itself
        assert infer_kinds(write, [start, index, joined], attrs)[0] == (ListType(joined),)


# -- what is still refused: decisions taken while tracing --------------------------------


def dtype_of_joined(c, y):
    s = y if c > 0 else 3
    return s.dtype  # an AttributeError eagerly where s is the Python 3


def astype_of_joined(c, y):
    if c > 0:
        v = y
    else:
        v = 0
    return v.astype(np.int8)


@pytest.mark.parametrize(
    "func, text, what",
    [(dtype_of_joined, "return s.dtype", "`.dtype`"), (astype_of_joined, "v.astype", "`.astype`")],
)
def test_an_attribute_only_some_kinds_have_is_refused_naming_the_line_and_value(func, text, what):
    with pytest.raises(errors.BranchMismatchError) as info:
        staging.function(func)(np.float64(1.0), np.uint8(2))
    message = str(info.value)
    assert message.startswith(f"{__file__}:{line_of(func, text)}: {what}: ")
    assert "is a Python int or a uint8 scalar depending on the path" in message


def test_an_attribute_no_kind_has_raises_as_eagerly():
    def f(n):
        s = 0
        for _ in range(n):
            s = s + 1
        return s.dtype  # a Python int on every path

    with pytest.raises(AttributeError):
        f(np.int64(2))
    with pytest.raises(errors.MissingAttributeError) as info:
        staging.function(f)(np.int64(2))
    assert isinstance(info.value, AttributeError)
    assert str(info.value) == "'int' object has no attribute 'dtype'"  # eager's message
    assert f"{__file__}:{line_of(f, 'return s.dtype')}" in "\n".join(info.value.__notes__)


def test_a_dtype_all_kinds_share_is_read():
    def f(c, x):
        v = x if c > 0 else np.asarray(x)  # a float32 scalar, or a 0-d float32 array
        return v.dtype == np.float32

    assert_same_as_eager(f, (np.float64(1.0), np.float32(2.0)))


def test_jit_compile_refuses_a_value_of_kinds_of_different_dtypes_naming_the_line():
    """A Python int on one path and a uint8 scalar on the other: no one XLA value (docs/jax.md)."""
    pytest.importorskip("jax")
    from runtime.jax_lowering import LoweringError

    with pytest.raises(LoweringError, match="depending on the path taken") as info:
        staging.function(exp_of_joined, jit_compile=True)(np.float64(2.0), np.uint8(2))
    message = str(info.value)
    assert message.startswith(f"{__file__}:{line_of(exp_of_joined, 's = y if c > 0 else 3')}: ")
    assert "int | u8[]" in message and "kinds of different dtypes or shapes" in message


@pytest.mark.parametrize(
    "c, expected", [(np.float64(-1.0), 0.0), (np.float64(2.0), np.float64(4.0))]
)
def test_jit_compile_returns_a_python_float_or_a_numpy_float_as_the_path_made_it(c, expected):
    """`float | f64[]` compiles (its array and a kind tag): eager's exact types on each path."""
    pytest.importorskip("jax")
    f = staging.function(returned_python_float, jit_compile=True)
    for _ in range(2):
        assert_identical(f(c), expected)
        assert_identical(f(c), returned_python_float(c))
