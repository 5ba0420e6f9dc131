"""Thread-safe tracing: concurrent first calls share one trace and never corrupt the cache."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import staging

THREADS = 8


def run_concurrently(target, n=THREADS):
    """Starts `n` threads that call target(i) together (after a barrier); returns results, errors."""
    barrier = threading.Barrier(n)
    results, errors = [None] * n, []

    def worker(i):
        try:
            barrier.wait()
            results[i] = target(i)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread hangs (deadlock?)"
    return results, errors


def test_concurrent_first_calls_trace_once():
    python_calls = []

    def slow_double(x):
        python_calls.append(threading.get_ident())
        time.sleep(0.05)  # keep the trace in progress while other threads arrive
        return x * 2 + 1

    f = staging.function(slow_double, autograph=False)
    results, errors = run_concurrently(lambda i: f(np.full(3, float(i))))
    assert errors == []
    assert f.tracing_count == 1 and len(python_calls) == 1
    for i, out in enumerate(results):
        np.testing.assert_array_equal(out, np.full(3, 2.0 * i + 1))


def test_concurrent_calls_with_different_signatures():
    def g(x):
        time.sleep(0.01)
        return x.sum() * np.float64(x.shape[0])

    f = staging.function(g, autograph=False)

    def call(i):
        n = i % 4 + 1  # 4 distinct shapes, each from 2 threads
        out = []
        for _ in range(5):
            out.append(f(np.ones(n)))
        return n, out

    results, errors = run_concurrently(call)
    assert errors == []
    assert f.tracing_count == 4
    for n, outs in results:
        assert outs == [float(n * n)] * 5
    sigs = f.pretty_printed_concrete_signatures()
    assert sorted(line.strip() for line in sigs.splitlines() if "x: f64" in line) == [
        "x: f64[1]",
        "x: f64[2]",
        "x: f64[3]",
        "x: f64[4]",
    ]


def test_tracing_state_is_per_thread():
    """One thread tracing must not make another thread's plain calls symbolic, or vice versa."""
    inside = threading.Event()
    release = threading.Event()

    def slow(x):
        inside.set()
        release.wait(10)
        return x + 1

    f = staging.function(slow, autograph=False)
    g = staging.function(lambda x: x * 3, autograph=False)
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("f", f(np.float64(1.0))))
    t.start()
    assert inside.wait(10)
    # while thread t is inside f's trace, this thread runs eagerly and traces g independently
    assert staging.constant(2.0) == 2.0 and not staging.is_symbolic(staging.constant(2.0))
    assert g(np.float64(2.0)) == 6.0
    staging.print("eager print")  # no graph to record into in this thread
    release.set()
    t.join(10)
    assert out["f"] == 2.0 and g.tracing_count == 1


def test_concurrent_stateful_calls_keep_variable_consistent():
    v = staging.Variable(np.int64(0))
    lock = threading.Lock()

    @staging.function(autograph=False)
    def bump(k):
        v.assign_add(k)
        return k

    def call(i):
        for _ in range(50):
            with lock:  # the user's own synchronisation of shared state
                bump(np.int64(1))
        return i

    _, errors = run_concurrently(call)
    assert errors == []
    assert v.numpy() == THREADS * 50 and bump.tracing_count == 1


@pytest.mark.stress
def test_mutual_recursion_started_from_two_threads_does_not_deadlock():
    @staging.function(autograph=False)
    def ping(x):
        return pong(x) + 1

    @staging.function(autograph=False)
    def pong(x):
        return ping(x) * 2

    raised = []

    def run(f):
        try:
            f(np.float64(1.0))
        except staging.errors.RecursionInTraceError:
            raised.append(f)

    threads = [threading.Thread(target=run, args=(f,)) for f in (ping, pong)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert not any(t.is_alive() for t in threads), "tracing deadlocked"
    assert len(raised) == 2


@pytest.mark.stress
def test_concurrent_variable_updates_are_never_lost(stress):
    """8 threads x N staged calls of `assign_add`: every update lands (each update is atomic).
    STRESS=full: 8 x 12,500 = 10^5 calls (docs/testing.md)."""
    calls = stress.size(300, 12_500)
    counter = staging.Variable(np.int64(0))
    vector = staging.Variable(np.zeros(1000))

    @staging.function
    def bump():
        counter.assign_add(1)
        vector.assign_add(np.ones(1000))
        return counter.read_value()

    bump()  # traced before the threads start
    _, errors = run_concurrently(lambda i: [bump() for _ in range(calls)])
    assert errors == []
    assert counter.numpy() == 1 + THREADS * calls
    np.testing.assert_array_equal(vector.numpy(), np.full(1000, 1 + THREADS * calls))


def test_concurrent_eager_variable_updates_are_never_lost():
    counter = staging.Variable(0.0)
    _, errors = run_concurrently(lambda i: [counter.assign_add(1.0) for _ in range(300)])
    assert errors == [] and counter.numpy() == THREADS * 300.0


@pytest.mark.stress
def test_a_trace_may_wait_for_another_thread_that_traces_another_function():
    """f's Python code starts a thread that calls (and traces) g, and waits for it."""

    @staging.function(autograph=False)
    def g(x):
        return x * 3

    @staging.function(autograph=False)
    def f(x):
        box = []
        worker = threading.Thread(target=lambda: box.append(g(np.float64(2.0))))
        worker.start()
        worker.join(timeout=20)
        assert not worker.is_alive(), "the inner trace never finished (deadlock)"
        return x + box[0]

    assert f(np.float64(1.0)) == 7.0


def test_unrelated_functions_trace_in_parallel():
    """Each trace waits until the other one has started: possible only if they overlap."""
    started = [threading.Event(), threading.Event()]

    def make(me, other):
        def body(x):
            started[me].set()
            assert started[other].wait(timeout=20), (
                "the other trace never started while this one ran"
            )
            return x + me

        return staging.function(body, autograph=False)

    fs = [make(0, 1), make(1, 0)]
    results, errors = run_concurrently(lambda i: fs[i](np.float64(1.0)), n=2)
    assert errors == [] and results == [1.0, 2.0]
