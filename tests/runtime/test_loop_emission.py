"""How staged loops are written out: a fused run's size test hoisted out of its loop, a Python
int counter converted once for a float64 array, loop bookkeeping nothing reads dropped, and
range loops whose count is zero or negative. Results are compared with eager, bit for bit."""

import numpy as np
import pytest

import staging


def exp_series(x, n):
    term = np.ones_like(x)
    total = np.ones_like(x)
    for i in range(1, n):
        term = term * x / i
        total = total + term
    return total


@pytest.mark.parametrize("size", [0, 3, 5000])
def test_a_fused_run_in_a_loop_tests_the_size_of_a_captured_array_once(size):
    x = np.linspace(-2.0, 2.0, size)
    with staging.optimizer_options(fusion_min_bytes=1024, fusion_chunk_bytes=4096):
        staged = staging.function(exp_series)
        cf = staged.get_concrete_function(
            staging.TensorSpec([None], np.float64), staging.TensorSpec([], np.int64)
        )
        source = cf.executable_source
        got = staged(x, np.int64(15))
    hoisted = [line for line in source.splitlines() if "_big = " in line]
    assert len(hoisted) == 1 and ".size >= " in hoisted[0]
    loop = next(i for i, line in enumerate(source.splitlines()) if line.strip().startswith("for "))
    assert source.splitlines().index(hoisted[0]) < loop  # before the loop, not in it
    expected = exp_series(x, np.int64(15))
    assert got.dtype == expected.dtype and np.array_equal(got, expected)


def scaled_sum(x, n, k):
    acc = np.zeros_like(x)
    for i in range(n):
        acc = acc + x / (i + k) - (i * k) + np.maximum(x, i) * (x < i + k)
    return acc


_scaled_sum = staging.function(scaled_sum)


@pytest.mark.parametrize("k", [1, 3, 2**53 + 1, -(2**62) + 7, 2**63 - 40])
def test_a_python_int_counter_with_a_float64_array_gives_numpys_answer(k):
    x = np.array([0.1, -2.5, 1e300, -0.0, np.inf, 3.0, 2.0**53])
    staged = _scaled_sum
    with np.errstate(all="ignore"):
        got, expected = staged(x, np.int64(4), k), scaled_sum(x, np.int64(4), k)
    assert got.dtype == expected.dtype
    assert np.array_equal(got, expected, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(expected))
    source = staged.get_concrete_function(x, np.int64(4), k).executable_source
    assert "float(" in source


def sum_positive(values):
    total = 0.0
    for v in values:
        if v <= 0:
            continue
        total += v
    return total


def test_bookkeeping_nothing_reads_is_not_written():
    staged = staging.function(sum_positive)
    source = staged.get_concrete_function(staging.TensorSpec([None], np.float64)).executable_source
    assert "len(" not in source  # neither the loop's bound nor its final count
    for values in (np.array([1.5, -2.0, 3.0]), np.linspace(-1.0, 1.0, 9), np.array([4.0])):
        got, expected = staged(values), sum_positive(values)
        assert type(got) is type(expected) and got == expected


def count_down(x, start, stop):
    total = x * 0
    for i in range(start, stop, 3):
        total = total + x * i
    for i in range(start, stop, -2):
        total = total - i
    return total


_count_down = staging.function(count_down)


@pytest.mark.parametrize("start, stop", [(0, 10), (10, 0), (5, 5), (-7, 20), (20, -7), (3, 4)])
def test_range_loops_of_zero_or_negative_counts_run_as_python_does(start, stop):
    staged = _count_down
    x = np.float64(1.5)
    got, expected = (
        staged(x, np.int64(start), np.int64(stop)),
        count_down(x, np.int64(start), np.int64(stop)),
    )
    assert got == expected and type(got) is type(expected)


def two_arrays(x, y, k):
    return x * k + y


def test_calls_with_arrays_and_scalars_find_the_trace_of_their_shapes():
    staged = staging.function(two_arrays)
    shapes = [(3,), (4,), (3,), (2, 2), (4,)]
    for shape in shapes:
        x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
        for y in (np.float64(2.0), np.ones(shape, np.float32)):
            got, expected = staged(x, y, np.int64(3)), two_arrays(x, y, np.int64(3))
            assert got.dtype == expected.dtype and got.shape == expected.shape
            assert np.array_equal(got, expected)
    assert staged.tracing_count == 6  # 3 shapes x 2 layouts; the repeats are cache hits
    assert staged(np.ones(3, np.float32), np.float64(1.0), np.int64(1)).dtype == np.float64
    assert staged.tracing_count == 7


def printing(x, y):
    staging.print("x is", x, "and", 3, sep=" | ", end="!\n")
    staging.print("no values")
    staging.print(y, x, sep="")
    return x + y


def test_a_staged_print_writes_what_print_writes(capsys):
    staged = staging.function(printing)
    for args in ((np.float64(1.5), np.int32(2)), (np.array([1.0, -0.0]), np.float32(np.nan))):
        expected = printing(*args)
        eager = capsys.readouterr().out
        got = staged(*args)
        assert capsys.readouterr().out == eager
        assert np.array_equal(got, expected, equal_nan=True)
    with pytest.raises(TypeError):  # print's own check of sep
        staging.function(lambda x: staging.print(x, sep=5))(np.float64(1.0))


def _counter_times_array(x, n):
    i = np.int64(0)
    y = x * i
    while i < n:
        i = i + 1
        y = x * i  # the stepped counter read by arithmetic: it must stay an int64
    return y


def _counter_against_complex(v, n):
    k = 0
    while k < n:
        k += 1
        v = v + 0  # stepped by an int literal, like a counter
        if (1.0j > v) and (v < v):  # NumPy orders a complex and an int64; Python does not
            break
    return k, v


def test_a_counter_runs_as_a_python_int_only_where_every_use_gives_numpys_answer():
    # (seed 349) the stepped value of a counter was a Python int too, whatever read it: int32
    # array * the counter gave int32 (int64 eagerly), and `1j > counter` raised TypeError
    x = np.arange(3, dtype=np.int32)
    for f, args in (
        (_counter_times_array, (x, np.int64(3))),
        (_counter_against_complex, (np.int64(3), np.int64(3))),
    ):
        got, want = staging.function(f)(*args), f(*args)
        assert repr(got) == repr(want), f.__name__


def _deep_branches_source(cases: int) -> str:
    """A loop whose body is an elif chain of `cases` branches (deeper than the executor nests:
    their bodies become helper functions), reading values from outside and updating loop
    variables in place."""
    lines = [
        "def deep(x, xs, scale, n):",
        "    total = x * 0.0",
        "    count = 0",
        "    i = 0",
        "    while i < n:",
        "        k = i % " + str(cases),
    ]
    for c in range(cases):
        keyword = "if" if c == 0 else "elif"
        lines.append(f"        {keyword} k == {c}:")
        if c % 3 == 0:
            lines.append(f"            total = total + x * {c}.0 + scale")
        elif c % 3 == 1:
            lines += ["            for v in xs:", "                total = total + v"]
        else:
            lines.append("            count = count + len(xs)")
    lines += ["        i = i + 1", "    return total, count, i"]
    return "\n".join(lines) + "\n"


def test_bodies_emitted_as_helper_functions_take_what_they_read(tmp_path, monkeypatch):
    import importlib
    import sys

    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "deep_branches_mod.py").write_text(_deep_branches_source(50))
    mod = importlib.import_module("deep_branches_mod")
    monkeypatch.setitem(sys.modules, "deep_branches_mod", mod)
    staged = staging.function(mod.deep)
    args = (np.float64(1.5), np.array([0.25, -1.0, 2.0]), np.float64(0.5), np.int64(60))
    assert "def _body" in staged.get_concrete_function(*args).executable_source
    got, expected = staged(*args), mod.deep(*args)
    assert [type(g) for g in got] == [type(e) for e in expected]
    assert [float(g) for g in got] == [float(e) for e in expected]
