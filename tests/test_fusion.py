"""Elementwise fusion: chunked runs of ufuncs give the same bits as eager NumPy."""

import tracemalloc

import numpy as np
import pytest

import staging
from staging import TensorSpec

# Tiny chunks so that small test arrays go through many chunks and a partial last one.
SMALL = dict(fusion_min_bytes=1, fusion_chunk_bytes=64)


def text(exc) -> str:
    """An exception's message and its notes (a run-time failure names the user's line in a note)."""
    return "\n".join([str(exc), *getattr(exc, "__notes__", ())])


def staged(func, options=SMALL, **kwargs):
    """`func` traced with the given optimizer options (they apply when a trace is made)."""
    f = staging.function(func, **kwargs)
    original = f.get_concrete_function

    def concrete(*args):
        with staging.optimizer_options(**options):
            return original(*args)

    def call(*args):
        return concrete(*args)(*args)

    call.concrete = concrete
    return call


def fused_source(call, *args) -> str:
    return call.concrete(*args).executable_source


def assert_same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    if a.dtype.kind == "f":  # bitwise, including the sign of zeros
        assert np.array_equal(a.view(f"u{a.itemsize}"), b.view(f"u{b.itemsize}"))


def chain(x):
    for _ in range(10):
        x = x * 1.0001 + 0.5
        x = x - 0.25
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("n", [8, 15, 16, 17, 100, 1001])
def test_chain_is_bitwise_equal(dtype, n):
    x = np.linspace(-3, 3, n, dtype=dtype)
    f = staged(chain)
    assert "for f" in fused_source(f, x)
    assert_same(f(x), chain(x))


def test_two_dimensional_input_and_output_shape():
    x = np.arange(35, dtype=np.float64).reshape(5, 7) / 7
    f = staged(chain)
    out = f(x)
    assert out.shape == (5, 7)
    assert_same(out, chain(x))


def test_intermediates_used_after_the_run_and_returned():
    def g(x, y):
        a = x * 2.0
        b = a + y
        c = b * b - a
        total = np.sum(a)  # a non-elementwise reader after the run
        d = c / (b + 1.5)
        return d, a, total, b

    x = np.linspace(-2, 2, 50)
    y = np.cos(np.arange(50.0))
    f = staged(g)
    for got, want in zip(f(x, y), g(x, y)):
        assert_same(got, want)


def test_mixed_dtypes_comparisons_and_bools():
    def g(x, y, k):
        a = x * y  # float32 * float64 -> float64
        m = (a > 0.1) & (x < 0.9)
        n = np.logical_not(m) | (y == 0.5)
        i = k * 3 + 7  # int32 wraps the same way chunked
        j = (i // 5) % 11 - (i >> 2)
        return a + 1.0, m, n, j

    x = np.linspace(0, 1, 40, dtype=np.float32)
    y = np.linspace(1, 0, 40)
    k = np.arange(2**31 - 40, 2**31, dtype=np.int32)
    f = staged(g)
    with np.errstate(over="ignore"):
        for got, want in zip(f(x, y, k), g(x, y, k)):
            assert_same(got, want)


def test_scalar_inputs_inside_a_run():
    def g(x, s):
        return (x * s + s) / (s - x * 0.5)

    x = np.linspace(-1, 1, 33, dtype=np.float32)
    s = np.float32(3.5)
    f = staged(g)
    assert "for f" in fused_source(f, x, s)
    assert_same(f(x, s), g(x, s))


def test_run_inside_a_staged_loop_and_branch():
    def g(x, n):
        i = 0
        while i < n:
            x = x * 0.5 + 1.0
            x = np.maximum(x - 0.75, -x)
            i += 1
        if np.sum(x) > 0:
            y = x * x + 1.0
            y = y / 3.0
        else:
            y = x - 1.0
            y = y * 7.0
        return y

    x = np.linspace(-5, 5, 41)
    f = staged(g)
    for n in (0, 1, 5):
        assert_same(f(x, np.int64(n)), g(x, n))
        assert_same(f(-x * 3, np.int64(n)), g(-x * 3, n))


def test_unknown_shapes_use_a_runtime_guard():
    # op by op at most three float64 arrays are live: 24 bytes per element, so 120 bytes = 5 elements
    f = staged(
        lambda x, y: (x * 2.0 + y) * y - 1.0,
        dict(fusion_min_bytes=120, fusion_chunk_bytes=64),
        input_signature=[TensorSpec([None], np.float64), TensorSpec([None], np.float64)],
    )
    spec = TensorSpec([None], np.float64)
    assert ".size >= 5" in f.concrete(spec, spec).executable_source
    for n in (3, 4, 5, 6, 100):  # below and above the run-time threshold
        x, y = np.linspace(0, 1, n), np.linspace(2, 1, n)
        assert_same(f(x, y), (x * 2.0 + y) * y - 1.0)
    # same static shape (None,), different run-time shapes: broadcasting must still happen
    x, y = np.linspace(0, 1, 20), np.array([3.0])
    assert_same(f(x, y), (x * 2.0 + y) * y - 1.0)
    x, y = np.array([3.0]), np.linspace(0, 1, 20)
    assert_same(f(x, y), (x * 2.0 + y) * y - 1.0)


def test_non_contiguous_and_fortran_inputs_fall_back():
    f = staged(chain)
    base = np.linspace(0, 1, 60).reshape(6, 10)
    for x in (base[:, ::2], np.asfortranarray(base)[:, :5]):
        assert not x.flags.c_contiguous
        assert_same(f(x), chain(x))


def test_input_arrays_are_never_written():
    def g(x):
        a = x + 1.0
        b = a * 2.0
        return b - x

    x = np.linspace(0, 1, 100)
    before = x.copy()
    f = staged(g)
    assert_same(f(x), g(x))
    assert_same(x, before)


def test_dying_intermediate_buffer_is_reused_safely():
    def g(x):
        a = x * 2.0  # alone: runs op by op, its buffer belongs to the graph
        m = np.mean(x)  # breaks the run
        b = a + m  # the run: b, c, d read a; b escapes but c still reads a after it,
        c = b * a  # so only d may be written into a's buffer
        d = c - a
        return d, b

    x = np.linspace(0, 1, 100)
    f = staged(g)
    source = fused_source(f, x)
    assert "for f" in source
    for got, want in zip(f(x), g(x)):
        assert_same(got, want)
    (d1, b1), (d2, b2) = f(x), f(x)
    assert not np.shares_memory(d1, d2) and not np.shares_memory(d1, b1)


def test_intermediates_get_no_full_size_buffers():
    def g(x):
        y = x * 2.0
        z = y + x
        w = z * y
        v = w - z
        return v * 0.5

    x = np.linspace(0, 1, 1_000_000)  # 8 MB

    def peak(options):
        f = staged(g, options)
        f(x)
        tracemalloc.start()
        try:
            f(x)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    # The chunk size is pinned: its default follows this machine's L2 cache.
    chunk = 1 << 16
    fused = peak(dict(fusion_min_bytes=1024, fusion_chunk_bytes=chunk))
    unfused = peak(dict(elementwise_fusion=False))
    result = x.nbytes
    assert fused < result + 8 * chunk  # the result plus chunk-sized scratch buffers
    assert unfused > 2 * result  # y and z are live at the same time op by op


def test_errors_in_a_fused_run_name_the_user_line():
    def g(x):
        y = x * 2.0
        z = y / x  # 0 / 0
        return z + 1.0

    x = np.linspace(0, 1, 50)
    f = staged(g)
    assert "for f" in fused_source(f, x)
    with np.errstate(invalid="raise"):
        with pytest.raises(FloatingPointError) as info:
            f(x)
    assert "test_fusion.py" in text(info.value)
    assert "divide" in text(info.value)
    assert type(info.value) is FloatingPointError  # NumPy's own error


def test_transcendental_ops_fuse_only_when_asked():
    def g(x):
        y = np.exp(x) * 0.5
        return np.sin(y) + y

    x = np.linspace(-2, 2, 200, dtype=np.float32)
    exact = staged(g)
    assert "np.exp" not in fused_source(exact, x)
    assert_same(exact(x), g(x))
    loose = staged(g, dict(SMALL, elementwise_fusion="all"))
    source = fused_source(loose, x)
    assert source.count("for f") == 1
    np.testing.assert_allclose(loose(x), g(x), rtol=4 * np.finfo(np.float32).eps)


def test_fusion_can_be_switched_off():
    x = np.linspace(0, 1, 100)
    f = staged(chain, dict(SMALL, elementwise_fusion=False))
    assert "for f" not in fused_source(f, x)
    assert_same(f(x), chain(x))


def test_small_static_arrays_are_not_fused():
    # op by op, the chain keeps its input and one intermediate live: 16 bytes per float64 element
    f = staged(chain, dict(fusion_min_bytes=16_000))
    assert "for f" not in fused_source(f, np.ones(999))
    assert "for f" in fused_source(f, np.ones(1000))


def _random_program(rng, n_statements):
    binary = ["+", "-", "*", "np.maximum", "np.minimum", "np.fmax", "np.copysign"]
    unary = ["-{}", "np.abs({})", "np.sqrt(np.abs({}))", "np.square({})", "np.floor({})"]
    names = ["x", "y"]
    lines = []
    for i in range(n_statements):
        a, b = rng.choice(names), rng.choice(names + ["0.5", "3.0"])
        if rng.random() < 0.3:
            expr = rng.choice(unary).format(a)
        else:
            op = rng.choice(binary)
            expr = f"({a} {op} {b})" if len(op) == 1 else f"{op}({a}, {b})"
        lines.append(f"    v{i} = {expr}")
        names.append(f"v{i}")
    outs = sorted(set(rng.choice(names[2:], size=3)))
    source = "def program(x, y):\n" + "\n".join(lines) + f"\n    return {', '.join(outs)},\n"
    namespace = {"np": np}
    exec(source, namespace)
    return namespace["program"], source


@pytest.mark.parametrize("seed", range(12))
def test_random_elementwise_programs(seed):
    rng = np.random.default_rng(seed)
    program, source = _random_program(rng, int(rng.integers(3, 25)))
    n = int(rng.integers(9, 80))
    x = rng.standard_normal(n)
    y = rng.standard_normal(n)
    f = staged(program, autograph=False)
    results = f(x, y)
    for got, want in zip(results, program(x, y)):
        try:
            assert_same(got, want)
        except AssertionError:
            raise AssertionError(
                f"staged and eager differ for\n{source}\n{f.concrete(x, y).executable_source}"
            )


def test_optimizer_options_api():
    before = staging.get_optimizer_options()
    with staging.optimizer_options(elementwise_fusion=False, fusion_chunk_bytes=128) as current:
        assert current["elementwise_fusion"] is False
        assert staging.get_optimizer_options()["fusion_chunk_bytes"] == 128
    assert staging.get_optimizer_options() == before
    previous = staging.set_optimizer_options(buffer_reuse=False)
    try:
        assert previous == {"buffer_reuse": before["buffer_reuse"]}
    finally:
        staging.set_optimizer_options(**previous)
    with pytest.raises(
        TypeError,
        match="unknown optimizer option 'elementwise_fusio'; did you mean 'elementwise_fusion'",
    ):
        staging.set_optimizer_options(elementwise_fusio=True)
    with pytest.raises(TypeError, match="must be True, False or 'all'"):
        staging.set_optimizer_options(elementwise_fusion="yes")
    with pytest.raises(TypeError, match="positive int"):
        staging.set_optimizer_options(fusion_chunk_bytes=0)
    assert staging.get_optimizer_options() == before


def test_graph_passes_follow_the_options():
    def g(x):
        a = x + 1.0
        b = x + 1.0  # a common subexpression
        unused = x * 5.0  # dead
        return a * b + staging.constant(2.0) * 3.0

    x = np.ones(3)
    with staging.optimizer_options(
        common_subexpression_elimination=False, dead_code_elimination=False, constant_folding=False
    ):
        text = str(staging.function(g).get_concrete_function(x).graph)
    assert text.count("add") >= 3 and "multiply" in text and text.count("multiply") == 3
    optimized = str(staging.function(g).get_concrete_function(x).graph)
    assert optimized.count("add") == 2 and optimized.count("multiply") == 1


def test_operands_that_broadcast_are_chunked_by_rows():
    def normalize(x, mean, scale, row_weight):
        y = (x - mean) / scale  # mean, scale: (k,) broadcast along rows
        y = y * row_weight + 0.5  # row_weight: (n, 1) sliced with the rows
        return np.maximum(y, 0.0) * y

    rng = np.random.default_rng(3)
    x = rng.standard_normal((37, 6))
    mean, scale = x.mean(axis=0), x.std(axis=0) + 0.1
    row_weight = rng.standard_normal((37, 1))
    f = staged(normalize)
    assert "for f" in fused_source(f, x, mean, scale, row_weight)
    assert_same(f(x, mean, scale, row_weight), normalize(x, mean, scale, row_weight))


def test_a_run_with_no_operand_of_its_shape():
    def outer(col, row):
        grid = col * row  # (n, 1) * (1, k) -> (n, k): nothing has the run's shape up front
        return grid + col - row * 0.5

    col = np.linspace(-1, 1, 23).reshape(23, 1)
    row = np.linspace(0, 2, 9).reshape(1, 9)
    f = staged(outer)
    assert "for f" in fused_source(f, col, row)
    assert_same(f(col, row), outer(col, row))
    assert_same(f(col * 3, row), outer(col * 3, row))


def test_three_dimensional_runs_with_broadcasting():
    def g(x, b, c):
        return ((x + b) * c - x) / (c + 2.0)

    rng = np.random.default_rng(5)
    x = rng.standard_normal((7, 4, 5)).astype(np.float32)
    b = rng.standard_normal((4, 1)).astype(np.float32)  # whole: constant along axis 0
    c = rng.standard_normal((7, 1, 5)).astype(np.float32)  # sliced with the rows
    f = staged(g)
    assert "for f" in fused_source(f, x, b, c)
    assert_same(f(x, b, c), g(x, b, c))


@pytest.mark.parametrize("seed", range(12))
def test_random_broadcasting_programs(seed):
    rng = np.random.default_rng(100 + seed)
    program, source = _random_program(rng, int(rng.integers(3, 20)))
    n, k = int(rng.integers(2, 30)), int(rng.integers(1, 9))
    shapes = [(n, k), (k,), (n, 1), (1, k), (1, 1)]
    x = rng.standard_normal((n, k))
    y = rng.standard_normal(shapes[int(rng.integers(0, len(shapes)))])
    f = staged(program, autograph=False)
    for got, want in zip(f(x, y), program(x, y)):
        try:
            assert_same(got, want)
        except AssertionError:
            raise AssertionError(
                f"staged and eager differ for\n{source}\n{f.concrete(x, y).executable_source}"
            )


def test_buffer_reuse_with_operands_that_broadcast():
    def g(x, bias, row):
        y = x * 2.0  # a fresh buffer...
        y = y + bias  # ...reused although `bias` broadcasts into it
        small = row * 3.0  # (1, k): must not receive the (n, k) result below
        z = small + y
        return z - bias, small

    x = np.linspace(0, 1, 24).reshape(4, 6)
    bias = np.linspace(-1, 1, 6)
    row = np.linspace(2, 3, 6).reshape(1, 6)
    f = staged(g, dict(elementwise_fusion=False))
    source = fused_source(f, x, bias, row)
    assert "for f" not in source
    # parameters are v0, v1, v2; `y + bias` writes into y's buffer (v3), `small + y` into y's (v4)
    # and never into small's
    assert "(v3, v1, v3)" in source and "(v5, v4, v4)" in source, source
    for got, want in zip(f(x, bias, row), g(x, bias, row)):
        assert_same(got, want)


def complex_products(x, y):
    return np.square(x / 300) * (y * 2.0)


@pytest.mark.parametrize("n", [1, 2, 9])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("options", [SMALL, dict(elementwise_fusion=False)])
def test_complex_products_never_write_into_an_operand(n, dtype, options):
    # (seed 473) NumPy's complex square and multiply give another last bit when the output is
    # one of the inputs (one-element arrays): np.square(x / 300) written over x / 300 differed
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    y = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    assert_same(staged(complex_products, options)(x, y), complex_products(x, y))


def matmul_plus(a, b, c):
    return (a @ b) + c * 2


def test_a_matrix_product_never_joins_a_run():
    # (integer work joins runs of any op; a chunk of a flattened matrix product is not one)
    a = np.arange(3600, dtype=np.int64).reshape(60, 60) % 7
    b = np.eye(60, dtype=np.int64)[::-1].copy()
    call = staged(matmul_plus)
    assert_same(call(a, b, a), matmul_plus(a, b, a))
