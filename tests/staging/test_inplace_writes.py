"""`out[i] = v` in staged code writes into out's buffer where nothing can see the difference
(runtime.inplace), and stays what eager code gives everywhere: fills, recurrences, views, lists,
arguments, constants, zero-trip and nested loops, branches, errors."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import staging
from benchmarks.user_workloads import fill
from runtime import inplace

# a line of generated code writing into an array's buffer: `v5[v4] = ...`
_WRITE = re.compile(r"^\s*v\d+\[[^\]]*\] = ", re.MULTILINE)


def _same(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and np.asarray(a).tobytes() == np.asarray(b).tobytes()


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _outcome(fn, args):
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001  (compared with eager's)
        return type(exc)


def _check(fn, *calls, **options):
    """Staged against eager on each call's arguments: results, and the arguments afterwards."""
    staged = staging.function(fn, **options)
    for args in calls:
        mine, theirs = _copies(args), _copies(args)
        got, want = _outcome(staged, mine), _outcome(fn, theirs)
        assert _same(got, want), (args, got, want)
        assert _same(mine, theirs), (args, mine, theirs)
    return staged


def _source(staged, *args) -> str:
    return staged.get_concrete_function(*args).compiled_graph.source


def test_fill_writes_in_place():
    staged = _check(fill, (np.int64(0),), (np.int64(1),), (np.int64(7),), (np.int64(1000),))
    source = _source(staged, np.int64(3))
    assert len(_WRITE.findall(source)) == 1, source
    assert "copy" not in source, source  # (np.zeros is the graph's own buffer)


def test_without_buffer_reuse_every_write_copies():
    with staging.optimizer_options(buffer_reuse=False):
        staged = _check(fill, (np.int64(4),))
        assert not _WRITE.findall(_source(staged, np.int64(4)))


def fill_2d(n, m):
    out = np.zeros((n, m), dtype=np.int64)
    for i in range(n):
        for j in range(m):
            out[i, j] = i * m + j
    return out


def test_nested_loops():
    staged = _check(
        fill_2d,
        (np.int64(3), np.int64(4)),
        (np.int64(0), np.int64(4)),
        (np.int64(3), np.int64(0)),
        (np.int64(1), np.int64(1)),
    )
    source = _source(staged, np.int64(2), np.int64(2))
    assert len(_WRITE.findall(source)) == 1 and "copy" not in source, source


def running_sum(x):
    out = np.zeros_like(x)
    if x.shape[0]:
        out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = out[i - 1] + x[i]
    return out


def test_reads_before_writes():
    staged = _check(
        running_sum,
        (np.arange(6.0),),
        (np.array([]),),
        (np.array([1.0]),),
        (np.array([1.0, np.nan, 2.0]),),
        (np.arange(5, dtype=np.int32),),
    )
    assert _WRITE.findall(_source(staged, np.arange(6.0)))


def rows(x):
    out = np.zeros(x.shape)
    for i in range(1, x.shape[0]):
        out[i] = out[i - 1] * 0.5 + x[i]  # (a row: a view of out, dead before the write)
    return out


def test_rows_of_a_2d_array():
    staged = _check(rows, (np.arange(12.0).reshape(4, 3),), (np.ones((1, 2)),), (np.ones((0, 2)),))
    assert _WRITE.findall(_source(staged, np.ones((3, 2))))


def prefix_sums(n):
    out = np.ones(n)
    for i in range(1, n):
        out[i] = out[:i].sum()
    return out


def test_a_view_read_before_the_write():
    _check(prefix_sums, (np.int64(6),), (np.int64(1),), (np.int64(0),))


def view_after_writes(x):
    out = np.zeros(5)
    view = out[1:]
    out[0] = x
    out[2] = x + 1.0
    return view.sum(), view, out


def test_a_view_sees_the_writes_as_eagerly():
    _check(view_after_writes, (np.float64(3.0),), (np.float64(np.nan),))


def returned_and_listed(n):
    out = np.zeros(3)
    for i in range(n):
        out[i % 3] = i
    keep = [out]
    return out, keep


def test_returned_and_kept_in_a_list():
    staged = _check(returned_and_listed, (np.int64(4),), (np.int64(0),))
    out, keep = staged(np.int64(5))
    assert keep[0] is out  # (as eagerly: one array)


def argument_fill(x, n):
    for i in range(n):
        x[i] = i
    return x


def test_an_argument_is_written_as_eagerly():
    staged = _check(
        argument_fill,
        (np.full(4, 9.0), np.int64(2)),
        (np.full(4, 9.0), np.int64(0)),
        (np.full(4, 9.0), np.int64(4)),
    )
    x = np.full(3, 9.0)
    result = staged(x, np.int64(2))
    assert list(x) == [0.0, 1.0, 9.0] and list(result) == [0.0, 1.0, 9.0]


def constant_written(k):
    e = np.array([1.0, 2.0, 3.0])
    e[k] = 7.0
    e[(k + 1) % 3] = 8.0
    return e


def test_a_constant_is_not_changed_for_the_next_call():
    _check(constant_written, *[(np.int64(k),) for k in (0, 1, 2, 0, 1)])


def constant_in_a_loop(n):
    e = np.array([1.0, 2.0, 3.0])
    for i in range(n):
        e[i] = 0.0
    return e


def test_a_constant_loop_variable_is_copied_once():
    staged = _check(constant_in_a_loop, *[(np.int64(n),) for n in (2, 0, 3, 1, 0)])
    source = _source(staged, np.int64(1))
    assert source.count("copy") == 1 and _WRITE.findall(source), source


def twice_zeros(n):
    a = np.zeros(n)
    b = np.zeros(n)  # (one node with a's: the graph merges them)
    for i in range(n):
        b[i] = 1.0
    return a, b


def test_a_loop_variable_read_after_the_loop_is_copied():
    _check(twice_zeros, (np.int64(3),), (np.int64(0),))


def swapped(n):
    a = np.zeros(3)
    b = np.ones(3)
    for i in range(n):
        a[i % 3] = i
        a, b = b + 0.0, a  # (b's buffer now a's, written next)
    return a, b


def test_loop_variables_exchanging_buffers():
    _check(swapped, *[(np.int64(n),) for n in (0, 1, 2, 5)])


def written_under_a_branch(x):
    out = np.zeros(x.shape[0])
    i = 0
    while i < x.shape[0]:
        if x[i] > 0:
            out[i] = x[i]
        else:
            out[i] = -1.0
        i += 1
    return out


def test_a_write_under_a_branch():
    staged = _check(
        written_under_a_branch,
        (np.array([1.0, -2.0, 3.0]),),
        (np.array([]),),
        (np.array([np.nan, 2.0]),),
    )
    source = _source(staged, np.array([1.0, 2.0]))
    assert len(_WRITE.findall(source)) == 2 and "copy" not in source, source


def kept_by_a_branch(x, flag, n):
    out = np.zeros(n)
    if flag:
        out = out + x  # (else the same buffer: the branch's result is exclusive both ways)
    out[0] = x
    return out


def test_a_branch_result_that_may_be_the_buffer():
    n = np.int64(3)
    staged = _check(
        kept_by_a_branch, (np.float64(1.0), np.True_, n), (np.float64(1.0), np.False_, n)
    )
    source = _source(staged, np.float64(1.0), np.True_, n)
    assert len(_WRITE.findall(source)) == 1 and "copy" not in source, source


def beyond(n):
    out = np.zeros(3)
    for i in range(n):
        out[i] = 1.0
    return out


def test_an_index_out_of_range_names_the_line():
    staged = staging.function(beyond)
    with pytest.raises(IndexError, match="index 3 is out of bounds") as info:
        staged(np.int64(4))
    line = beyond.__code__.co_firstlineno + 3
    assert f"{__file__}:{line}" in "\n".join(getattr(info.value, "__notes__", ())), info.value


def nan_into_ints(x):
    out = np.zeros(3, dtype=np.int64)
    for i in range(3):
        out[i] = x[i]
    return out


def test_nan_into_an_int_array_raises_eagers_error():
    staged = _check(nan_into_ints, (np.array([1.0, 2.0, 3.0]),), (np.array([1.0, np.nan, 3.0]),))
    with pytest.raises(ValueError, match="cannot convert float NaN to integer") as info:
        staged(np.array([1.0, np.nan, 3.0]))
    line = nan_into_ints.__code__.co_firstlineno + 3
    assert f"{__file__}:{line}" in "\n".join(getattr(info.value, "__notes__", ())), info.value


def test_the_plan_of_a_graph():
    staged = staging.function(fill)
    graph = staged.get_concrete_function(np.int64(3)).graph
    plan = inplace.plan(graph)
    (loop,) = [n for n in graph.nodes if n.subgraphs]
    (write,) = [n for n in loop.subgraphs["body"].nodes if n.opdef.in_place_form is not None]
    assert plan.in_place(write) and not plan.copies_at_entry(loop)


# -- the numba backend ------------------------------------------------------------------------


@pytest.fixture
def numba_backend():
    pytest.importorskip("numba")
    from runtime.numba_backend import NumbaFallbackWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", NumbaFallbackWarning)  # (each must compile)
        yield


def test_numba_fills(numba_backend):
    for fn, calls in (
        (fill, [(np.int64(n),) for n in (0, 1, 5, 1000)]),
        (fill_2d, [(np.int64(3), np.int64(4)), (np.int64(0), np.int64(2))]),
        (running_sum, [(np.arange(5.0),), (np.array([2.0, np.nan]),)]),
        (constant_written, [(np.int64(k),) for k in (0, 1, 2, 0)]),
        (constant_in_a_loop, [(np.int64(n),) for n in (2, 0, 3)]),
        (written_under_a_branch, [(np.array([1.0, -2.0]),), (np.array([]),)]),
    ):
        staged = _check(fn, *calls, jit_compile="numba")
        assert staged.get_concrete_function(*calls[0]).backend_fallback is None


def test_numba_writes_in_place(numba_backend):
    staged = staging.function(fill, jit_compile="numba")
    source = staged.get_concrete_function(np.int64(3))._compiled.source
    assert "copy" not in source and re.search(r"^\s*w\d+\[.*\] = ", source, re.MULTILINE)


def test_numba_errors_are_eagers(numba_backend):
    staged = _check(beyond, (np.int64(3),), (np.int64(4),), jit_compile="numba")
    with pytest.raises(IndexError) as info:
        staged(np.int64(4))
    line = beyond.__code__.co_firstlineno + 3
    assert f"{__file__}:{line}" in "\n".join(getattr(info.value, "__notes__", ()))
    _check(fill, (np.int64(-1),), jit_compile="numba")  # (np.zeros(-1): ValueError)


def test_numba_leaves_casting_writes_to_the_interpreter():
    pytest.importorskip("numba")
    from runtime.numba_backend import NumbaFallbackWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _check(nan_into_ints, (np.array([1.0, np.nan, 3.0]),), jit_compile="numba")
    assert any(
        issubclass(w.category, NumbaFallbackWarning) and "stored into int64" in str(w.message)
        for w in caught
    )
