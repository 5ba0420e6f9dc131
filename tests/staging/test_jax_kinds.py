"""Values of several kinds under jit_compile=True: a value that is a Python number on one path and
a NumPy scalar of the same dtype on another (`float | f64[]`, `int | i64[]`, `bool | bool[]`,
`complex | c128[]`) compiles as its array and a kind tag, and the caller gets what eager Python
gives: the same Python types, values within the float tolerance of docs/jax.md. Values whose
kinds differ in dtype or shape (`int | u8[]`) are refused, naming the user's line.

test_kinds' programs (the differential fuzzer's joins) run here compiled; most of them join kinds
of different dtypes, and their refusal is checked too."""

from __future__ import annotations

import cmath
import math
import warnings

import numpy as np
import pytest

pytest.importorskip("jax")

import test_kinds  # noqa: E402
from test_kinds import line_of  # noqa: E402

import staging  # noqa: E402
from runtime.jax_lowering import LoweringError  # noqa: E402
from staging import errors  # noqa: E402

RTOL, ATOL = 1e-6, 1e-12  # docs/jax.md

# each case stages its program anew, for each backend: retracing on purpose
pytestmark = pytest.mark.filterwarnings("ignore::staging.RetracingWarning")


def assert_agrees(staged, eager):
    """The same Python types, recursively; integers and bools exactly, floats within tolerance."""
    assert type(staged) is type(eager), f"{staged!r} ({type(staged)}) vs {eager!r} ({type(eager)})"
    if isinstance(eager, (tuple, list)):
        assert len(staged) == len(eager)
        for s, e in zip(staged, eager):
            assert_agrees(s, e)
    elif isinstance(eager, (np.ndarray, np.generic)):
        assert staged.dtype == eager.dtype and np.shape(staged) == np.shape(eager)
        if eager.dtype.kind in "fc":
            np.testing.assert_allclose(staged, eager, rtol=RTOL, atol=ATOL)
        else:
            assert np.asarray(staged).tobytes() == np.asarray(eager).tobytes(), (staged, eager)
    elif isinstance(eager, float):
        assert (math.isnan(staged) and math.isnan(eager)) or math.isclose(
            staged, eager, rel_tol=RTOL, abs_tol=ATOL
        ), (staged, eager)
    elif isinstance(eager, complex):
        assert cmath.isclose(staged, eager, rel_tol=RTOL, abs_tol=ATOL), (staged, eager)
    else:
        assert staged == eager


def _outcome(func, args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return "value", func(*args)
        except Exception as exc:  # noqa: BLE001 - compared with the other outcome
            return "raises", exc


def assert_compiled_as_eager(func, args):
    """Compiled (traced and compiled, then called again from the cache) gives eager's result,
    Python types included, or raises eager's error type."""
    compiled = staging.function(func, jit_compile=True)
    kind, eager = _outcome(func, args)
    for _ in range(2):
        staged_kind, staged = _outcome(compiled, args)
        assert not isinstance(staged, LoweringError), staged
        if kind == "raises":
            assert staged_kind == "raises", f"{func.__name__}{args}: {staged!r}, eager {eager!r}"
            assert isinstance(staged, type(eager)), f"{staged!r} vs {eager!r}"
            assert not isinstance(staged, errors.StagingError), staged
        else:
            assert staged_kind == "value", f"{func.__name__}{args}: compiled raises {staged!r}"
            assert_agrees(staged, eager)


# -- test_kinds' programs compiled ------------------------------------------------------------

# (program, case) of test_kinds.PROGRAMS that compile: their values share one dtype and shape
# on every path, or the path is known when tracing (an empty loop)
COMPILED = {
    ("accumulate_then_sqrt", 2),  # (of no iteration: no value of several kinds)
    ("first_iteration_differs", 1),
    ("returned_python_float", 0),
    ("returned_python_float", 1),
    ("accumulate_rows", 1),
    ("uint32_of_float_path", 0),
    ("uint32_of_float_path", 1),
    ("uint32_of_float_path", 4),
    ("uint8_of_300", 1),
    ("compare_with_complex_after_loop", 0),
    ("compare_with_complex_after_loop", 1),
    ("floor_divide_complex_or_int", 0),
    ("in_place_with_run_time_int", 1),
}
# cases that compile and meet a documented difference (docs/jax.md)
_OUT_OF_RANGE = (
    "a Python number out of range for the dtype it becomes: the interpreter raises "
    "OverflowError as eagerly, XLA wraps"
)
DIFFERENT = {
    ("uint32_of_float_path", 2): _OUT_OF_RANGE,
    ("uint32_of_float_path", 3): _OUT_OF_RANGE,
    ("uint8_of_300", 0): _OUT_OF_RANGE,
}
# the other cases are refused: a value of kinds of different dtypes or shapes, or (these programs)
WRITES_ARGUMENT = {"in_place_with_run_time_int"}  # a 0-d array argument written in place
RANDOM = {"unused_shift_of_a_box_attribute"}  # np.random: run-time randomness


def _numbered(programs):
    """(func, index, args): each program's cases numbered in order (a program may be listed
    more than once)."""
    seen: dict = {}
    for func, cases in programs:
        for args in cases:
            index = seen[func.__name__] = seen.get(func.__name__, -1) + 1
            yield func, index, args


KINDS_CASES = [
    pytest.param(f, i, args, id=f"{f.__name__}-{i}")
    for f, i, args in _numbered(test_kinds.PROGRAMS)
]


@pytest.mark.parametrize("func, index, args", KINDS_CASES)
def test_kinds_programs_compiled_give_eagers_answer_or_are_refused(func, index, args):
    key = (func.__name__, index)
    if key in DIFFERENT:
        pytest.skip(f"a documented difference of the JAX backend: {DIFFERENT[key]}")
    if key in COMPILED:
        assert_compiled_as_eager(func, args)
        return
    with pytest.raises(LoweringError) as info:
        staging.function(func, jit_compile=True)(*args)
    message = str(info.value)
    assert f"{test_kinds.__file__}:" in message and "cannot compile" in message
    if func.__name__ in WRITES_ARGUMENT:
        assert "writes in place into argument" in message
    elif func.__name__ in RANDOM:
        assert "np.random.uniform" in message and "py_function" in message
    else:
        assert "depending on the path taken, kinds of different dtypes or shapes" in message


# -- values of several kinds that share one dtype -----------------------------------------------


def accumulate_float(n, x):
    total = 0.0  # the Python 0.0 when the loop runs no iteration, a float64 scalar after
    i = 0
    while i < n:
        total += x[i]
        i += 1
    return total, x * total, total > 1, total / 2


def accumulate_int(n, x):
    total = 0
    i = 0
    while i < n:
        total += x[i]
        i += 1
    return total, total * 2, total // 2, -total, total % 3, total**2


def accumulate_complex(n, x):
    z = 0j
    i = 0
    while i < n:
        z = z + x[i]
        i += 1
    return z, z * 2, abs(z)


def flag_set_in_loop(n, x):
    found = False
    i = 0
    while i < n:
        if x[i] > 2:
            found = x[i] > 2  # a NumPy bool
        i += 1
    return found, not found, found & True, found | False


def join_in_branch(c):
    x = 0.0
    if c > 0:
        x = c * 2.0
    return x, x + 1.0, x * c


def union_inside_loop_and_branch(x, c):
    t = 0.0
    if c > 0:
        t = c * 1.0
    s = 0.0
    for v in x:
        if v > 1:
            s = s + t
    return s, t


def negate_flag(n, x):
    flag = False
    i = 0
    while i < n:
        flag = x[i] > 2
        i += 1
    return -flag  # -False is the int 0; `-` of a NumPy bool raises TypeError


_doubled = staging.function(lambda s: s * 2 + 1)


def into_a_staged_function(n, x):
    total = 0.0
    for i in range(n):
        total += x[i]
    return _doubled(total)


def _tripled(s):
    return s * 3


def into_a_helper(n, x):
    total = 0
    for i in range(n):
        total += x[i]
    return _tripled(total)


def list_of_joined_values(c, y):
    out = []
    for i in range(3):  # a Python loop: the list's indices are known while tracing
        v = 0.0
        if c > i:
            v = y * 2.0
        out.append(v)
    return out


def into_py_function(n, x):
    total = 0.0
    for i in range(n):
        total += x[i]
    return staging.py_function(
        lambda t: np.float64(len(type(t).__name__)), [total], staging.TensorSpec((), np.float64)
    )


def with_an_assert(n, x):
    total = 0
    for i in range(n):
        total += x[i]
    assert x[0] < 10, total  # (the message is formatted from the value of the path taken)
    return total


_w = staging.Variable(np.float64(2.0))


def with_a_variable(n, x):
    total = 0
    for i in range(n):
        total += x[i]
    return _w.read_value() * total, total * 1.5


_N = (np.int64(0), np.int64(3))  # loops of no iteration and of three, decided when called
_F64 = [(n, np.arange(1.0, 4.0)) for n in _N]
_I64 = [(n, np.arange(1, 4)) for n in _N]
UNIFORM = [
    (accumulate_float, _F64),
    (accumulate_int, _I64),
    (accumulate_complex, [(n, np.arange(3.0) + 1j) for n in _N]),
    (flag_set_in_loop, [(n, np.arange(3.0)) for n in (*_N, np.int64(2))]),
    (join_in_branch, [(np.float64(1.5),), (np.float64(-1.5),)]),
    (
        union_inside_loop_and_branch,
        [(np.arange(3.0), np.float64(2.0)), (np.arange(3.0), np.float64(-2.0))],
    ),
    (negate_flag, [(n, np.arange(3.0)) for n in _N]),
    (into_a_staged_function, _F64),
    (into_a_helper, _I64),
    (list_of_joined_values, [(np.float64(1.5), np.float64(2.0)), (np.float64(-1), np.float64(2))]),
    (into_py_function, _F64),
    (with_an_assert, _I64 + [(n, np.arange(10, 13)) for n in _N]),
    (with_a_variable, _I64),
    (test_kinds.assert_on_a_sum, [(n, np.arange(4, 8)) for n in (*_N, np.int64(2))]),
]


@pytest.mark.parametrize(
    "func, args",
    [
        pytest.param(f, a, id=f"{f.__name__}-{i}")
        for f, cases in UNIFORM
        for i, a in enumerate(cases)
    ],
)
def test_values_of_kinds_of_one_dtype_compile_with_eagers_types(func, args):
    test_kinds.assert_same_as_eager(func, args, jit_compile=False)  # the interpreter: exactly
    assert_compiled_as_eager(func, args)


@pytest.mark.parametrize("n", _N)
def test_a_failed_assert_says_what_the_interpreter_says(n):
    """Its message is formatted from the kind the path made (`0`, a Python int, or `33`)."""
    found = []
    for jit_compile in (False, True):
        with pytest.raises(AssertionError) as info:
            staging.function(with_an_assert, jit_compile=jit_compile)(n, np.arange(10, 13))
        found.append((str(info.value), info.value.__notes__))
    assert found[0] == found[1]
    assert found[1][0] == ("0" if n == 0 else "33")


def test_a_path_the_rule_refuses_raises_the_interpreters_error_at_its_line():
    interpreted = staging.function(negate_flag, jit_compile=False)
    compiled = staging.function(negate_flag, jit_compile=True)
    found = []
    for f in (interpreted, compiled, compiled):  # (each call raises its own error, one note)
        with pytest.raises(TypeError) as info:
            f(np.int64(3), np.arange(5.0))
        found.append((str(info.value), info.value.__notes__))
    assert found[0] == found[1] == found[2]
    assert f"{__file__}:{line_of(negate_flag, 'return -flag')}: " in found[1][1][0]
    assert compiled(np.int64(0), np.arange(5.0)) == 0
    assert type(compiled(np.int64(0), np.arange(5.0))) is int


@pytest.mark.parametrize("n", _N)
def test_staged_print_of_a_joined_value_prints_eagers_text(n, capsys):
    def printed(n, x):
        total = 0.0
        for i in range(n):
            total += x[i]
        print("total", total, total > 0)
        return total

    x = np.arange(1.0, 4.0)
    eager = printed(n, x)
    eager_text = capsys.readouterr().out
    compiled = staging.function(printed, jit_compile=True)
    for _ in range(2):
        assert_agrees(compiled(n, x), eager)
        assert capsys.readouterr().out == eager_text


def test_on_the_device_a_joined_value_is_its_jax_array():
    import jax

    f = staging.function(test_kinds.returned_python_float, jit_compile="device")
    for c, expected in ((np.float64(2.0), 4.0), (np.float64(-1.0), 0.0)):
        out = f(c)
        assert isinstance(out, jax.Array) and out.dtype == np.float64 and float(out) == expected


def test_kinds_of_different_dtypes_are_refused_naming_the_line():
    def joined(c, y):
        s = y if c > 0 else 3  # a uint8 scalar, or the Python int 3
        return np.exp(s)

    with pytest.raises(LoweringError) as info:
        staging.function(joined, jit_compile=True)(np.float64(1.0), np.uint8(2))
    message = str(info.value)
    assert message.startswith(f"{__file__}:{line_of(joined, 's = y if c > 0 else 3')}: ")
    assert "int | u8[] depending on the path taken, kinds of different dtypes or shapes" in message


def test_a_list_of_elements_of_several_kinds_written_in_a_staged_branch_is_refused():
    def branch_list(c, y):
        out = [0.0]
        if c > 0:
            out.append(y)  # a Python float and a float64 scalar in one list
        return out

    test_kinds.assert_same_as_eager(
        branch_list, (np.float64(1), np.float64(2)), jit_compile=False
    )  # interpreter
    with pytest.raises(LoweringError) as info:
        staging.function(branch_list, jit_compile=True)(np.float64(1), np.float64(2))
    message = str(info.value)
    assert message.startswith(f"{__file__}:{line_of(branch_list, 'if c > 0')}: ")
    assert "elements are of several kinds depending on the path (list[float | f64[]])" in message


def test_a_list_of_elements_of_different_dtypes_in_a_staged_branch_is_refused():
    """A Python float and a uint64 scalar: no buffer holds both (the earlier backend wrote the
    uint64 into a float64 buffer and returned np.float64(3.0) where eager gives np.uint64(3))."""

    def mixed_list(y, x):
        items = [0.5]
        if y > 0:
            items.append(x)
        return items

    assert mixed_list(np.int64(1), np.uint64(3)) == [0.5, np.uint64(3)]
    with pytest.raises(LoweringError) as info:
        staging.function(mixed_list, jit_compile=True)(np.int64(1), np.uint64(3))
    message = str(info.value)
    assert message.startswith(f"{__file__}:{line_of(mixed_list, 'if y > 0')}: ")
    assert "its result's elements are float | u64[] depending on the path taken" in message


def test_a_list_of_elements_of_several_kinds_grown_in_a_staged_loop_is_refused():
    """Its type says so (list[float | f64[]], each element what its path made it), and a list
    grown in a staged loop is one buffer of one dtype."""
    func = test_kinds.appended_in_a_staged_loop
    with pytest.raises(LoweringError) as info:
        staging.function(func, jit_compile=True)(np.int64(3), np.arange(4.0))
    message = str(info.value)
    assert message.startswith(f"{test_kinds.__file__}:{line_of(func, 'for i in range(n)')}: ")
    assert "elements are of several kinds depending on the path (list[float | f64[]])" in message


def test_every_listed_case_exists():
    cases = {(f.__name__, i) for f, i, _ in _numbered(test_kinds.PROGRAMS)}
    names = {name for name, _ in cases}
    assert COMPILED | set(DIFFERENT) <= cases
    assert WRITES_ARGUMENT | RANDOM <= set(names)
