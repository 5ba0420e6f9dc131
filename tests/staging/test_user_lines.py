"""Run-time warnings and tracebacks of a staged graph name the user's file and line, as eager
NumPy's do (runtime/user_lines.py)."""

from __future__ import annotations

import inspect
import traceback
import warnings

import numpy as np
import pytest

import staging


def safe_inv(x):
    y = x * 2.0
    return 1.0 / y  # LINE: divide


def loop_overflow(x, n):
    for _ in range(n):
        x = x * np.float32(1e30)  # LINE: overflow
    return x


def branch_log(x):
    if np.sum(x) > 0:
        x = x + 1.0
    else:
        x = np.log(x)  # LINE: log
    return x


def out_of_range(x, i):
    y = x + 1.0
    return y[i]  # LINE: index


def line_of(func, tag: str) -> int:
    lines, first = inspect.getsourcelines(func)
    return first + next(k for k, text in enumerate(lines) if f"# LINE: {tag}" in text)


def warnings_of(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [(w.category, str(w.message), w.filename, w.lineno) for w in caught]


@pytest.mark.parametrize(
    "func, args, tag",
    [
        (safe_inv, (np.zeros(3),), "divide"),
        (loop_overflow, (np.ones(2, np.float32), np.int64(3)), "overflow"),
        (branch_log, (np.array([-1.0, 0.0]),), "log"),
    ],
)
def test_runtime_warning_names_the_users_line_as_eager_does(func, args, tag):
    staged = staging.function(func)
    staged.get_concrete_function(*args)  # trace first: only the run's warnings are compared
    eager = warnings_of(lambda: func(*args))
    got = warnings_of(lambda: staged(*args))
    assert eager, "the eager call must warn for this test to mean anything"
    assert got == eager
    assert got[0][2] == __file__ and got[0][3] == line_of(func, tag)


def test_runtime_error_traceback_shows_the_users_line():
    staged = staging.function(out_of_range)
    staged(np.zeros(3), np.int64(0))
    with pytest.raises(IndexError) as info:
        staged(np.zeros(3), np.int64(7))
    frames = traceback.extract_tb(info.value.__traceback__)
    line = line_of(out_of_range, "index")
    assert any(f.filename == __file__ and f.lineno == line and "y[i]" in f.line for f in frames)
    # the note still names the failing node and the user's line
    note = "\n".join(info.value.__notes__)
    assert note.startswith(f"{__file__}:{line}: raised while running `") and "getitem" in note


def test_graph_without_locations_keeps_generated_names():
    from runtime import CompiledGraph, Graph, Node, TensorType

    g = Graph("plain")
    x = g.add_input(TensorType(np.float64, (3,)), "x")
    node = g.add_node(Node("divide", [1.0, x], {}, [TensorType(np.float64, (3,))]))
    g.outputs = [node.outputs[0]]
    compiled = CompiledGraph(g)
    assert compiled.code_filename.startswith("<staged graph plain")
    caught = warnings_of(lambda: compiled(np.zeros(3)))
    assert caught[0][0] is RuntimeWarning and caught[0][2] == compiled.code_filename
