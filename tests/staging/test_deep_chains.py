"""Chains of staged functions, each calling the next, trace and run as deep as they run eagerly:
each trace nested in another's is granted the frames tracing adds (runtime.headroom), up to
MAX_NESTED_TRACES levels (deeper is refused, naming the call); the graph of the outermost
function then runs without a Python call per level (small called graphs are lowered in place,
runtime.call_inlining). Saving, loading and a staged `try` around such a chain walk it without
recursion. The process's recursion limit and thread stack size are as they were afterwards."""

import os
import sys
import threading
import warnings

import numpy as np
import pytest

import staging
from runtime.jax_lowering import jax_available
from staging import errors
from staging.functions import function as function_module

pytestmark = pytest.mark.filterwarnings("ignore::staging.functions.retracing.RetracingWarning")


@pytest.fixture
def unchanged_process():
    before = sys.getrecursionlimit(), threading.stack_size()
    yield
    assert (sys.getrecursionlimit(), threading.stack_size()) == before


def _make(prev, **options):
    @staging.function(**options)
    def f(x):
        return prev(x) + 1.0 if prev else x + 1.0

    return f


def _chain(n, **options):
    prev = None
    for _ in range(n):
        prev = _make(prev, **options)
    return prev


def _eager_chain(n):
    """The same functions, not staged."""
    prev = None
    for _ in range(n):

        def f(x, prev=prev):
            return prev(x) + 1.0 if prev else x + 1.0

        prev = f
    return prev


def _same(staged, eager):
    assert type(staged) is type(eager)
    np.testing.assert_array_equal(staged, eager)


def test_the_issue_chain_of_100(unchanged_process):
    outer = _chain(100)
    eager = _eager_chain(100)
    for x in (np.float64(1.0), np.float32(-2.5), np.float64(np.nan), np.array([1.0, 2.0]), 1.0):
        _same(outer(x), eager(x))
    assert outer(np.float64(1.0)) == 101.0


def test_a_chain_of_300_with_arrays(unchanged_process):
    outer = _chain(300)
    eager = _eager_chain(300)
    for x in (np.zeros(0), np.arange(4.0), np.float64(-np.inf), 2):
        _same(outer(x), eager(x))


def test_a_chain_at_the_limit(unchanged_process):
    depth = function_module.MAX_NESTED_TRACES
    outer = _chain(depth)
    _same(outer(np.float64(0.5)), np.float64(depth + 0.5))


def test_later_calls_do_not_recurse_per_level(unchanged_process):
    """The traced chain runs from deep in the stack: its graph calls no function per level."""
    outer = _chain(600)
    x = np.float64(1.0)
    assert outer(x) == 601.0

    def down(n):
        return down(n - 1) if n else outer(x)

    assert down(sys.getrecursionlimit() - 100) == 601.0


@pytest.mark.differs_on("jax", "it counts the interpreter's generated functions")
def test_a_call_runs_few_generated_functions():
    outer = _chain(200)
    x = np.float64(1.0)
    cf = outer.get_concrete_function(x)
    assert "call" in str(cf.graph)  # (the traced graph keeps its call)
    compile(cf.executable_source, "<chain>", "exec")
    outer(x)
    calls = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_name.startswith("<staged"):  # (generated code)
            calls.append(frame.f_code)

    sys.setprofile(profile)
    try:
        assert outer(x) == 201.0
    finally:
        sys.setprofile(None)
    assert 1 <= len(calls) <= 200 // 50  # levels written in place, not one function each


def test_a_chain_of_methods(unchanged_process):
    class Layer:
        def __init__(self, inner):
            self.inner = inner

        @staging.function
        def __call__(self, x):
            if self.inner is None:
                return x * 2.0
            return self.inner(x) - 1.0

    layer = None
    for _ in range(150):
        layer = Layer(layer)
    _same(layer(np.float64(3.0)), np.float64(6.0 - 149))


@pytest.mark.differs_on("jax", "each call is lowered in place per branch: 2^120 lowerings")
def test_a_chain_inside_staged_control_flow(unchanged_process):
    def make(prev):
        @staging.function
        def f(x):
            if x > 0:
                y = prev(x) * 1.0 if prev else x
            else:
                y = prev(x) - 1.0 if prev else x
            return y

        return f

    prev = None
    for _ in range(120):
        prev = make(prev)
    _same(prev(np.float64(2.0)), np.float64(2.0))
    _same(prev(np.float64(-2.0)), np.float64(-2.0 - 119))


def test_deeper_than_the_limit_is_refused_naming_the_call(monkeypatch, unchanged_process):
    monkeypatch.setattr(function_module, "MAX_NESTED_TRACES", 40)
    outer = _chain(60)
    with pytest.raises(errors.NestingTooDeepError) as error:
        outer(np.float64(1.0))
    message = str(error.value)
    this_file = os.path.abspath(__file__)
    line = _make.__code__.co_firstlineno + 3  # `return prev(x) + 1.0 if ...`
    assert message.startswith(f"{this_file}:{line}: cannot trace 'f' (defined at {this_file}:")
    assert "nested too deeply (41 levels" in message and "the limit is 40" in message
    assert isinstance(error.value, RecursionError)


def test_a_failure_deep_in_the_chain_names_its_line_and_graph(unchanged_process):
    def make(prev):
        @staging.function
        def g(x):
            if prev is None:
                assert x > 0, "not positive"
                return x
            return prev(x) + 1.0

        return g

    prev = None
    for _ in range(80):
        prev = make(prev)
    assert prev(np.float64(1.0)) == 80.0
    with pytest.raises(AssertionError) as error:
        prev(np.float64(-1.0))
    notes = "\n".join(getattr(error.value, "__notes__", []))
    assert f"{os.path.abspath(__file__)}:{make.__code__.co_firstlineno + 4}:" in notes
    assert "in staged graph 'g'" in notes


def test_a_staged_try_around_a_deep_chain(unchanged_process):
    chain = _chain(900)

    @staging.function
    def outer(x):
        try:
            y = chain(x)
        except ValueError:
            y = x
        return y

    _same(outer(np.float64(1.0)), np.float64(901.0))


def test_saving_and_loading_a_deep_chain(tmp_path, unchanged_process):
    outer = _chain(700)
    x = np.float64(2.0)
    expected = outer(x)
    path = str(tmp_path / "chain.stg")
    staging.save(outer, path)
    loaded = staging.load(path)
    _same(loaded(x), expected)


def test_concurrent_deep_traces_leave_the_limit_as_it_was(unchanged_process):
    results, failures = {}, []

    def work(k):
        try:
            results[k] = _chain(200 + 50 * k)(np.float64(k))
        except BaseException as error:  # (reported below)
            failures.append(error)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    assert results == {k: np.float64(200 + 51 * k) for k in range(3)}


def test_the_limit_the_user_set_during_a_trace_is_kept():
    before = sys.getrecursionlimit()

    @staging.function
    def raises_limit(x):
        sys.setrecursionlimit(before + 1234)
        return x + 1.0

    @staging.function
    def outer(x):
        return raises_limit(x) * 2.0

    try:
        assert outer(np.float64(1.0)) == 4.0
        assert sys.getrecursionlimit() == before + 1234
    finally:
        sys.setrecursionlimit(before)


@pytest.mark.skipif(not jax_available(), reason="needs jax")
def test_a_deep_chain_compiled_by_jax(unchanged_process):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outer = _chain(400, jit_compile=True)
        _same(outer(np.float64(1.0)), np.float64(401.0))
