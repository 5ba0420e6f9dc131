"""Compiled kernels (runtime/native.py): a fused run of float arithmetic compiled by numba to one
loop gives NumPy's bits, NumPy's warnings and errors, and leaves every other run to NumPy's
loops. The tests set the size threshold themselves, so small arrays go to kernels (and through
the vectorized loop's remainder)."""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np
import pytest
from _runtime_helpers import assert_bitwise, chain

import staging
from runtime import cache_dirs, native
from runtime.numba_backend import cache
from runtime.ops import elementwise

pytestmark = pytest.mark.skipif(not native._kernels_usable(), reason="numba is not installed")

NATIVE = dict(native_min_work=1, threads=1)


@pytest.fixture(autouse=True)
def kernel_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("STAGING_KERNEL_CACHE", str(tmp_path / "kernels"))


@pytest.fixture
def calls(monkeypatch):
    """The answers of every native kernel call made (True: its result stood)."""
    made = []
    original = native.Kernel.__call__

    def spy(self, n, *operands):
        made.append(original(self, n, *operands))
        return made[-1]

    monkeypatch.setattr(native.Kernel, "__call__", spy)
    return made


def staged(func, *args, options=NATIVE):
    """The concrete function of `func`, once its kernels are compiled (they compile in the
    background: until then its calls run on NumPy's loops)."""
    f = staging.function(func)
    with staging.optimizer_options(**options):
        concrete = f.get_concrete_function(*args)
    assert native.wait_for_kernels(120)
    return concrete


def mixed(x, y, s):
    a = x * y + s
    b = np.sqrt(np.abs(a)) - x / (y + 2.0)
    c = -b * b + np.square(a) - np.reciprocal(y + 3.0)
    return a, c * -0.0 + c


@pytest.mark.parametrize("n", [1, 127, 128, 129, 1000, 4099])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_chain_is_bitwise_the_eager_answer(n, dtype, calls):
    x = np.linspace(-3, 3, n, dtype=dtype)
    concrete = staged(chain, x)
    assert_bitwise(concrete(x), chain(x))
    assert calls == [True]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_several_inputs_a_zero_d_operand_and_an_escaping_value(dtype, calls):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(3001).astype(dtype)
    y = rng.uniform(0.5, 2.0, 3001).astype(dtype)
    s = dtype(0.375)
    concrete = staged(mixed, x, y, s)
    for got, want in zip(concrete(x, y, s), mixed(x, y, s)):
        assert_bitwise(got, want)
    assert calls == [True]
    s2 = dtype(-1.25)  # the 0-d operand is an argument of the kernel, not baked in
    for got, want in zip(concrete(x, y, s2), mixed(x, y, s2)):
        assert_bitwise(got, want)


def test_split_across_threads(calls):
    x = np.linspace(-1, 1, 10_001, dtype=np.float32)
    concrete = staged(chain, x, options=dict(native_min_work=1, threads=3, parallel_min_bytes=1))
    assert_bitwise(concrete(x), chain(x))
    assert calls == [True]


def test_nan_and_infinity_inputs_keep_their_bits(calls):
    x = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-310, 5e-324] * 40)
    concrete = staged(chain, x)
    assert_bitwise(concrete(x), chain(x))


@pytest.mark.parametrize("threads", [1, 3])
def test_overflow_warns_from_numpys_op(threads, calls):
    def grow(x):
        return (x * 1e30) * 1e30 + 1.0

    x = np.linspace(1, 2, 500, dtype=np.float32)
    x[:400] = 1e-30  # overflows in the last part only
    concrete = staged(grow, x, options=dict(NATIVE, threads=threads, parallel_min_bytes=1))
    with pytest.warns(RuntimeWarning, match="overflow encountered in multiply"):
        got = concrete(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_bitwise(got, grow(x))
    assert calls == [False]  # the flag sent the run to NumPy's loops
    with (
        np.errstate(over="raise"),
        pytest.raises(FloatingPointError, match="overflow encountered in multiply"),
    ):
        concrete(x)
    with np.errstate(over="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: the caller ignores overflow
        assert_bitwise(concrete(x), got)
    assert calls[-1] is True  # ...and the kernel's answer stood


def test_division_by_zero_and_invalid_as_numpy_reports_them(calls):
    def ratio(x, y):
        return (x - 1.0) / (y * 2.0) - 0.5

    x = np.array([1.0, 2.0, 0.0, 3.0] * 100)
    y = np.array([0.0, 0.0, 1.0, 2.0] * 100)
    concrete = staged(ratio, x, y)
    with warnings.catch_warnings(record=True) as eager:
        warnings.simplefilter("always")
        want = ratio(x, y)
    with warnings.catch_warnings(record=True) as got_warnings:
        warnings.simplefilter("always")
        got = concrete(x, y)
    assert_bitwise(got, want)
    assert (
        {str(w.message) for w in got_warnings}
        == {str(w.message) for w in eager}
        == {"divide by zero encountered in divide", "invalid value encountered in divide"}
    )


def test_subnormal_results_are_not_flushed(calls):
    def shrink(x):
        return (x * 1e-30) * 1e-10 + 0.0

    x = np.linspace(0.1, 1, 700, dtype=np.float32)
    concrete = staged(shrink, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # underflow is ignored by NumPy's default error state
        got = concrete(x)
    assert_bitwise(got, shrink(x))
    assert np.all(got != 0) and calls == [True]


@pytest.mark.parametrize(
    "func, args",
    [
        (
            lambda x, y: x * y + x - y,
            (np.ones(500, np.float32), np.ones(500)),
        ),  # float32 meets float64
        (lambda x: x * 3 + x - 7, (np.arange(500),)),  # integers
        (lambda x: np.exp(x * 2.0) + 1.0, (np.ones(500),)),  # not one correctly rounded op
        (lambda x: np.floor(x) * 2.0 + 1.0, (np.ones(500),)),  # not admitted
    ],
)
def test_runs_a_kernel_cannot_match_stay_with_numpy(func, args, calls):
    concrete = staged(
        func, *args, options=dict(NATIVE, fusion_min_bytes=1, elementwise_fusion="all")
    )
    assert_bitwise(concrete(*args), func(*args))
    assert calls == [] and "for f1_s" in concrete.executable_source  # fused, on NumPy's loops


def test_switched_off_or_without_numba(monkeypatch, calls):
    x = np.linspace(-3, 3, 300)
    off = staged(chain, x, options=dict(NATIVE, native_kernels=False, fusion_min_bytes=1))
    assert_bitwise(off(x), chain(x))
    monkeypatch.setitem(sys.modules, "numba", None)  # (as if it were not installed)
    monkeypatch.setattr(native, "_usable", None)
    none = staged(chain, x, options=dict(NATIVE, fusion_min_bytes=1))
    assert_bitwise(none(x), chain(x))
    assert calls == [] and "for f1_s" in none.executable_source  # NumPy's loops, chunk by chunk
    assert native._usable is False


def test_a_failed_compile_leaves_the_run_to_numpy(monkeypatch, calls):
    def failing():
        return [sys.executable, "-c", "raise SystemExit('no such thing')"], {}

    monkeypatch.setattr(cache, "compiler_command", failing)
    monkeypatch.setattr(native, "_compiler", native._Compiler())
    monkeypatch.setattr(native, "_usable", None)
    monkeypatch.setattr(native, "_built", {})
    x = np.linspace(-3, 3, 300)
    concrete = staged(chain, x, options=dict(NATIVE, fusion_min_bytes=1))
    assert_bitwise(concrete(x), chain(x))
    # (the kernel was made before the compile failed in the background: it answers False)
    assert calls == [False] and native._usable is False  # none is compiled again in this process
    y = np.linspace(-3, 3, 301)
    assert_bitwise(staged(chain, y, options=dict(NATIVE, fusion_min_bytes=1))(y), chain(y))
    assert calls == [False]  # no kernel in the new trace


def test_read_only_inputs(calls):
    x = np.linspace(-3, 3, 2000)
    x.flags.writeable = False
    concrete = staged(chain, x)
    assert_bitwise(concrete(x), chain(x))
    assert calls == [True]


def test_strided_input_takes_the_op_by_op_path(calls):
    x = np.linspace(-3, 3, 2000)
    concrete = staged(chain, x)
    assert_bitwise(concrete(x), chain(x))
    y = np.linspace(-3, 3, 4000)[::2]  # the same shape, not contiguous
    assert_bitwise(concrete(y), chain(y))
    assert calls == [True]


def test_kernels_are_cached_on_disk(tmp_path, monkeypatch, calls):
    x = np.linspace(-3, 3, 300)
    monkeypatch.setattr(native, "_built", {})
    staged(chain, x)
    made = sorted(p.name for p in (tmp_path / "kernels" / "numba").iterdir())
    assert len(made) == 3 and made[0] == "__pycache__"
    assert made[1].endswith(".built") and made[2].endswith(".py")
    monkeypatch.setattr(native, "_built", {})
    monkeypatch.setattr(native, "_compiler", None)  # a second process loads it, never compiles
    assert_bitwise(staged(chain, x)(x), chain(x))
    assert calls == [True]


def test_kernel_source_is_one_loop_of_exact_operations():
    x = np.linspace(-3, 3, 300, dtype=np.float32)
    from runtime.fusion import plan

    concrete = staged(chain, x)
    with staging.optimizer_options(**NATIVE):
        from runtime.options import get_options

        (run,) = plan(concrete.graph, get_options()).values()
    made = native.source(run)
    assert made.constants == (np.float32(1.0001), np.float32(0.5), np.float32(0.25))
    assert [type(c) for c in made.constants] == [np.float32] * 3  # (as NumPy casts them)
    assert made.text.count(" = _k.") == 60 and len(made.operands) == 2
    assert made.text.count("for ") == 1 and "float32[::1]" in made.signature  # (the output)


_BINARY = ("+", "-", "*", "/", "np.maximum", "np.minimum")
_UNARY = (
    "-{}",
    "np.square({})",
    "np.reciprocal({})",
    "np.sqrt({})",
    "np.abs({})",
    "np.fabs({})",
    "np.positive({})",
)
_CONSTANTS = (0.0, -0.0, 1.0, 0.5, -2.5, 3, 1e-30, 1e30, 1e-300, 1e300, 0.1, 7)


def random_program(rng, inputs: int, steps: int) -> str:
    """A straight-line function of `inputs` arrays: `steps` admitted ops over them, earlier
    results and Python numbers, returning two of the values (one may be an intermediate)."""
    names = [f"x{k}" for k in range(inputs)]
    lines = [f"def program({', '.join(names)}):"]
    for j in range(steps):
        pick = lambda: (
            names[rng.integers(len(names))]
            if rng.random() < 0.8
            else repr(_CONSTANTS[rng.integers(len(_CONSTANTS))])
        )
        if rng.random() < 0.7:
            a, b = pick(), pick()
            if a[0] not in "xv" and b[0] not in "xv":
                a = names[-1]
            op = _BINARY[rng.integers(len(_BINARY))]
            expression = f"{op}({a}, {b})" if op.startswith("np.") else f"{a} {op} {b}"
        else:
            expression = _UNARY[rng.integers(len(_UNARY))].format(names[rng.integers(len(names))])
        lines.append(f"    v{j} = {expression}")
        names.append(f"v{j}")
    lines.append(f"    return {names[-1]}, {names[inputs + rng.integers(steps)]}")
    return "\n".join(lines) + "\n"


def random_values(rng, n: int, dtype) -> np.ndarray:
    special = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, -5e-324, 1e300, 1e-40, 3e38], dtype=np.float64
    )
    with np.errstate(all="ignore"):
        values = rng.standard_normal(n).astype(dtype) * dtype(10) ** rng.integers(-3, 4, n).astype(
            dtype
        )
        chosen = rng.random(n) < 0.1
        values[chosen] = special[rng.integers(len(special), size=chosen.sum())].astype(dtype)
    return values


@pytest.mark.parametrize("seed", range(24))
def test_random_programs_give_numpys_bits_and_warnings(seed, calls):
    rng = np.random.default_rng(seed)
    dtype = (np.float32, np.float64)[seed % 2]
    inputs = 1 + seed % 3
    text = random_program(rng, inputs, int(rng.integers(3, 12)))
    namespace = {"np": np}
    exec(compile(text, f"<program {seed}>", "exec"), namespace)
    program = namespace["program"]
    if seed % 4 == 3:  # rows: the others broadcast along them (a row, a column or one value)
        rows, cols = int(rng.integers(1, 40)), int(rng.integers(1, 300))
        args = [random_values(rng, rows * cols, dtype).reshape(rows, cols)]
        shapes, first = ((cols,), (rows, 1), (1, 1)), int(rng.integers(3))
        args += [
            random_values(rng, math.prod(shapes[k % 3]), dtype).reshape(shapes[k % 3])
            for k in range(first, first + inputs - 1)
        ]
    else:
        args = [random_values(rng, int(rng.integers(1, 700)), dtype)]
        args += [random_values(rng, args[0].size, dtype) for _ in range(inputs - 1)]
    concrete = staged(program, *args)
    # the same run on NumPy's loops: its warnings are those of the ops left after dead code
    # elimination (eager also warns for values nothing reads)
    numpy_loops = staged(
        program, *args, options=dict(NATIVE, native_kernels=False, fusion_min_bytes=1)
    )
    for state in ("ignore", "warn"):
        with np.errstate(all=state), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = program(*args)
        with np.errstate(all=state), warnings.catch_warnings(record=True) as eager:
            warnings.simplefilter("always")
            numpy_loops(*args)
        with np.errstate(all=state), warnings.catch_warnings(record=True) as got_warnings:
            warnings.simplefilter("always")
            got = concrete(*args)
        for g, w in zip(got, want):
            g, w = np.asarray(g), np.asarray(w)
            assert g.dtype == w.dtype and g.shape == w.shape, text
            nan = np.isnan(w)  # (a NaN's payload is the hardware's, not NumPy's to promise)
            assert np.array_equal(np.isnan(g), nan), text
            assert np.array_equal(g[~nan].view(f"u{g.itemsize}"), w[~nan].view(f"u{w.itemsize}")), (
                text
            )
        assert sorted({str(m.message) for m in got_warnings}) == sorted(
            {str(m.message) for m in eager}
        ), text
    if "def program" in text and calls:
        assert calls[0] is True  # under all="ignore" the kernel's answer stands


def test_a_cache_directory_others_may_write_is_not_used(tmp_path, monkeypatch, calls):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("STAGING_KERNEL_CACHE", str(shared))
    monkeypatch.setattr(native, "_built", {})
    monkeypatch.setattr(cache_dirs.tempfile, "gettempdir", lambda: str(tmp_path / "private"))
    x = np.linspace(-3, 3, 300)
    assert_bitwise(staged(chain, x)(x), chain(x))
    assert list(shared.iterdir()) == [] and calls == [True]  # built in the private fallback
    assert len(list((tmp_path / "private").iterdir())) == 1


def normalize(x, mean, scale, w, b):
    y = (x - mean) / scale
    y = y * w + b
    return y * y + 1.0


@pytest.mark.parametrize("rows, cols", [(300, 257), (7, 3), (1000, 1)])
def test_operands_that_broadcast_along_rows(rows, cols, calls):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((rows, cols))
    args = (
        x,
        x.mean(axis=0),
        x.std(axis=0) + 0.5,
        rng.standard_normal(cols),
        rng.standard_normal((1, cols)),
    )
    concrete = staged(normalize, *args)
    assert_bitwise(concrete(*args), normalize(*args))
    assert calls == [True]


def test_a_value_per_row_and_a_single_value(calls):
    def shift(x, c, one):
        return (x - c) * one + c * 0.5

    rng = np.random.default_rng(6)
    x, c, one = rng.standard_normal((400, 300)), rng.standard_normal((400, 1)), np.full((1, 1), 1.5)
    concrete = staged(shift, x, c, one)
    assert_bitwise(concrete(x, c, one), shift(x, c, one))
    y = rng.standard_normal((4, 5, 60))  # rows of 5 x 60 elements; an operand of 5 x 60
    z = rng.standard_normal((5, 60))
    assert_bitwise(staged(shift, y, z, one)(y, z, one), shift(y, z, one))
    assert calls == [True, True]


def test_a_broadcast_operand_that_is_not_contiguous_runs_numpys_loops(calls):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((200, 100))
    args = (
        x,
        x.mean(axis=0),
        x.std(axis=0) + 0.5,
        rng.standard_normal(100),
        rng.standard_normal((1, 100)),
    )
    concrete = staged(normalize, *args)
    strided = rng.standard_normal(200)[::2]
    assert_bitwise(concrete(x, strided, *args[2:]), normalize(x, strided, *args[2:]))
    assert calls == [False]


def test_broadcasting_within_a_row_stays_with_numpy(calls):
    def scaled(x, s):
        return x * s + 1.0

    x, s = np.ones((50, 10, 100)), np.linspace(1, 2, 10).reshape(10, 1)
    concrete = staged(scaled, x, s, options=dict(NATIVE, fusion_min_bytes=1))
    assert_bitwise(concrete(x, s), scaled(x, s))
    assert calls == [] and "for f1_s" in concrete.executable_source


def relu_scale(x, y):
    return np.maximum(x * 2.0, 0.0) + np.minimum(y, x) - np.maximum(0.5, y)


def picks(x, y):
    """np.maximum / np.minimum results, each an output (no op meets two NaNs after them, where
    which NaN comes out is the compiler's choice: docs/limitations.md)."""
    return np.maximum(x * 2.0, 0.0), np.minimum(y, x), np.maximum(0.5, y), np.minimum(x, -0.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_maximum_and_minimum_keep_numpys_nans_and_signed_zeros(dtype, calls):
    values = np.array([-0.0, 0.0, np.nan, -np.nan, 1.0, -1.0, np.inf, -np.inf, 0.5, 2.0], dtype)
    x, y = np.repeat(values, len(values)), np.tile(values, len(values))  # every pair
    x, y = np.concatenate([x] * 3), np.concatenate([y] * 3)  # groups and a tail
    concrete = staged(picks, x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (NumPy's loops raise no flag on NaNs: nor does the kernel)
        for got, want in zip(concrete(x, y), picks(x, y)):
            assert_bitwise(got, want)
    with np.errstate(all="ignore"):  # (inf - inf is invalid: NumPy would warn, and so the kernel's
        got = staged(relu_scale, x, y)(x, y)  # answer stands only where it is ignored)
    want = relu_scale(x, y)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert_bitwise(got[~np.isnan(want)], want[~np.isnan(want)])
    assert calls == [True, True]


def test_maximum_stays_with_numpy_where_its_loops_follow_another_rule(monkeypatch, calls):
    monkeypatch.setattr(elementwise, "_min_max_checked", [False])
    x = np.linspace(-1, 1, 300)
    concrete = staged(relu_scale, x, x[::-1].copy(), options=dict(NATIVE, fusion_min_bytes=1))
    assert_bitwise(concrete(x, x[::-1].copy()), relu_scale(x, x[::-1].copy()))
    assert calls == []
