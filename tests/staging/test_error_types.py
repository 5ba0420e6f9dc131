"""Exceptions reach the caller as themselves: the type eager code raises, with its attributes;
the staged context (the failing node, the user's file:line) is a note, never a substitute."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

import staging


class TwoArguments(Exception):
    def __init__(self, code, detail):
        super().__init__(code, detail)
        self.code, self.detail = code, detail


def file_missing():
    raise FileNotFoundError(2, "No such file or directory", "settings.txt")


def bad_json():
    json.loads('{"a": ')


def bad_bytes():
    b"\xff\xfe".decode("utf-8")


def failed_command():
    raise subprocess.CalledProcessError(3, ["tool", "--flag"], output=b"out", stderr=b"err")


def two_arguments():
    raise TwoArguments(7, "detail")


def out_of_memory():
    raise MemoryError("cannot allocate 8 EiB")


CALLBACKS = [file_missing, bad_json, bad_bytes, failed_command, two_arguments, out_of_memory]


def eager_error(callback):
    try:
        callback()
    except Exception as exc:  # noqa: BLE001
        return exc
    raise AssertionError("the callback did not raise")


def attributes(exc) -> dict:
    names = (
        "args",
        "errno",
        "strerror",
        "filename",
        "msg",
        "doc",
        "pos",
        "lineno",
        "colno",
        "encoding",
        "object",
        "start",
        "end",
        "reason",
        "returncode",
        "cmd",
        "output",
        "stderr",
        "code",
        "detail",
    )
    return {n: getattr(exc, n) for n in names if hasattr(exc, n)}


@pytest.mark.stress  # fault injection: each caught as itself, with its attributes
@pytest.mark.parametrize("callback", CALLBACKS, ids=[c.__name__ for c in CALLBACKS])
def test_py_function_exception_is_the_eager_exception(callback):
    def run(x):
        staging.py_function(lambda v: callback(), [x], np.float64)
        return x

    f = staging.function(run)
    line = run.__code__.co_firstlineno + 1
    expected = eager_error(callback)
    for _ in range(2):  # the first call traces, the second takes the fast path
        with pytest.raises(type(expected)) as info:
            f(np.float64(1.0))
        got = info.value
        assert type(got) is type(expected)
        assert str(got) == str(expected)
        assert attributes(got) == attributes(expected)
        notes = getattr(got, "__notes__", [])
        assert len(notes) == 1 and notes[0].startswith(f"{__file__}:{line}: ")
        assert "py_function" in notes[0]


def test_except_clause_written_for_eager_code_catches_the_staged_error():
    @staging.function
    def load(x):
        return staging.py_function(lambda v: json.loads("{"), [x], np.float64)

    try:
        load(np.float64(0.0))
    except json.JSONDecodeError as exc:
        assert exc.pos == 1
    else:  # pragma: no cover
        raise AssertionError("JSONDecodeError not raised")


@pytest.mark.parametrize(
    "value",
    [
        np.array(["a", "b"]),
        np.array([b"a"]),
        np.array(["2020-01-01"], dtype="datetime64[D]"),
        np.zeros(2, dtype=[("a", "f8"), ("b", "i4")]),
    ],
    ids=["str", "bytes", "datetime64", "structured"],
)
def test_unsupported_dtypes_raise_what_numpy_raises(value):
    def g(x):
        return x * x + x

    expected = eager_error(lambda: g(value))
    with pytest.raises(type(expected)) as info:
        staging.function(g)(value)
    assert type(info.value) is type(expected) and str(info.value) == str(expected)
    assert f"{__file__}:{g.__code__.co_firstlineno + 1}:" in info.value.__notes__[0]


def test_a_failing_called_function_is_noted_once_at_its_own_line():
    @staging.function
    def inner(x, i):
        return x[i]

    @staging.function
    def outer(x, i):
        return inner(x, i) * 2

    with pytest.raises(IndexError) as info:
        outer(np.arange(3.0), np.int64(5))
    (note,) = info.value.__notes__
    assert f"{__file__}:{inner.python_function.__code__.co_firstlineno + 2}: " in note
