"""staging.save / staging.load: signatures, dispatch, Variables, nested calls, refusals."""

import numpy as np
import pytest

import staging
from staging.errors import LoadError, SaveError


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def test_every_trace_is_saved_and_dispatch_picks_by_type(tmp_path):
    @staging.function
    def f(x, scale=2.0):
        if x.sum() > 0:
            y = x * scale
        else:
            y = -x
        return y

    a64, a32 = np.array([1.0, -3.0, 4.0]), np.array([1.5, 2.5], np.float32)
    f(a64)
    f(a32)
    staging.save(f, tmp_path / "f.stg")
    g = staging.load(tmp_path / "f.stg")
    assert len(g.signatures) == 2
    assert g.pretty_printed_concrete_signatures() == f.pretty_printed_concrete_signatures()
    for x in (a64, a32, -a64):
        assert _same(g(x), f(x))
        assert _same(g(x), f.python_function(x))
    assert str(g.signatures[0].graph) == str(f.get_concrete_function(a64).graph)


def test_unmatched_input_is_a_type_error_naming_the_argument(tmp_path):
    @staging.function
    def f(x, y):
        return x + y

    f(np.zeros(3), np.zeros(3))
    staging.save(f, tmp_path / "f.stg")
    g = staging.load(tmp_path / "f.stg")
    with pytest.raises(
        TypeError,
        match=r"argument 'y' is i32\[3\], which no saved signature accepts "
        r"\(saved: f64\[3\]\)",
    ):
        g(np.zeros(3), np.zeros(3, np.int32))
    with pytest.raises(TypeError, match=r"f\(\): missing a required argument: 'y'"):
        g(np.zeros(3))


def test_signatures_argument_and_concrete_function(tmp_path):
    @staging.function
    def f(x):
        return x.sum()

    spec = staging.TensorSpec([None], np.float32)
    staging.save(f, tmp_path / "f.stg", signatures=[(spec,)])
    g = staging.load(tmp_path / "f.stg")
    assert g.pretty_printed_concrete_signatures(verbose=False) == "f(x: f32[?]) -> f32[]"
    assert _same(g(np.arange(5, dtype=np.float32)), np.float32(10.0))
    staging.save(f.get_concrete_function(np.zeros((2, 2))), tmp_path / "cf.stg")
    h = staging.load(tmp_path / "cf.stg")
    assert h.signatures[0].structured_input_signature == (
        (staging.TensorSpec([2, 2], np.float64),),
        {},
    )
    with pytest.raises(SaveError, match="has not been traced yet"):
        staging.save(staging.function(lambda x: x), tmp_path / "none.stg")


def test_variables_load_assign_and_save_again(tmp_path):
    counter = staging.Variable(np.arange(3.0), name="counter")

    @staging.function
    def f(x):
        counter.assign_add(x)
        return counter.read_value() * 2.0

    f.get_concrete_function(staging.TensorSpec([3], np.float64))
    staging.save(f, tmp_path / "f.stg")
    g = staging.load(tmp_path / "f.stg")
    (var,) = g.variables
    assert var.name == "counter" and _same(var.numpy(), np.arange(3.0))
    assert _same(g(np.ones(3)), np.array([2.0, 4.0, 6.0]))
    var.assign([10.0, 20.0, 30.0])
    staging.save(g, tmp_path / "g.stg")
    h = staging.load(tmp_path / "g.stg")
    assert _same(h.variables[0].numpy(), np.array([10.0, 20.0, 30.0]))
    assert _same(h(np.zeros(3)), np.array([20.0, 40.0, 60.0]))
    assert _same(counter.numpy(), np.arange(3.0))  # the original is not touched


def test_nested_calls_structures_and_loaded_functions_in_new_traces(tmp_path):
    @staging.function
    def inner(x):
        return x * 2.0

    @staging.function
    def f(x):
        return {"y": inner(x), "parts": [x.sum(), "label", None]}

    x = np.array([1.0, 2.0])
    staging.save(f, tmp_path / "f.stg", signatures=[(x,)])
    g = staging.load(tmp_path / "f.stg")
    result = g(x)
    assert set(result) == {"y", "parts"} and result["parts"][1:] == ["label", None]
    assert _same(result["y"], f(x)["y"]) and _same(result["parts"][0], f(x)["parts"][0])
    assert "call" in str(g.signatures[0].graph)

    @staging.function
    def outer(x):
        return g(x)["y"] + 1.0

    assert _same(outer(x), x * 2.0 + 1.0)
    staging.save(outer, tmp_path / "outer.stg")
    assert _same(staging.load(tmp_path / "outer.stg")(x), x * 2.0 + 1.0)


def test_refusals_name_the_users_line(tmp_path):
    @staging.function
    def f(x):
        return staging.py_function(np.median, [x], np.float64)

    f.get_concrete_function(np.zeros(3))
    with pytest.raises(SaveError, match=r"test_saving\.py:\d+: cannot save `.*py_function"):
        staging.save(f, tmp_path / "f.stg")

    class Opaque:
        pass

    @staging.function
    def g(x, obj):
        return x + 1.0

    opaque = Opaque()
    g(np.zeros(2), opaque)
    with pytest.raises(
        SaveError, match=r"an argument of the signature is a value of type .*Opaque"
    ):
        staging.save(g, tmp_path / "g.stg")
    with pytest.raises(SaveError, match="saves a staging.Function"):
        staging.save(lambda x: x, tmp_path / "h.stg")


def test_a_random_draw_and_a_clock_are_refused_naming_why(tmp_path):
    import time

    rng = np.random.default_rng(0)

    @staging.function
    def draw(x):
        return x + rng.random()

    @staging.function
    def clock(x):
        return x + time.perf_counter()

    for f, why in (
        (draw, "it draws random numbers through Python objects"),
        (clock, "it reads a clock through a Python function that cannot be saved"),
    ):
        f.get_concrete_function(np.zeros(2))
        with pytest.raises(SaveError, match=rf"test_saving\.py:\d+: cannot save `.*: {why}"):
            staging.save(f, tmp_path / "f.stg")


def _print_then_index(x, i):
    try:
        y = x[i] * 2.0
    finally:
        print("cleanup", x.shape[0])
    return y


def test_a_try_finally_is_saved_and_loaded_and_runs_as_eagerly(tmp_path, capsys):
    f = staging.function(_print_then_index)
    f.get_concrete_function(np.zeros(3), np.int64(0))
    assert "try_finally" in str(f.get_concrete_function(np.zeros(3), np.int64(0)).graph)
    staging.save(f, tmp_path / "f.stg")
    loaded = staging.load(tmp_path / "f.stg")
    for x, i in ((np.arange(3.0), 1), (np.array([np.nan, 1.0, 2.0]), 0), (np.arange(3.0), -3)):
        assert _same(loaded(x, np.int64(i)), _print_then_index(x, np.int64(i)))
        out = capsys.readouterr().out
        assert out == "cleanup 3\n" * 2
    for i in (3, -4):  # (the body raises: the block runs, then the error propagates)
        with pytest.raises(IndexError) as eager:
            _print_then_index(np.arange(3.0), np.int64(i))
        with pytest.raises(IndexError) as staged:
            loaded(np.arange(3.0), np.int64(i))
        assert str(staged.value) == str(eager.value)
        assert capsys.readouterr().out == "cleanup 3\n" * 2


def test_load_with_jit_compile(tmp_path):
    pytest.importorskip("jax")

    @staging.function
    def collatz_steps(n):
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps, n * 2

    collatz_steps(np.int64(27))
    staging.save(collatz_steps, tmp_path / "c.stg")
    loaded = staging.load(tmp_path / "c.stg", jit_compile=True)
    assert loaded.jit_compile is True
    for n in (27, 97, 871):
        expected = staging.function(collatz_steps.python_function, jit_compile=True)(np.int64(n))
        got = loaded(np.int64(n))
        assert all(_same(a, b) for a, b in zip(got, expected))
        assert all(_same(a, b) for a, b in zip(got, collatz_steps(np.int64(n))))
    with pytest.raises(
        ValueError, match="jit_compile must be None, True, False, 'device' or 'numba', not 'yes'"
    ):
        staging.load(tmp_path / "c.stg", jit_compile="yes")


def test_same_function_same_bytes(tmp_path):
    @staging.function
    def f(x):
        return x * np.array([1.0, 2.0])

    f(np.zeros(2))
    staging.save(f, tmp_path / "a.stg")
    staging.save(f, tmp_path / "b.stg")
    assert (tmp_path / "a.stg").read_bytes() == (tmp_path / "b.stg").read_bytes()


def test_missing_file_and_not_a_zip(tmp_path):
    with pytest.raises(LoadError, match="cannot load .*nothing.stg"):
        staging.load(tmp_path / "nothing.stg")
    (tmp_path / "text.stg").write_text("hello")
    with pytest.raises(LoadError, match="not a zip file"):
        staging.load(tmp_path / "text.stg")


def test_run_time_errors_of_a_loaded_function_name_the_users_line():
    from pathlib import Path

    loaded = staging.load(Path(__file__).resolve().parents[2] / "golden" / "saved" / "collect.stg")
    with pytest.raises(AssertionError, match="nothing positive") as info:
        loaded(np.array([-1.0]))
    assert info.value.__notes__ == [
        "sources.py:40: raised while running `assert a parts=('nothing positive',)` in staged graph 'collect'"
    ]


def test_load_with_jit_compile_without_jax(tmp_path, monkeypatch):
    import staging.saving.api as api

    @staging.function
    def f(x):
        return x + 1.0

    f(np.zeros(2))
    staging.save(f, tmp_path / "f.stg")
    monkeypatch.setattr(api, "jax_available", lambda: False)
    with pytest.raises(
        ImportError, match=r"load\(\.\.\., jit_compile=True\) needs jax, which is not installed"
    ):
        staging.load(tmp_path / "f.stg", jit_compile=True)
