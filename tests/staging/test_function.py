"""staging.function, Function and ConcreteFunction (DESIGN.md, "API contract" and "Semantics")."""

from __future__ import annotations

import collections
import gc
import warnings
import weakref

import numpy as np
import pytest
from _staging_helpers import assert_same

import staging
from staging import TensorSpec

RNG = np.random.default_rng(42)


def text(exc) -> str:
    """An exception's message and its notes (a run-time failure names the user's line in a note)."""
    return "\n".join([str(exc), *getattr(exc, "__notes__", ())])


def line_of(func, offset):
    """The line `offset` lines below `def` of `func` (decorators excluded)."""
    return func.__code__.co_firstlineno + offset


# -- staged == eager ------------------------------------------------------------


def affine(x, w, b):
    y = x @ w + b
    return np.tanh(y).sum(axis=1), y.max()


def test_staged_matches_eager_on_several_inputs():
    f = staging.function(affine, autograph=False)
    for n in (1, 4, 7):
        x, w, b = RNG.normal(size=(n, 3)), RNG.normal(size=(3, 2)), RNG.normal(size=2)
        assert_same(f(x, w, b), affine(x, w, b))
    assert f.tracing_count == 3
    assert f.python_function is affine


def test_decorator_forms():
    @staging.function
    def a(x):
        return x + 1

    @staging.function(autograph=False)
    def b(x):
        return x + 1

    assert isinstance(a, staging.Function) and isinstance(b, staging.Function)
    assert b(np.float64(1.0)) == 2.0
    assert a.__name__ == "a" and b.__name__ == "b"
    # re-decorating a Function wraps the original Python function
    assert staging.function(b, autograph=False).python_function is b.python_function


def test_cache_hit_does_not_run_python():
    calls = []

    @staging.function(autograph=False)
    def f(x):
        calls.append(x.static_shape)  # a Python side effect: runs only while tracing
        return x * 2.0

    for _ in range(3):
        np.testing.assert_array_equal(f(np.ones(3)), np.full(3, 2.0))
    assert calls == [(3,)]
    f(np.ones(4))
    assert calls == [(3,), (4,)]
    f(np.ones(3))
    assert f.tracing_count == 2 and len(calls) == 2


def test_zero_d_outputs_are_numpy_scalars():
    @staging.function(autograph=False)
    def f(x):
        return x.sum(), x.argmax(), x.sum() > 0

    s, i, p = f(np.array([1.0, 3.0, 2.0]))
    assert type(s) is np.float64 and s == 6.0
    assert type(i) is np.int64 and i == 1
    assert type(p) is np.bool_ and p


def test_nested_outputs_and_static_leaves():
    Point = collections.namedtuple("Point", "x y")

    def g(a):
        return {"p": Point(a, a * 2), "n": 3, "list": [a.sum(), "text"], "none": None}

    f = staging.function(g, autograph=False)
    for v in (np.arange(3.0), np.ones(3)):
        out = f(v)
        assert_same(out, g(v))
        assert isinstance(out["p"], Point)


def test_returning_none_and_arguments_unchanged():
    @staging.function(autograph=False)
    def f(x):
        return None

    assert f(np.ones(2)) is None

    @staging.function(autograph=False)
    def same(x):
        return x

    v = np.arange(3.0)
    np.testing.assert_array_equal(same(v), v)


def test_keyword_arguments_and_defaults():
    def g(x, scale=2.0, *, shift=0.0):
        return x * scale + shift

    f = staging.function(g, autograph=False)
    x = np.arange(3.0)
    assert_same(f(x), g(x))
    assert_same(f(x, 3.0), g(x, 3.0))
    assert_same(f(x, scale=3.0, shift=np.float64(1.5)), g(x, scale=3.0, shift=np.float64(1.5)))
    assert_same(f(scale=3.0, x=x), g(x, 3.0))
    assert f.tracing_count == 3  # scale=3.0 positional and by keyword: one trace
    with pytest.raises(TypeError, match="g"):
        f(x, 1.0, 2.0)


def test_trace_time_error_names_user_line():
    @staging.function(autograph=False)
    def f(x, y):
        return x + y  # shapes (3,) and (4,) cannot broadcast

    with pytest.raises(ValueError) as info:
        f(np.ones(3), np.ones(4))
    assert f"test_function.py:{line_of(f.python_function, 2)}" in text(info.value)


def test_run_time_error_names_user_line():
    @staging.function(autograph=False)
    def f(x, i):
        return x[i]

    assert f(np.arange(3.0), np.int64(2)) == 2.0
    with pytest.raises(IndexError) as info:
        f(np.arange(3.0), np.int64(3))
    assert type(info.value) is IndexError  # NumPy's own error
    assert f"test_function.py:{line_of(f.python_function, 2)}" in text(info.value)
    # the fast path (positional NumPy arguments, cached) reports it the same way
    with pytest.raises(IndexError) as again:
        f(np.arange(3.0), np.int64(-4))
    assert f"test_function.py:{line_of(f.python_function, 2)}" in text(again.value)


# -- get_concrete_function / ConcreteFunction -------------------------------------


def test_get_concrete_function_from_specs_and_values():
    def g(x, n):
        return x * n

    f = staging.function(g, autograph=False)
    cf = f.get_concrete_function(TensorSpec([None], np.float64), 3)
    assert isinstance(cf, staging.ConcreteFunction)
    assert f.tracing_count == 1
    for size in (1, 5):
        x = RNG.normal(size=size)
        assert_same(cf(x, 3), g(x, 3))
        assert_same(f(x, 3), g(x, 3))  # the [None] trace serves every length
    assert f.tracing_count == 1
    assert f.get_concrete_function(TensorSpec([None], np.float64), 3) is cf
    assert f.get_concrete_function(np.ones(2), 3) is cf  # a value: dispatched like a call
    cf2 = f.get_concrete_function(np.ones((2, 2)), 3)  # nothing accepts it: a new trace
    assert cf2 is not cf and f.tracing_count == 2
    assert cf2.structured_input_signature == ((TensorSpec((2, 2), np.float64), 3), {})


def test_concrete_function_rejects_incompatible_inputs():
    @staging.function(autograph=False)
    def f(x):
        return x + 1

    cf = f.get_concrete_function(TensorSpec([3], np.float64))
    np.testing.assert_array_equal(cf(np.zeros(3)), np.ones(3))
    with pytest.raises(TypeError, match=r"f\(\).*x=f64\[4\]"):
        cf(np.zeros(4))
    with pytest.raises(TypeError, match=r"x=f32\[3\]"):
        cf(np.zeros(3, np.float32))


def test_concrete_function_introspection():
    @staging.function(autograph=False)
    def f(x, y):
        return {"s": x + y, "n": x.sum()}

    cf = f.get_concrete_function(TensorSpec([None, 2], np.float32), TensorSpec([2], np.float32))
    args, kwargs = cf.structured_input_signature
    assert (
        args == (TensorSpec((None, 2), np.float32), TensorSpec((2,), np.float32)) and kwargs == {}
    )
    out = cf.structured_outputs
    assert out["s"] == TensorSpec((None, 2), np.float32)
    assert out["n"] == TensorSpec((), np.float32)
    assert cf.pretty_printed_signature() == (
        "f(x, y)\n"
        "  Args:\n"
        "    x: f32[?,2]\n"
        "    y: f32[2]\n"
        "  Returns:\n"
        "    {'s': f32[?,2], 'n': f32[]}"
    )
    text = str(cf.graph)
    assert text.startswith("f(a:f32[?,2], b:f32[2]) {")
    assert "add a b" in text and "sum a" in text


def test_pretty_printed_concrete_signatures_lists_every_trace():
    @staging.function(autograph=False)
    def f(x, k):
        return x * k

    f(np.ones(2), 2)
    f(np.ones((2, 2), np.int32), 5)
    text = f.pretty_printed_concrete_signatures()
    blocks = text.split("\n\n")
    assert len(blocks) == 2
    assert "x: f64[2]" in blocks[0] and "k: 2" in blocks[0]
    assert "x: i32[2,2]" in blocks[1] and "k: 5" in blocks[1]


def test_graph_text_is_deterministic():
    def g(x, y):
        z = x * y + 1.0
        return z.sum(axis=0), np.sqrt(np.abs(z))

    spec = (TensorSpec([None, 3], np.float64), TensorSpec([3], np.float64))
    texts = {
        str(staging.function(g, autograph=False).get_concrete_function(*spec).graph)
        for _ in range(3)
    }
    assert len(texts) == 1
    assert texts.pop().splitlines()[0] == "g(a:f64[?,3], b:f64[3]) {"


# -- dispatch -------------------------------------------------------------------


def test_most_specific_trace_wins():
    @staging.function(autograph=False)
    def f(x):
        # each trace records which dims it knew: 10 * (dim 0 known) + (dim 1 known)
        known = 10.0 * (x.static_shape[0] is not None) + (x.static_shape[1] is not None)
        return x.sum() + known

    specific = f.get_concrete_function(TensorSpec([None, 3], np.float64))
    general = f.get_concrete_function(TensorSpec([None, None], np.float64))
    assert general is not specific and f.tracing_count == 2
    assert f(np.ones((5, 3))) == 15.0 + 1  # both accept [5,3]: the [?,3] trace wins
    assert f(np.ones((2, 3))) == 6.0 + 1
    assert f(np.ones((5, 4))) == 20.0 + 0  # only [?,?] accepts it
    assert f.tracing_count == 2
    # a trace for [None] accepts [3]; an exact trace made later wins over it
    g = staging.function(f.python_function, autograph=False)
    g.get_concrete_function(TensorSpec([None, None], np.float64))
    assert g(np.ones((2, 2))) == 4.0 and g.tracing_count == 1
    assert g.get_concrete_function(TensorSpec([2, 2], np.float64)) is g.get_concrete_function(
        TensorSpec([None, None], np.float64)
    )


def test_dispatch_needs_same_dtype_and_rank():
    @staging.function(autograph=False)
    def f(x):
        return x * 2

    f.get_concrete_function(TensorSpec([None], np.float64))
    f(np.ones(3, np.float32))
    assert f.tracing_count == 2
    f(np.ones((3, 1)))
    assert f.tracing_count == 3


# -- input_signature --------------------------------------------------------------


def test_input_signature_fixes_one_trace():
    def g(x, y):
        return x * y.sum()

    f = staging.function(
        g,
        autograph=False,
        input_signature=[TensorSpec([None], np.float64), TensorSpec([2], np.float64)],
    )
    assert f.input_signature == (TensorSpec([None], np.float64), TensorSpec([2], np.float64))
    for n in (1, 3, 6):
        x, y = RNG.normal(size=n), RNG.normal(size=2)
        assert_same(f(x, y), g(x, y))
    assert f.tracing_count == 1
    cf = f.get_concrete_function()
    assert cf.structured_input_signature[0] == (
        TensorSpec((None,), np.float64),
        TensorSpec((2,), np.float64),
    )
    assert f.tracing_count == 1
    # Python numbers and lists are converted to the declared dtype
    assert_same(f([1.0, 2.0], [3, 4]), g(np.array([1.0, 2.0]), np.array([3.0, 4.0])))
    assert f.tracing_count == 1


def test_input_signature_rejects_incompatible_inputs_naming_the_argument():
    @staging.function(
        autograph=False,
        input_signature=[TensorSpec([None], np.float64), TensorSpec([2], np.float64)],
    )
    def f(x, weights):
        return x * weights.sum()

    with pytest.raises(TypeError, match=r"'weights'.*f64\[3\]"):
        f(np.ones(4), np.ones(3))
    with pytest.raises(TypeError, match=r"'x'.*f32\[4\]"):
        f(np.ones(4, np.float32), np.ones(2))
    with pytest.raises(TypeError, match=r"'x'.*f64\[2,2\]"):
        f(np.ones((2, 2)), np.ones(2))
    with pytest.raises(TypeError, match="'weights'"):
        f(np.ones(4))
    with pytest.raises(TypeError):
        staging.function(lambda x: x, input_signature=[np.float64])
    assert f.tracing_count == 0


def test_input_signature_with_nested_specs():
    @staging.function(
        autograph=False,
        input_signature=[[TensorSpec([None], np.float64), TensorSpec([], np.int64)]],
    )
    def f(pair):
        return pair[0] * pair[1]

    np.testing.assert_array_equal(f([np.ones(3), np.int64(2)]), np.full(3, 2.0))
    np.testing.assert_array_equal(f([np.ones(5), np.int64(3)]), np.full(5, 3.0))
    assert f.tracing_count == 1
    with pytest.raises(TypeError, match=r"'pair\[1\]'"):
        f([np.ones(3), np.ones(2)])


# -- reduce_retracing ---------------------------------------------------------------


def test_reduce_retracing_generalises_shapes():
    def g(x):
        return x * 2

    f = staging.function(g, autograph=False, reduce_retracing=True)
    for n in (2, 3, 4, 5, 6):
        x = RNG.normal(size=n)
        assert_same(f(x), g(x))
    assert f.tracing_count == 2  # [2], then [None] serves every other length
    sigs = f.pretty_printed_concrete_signatures()
    assert "x: f64[2]" in sigs and "x: f64[?]" in sigs
    f(np.ones((2, 2)))  # another rank: a new trace
    assert f.tracing_count == 3

    plain = staging.function(g, autograph=False)
    for n in (2, 3, 4, 5):
        plain(np.ones(n))
    assert plain.tracing_count == 4


# -- Python side effects, eager mode ------------------------------------------------


def test_python_side_effects_only_while_tracing(capsys):
    log = []

    @staging.function(autograph=False)
    def f(x):
        print("tracing")  # Python print: trace time only
        staging.print("running", x)  # staged print: every call
        log.append(1)
        return x + 1

    for i in range(3):
        f(np.float64(i))
    assert capsys.readouterr().out == "tracing\nrunning 0.0\nrunning 1.0\nrunning 2.0\n"
    assert log == [1]


def test_run_functions_eagerly(capsys):
    log = []

    def g(x):
        log.append(type(x))
        return x * 2

    f = staging.function(g, autograph=False)
    staging.run_functions_eagerly(True)
    assert staging.functions_run_eagerly()
    for v in (np.ones(2), np.ones(2)):
        assert_same(f(v), g(v))
    assert f.tracing_count == 0
    assert log == [np.ndarray] * 4  # the Python function ran on concrete arrays every call
    staging.run_functions_eagerly(False)
    f(np.ones(2))
    f(np.ones(2))
    assert f.tracing_count == 1
    assert log[-1] is staging.Tensor and len(log) == 5


# -- lifetime -----------------------------------------------------------------------


def test_deleted_function_frees_its_graphs():
    def g(x):
        return x * 2 + 1

    f = staging.function(g, autograph=False)
    f(np.ones(3))
    cf = f.get_concrete_function(TensorSpec([None], np.float64))
    refs = [weakref.ref(f), weakref.ref(cf), weakref.ref(cf.graph)]
    del f, cf
    gc.collect()
    assert [r() for r in refs] == [None, None, None]


def test_function_does_not_keep_weakly_keyed_arguments_alive():
    class Config:
        scale = 2.0

    @staging.function(autograph=False)
    def f(x, config):
        return x * config.scale

    config = Config()
    assert f(np.float64(1.0), config) == 2.0
    ref = weakref.ref(config)
    del config
    gc.collect()
    assert ref() is None


# -- methods ------------------------------------------------------------------------


class Scaler:
    def __init__(self, k):
        self.k = k
        self.traces = 0

    @staging.function(autograph=False)
    def __call__(self, x):
        self.traces += 1
        return x * self.k


def test_methods_trace_per_instance():
    a, b = Scaler(2.0), Scaler(3.0)
    for _ in range(2):
        assert a(np.float64(1.0)) == 2.0
        assert b(np.float64(1.0)) == 3.0
    assert a.traces == 1 and b.traces == 1
    assert a.__call__ is a.__call__
    assert a.__call__.tracing_count == 1
    assert isinstance(Scaler.__call__, staging.Function)


def test_method_function_freed_with_its_instance():
    s = Scaler(2.0)
    s(np.ones(2))
    refs = [weakref.ref(s), weakref.ref(s.__call__)]
    del s
    gc.collect()
    assert [r() for r in refs] == [None, None]


def test_methods_of_unhashable_instances_are_cached():
    import dataclasses

    @dataclasses.dataclass  # eq=True: instances are unhashable
    class Model:
        k: float
        traces: int = 0

        @staging.function(autograph=False)
        def apply(self, x):
            self.traces += 1
            return x * self.k

    m = Model(2.0)
    for _ in range(3):
        assert m.apply(np.float64(2.0)) == 4.0
    assert m.traces == 1
    other = Model(2.0)  # equal, but another instance: traces its own
    assert other.apply(np.float64(1.0)) == 2.0
    assert other.traces == 1 and m.traces == 1


# -- Functions calling Functions, recursion ----------------------------------------------


def test_function_called_from_function():
    @staging.function(autograph=False)
    def inner(x):
        return x * 2, x.sum()

    def g(x):
        a, s = inner(x)
        return a + s

    outer = staging.function(g, autograph=False)
    for n in (2, 3):
        x = RNG.normal(size=n)
        expected = x * 2 + x.sum()
        np.testing.assert_allclose(outer(x), expected)
    assert "call" in str(outer.get_concrete_function(np.ones(2)).graph)
    # inner traced separately for the nested context; its own calls still work
    np.testing.assert_array_equal(inner(np.ones(2))[0], [2.0, 2.0])


def test_failure_inside_called_function_names_inner_line():
    @staging.function(autograph=False)
    def inner(x, i):
        return x[i]

    @staging.function(autograph=False)
    def outer(x, i):
        return inner(x, i) + 1

    assert outer(np.arange(3.0), np.int64(1)) == 2.0
    with pytest.raises(IndexError) as info:
        outer(np.arange(3.0), np.int64(9))
    assert f"test_function.py:{line_of(inner.python_function, 2)}" in text(info.value)


def test_recursion_is_rejected():
    @staging.function(autograph=False)
    def fact(n):
        return n * fact(n - 1)

    with pytest.raises(staging.errors.RecursionInTraceError) as info:
        fact(np.int64(3))
    assert isinstance(info.value, RecursionError)
    assert "'fact'" in text(info.value) and "recursion" in text(info.value)
    assert "test_function.py:" in text(info.value)
    # recursion on Python values (no retrace of the same signature in progress) is still an error
    # only when it re-enters the trace: plain calls afterwards still fail the same way
    with pytest.raises(staging.errors.RecursionInTraceError):
        fact(np.int64(3))


@staging.function
def countdown(n):
    if n > 0:
        return countdown(n - 1) + 1
    return n


def test_recursion_with_autograph_names_the_call_site():
    with pytest.raises(staging.errors.RecursionInTraceError) as info:
        countdown(np.int64(3))
    lines = open(__file__).read().splitlines()
    call_line = lines.index("        return countdown(n - 1) + 1") + 1
    assert f"test_function.py:{call_line}:" in text(info.value)
    assert "'countdown'" in text(info.value)


def test_recursion_through_another_function_is_rejected():
    @staging.function(autograph=False)
    def ping(x):
        return pong(x) + 1

    @staging.function(autograph=False)
    def pong(x):
        return ping(x) * 2

    with pytest.raises(staging.errors.RecursionInTraceError, match="'ping'"):
        ping(np.float64(1.0))


# -- RetracingWarning --------------------------------------------------------------


def test_retracing_warning_names_the_function():
    @staging.function(autograph=False)
    def keeps_retracing(x, n):
        return x * n

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(8):
            keeps_retracing(np.float64(1.0), n)  # a new Python number each call: a new trace
    retracing = [w for w in caught if issubclass(w.category, staging.RetracingWarning)]
    assert len(retracing) == 1
    message = str(retracing[0].message)
    assert "keeps_retracing" in message and "test_function.py:" in message
    assert (
        "argument 'n' is a Python value (int) that changes from call to call" in message
    )  # the cause
    assert retracing[0].filename == __file__  # points at the caller, not at staging


def test_retracing_warning_names_a_changing_shape():
    @staging.function(autograph=False)
    def grows(x):
        return x + 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(1, 9):
            grows(np.ones(n))
    (warning,) = [w for w in caught if issubclass(w.category, staging.RetracingWarning)]
    assert "argument 'x' changed from f64[5] to f64[6]" in str(warning.message)


def test_a_function_staged_anew_in_a_loop_warns_once():
    def body(x):
        return x * 3

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(8):
            staging.function(body, autograph=False)(np.float64(1.0))  # a new Function each time
    retracing = [w for w in caught if issubclass(w.category, staging.RetracingWarning)]
    assert len(retracing) == 1
    message = str(retracing[0].message)
    assert "'body'" in message and "staged by 5 different staging.function objects" in message
    assert retracing[0].filename == __file__


def test_no_retracing_warning_for_few_traces_or_interleaved_hits():
    @staging.function(autograph=False)
    def f(x, n):
        return x * n

    with warnings.catch_warnings():
        warnings.simplefilter("error", staging.RetracingWarning)
        for n in range(4):
            f(np.float64(1.0), n)
        for n in range(4, 20):  # every retrace is followed by a cache hit
            f(np.float64(1.0), n)
            f(np.float64(1.0), n)
    assert f.tracing_count == 20


def test_concrete_function_called_inside_a_trace():
    @staging.function(autograph=False)
    def inner(x):
        return x * 2

    cf = inner.get_concrete_function(TensorSpec([None], np.float64))

    def g(x):
        return cf(x) + 1

    outer = staging.function(g, autograph=False)
    for n in (1, 3):
        x = RNG.normal(size=n)
        assert_same(outer(x), x * 2 + 1)
    assert inner.tracing_count == 1
    with pytest.raises(TypeError, match="x=f64\\[2,2\\]"):
        outer(np.ones((2, 2)))


def test_list_outputs_and_repeated_outputs():
    @staging.function(autograph=False)
    def f(x):
        return [x, x * 2], (x, x)

    lst, pair = f(np.float64(1.5))
    assert lst == [1.5, 3.0] and isinstance(lst, list)
    assert pair == (1.5, 1.5) and all(type(p) is np.float64 for p in pair)
