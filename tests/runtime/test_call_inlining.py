"""Calls written in place (runtime.call_inlining): a call of a small staged graph is lowered as
that graph's nodes, with results, dtypes, Python types, Variable effects and failure notes
exactly those of a call; the traced graph keeps its `call` node; big graphs, calls in an
`np.errstate` scope and graphs compiled by JAX stay calls."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import staging
from runtime import call_inlining
from runtime.options import options


def _graphs_run(f, *args) -> int:
    """How many generated functions a call of `f` runs: one, plus one per call not in place
    (a call that fails counts too)."""
    f.get_concrete_function(*args)
    runs = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_name.startswith("<staged"):
            runs.append(frame.f_code)

    sys.setprofile(profile)
    try:
        f(*args)
    except Exception:
        pass
    finally:
        sys.setprofile(None)
    return len(runs)


def _both(make, *args):
    """The results of the function `make()` builds, traced with calls in place and without."""
    results = []
    for inline in (True, False):
        with options(inline_calls=inline):
            f = make()
            results.append(f(*args))
    return results


def _same(a, b):
    assert type(a) is type(b)
    if isinstance(a, tuple):
        for x, y in zip(a, b):
            _same(x, y)
    else:
        np.testing.assert_array_equal(a, b)


def _small():
    @staging.function
    def inner(x, y):
        return x * 2.0 + y, x - y

    @staging.function
    def outer(x):
        a, b = inner(x, 1.0)
        c, _ = inner(a, b)  # called twice: written in place twice
        return c

    return outer


@pytest.mark.parametrize(
    "x", [np.float64(1.5), np.float32(-2.0), np.arange(3.0), np.zeros(0), np.float64(np.nan), 2]
)
def test_results_are_those_of_a_call(x):
    inline, call = _both(_small, x)
    _same(inline, call)
    eager = _small().python_function(x)
    _same(inline, eager)


def test_the_call_is_written_in_place_and_the_graph_keeps_it():
    outer = _small()
    assert "call" in str(outer.get_concrete_function(np.float64(1.0)).graph)
    assert _graphs_run(outer, np.float64(1.0)) == 1
    with options(inline_calls=False):
        assert _graphs_run(_small(), np.float64(1.0)) == 3


def test_a_pass_through_and_a_constant():
    def make():
        @staging.function
        def inner(x):
            return x, np.array([1.0, 2.0])

        @staging.function
        def outer(x):
            a, c = inner(x)
            c2 = c * a
            return a, c, c2

        return outer

    inline, call = _both(make, np.float64(3.0))
    _same(inline, call)
    first = make()
    out1 = first(np.float64(3.0))
    out1[1][0] = 99.0  # the caller owns its results: the constant inside stays intact
    _same(first(np.float64(3.0))[1], np.array([1.0, 2.0]))


def test_variables_read_and_written_in_order():
    def make():
        v = staging.Variable(np.array([1.0, 2.0]))

        @staging.function
        def inner(x):
            old = v.read_value()
            v.assign_add(x)
            return old

        @staging.function
        def outer(x):
            before = inner(x)
            after = v.read_value()
            return before, after, inner(x * 2.0)

        return outer

    inline, call = _both(make, np.float64(1.0))
    _same(inline, call)
    _same(inline[0], np.array([1.0, 2.0]))
    _same(inline[1], np.array([2.0, 3.0]))


def test_control_flow_and_kinds_inside():
    def make():
        @staging.function
        def inner(x, n):
            total = 0
            i = 0
            while i < n:
                if x > i:
                    total += x
                i += 1
            return total

        @staging.function
        def outer(x, n):
            return inner(x, n), inner(x, 0)

        return outer

    for n in (np.int64(0), np.int64(3)):
        for x in (np.float64(1.5), np.int8(2)):
            inline, call = _both(make, x, n)
            _same(inline, call)
            _same(inline, make().python_function(x, n))


def test_a_failure_in_place_names_the_called_graph_and_line():
    @staging.function
    def checked(x):
        assert x > 0, "not positive"
        return x

    @staging.function
    def outer(x):
        return checked(x) + 1.0

    assert outer(np.float64(1.0)) == 2.0
    assert _graphs_run(outer, np.float64(1.0)) == 1
    with pytest.raises(AssertionError, match="not positive") as error:
        outer(np.float64(-1.0))
    notes = "\n".join(error.value.__notes__)
    line = checked.python_function.__code__.co_firstlineno + 2
    assert f"{__file__}:{line}: raised while running" in notes
    assert "in staged graph 'checked'" in notes


def test_a_big_graph_stays_a_call(monkeypatch):
    monkeypatch.setattr(call_inlining, "INLINE_NODES", 2)
    outer = _small()
    assert _graphs_run(outer, np.float64(1.0)) == 3
    _same(outer(np.float64(2.0)), _small().python_function(np.float64(2.0)))


def test_a_call_in_an_errstate_scope_stays_a_call():
    @staging.function
    def inner(x):
        return x / 0.0

    @staging.function
    def outer(x):
        with np.errstate(divide="raise"):
            y = inner(x)
        return y

    assert _graphs_run(outer, np.float64(1.0)) == 2
    with pytest.raises(FloatingPointError):
        outer(np.float64(1.0))


def test_a_deep_chain_runs_from_a_deep_stack():
    prev = None
    for _ in range(400):

        def make(prev=prev):
            @staging.function
            def f(x):
                return prev(x) * 1.0 + 1.0 if prev else x

            return f

        prev = make()
    x = np.float64(0.0)
    assert prev(x) == 399.0

    def down(n):
        return down(n - 1) if n else prev(x)

    assert down(sys.getrecursionlimit() - 60) == 399.0


def test_a_lazy_graph_is_lowered_once_from_several_threads(monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    from runtime import executor

    @staging.function
    def f(x, y):
        return x * 2.0 + y, x - y

    graph = f.get_concrete_function(np.float64(1.0), np.float64(1.0)).graph
    lowered = []
    real = executor.CompiledGraph._lower

    def counted(self):
        lowered.append(self)
        return real(self)

    monkeypatch.setattr(executor.CompiledGraph, "_lower", counted)
    compiled = executor.CompiledGraph(graph, lazy=True)
    assert lowered == []
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda k: compiled(np.float64(k), np.float64(1.0)), range(16)))
    assert lowered == [compiled]
    for k, result in enumerate(results):
        _same(result, (np.float64(k) * 2.0 + 1.0, np.float64(k) - 1.0))
    assert "def run" in compiled.source and lowered == [compiled]
