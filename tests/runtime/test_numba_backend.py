"""jit_compile="numba": results bit for bit eager's, eager's warnings and errors by a rerun on
the interpreter, and the one-time note of a graph numba does not take (runtime.numba_backend)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import staging
from benchmarks import user_workloads as u

pytest.importorskip("numba")

from runtime.numba_backend import NumbaFallbackWarning  # noqa: E402
from staging import RetracingWarning  # noqa: E402


def _same(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if type(a) is int:
        return a == b
    return np.asarray(a).tobytes() == np.asarray(b).tobytes()


def _run(fn, *args):
    """(result or exception type, warning texts) of a call."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(*args)
        except Exception as exc:  # noqa: BLE001  (compared with eager's)
            result = type(exc)
    notes = (NumbaFallbackWarning, RetracingWarning)
    return result, [str(w.message) for w in caught if not issubclass(w.category, notes)]


def _check(fn, *calls, compiled=True):
    staged = staging.function(fn, jit_compile="numba")
    for args in calls:
        got, got_warnings = _run(staged, *args)
        want, want_warnings = _run(fn, *args)
        assert _same(got, want), (args, got, want)
        assert got_warnings == want_warnings, (args, got_warnings, want_warnings)
        if compiled:
            assert staged.get_concrete_function(*args).backend_fallback is None
    return staged


def test_collatz():
    _check(u.collatz, (np.int64(27),), (np.int64(837799),), (np.int64(1),), (np.int64(2**40 + 1),))


def test_sum_even():
    top = np.iinfo(np.int64).max - 1
    _check(
        u.sum_even,
        (np.arange(1000, dtype=np.int64),),
        (np.array([1, 3, 5], dtype=np.int64),),  # stays the Python int 0
        (np.array([top, top], dtype=np.int64),),  # overflows: eager's warning
        (np.array([], dtype=np.int64),),
    )


def test_bisection_and_newton():
    _check(u.bisection, u.BISECTION_ARGS, (np.float64(-1.0), np.float64(3.0), np.float64(0.5)))
    _check(u.bisection, (np.float64(0.0), np.float64(np.inf), np.float64(1e-3)))
    _check(u.newton_sqrt, u.NEWTON_ARGS, (np.array([4.0, 0.0, 2.0]), 1e-12))


def scale(x, n):
    total = 0.0
    i = 0
    while i < n:
        total = total + x / (n - i - 1)
        i += 1
    return total


def triple(n):
    k = 0
    while k < 2:
        n = 3 * n + 1
        k += 1
    return n, n * -7


def test_products_by_a_literal_check_their_range():
    top = np.iinfo(np.int64).max
    _check(triple, (np.int64(5),), (np.int64(top // 9),), (np.int64(top // 3),))
    _check(triple, (np.int64(-top // 9),), (np.int64(-top // 3),), (np.int64(top // 63),))


def test_float_division_by_zero_reruns():
    _check(scale, (np.float64(1.0), np.int64(3)), (np.float64(2.0), np.int64(1)))
    with np.errstate(divide="raise"):
        _check(scale, (np.float64(2.0), np.int64(2)))


def python_ints(n):
    x = n
    while x < 10**30:
        x = x * 1000
    return x


def test_python_int_beyond_int64_reruns():
    staged = _check(python_ints, (7,), (2**62,))
    assert staged(7) == 7 * 1000**10


def floor_mod(a, b):
    k = 0
    while k < 3:
        a = a // b + a % b
        k += 1
    return a


def test_integer_division_by_zero_and_index_errors():
    _check(floor_mod, (np.int64(100), np.int64(7)), (np.int64(100), np.int64(0)))
    _check(floor_mod, (np.int64(-(2**63)), np.int64(-1)))
    _check(u.sum_even, (np.arange(5, dtype=np.int64),))


def pick(xs, i):
    total = 0
    while i < 4:
        total += xs[i]
        i += 1
    return total


def test_index_out_of_bounds_is_eagers_error():
    _check(
        pick,
        (np.arange(4, dtype=np.int64), np.int64(-2)),
        (np.arange(2, dtype=np.int64), np.int64(0)),
    )


def smallest(x):
    return np.sort(x)[0]


def test_fallback_note_names_the_op_once():
    staged = staging.function(smallest, jit_compile="numba")
    x = np.array([3.0, 1.0, 2.0])
    with pytest.warns(NumbaFallbackWarning, match=r"'sort'.*test_numba_backend\.py:\d+"):
        result = staged(x)
    assert _same(result, smallest(x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        staged(x)  # (no second note)
    assert "sort" in staged.get_concrete_function(x).backend_fallback


def test_zero_d_array_argument_runs_on_the_interpreter():
    staged = _check(u.collatz, (np.int64(6),))
    for n in (1, 6, 6):  # (the later calls by Function's fast path)
        zero_d = np.array(n, dtype=np.int64)
        assert _same(staged(zero_d), u.collatz(zero_d))


def test_arrays_of_another_layout_by_the_fast_path():
    x = np.arange(12)
    staged = _check(u.sum_even, (x,))
    for view in (x[::-1], x.reshape(3, 4)[:, 0].copy(), x.astype(np.int32)):
        for _ in range(2):  # (the second call by Function's fast path)
            assert _same(staged(view), u.sum_even(view))


def test_bad_jit_compile_value():
    with pytest.raises(ValueError, match="'numba'"):
        staging.function(u.collatz, jit_compile="numbaa")


def test_source_is_the_compiled_function():
    staged = staging.function(u.collatz, jit_compile="numba")
    cf = staged.get_concrete_function(np.int64(3))
    assert "def graph_fn(a0):" in cf.executable_source
    staged(np.int64(3))
    assert cf._compiled.compile_seconds is not None  # noqa: SLF001


def test_a_saved_function_loads_compiled_by_numba(tmp_path):
    collatz = staging.function(u.collatz)
    collatz(np.int64(27))
    staging.save(collatz, tmp_path / "collatz.stg")
    loaded = staging.load(tmp_path / "collatz.stg", jit_compile="numba")
    for n in (np.int64(27), np.int64(837799), np.int64(1)):
        assert _same(loaded(n), u.collatz(n))


def column_max(x):
    return np.max(x, axis=0), np.sum(x, axis=0), np.any(x > 0, axis=0)


def test_a_reduction_along_axis_0_is_not_a_whole_array_reduction():
    # (axis=0 equals False: it once passed for "no axis" and gave a scalar)
    x = np.arange(-4.0, 4.0).reshape(2, 4)
    _check(column_max, (x,), compiled=False)


def shifted(x):
    return x + np.float64(np.inf), x * np.float64(-np.nan), x - np.float64(-np.inf)


def test_non_finite_constants_compile():
    staged = _check(shifted, (np.float64(1.5),), (np.float64(-0.0),))
    assert np.signbit(staged(np.float64(1.5))[1]) == np.signbit(shifted(np.float64(1.5))[1])


def test_source_numba_refuses_runs_on_the_interpreter(monkeypatch):
    from runtime.numba_backend import runner

    def bad_source(lowering):
        return "def graph_fn(a0):\n    return np.float64('not a number')\n"

    monkeypatch.setattr(runner.Lowering, "function", bad_source)
    staged = staging.function(u.collatz, jit_compile="numba")
    with pytest.warns(NumbaFallbackWarning, match="numba could not compile it"):
        assert _same(staged(np.int64(27)), u.collatz(np.int64(27)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _same(staged(np.int64(6)), u.collatz(np.int64(6)))  # (no second note)
    assert "could not compile" in staged.get_concrete_function(np.int64(6)).backend_fallback


def narrow_sum(x, y):
    total = x
    k = 0
    while k < 3:
        total = total * y + x - y
        k += 1
    return total, total // y, total % y, -total, x < y, x / y


@pytest.mark.parametrize(
    "dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
)
def test_integer_scalars_of_every_dtype_warn_as_eager(dtype):
    top = np.iinfo(dtype).max
    _check(
        narrow_sum,
        (dtype(2), dtype(1)),
        (dtype(3), dtype(2)),  # overflows int8 and uint8: eager's warning
        (dtype(top), dtype(2)),  # overflows: eager's warning
        (dtype(0), dtype(0)),  # a zero divisor: eager's warning
    )


def float_steps(x, y):
    z = x * y + 0.1
    return z / y, z - 1e30, -z, z < 0.1, abs(z)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_scalars_round_in_their_dtype(dtype):
    _check(
        float_steps,
        (dtype(1.5), dtype(3.0)),
        (dtype(0.1), dtype(-0.0)),
        (dtype(np.nan), dtype(1.0)),
        (dtype(3e38), dtype(10.0)),  # float32 overflows: eager's warning
    )


def mixed(a, b, n):
    return a + b, a * n, a < n, b - n, a == n


def test_mixed_dtypes_promote_as_numpy():
    _check(mixed, (np.int8(3), np.int16(300), np.int32(7)))
    _check(mixed, (np.uint8(3), np.float32(0.5), 7))
    _check(mixed, (np.uint64(2**63), np.int64(1), np.int64(2**63 - 1)))  # exact comparisons
    _check(mixed, (np.uint64(2**64 - 1), np.uint64(1), 2))  # overflows: eager's warning


def elementwise(x, y, n):
    return x + y, x * n, x - y < n, -x, x // n, x % n, abs(x)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64, np.uint64])
def test_integer_arrays_wrap_as_numpy(dtype):
    info = np.iinfo(dtype)
    x = np.array([info.min, info.max, 0, 7], dtype=dtype)
    y = np.array([[1], [2]], dtype=dtype)  # broadcasts
    _check(elementwise, (x, y, dtype(3)), (x, y, dtype(0)), (x[:0], y, dtype(5)))


def float_arrays(x, y, s):
    z = x * y + s
    return z / y, np.sqrt(np.abs(z)), z - s > x, np.max(z), np.sum(x > 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_arrays_give_numpys_bits(dtype):
    x = np.array([1.5, -2.25, 0.1, 3.0], dtype=dtype)
    y = np.array([0.3, 7.0, -1.0, 2.0], dtype=dtype)
    _check(float_arrays, (x, y, dtype(0.7)), (x, y, 0.7), (x, np.zeros(4, dtype), 0.7))
    _check(float_arrays, (x, np.array([np.nan, 1, 1, 1], dtype), 0.7))


def test_a_loop_counter_below_an_arrays_length_is_not_checked():
    staged = _check(u.sum_even, (np.arange(10, dtype=np.int64),))
    source = staged.get_concrete_function(np.arange(10, dtype=np.int64)).executable_source
    assert "_h.index" not in source
    assert "_h.add_int(w1, 1)" not in source and "_h.add_int" in source  # (the sum's is kept)
    spec = staging.TensorSpec([None], np.int64)
    unknown = staging.function(u.sum_even, jit_compile="numba", input_signature=[spec])
    for xs in (np.arange(7), np.arange(0), np.array([2**62, 2**62, 2**62])):
        assert _same(unknown(xs), u.sum_even(xs))
    assert "_h.index" not in unknown.get_concrete_function().executable_source


def test_a_counter_of_unknown_start_keeps_its_bounds_check():
    _check(pick, (np.arange(5), np.int64(-3)), (np.arange(3), np.int64(0)))


def test_float16_stays_on_the_interpreter_with_the_note():
    staged = staging.function(u.add_one, jit_compile="numba")
    x = np.float16(1.5)
    with pytest.warns(NumbaFallbackWarning, match="f16"):
        assert _same(staged(x), u.add_one(x))


# -- lists of numbers: appends, reads, pops and np.stack compiled; the interpreter's errors by a
# rerun


def test_euler_compiles():
    staged = _check(u.euler, u.EULER_ARGS, (np.float64(2.0), np.float64(0.1), np.int64(0)))
    assert ".append(" in staged.get_concrete_function(*u.EULER_ARGS).executable_source


def running_max(x, n):
    best = [x[0]]
    for i in range(1, n):
        if x[i] > best[-1]:
            best.append(x[i])
        else:
            best.append(best[-1])
    return np.stack(best)


def test_reads_from_the_end():
    x = np.array([3.0, 1.0, 4.0, 1.0, 5.0])
    _check(
        running_max,
        (x, np.int64(5)),
        (x, np.int64(1)),
        (x, np.int64(0)),
        (x, np.int64(6)),  # x[5]: eager's IndexError
    )


def squares_popped(n):
    squares = []
    k = 0
    while k < n:
        squares.append(k * k)
        k += 1
    total = 0
    while squares:
        total += squares.pop()
    return total, len(squares)


def test_python_ints_pop_and_len():
    _check(squares_popped, (np.int64(10),), (np.int64(0),), (np.int64(1),))


def read_at(x, n, i):
    seen = []
    for k in range(n):
        seen.append(x[k] * 2.0)
    return seen[i]


def test_a_read_out_of_range_is_eagers_index_error():
    x = np.arange(4.0)
    for i in (2, -1, 4, -5):
        _check(read_at, (x, np.int64(4), np.int64(i)))


def halves(n):
    values = []
    for k in range(n):
        values.append(float(k) / 2)
    return np.array(values)


def test_np_array_of_a_list():
    _check(halves, (np.int64(5),), (np.int64(1),), (np.int64(0),))


def squares(n):
    values = []
    for k in range(n):
        values.append(k * k)
    return np.array(values)  # (empty: a float64 array, not the int64 one traced)


def test_np_array_of_an_empty_list_is_the_interpreters_error():
    staged = staging.function(squares, jit_compile="numba")
    assert _same(staged(np.int64(3)), squares(np.int64(3)))
    assert staged.get_concrete_function(np.int64(3)).backend_fallback is None
    with pytest.raises(ValueError, match="empty list converted to an array"):
        staged(np.int64(0))


def returns_list(n):
    out = []
    for k in range(n):
        out.append(k)
    return out


def test_a_returned_list_stays_on_the_interpreter_with_the_note():
    staged = staging.function(returns_list, jit_compile="numba")
    with pytest.warns(NumbaFallbackWarning, match="it returns a list"):
        assert staged(np.int64(3)) == returns_list(np.int64(3))


def mixed_kinds(x, n):
    out = []
    for k in range(n):
        out.append(x[k])
    out.append(0.0)  # a Python float after NumPy scalars: elements of two kinds
    return out[-1], out[0]


def test_elements_of_two_kinds_stay_on_the_interpreter():
    staged = staging.function(mixed_kinds, jit_compile="numba")
    x, n = np.arange(3.0), np.int64(3)
    with pytest.warns(NumbaFallbackWarning):
        got = staged(x, n)
    assert [type(v) for v in got] == [type(v) for v in mixed_kinds(x, n)]


def conversions(x, n):
    total = 0
    for k in range(n):
        total += int(x * k)
    return total, float(n), int(x > 1.0), float(x > 1.0)


@pytest.mark.parametrize("x", [2.75, -2.75, 0.0, np.nan, np.inf, 1e300])
def test_int_and_float_of_numbers_as_python(x):
    _check(conversions, (np.float64(x), np.int64(3)), (np.float64(x), np.int64(0)))


def overflow_then_broadcast(x, y):
    return (x * 1e308) * 10.0 + y


def test_a_chain_broadcast_against_an_empty_axis_keeps_its_links_checked():
    # (x * 1e308) * 10.0 overflows (eager warns) and `+ y` of an empty y drops the infinity: the
    # links' checks cannot be left to the end of the chain
    _check(
        overflow_then_broadcast,
        (np.array([5.0]), np.zeros(0)),
        (np.array([5.0]), np.zeros(3)),
        (np.array([1e-300]), np.zeros(0)),
    )


def newton_step(a, x):
    return 0.5 * (x + a / x)


def test_a_chain_of_ufuncs_is_one_expression_checked_at_its_end():
    staged = _check(
        newton_step,
        (np.linspace(1.0, 2.0, 5), np.ones(5)),
        (np.linspace(1.0, 2.0, 5), np.zeros(5)),  # a / 0: eager's warning, by a rerun
    )
    source = staged.get_concrete_function(np.ones(5), np.ones(5)).executable_source
    assert "_h.all_finite(np.multiply(0.5, np.add(a1, np.divide(a0, a1))))" in source


def converted(x, y, n):
    a = x.astype(np.int32)
    b = y.astype(np.float32)
    c = x.astype(np.uint8)
    d = y.astype(bool)
    e = np.float32(x[0]) + np.int16(n)
    f = np.int64(x[1])
    return a, b, c, d, e, f, x.astype(np.float64) * 2


@pytest.mark.parametrize(
    "x",
    [
        [1.5, -2.7, 3.0],
        [255.9, 0.0, -0.0],
        [np.nan, 1.0, 2.0],  # NaN to an int: eager's warning and value
        [1e10, 2.0, 3.0],  # beyond int32
        [-1.0, 2.0, 3.0],  # a negative float to uint8
        [3e38, 1e300, 2.0],  # 1e300 to float32 overflows
    ],
)
def test_astype_converts_as_numpy(x):
    staged = _check(
        converted,
        (np.array(x), np.array(x[::-1]), np.int64(7)),
        (np.array(x, dtype=np.float32), np.array(x), np.int64(-3)),
        compiled=False,
    )
    args = (np.ones(3), np.ones(3), np.int64(1))
    staged(*args)
    assert staged.get_concrete_function(*args).backend_fallback is None


def int_casts(x, k):
    return x.astype(np.int8), x.astype(np.float32), np.uint16(k), x.astype(bool), np.float64(k)


@pytest.mark.parametrize("k", [5, 70000, -1, 2**62])
def test_integer_casts_wrap_as_numpy(k):
    x = np.array([1, 300, -129, 2**40], dtype=np.int64)
    _check(int_casts, (x, k), compiled=False)


# -- raise, try: the path without an error compiled; an error runs the call again on the
# interpreter, which raises the user's exception or runs the `except` clause


class NotFound(LookupError):
    pass


def find_first(xs, target, n):
    for i in range(n):
        if xs[i] == target:
            return i
    raise NotFound(f"{target} not in the first {n} elements")


def test_a_raise_is_the_users_exception_by_a_rerun():
    xs = np.array([3.0, 1.0, 4.0, 1.0])
    staged = _check(find_first, (xs, 4.0, np.int64(4)), (xs, 9.0, np.int64(4)))
    with pytest.raises(NotFound, match="9.0 not in the first 3 elements"):
        staged(xs, 9.0, np.int64(3))
    assert (
        "raise _h.Rerun()" in staged.get_concrete_function(xs, 4.0, np.int64(4)).executable_source
    )


def safe_ratio(a, b):
    try:
        q = int(a) // int(b)
    except ZeroDivisionError:
        q = -1
    finally:
        a = a + 1
    return q, a


def test_try_compiles_its_body_and_reruns_for_the_except_clause():
    _check(
        safe_ratio,
        (np.int64(7), np.int64(2)),
        (np.int64(7), np.int64(0)),  # ZeroDivisionError: the `except` clause, by a rerun
        (np.int64(-7), np.int64(2)),
    )


def unrolled(x):
    total = 0.0
    for i in range(x.shape[0]):  # (a static shape: the loop is unrolled while tracing)
        if x[i] > 0:
            total += x[i] * 2.0
        else:
            total -= x[i]
    return total


def test_a_graph_too_long_to_compile_quickly_runs_on_the_interpreter_with_the_note():
    staged = staging.function(unrolled, jit_compile="numba")
    x = np.linspace(-1.0, 1.0, 200)
    with pytest.warns(NumbaFallbackWarning, match=r"lines, more than \d+: .*input_signature"):
        assert _same(staged(x), unrolled(x))
    short = np.linspace(-1.0, 1.0, 4)
    _check(unrolled, (short,))  # (a short unrolled loop compiles)
    symbolic = staging.function(
        unrolled, jit_compile="numba", input_signature=[staging.TensorSpec([None], np.float64)]
    )
    assert _same(symbolic(x), unrolled(x))
    assert symbolic.get_concrete_function(x).backend_fallback is None


def copies(x, n):
    y = np.copy(x)
    z = np.zeros_like(x)
    for i in range(n):
        z[0, i] = y[0, i] * 2.0
    return y, z, np.ones_like(x, dtype=np.int64)


@pytest.mark.parametrize("order", ["C", "F"])
def test_copies_keep_the_arrays_order(order):
    x = np.asarray(np.arange(12.0).reshape(3, 4), order=order)
    staged = _check(copies, (x, np.int64(3)))
    for got, want in zip(staged(x, np.int64(3)), copies(x, np.int64(3))):
        assert got.flags["F_CONTIGUOUS"] == want.flags["F_CONTIGUOUS"]
        assert got.strides == want.strides


def uint8_of_either(n, c):
    return np.uint8(n if c else 300)  # (a Python int must fit; an int64 wraps)


def test_a_conversion_of_a_value_of_two_kinds_keeps_each_kinds_rule():
    staged = staging.function(uint8_of_either, jit_compile="numba")
    for args in [(np.int64(300), np.bool_(True)), (np.int64(7), np.bool_(False))]:
        got, want = _run(staged, *args), _run(uint8_of_either, *args)
        assert _same(got[0], want[0]), (args, got, want)


def windows(x, a, b, s, n):
    total = 0
    for k in range(n):
        w = x[k : k + 3]
        total += np.sum(w) if w.shape[0] == 3 else -1
    return total, x[a:b], x[a:b:s], x[::-1], x[b:a:-1], x[-2:]


@pytest.mark.parametrize(
    "a, b, s", [(1, 4, 1), (0, 100, 2), (-3, -1, 1), (4, 1, -1), (2, 2, 3), (-100, 3, 1)]
)
def test_slices_are_numpys_views(a, b, s):
    x = np.arange(6)
    staged = _check(windows, (x, np.int64(a), np.int64(b), np.int64(s), np.int64(4)))
    args = (x, np.int64(a), np.int64(b), np.int64(s), np.int64(4))
    shared = [[np.shares_memory(v, x) for v in out[1:]] for out in (staged(*args), windows(*args))]
    assert shared[0] == shared[1]  # (views of x, as eagerly; an empty one shares nothing)


def test_a_slice_step_of_zero_is_numpys_value_error():
    x = np.arange(6)
    _check(windows, (x, np.int64(1), np.int64(4), np.int64(1), np.int64(2)))
    staged = staging.function(windows, jit_compile="numba")
    staged(x, np.int64(1), np.int64(4), np.int64(1), np.int64(2))
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        staged(x, np.int64(1), np.int64(4), np.int64(0), np.int64(2))


def rows(m, i):
    return m[i, 1:], m[1:, i], m[i], m[:, ::2]


def test_rows_and_columns():
    m = np.arange(12.0).reshape(3, 4)
    _check(rows, (m, np.int64(1)), (m, np.int64(-1)), (m, np.int64(3)))  # (3: IndexError)
