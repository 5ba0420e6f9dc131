"""The JAX backend (jit_compile=True): every op is lowered or refused, results equal the
interpreter's and eager NumPy's, effects keep their order, refusals name the user's line."""

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import staging  # noqa: E402
from runtime.jax_lowering import LoweringError, lowering_status  # noqa: E402
from runtime.registry import all_ops  # noqa: E402


def both(func):
    return staging.function(func), staging.function(func, jit_compile=True)


def check_same(func, *args):
    eager = func(*args)
    interpreted, compiled = both(func)
    for result in (interpreted(*args), compiled(*args)):
        assert type(result) is type(eager)
        np.testing.assert_array_equal(np.asarray(result), np.asarray(eager))
        assert np.asarray(result).dtype == np.asarray(eager).dtype
    return compiled(*args)


def test_every_registered_op_is_lowered_or_marked_unlowerable():
    undecided = [name for name in all_ops() if lowering_status(name) == "missing"]
    assert undecided == []
    assert lowering_status("while_loop") == "lowered"
    assert lowering_status("random").startswith("unlowerable: ")


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def test_collatz_matches_interpreter_and_eager():
    assert check_same(collatz, np.int64(837799)) == 524


def sum_even(x):
    total = np.int64(0)
    for v in x:
        if v % 2 == 0:
            total += v
    return total


def test_sum_even_bitwise():
    check_same(sum_even, np.arange(1000, dtype=np.int64) * 7919 % 1013)


def mixed_dtypes(x, y):
    return x * 2 + y, (x > 1.5) & (y < 3), x.astype(np.int32) // 2, x.sum() / 3


def test_dtypes_follow_numpy_with_64_bit_types():
    x = np.linspace(0, 3, 6, dtype=np.float32)
    y = np.arange(6, dtype=np.int64)
    eager = mixed_dtypes(x, y)
    for result in (
        staging.function(mixed_dtypes)(x, y),
        staging.function(mixed_dtypes, jit_compile=True)(x, y),
    ):
        for got, want in zip(result, eager):
            assert np.asarray(got).dtype == np.asarray(want).dtype
            np.testing.assert_allclose(got, want, rtol=1e-6)
    assert not jax.config.jax_enable_x64  # the user's global setting is left alone


def test_staged_print_same_text_and_order(capsys):
    def f(x):
        for i in range(3):
            print("step", i, x * i)
            x = x + 0.5
        print("done", x)
        return x

    interpreted, compiled = both(f)
    interpreted(np.float64(1.0))
    want = capsys.readouterr().out
    compiled(np.float64(1.0))
    assert capsys.readouterr().out == want


def test_assert_raises_the_same_error_with_the_users_line():
    def f(x):
        assert x > 0, "x must be positive"
        return x * 2

    compiled = staging.function(f, jit_compile=True)
    assert compiled(np.float64(2.0)) == 4.0
    with pytest.raises(AssertionError, match="x must be positive") as info:
        compiled(np.float64(-1.0))
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert f"test_jax_lowering.py:{f.__code__.co_firstlineno + 1}" in notes


def test_variables_threaded_and_written_back():
    counter = staging.Variable(0.0)
    total = staging.Variable(np.zeros(3))

    def f(x, n):
        for i in range(n):
            counter.assign_add(1.0)
            if x.sum() > i:
                total.assign_add(x)
        return total.read_value() * counter.read_value()

    compiled = staging.function(f, jit_compile=True)
    x = np.array([1.0, 2.0, 3.0])
    result = compiled(x, np.int64(4))
    assert counter.numpy() == 4.0
    np.testing.assert_array_equal(total.numpy(), x * 4)
    np.testing.assert_array_equal(result, x * 16)


def test_py_function_runs_in_order(capsys):
    seen = []

    def record(v):
        seen.append(float(v))
        return v * 10

    def f(x):
        y = staging.py_function(record, [x], staging.TensorSpec([], np.float64))
        return y + 1

    compiled = staging.function(f, jit_compile=True)
    assert compiled(np.float64(2.0)) == 21.0
    assert seen == [2.0]


def test_64_bit_mode_is_set_for_the_call_only():
    doubled = staging.function(lambda x: x * 2, jit_compile=True)
    for _ in range(2):  # the first call, then a cache hit
        result = doubled(np.int64(2**40))
        assert type(result) is np.int64 and result == 2**41
        assert not jax.config.jax_enable_x64
    with jax.enable_x64(False):
        assert doubled(np.int64(3)) == 6
        assert not jax.config.jax_enable_x64
    refused = staging.function(lambda x: np.unique(x), jit_compile=True)
    with pytest.raises(LoweringError):  # raised while JAX traces: 64-bit mode is restored too
        refused(np.arange(3))
    assert not jax.config.jax_enable_x64
    assert np.asarray(jax.numpy.arange(3)).dtype == np.int32


def test_keep_on_device_returns_jax_arrays():
    compiled = staging.function(lambda x: x * 2, jit_compile="device")
    result = compiled(np.arange(3.0))
    assert isinstance(result, jax.Array)
    np.testing.assert_array_equal(np.asarray(result), [0.0, 2.0, 4.0])


def test_unlowerable_op_names_the_op_and_the_users_line():
    def f(x):
        return np.unique(x)

    compiled = staging.function(f, jit_compile=True)
    with pytest.raises(LoweringError) as info:
        compiled(np.array([3, 1, 3]))
    text = str(info.value)
    assert f"test_jax_lowering.py:{f.__code__.co_firstlineno + 1}" in text
    assert "'unique'" in text and "shape depends on the values" in text


def test_list_in_staged_loop_is_refused_with_what_would_make_it_lowerable():
    def f(n):
        out = []
        for i in range(n):
            out.append(i * 2)
        return np.array(out)

    with pytest.raises(LoweringError, match=r"test_jax_lowering\.py:\d+: .*np\.zeros\(n\)"):
        staging.function(f, jit_compile=True)(np.int64(3))


def test_bad_jit_compile_value():
    with pytest.raises(ValueError, match="jit_compile"):
        staging.function(lambda x: x, jit_compile="yes")


def test_retracing_unchanged_and_lowered_once_per_signature():
    compiled = staging.function(lambda x: x + 1, jit_compile=True)
    compiled(np.float64(1.0))
    compiled(np.float64(2.0))
    compiled(np.float32(1.0))
    assert compiled.tracing_count == 2
