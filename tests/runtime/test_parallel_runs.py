"""Fused elementwise runs split across threads (runtime/parallel.py): bitwise the eager answer,
NumPy's error state and errors as eagerly, and the same code whatever the machine's core count
(the tests set `threads` themselves)."""

from __future__ import annotations

import multiprocessing
import os
import warnings

import numpy as np
import pytest
from _runtime_helpers import assert_bitwise, chain

import staging
from runtime.parallel import run_parts, split_bounds
from staging import TensorSpec

# Split whatever the array size, with chunks small enough that each part has several, the last
# one short.
SPLIT = dict(threads=3, parallel_min_bytes=1, fusion_chunk_bytes=256)


def staged(func, options=SPLIT, **kwargs):
    f = staging.function(func, **kwargs)

    def call(*args):
        with staging.optimizer_options(**options):
            concrete = f.get_concrete_function(*args)
        return concrete(*args)

    return call


def source_of(func, *args, options=SPLIT, **kwargs) -> str:
    f = staging.function(func, **kwargs)
    with staging.optimizer_options(**options):
        return f.get_concrete_function(*args).executable_source


@pytest.mark.parametrize("n", [1, 63, 64, 1000, 4099])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_split_run_is_bitwise_the_eager_answer(n, dtype):
    x = np.linspace(-3, 3, n, dtype=dtype)
    assert_bitwise(staged(chain)(x), chain(x))


def test_split_run_is_emitted_only_when_asked():
    x = np.linspace(0, 1, 5000)
    assert "_work(" in source_of(chain, x)
    assert "_work(" not in source_of(chain, x, options=dict(SPLIT, threads=1))
    # below parallel_min_bytes (elements x itemsize x ops) the run is not split
    assert "_work(" not in source_of(
        chain, x, options=dict(SPLIT, parallel_min_bytes=1 << 40, fusion_min_bytes=1)
    )


def test_unknown_sizes_are_split_when_the_graph_runs():
    spec = [TensorSpec([None], np.float64)]
    assert "_work(" in source_of(chain, np.zeros(3), input_signature=spec)
    f = staging.function(chain, input_signature=spec)
    with staging.optimizer_options(**SPLIT):
        f.get_concrete_function(np.zeros(3))
    for n in (0, 1, 70, 3001):
        x = np.linspace(-1, 1, n)
        assert_bitwise(f(x), chain(x))


def normalize(x, mean, w):
    y = (x - mean) * w
    return np.maximum(y, 0.0) * y + 1.0


def test_runs_with_broadcast_operands_split_by_rows():
    rng = np.random.default_rng(0)
    args = (rng.standard_normal((301, 7)), rng.standard_normal(7), rng.standard_normal(7))
    assert "_work(" in source_of(normalize, *args)
    assert_bitwise(staged(normalize)(*args), normalize(*args))


def overflow(x):
    return x * np.float32(1e30) - np.float32(1.0)  # inf only where x > ~3.4e8


def test_the_callers_errstate_applies_in_every_thread():
    x = np.ones(4000, np.float32)
    x[-1] = 1e10  # overflows in the last part only, which a pool thread runs
    f = staged(overflow)
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            overflow(x)
        with pytest.raises(FloatingPointError):
            f(x)
    with np.errstate(over="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_bitwise(f(x), overflow(x))


def test_a_warning_of_a_pool_thread_reaches_the_caller():
    x = np.ones(4000, np.float32)
    x[-1] = 1e10
    f = staged(overflow)
    f(x)  # (the trace)
    with np.errstate(over="warn"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert_bitwise(f(x), overflow(x))
    assert any(
        issubclass(w.category, RuntimeWarning) and "overflow" in str(w.message) for w in caught
    )


def test_split_bounds_cover_every_unit_once():
    for n in (0, 1, 63, 64, 65, 1000, 4097):
        for chunk in (1, 7, 64, 5000):
            for threads in (1, 2, 3, 8):
                parts = split_bounds(n, chunk, threads, min_units=10)
                assert len(parts) <= max(1, threads)
                flat = [b for part in parts for b in part]
                assert [s for s, _ in flat] == sorted(s for s, _ in flat)
                covered = [i for s, e in flat for i in range(s, e)]
                assert covered == list(range(n))
                assert all(0 < e - s <= chunk for s, e in flat)
                for part in parts:  # only a part's last chunk is short
                    assert all(e - s == chunk for s, e in part[:-1])
                assert all(part[0][0] % 64 == 0 for part in parts if part)
    assert len(split_bounds(1000, 100, 4, min_units=600)) == 1  # too small to split
    assert len(split_bounds(10_000, 100, 4, min_units=600)) == 4


def test_run_parts_raises_the_first_error_after_every_part_finished():
    done = []

    def work(part):
        done.append(part)
        if part in ("b", "c"):
            raise ValueError(part)

    with pytest.raises(ValueError, match="^b$"):
        run_parts(work, ("a", "b", "c", "d"))
    assert sorted(done) == ["a", "b", "c", "d"]


def _child(conn):
    try:
        x = np.linspace(-3, 3, 4000)
        conn.send(bool(np.array_equal(staged(chain)(x), chain(x))))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
        conn.send(repr(exc))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_split_runs_work_in_a_forked_child():
    x = np.linspace(-3, 3, 4000)
    staged(chain)(x)  # the parent's pool exists before the fork
    context = multiprocessing.get_context("fork")
    parent, child = context.Pipe()
    process = context.Process(target=_child, args=(child,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # (fork with threads, Python 3.12+)
        process.start()
    try:
        assert parent.poll(120), "the forked child did not finish"
        assert parent.recv() is True
    finally:
        process.join(10)
        if process.is_alive():
            process.kill()
