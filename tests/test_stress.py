"""Stress tests: threads x calls with Variables and retracing, nested traces across threads, a
generated 10k-line module converted with its memory measured, thousands of functions converted
and dropped, a long straight-line function staged in chunks. With the fault injection of
tests/staging/test_error_types.py, the input kinds of tests/staging/test_inputs.py and the
thread tests of tests/staging/test_threads.py they make up the `stress` marker: small sizes by
default (CI), full sizes with

    STRESS=full python -m pytest -q -m stress tests

(docs/testing.md). Memory bounds are relative, never absolute; nothing is timed."""

from __future__ import annotations

import gc
import importlib
import itertools
import linecache
import sys
import threading
import tracemalloc
import warnings

import numpy as np
import pytest

import autograph
import staging

pytestmark = pytest.mark.stress

THREADS = 8
_IDS = itertools.count()


def run_threads(target, n=THREADS):
    """Runs target(i) in `n` threads started together; (results, errors)."""
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
        t.join(timeout=600)
    assert not any(t.is_alive() for t in threads), "a thread hangs (deadlock?)"
    return results, errors


# -- threads ---------------------------------------------------------------------------


def test_threads_times_calls_with_variables_and_retracing(stress):
    """Every thread calls with 3 Python values of `k` and 2 shapes: 6 traces, made while other
    threads call; every Variable update lands, as in some sequential order."""
    calls = stress.size(60, 12_500)
    count = staging.Variable(np.int64(0))
    total = staging.Variable(np.float64(0.0))

    @staging.function
    def step(x, k):
        if k > 1:  # a Python value: each k is its own trace
            count.assign_add(k)
        else:
            count.assign_add(1)
        total.assign_add(x.sum())
        return count.read_value()

    shapes = [np.ones(3), np.ones((2, 2))]

    def work(i):
        for j in range(calls):
            step(shapes[(i + j) % 2], 1 + (i * 7 + j) % 3)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # RetracingWarning: retracing on purpose
        _, errors = run_threads(work)
    assert errors == []
    expected_count = sum(1 + (i * 7 + j) % 3 for i in range(THREADS) for j in range(calls))
    expected_total = sum(shapes[(i + j) % 2].sum() for i in range(THREADS) for j in range(calls))
    assert count.numpy() == expected_count
    assert total.numpy() == expected_total
    assert step.tracing_count == 6


def test_nested_traces_across_threads(stress):
    """Fresh outer functions traced in every thread at once, each tracing a shared inner
    function inside its own trace; one outer also waits for a worker thread that traces."""
    rounds = stress.size(3, 60)
    for r in range(rounds):

        @staging.function
        def inner(x):
            if x.sum() > 0:
                return x * 2.0
            return -x

        @staging.function
        def outer(x):
            y = inner(x) + 1.0
            for _ in range(2):
                y = inner(y)
            return y

        @staging.function
        def waits(x):
            box = []
            worker = threading.Thread(target=lambda: box.append(outer(np.ones(4))))
            worker.start()
            worker.join(timeout=120)
            assert box, "the worker's trace never finished"
            return x + box[0].sum()

        def call(i):
            if i == 0:
                return waits(np.float64(r))
            return outer(np.full(1 + i % 4, float(i)))

        results, errors = run_threads(call)
        assert errors == []
        assert results[0] == r + 4 * 12.0
        for i in range(1, THREADS):
            x = np.full(1 + i % 4, float(i))
            np.testing.assert_array_equal(results[i], (x * 2.0 + 1.0) * 4.0)
        assert outer.tracing_count == 4  # one per shape, however many threads asked


# -- big programs and many functions -------------------------------------------------------

FUNCTION = """\
def f{i}(x):
    if x > 0:
        x = x + {i}
    else:
        x = x - {i}
    return x


"""
_PER_FUNCTION = FUNCTION.count("\n")


@pytest.fixture
def write_module(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    names = []

    def write(lines):
        name = f"ag_stress_mod_{next(_IDS)}"
        count = max(lines // _PER_FUNCTION, 6)
        (tmp_path / f"{name}.py").write_text("".join(FUNCTION.format(i=i) for i in range(count)))
        names.append(name)
        return importlib.import_module(name), count

    yield write
    for name in names:
        sys.modules.pop(name, None)


def _retained_per_function(functions) -> float:
    """Bytes still allocated per function after converting (and keeping) `functions`."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = [autograph.convert(f) for f in functions]
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert kept[-1](1) == 1 + len(functions)
    return (after - before) / len(functions)


def test_conversion_of_a_generated_10k_line_module(stress, write_module):
    big, count = write_module(10_000)
    small, _ = write_module(10)
    converted = stress.size(12, count - 1)
    autograph.convert(big.f0)(1)  # the files read once
    autograph.convert(small.f0)(1)
    in_small = _retained_per_function([getattr(small, f"f{i}") for i in range(1, 6)])
    in_big = _retained_per_function([getattr(big, f"f{i}") for i in range(1, converted + 1)])
    assert in_big < 2 * in_small + 16_384, (in_small, in_big)
    staged = staging.function(getattr(big, f"f{count - 1}"))
    assert staged(np.float64(-1.0)) == -count


def test_long_straight_line_function_is_staged_in_chunks(stress, tmp_path, monkeypatch):
    """A straight-line function of thousands of operations (10^5 at full size: the trace-scaling
    benchmark's row) runs as several chunk functions (runtime/chunks.py) and gives the eager
    result, bit for bit; values made at the start are read at the end, across every chunk."""
    ops = stress.size(6_000, 100_000)
    body = "".join(
        f"    x = x + {1 + i % 7}.0\n" if i % 2 else "    x = x * 0.5\n" for i in range(ops)
    )
    name = f"ag_stress_long_{next(_IDS)}"
    source = f"def f(x, y):\n    first = x - y\n{body}    return x * first, first\n"
    (tmp_path / f"{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(name)
    sys.modules.pop(name)  # (the function keeps what it needs)
    x, y = np.linspace(0.0, 1.0, 8), np.arange(8.0)
    staged = staging.function(module.f)
    got, expected = staged(x, y), module.f(x, y)
    assert all(np.array_equal(a, b) for a, b in zip(got, expected))
    compiled = staged.get_concrete_function(x, y)._compiled
    assert sum(code.co_name == "<staged f>" for code in compiled._codes) > 2  # run and the chunks
    assert all(code.co_filename == module.__file__ for code in compiled._codes)


def _pseudo_function(i):
    """f{i} from a pseudo-file of its own registered in linecache, as code generators do."""
    filename = f"<ag stress {next(_IDS)}>"
    source = FUNCTION.format(i=i)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[f"f{i}"], filename


def _convert_and_drop(count: int) -> None:
    for i in range(count):
        f, filename = _pseudo_function(i)
        if i % 4 == 0:
            assert staging.function(f)(np.float64(1.0)) == 1 + i
        else:
            assert autograph.convert(f)(1) == 1 + i
        del linecache.cache[filename]


def test_converted_and_dropped_functions_leave_memory_flat(stress):
    """Memory grows by nothing per function over windows of converted and dropped functions:
    nothing of a dropped function (its conversion, linecache entry, line table, traces) stays.
    The smallest growth of four windows counts: a one-off (a long-lived dict of the session
    growing its table, which after a long test session can happen in two windows running)
    lands in some windows, a leak in all."""
    count = stress.size(200, 10_000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _convert_and_drop(50)  # warm our own caches
        gc.collect()
        tracemalloc.start()
        try:
            marks = []
            for _window in range(5):
                marks.append(tracemalloc.get_traced_memory()[0])
                _convert_and_drop(count // 2)
                gc.collect()
            marks.append(tracemalloc.get_traced_memory()[0])
        finally:
            tracemalloc.stop()
    # Before: ~15 KB per converted function stayed for good.
    windows = [b - a for a, b in zip(marks[1:], marks[2:])]
    growth = min(windows) / (count // 2)
    assert growth < 1_000, windows
