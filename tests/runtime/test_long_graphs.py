"""A long top-level graph is emitted as chunk functions compiled one at a time
(runtime/chunks.py): results equal eager ones, values cross chunk boundaries,
and failures and warnings still name the user's file and line. The thresholds are lowered
here so that small functions are cut into many chunks."""

from __future__ import annotations

import linecache
import re
import traceback
import warnings

import numpy as np
import pytest

import staging
from runtime import chunks
from runtime.options import options


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(chunks, "LONG_GRAPH", 8)
    monkeypatch.setattr(chunks, "CHUNK_LINES", 6)


_FILES = iter(range(1 << 30))


def define(source: str, name: str = "f"):
    """A function from `source`, its text visible through linecache as a file's."""
    filename = f"<long graph {next(_FILES)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name], filename


def straight_line(ops: int) -> str:
    body = [f"    x = x + {1 + i % 7}.0" if i % 2 else "    x = x * 0.5" for i in range(ops)]
    return "\n".join(["def f(x):", *body, "    return x"]) + "\n"


def compiled_of(staged, *args):
    return staged.get_concrete_function(*args)._compiled


def test_a_long_straight_line_is_cut_into_chunks_with_the_eager_result(small_chunks):
    func, _ = define(straight_line(60))
    x = np.linspace(0.0, 1.0, 5)
    staged = staging.function(func)
    assert np.array_equal(staged(x), func(x))
    compiled = compiled_of(staged, x)
    chunks = [c for c in compiled._codes if c.co_name == "<staged f>"]
    assert len(chunks) > 5  # run and the chunks
    assert compiled.source.count("\ndef _chunk") == len(chunks) - 1


def test_small_graphs_are_one_function():
    func, _ = define(straight_line(60))
    compiled = compiled_of(staging.function(func), np.zeros(3))
    assert "_chunk" not in compiled.source and len(compiled._codes) == 1


def test_values_live_across_many_chunks_and_several_outputs(small_chunks):
    source = """def f(x, y, n):
    first = x * 2.0
    s = np.sum(x)
    t = s * 3.0
    for i in range(4):
        x = x + 1.0
    if s > 0.5:
        y = y - x
    else:
        y = y + x
    k = n + 1
    z = x * y
    z = z + first
    z = z - 1.0
    z = z * t
    q = k * 2
    w = np.sin(z) + np.cos(first)
    return z, w, first, q, x, 7
"""
    func, _ = define(source)
    staged = staging.function(func)
    for args in [(np.linspace(0, 1, 4), np.ones(4), 3), (np.zeros(4), np.arange(4.0), 5)]:
        got, expected = staged(*args), func(*args)
        assert len(got) == len(expected)
        for a, b in zip(got, expected):
            assert type(a) is type(b) and np.array_equal(a, b)
    assert len(compiled_of(staged, *args)._codes) > 3


def test_an_input_returned_as_it_is_and_a_constant_output(small_chunks):
    source = (
        "def f(x):\n"
        + "".join(f"    y{i} = x + {i}.0\n" for i in range(20))
        + ("    return x, np.ones(2), y19\n")
    )
    func, _ = define(source)
    staged = staging.function(func)
    x = np.arange(3.0)
    got = staged(x)
    assert np.array_equal(got[0], x) and np.array_equal(got[2], x + 19.0)
    got[1][0] = 5.0  # the caller owns its results
    assert np.array_equal(staged(x)[1], np.ones(2))


@pytest.mark.parametrize("chunk_lines", [1, 6])
def test_scalar_operators_written_into_lines_cross_chunk_boundaries(
    small_chunks, monkeypatch, chunk_lines
):
    """With chunks of one line, a chunk ends after every node: a scalar operator written into
    the line of the node reading it is computed where its chunk ends instead."""
    monkeypatch.setattr(chunks, "CHUNK_LINES", chunk_lines)
    source = (
        "def f(n):\n"
        + "".join(f"    n = n * 3 + {i}\n    n = n % 1000\n" for i in range(30))
        + ("    return n\n")
    )
    func, _ = define(source)
    staged = staging.function(func)
    for n in (np.int64(7), np.int64(-12)):
        assert staged(n) == func(n)


def test_deeply_nested_branches_inside_a_chunk(small_chunks):
    lines = ["def f(x):", "    x = x * 1.5", "    x = x + 1.0"]
    for level in range(45):
        pad = "    " * (level + 1)
        lines += [f"{pad}if x > {level}:", f"{pad}    x = x + {level + 1}"]
    lines += ["    x = x * 2.0"] * 12 + ["    return x"]
    func, _ = define("\n".join(lines) + "\n")
    staged = staging.function(func)
    for value in (0.25, 7.0, 1e6):
        assert staged(np.float64(value)) == func(np.float64(value))


def test_fused_runs_in_chunks(small_chunks):
    func, _ = define(straight_line(40))
    x = np.linspace(0.0, 1.0, 4096)
    with options(elementwise_fusion="all", fusion_min_bytes=1024):
        staged = staging.function(func)
        assert np.array_equal(staged(x), func(x))
        assert np.array_equal(staged(x), func(x))


def test_a_failure_in_a_chunk_names_the_users_line(small_chunks):
    source = (
        "def f(x, i):\n"
        + "".join("    x = x + 1.0\n" for _ in range(20))
        + ("    y = x[i]\n" + "".join("    y = y * 2.0\n" for _ in range(20)) + "    return y\n")
    )
    func, filename = define(source)
    staged = staging.function(func)
    x = np.zeros(3)
    assert staged(x, np.int64(1)) == func(x, np.int64(1))
    with pytest.raises(IndexError) as info:
        staged(x, np.int64(9))
    frames = traceback.extract_tb(info.value.__traceback__)
    assert any(f.filename == filename and f.lineno == 22 and "x[i]" in f.line for f in frames)
    note = "\n".join(info.value.__notes__)
    assert note.startswith(f"{filename}:22: raised while running `") and "getitem" in note


def test_a_warning_in_a_chunk_names_the_users_line(small_chunks):
    source = (
        "def f(x):\n"
        + "".join("    x = x * 2.0\n" for _ in range(20))
        + ("    x = 1.0 / x\n" + "".join("    x = x + 1.0\n" for _ in range(20)) + "    return x\n")
    )
    func, filename = define(source)
    staged = staging.function(func)
    x = np.zeros(2)
    staged.get_concrete_function(x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        staged(x)
    assert [(w.category, w.filename, w.lineno) for w in caught] == [(RuntimeWarning, filename, 22)]


def test_results_written_over_dying_arrays_take_their_names(small_chunks):
    """In a chunk, a ufunc writing into the buffer of an input that dies there (`v1 = k4(v1, c3,
    v1)`) gives its result that input's name; values still read later keep their own."""
    source = """def f(x, y):
    a = x * 2.0
    b = a + 1.0
    c = b * 3.0
    d = c - a
    e = d * d
    g = e + b
    h = np.sin(g) + c
    h = h * 0.5
    h = h + y
    h = h - 2.0
    return h, a, g * 1.0
"""
    func, _ = define(source)
    staged = staging.function(func)
    for x, y in [(np.linspace(0.0, 1.0, 5), np.ones(5)), (np.arange(5.0), np.full(5, -3.0))]:
        for got, expected in zip(staged(x, y), func(x, y)):
            assert np.array_equal(got, expected)
    source_text = compiled_of(staged, x, y).source
    assert "_chunk" in source_text
    assert re.search(r"^ *(v\d+) = k\d+\(.*\b\1\)$", source_text, re.MULTILINE)


def test_a_long_trace_leaves_the_garbage_collector_as_it_found_it(small_chunks, monkeypatch):
    """Recording, optimising and compiling a long graph pause the garbage collector (it would
    walk the growing graph again and again); it is running again afterwards, even when the
    trace fails, and stays off when the program turned it off."""
    import gc

    from staging.core import recording as graph_building

    monkeypatch.setattr(graph_building, "LONG_GRAPH", 8)
    func, _ = define(straight_line(40))
    assert gc.isenabled()
    staged = staging.function(func)
    assert np.array_equal(staged(np.arange(3.0)), func(np.arange(3.0)))
    assert gc.isenabled()
    failing, _ = define(
        "def f(x):\n"
        + "".join("    x = x + 1.0\n" for _ in range(20))
        + "    x = x @ np.ones((7, 7))\n    return x\n"
    )
    with pytest.raises(ValueError):
        staging.function(failing)(np.arange(3.0))
    assert gc.isenabled()
    gc.disable()
    try:
        staging.function(define(straight_line(40))[0])(np.arange(3.0))
        assert not gc.isenabled()
    finally:
        gc.enable()
