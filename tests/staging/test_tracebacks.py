"""Traceback filtering: errors leaving staged functions and conversion show the user's frames,
and the switch (function or environment variable) shows every frame."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import traceback
from pathlib import Path

import numpy as np
import pytest

import autograph
import staging
from staging.core import tracebacks

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _default_switch(monkeypatch):
    """Each test starts with the default (filtering on, no environment variable) and leaves it."""
    monkeypatch.delenv(tracebacks.ENVIRONMENT_VARIABLE, raising=False)
    monkeypatch.setattr(tracebacks, "_SWITCH", [None])


def helper_without_op(y):
    return np.linalg.eig(y)  # refused (real or complex depends on the values): raises while tracing


@staging.function
def staged_calls_helper(x):
    if x.sum() > 0:
        x = helper_without_op(x)
    return x


@staging.function
def staged_assert(x):
    assert x.sum() > 10.0, "too small"
    return x


def user_callback(v):
    raise KeyError("from the user's py_function")


@staging.function
def staged_py_function(x):
    return staging.py_function(user_callback, [x], np.float64)


def frames(error):
    return [
        (entry.filename, entry.name, entry.line)
        for entry in traceback.extract_tb(error.__traceback__)
    ]


def internal(entries):
    return [e for e in entries if tracebacks.is_internal_frame(e[0])]


def raised(call, *args):
    with pytest.raises(Exception) as info:
        call(*args)
    return info.value


def test_trace_time_error_shows_user_frames_and_one_line_of_context():
    error = raised(staged_calls_helper, np.ones(3))
    assert isinstance(error, staging.errors.UnsupportedOpError)
    entries = frames(error)
    assert entries[0][0] == __file__  # the user's call first
    # the one line of ours: the entry point's raise, which says how to see everything
    assert [(Path(f).name, name) for f, name, _ in internal(entries)] == [
        ("function.py", "__call__")
    ]
    assert "disable_traceback_filtering()" in internal(entries)[0][2]
    # the user's frames (converted code stands for the user's lines) are all there, in order
    names = [name for _, name, _ in entries]
    assert names[-1] == "helper_without_op" and "staged_calls_helper" in names
    assert f"{__file__}:{helper_without_op.__code__.co_firstlineno + 1}:" in str(error)


def test_switch_restores_every_frame():
    staging.disable_traceback_filtering()
    assert not staging.is_traceback_filtering_enabled()
    entries = frames(raised(staged_calls_helper, np.ones(3)))
    files = {
        Path(f).relative_to(ROOT).as_posix()
        for f, _, _ in internal(entries)
        if not f.startswith("<")
    }
    assert {
        "staging/functions/function.py",
        "autograph/operators/control_flow.py",
        "staging/control_flow/branches.py",
        "staging/numpy_api/__init__.py",
    } <= files
    assert entries[0][0] == __file__
    # the entry point's frame appears once, as with a bare `raise`
    assert [name for _, name, _ in entries].count("__call__") == 1
    staging.enable_traceback_filtering()
    assert len(internal(frames(raised(staged_calls_helper, np.ones(3))))) == 1


@pytest.mark.parametrize(
    "value, enabled", [("0", False), ("false", False), ("off", False), ("1", True)]
)
def test_environment_variable(monkeypatch, value, enabled):
    monkeypatch.setenv(tracebacks.ENVIRONMENT_VARIABLE, value)
    assert staging.is_traceback_filtering_enabled() is enabled
    assert (len(internal(frames(raised(staged_calls_helper, np.ones(3))))) > 1) is not enabled
    staging.enable_traceback_filtering()  # the function wins over the variable
    assert staging.is_traceback_filtering_enabled()


def test_run_time_error_hides_the_graph_and_the_executor():
    error = raised(staged_assert, np.ones(3))
    assert isinstance(error, AssertionError) and str(error) == "too small"
    entries = frames(error)
    assert entries[0][0] == __file__
    assert len(internal(entries)) == 1
    assert not any(f.startswith("<staged graph") for f, _, _ in entries)
    # the note still names the user's line
    line = staged_assert.python_function.__code__.co_firstlineno + 2
    assert any(f"{__file__}:{line}:" in note for note in error.__notes__)


def test_user_frames_of_a_py_function_stay():
    error = raised(staged_py_function, np.float64(1.0))
    assert isinstance(error, KeyError)
    entries = frames(error)
    assert entries[0][0] == __file__ and entries[-1][1] == "user_callback"
    assert len(internal(entries)) == 1


def test_fast_path_and_get_concrete_function_filter_too():
    staged_assert(np.full(3, 5.0))  # traced and run once: the next call takes the fast path
    assert len(internal(frames(raised(staged_assert, np.ones(3))))) == 1
    error = raised(staged_calls_helper.get_concrete_function, staging.TensorSpec([2], np.float64))
    entries = frames(error)
    assert entries[0][0] == __file__ and len(internal(entries)) == 1
    assert internal(entries)[0][1] == "get_concrete_function"


def test_conversion_errors_are_filtered():
    def generator(n):
        yield n

    error = raised(autograph.to_code, generator)
    assert isinstance(error, staging.errors.UnsupportedConstructError)
    entries = frames(error)
    assert entries[0][0] == __file__
    assert [name for _, name, _ in internal(entries)] == ["to_code"]


def raises_on_negative(x):
    if x < 0:
        raise ValueError("negative")
    return x


def test_converted_function_errors_are_filtered():
    converted = autograph.convert(raises_on_negative)
    assert converted(1.0) == 1.0
    error = raised(converted, -1.0)
    assert isinstance(error, ValueError)
    entries = frames(error)
    assert entries[0][0] == __file__
    assert entries[-1][0].startswith(
        "<autograph converted raises_on_negative at "
    )  # the user's raise
    assert [name for _, name, _ in internal(entries)] == ["converted"]


def test_chained_errors_are_filtered():
    import json

    @staging.function
    def library_on_symbolic(x):
        return json.dumps(x)

    error = raised(library_on_symbolic, np.float64(2.0))
    assert isinstance(error, staging.errors.SymbolicValueError)
    assert "json.dumps() is library code" in str(error)
    cause = error.__cause__
    assert isinstance(cause, TypeError)
    cause_frames = frames(cause)
    assert cause_frames and not internal(cause_frames)
    assert any(f.endswith("json/encoder.py") for f, _, _ in cause_frames)


SCRIPT = textwrap.dedent("""
    import numpy as np
    import staging

    @staging.function
    def f(x):
        if x.sum() > 0:
            x = np.linalg.eig(x)
        return x

    f(np.ones(3))
""")


def _run_script(tmp_path, **env):
    script = tmp_path / "user_script.py"
    script.write_text(SCRIPT)
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    environment.pop(tracebacks.ENVIRONMENT_VARIABLE, None)
    environment.update(env)
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        env=environment,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 1
    return result.stderr


def test_an_uncaught_error_as_python_prints_it(tmp_path):
    stderr = _run_script(tmp_path)
    files = [line.split('"')[1] for line in stderr.splitlines() if line.startswith('  File "')]
    assert files[0].endswith("user_script.py")
    assert [f for f in files if f.startswith(str(ROOT))] == [
        str(ROOT / "staging" / "functions" / "function.py")
    ]
    assert "disable_traceback_filtering()" in stderr
    assert f"{tmp_path / 'user_script.py'}:8: np.linalg.eig" in stderr

    unfiltered = _run_script(tmp_path, **{tracebacks.ENVIRONMENT_VARIABLE: "0"})
    assert unfiltered.count(str(ROOT)) > 5 and "autograph/operators/control_flow.py" in unfiltered
