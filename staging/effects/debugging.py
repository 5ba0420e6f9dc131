"""Staged print and assertions, and the Python escape hatch `py_function`."""

from __future__ import annotations

import builtins
import sys

import numpy as np

from runtime import TensorType
from runtime.core_ops import ARG
from staging import errors
from staging.core.recording import current_graph, record
from staging.core.source_map import where
from staging.core.strings import is_staged_str, printoptions_delta
from staging.core.tensor import Tensor, has_staged_value, leaked_error, staged_value
from staging.effects import formatting


def print(*args, sep=" ", end="\n", file=None, flush=False):  # noqa: A001 - the builtin's twin
    """Python's print, staged: inside a trace it prints on every call of the graph, the text
    Python prints (NumPy values formatted under the print options in force when it runs); to
    sys.stdout or sys.stderr as they are then, or to another file object the graph holds.
    Eagerly it just prints."""
    if current_graph() is None:
        for a in args:
            if isinstance(a, Tensor):  # a symbolic tensor kept from a finished trace
                raise leaked_error(a)
        builtins.print(*args, sep=sep, end=end, file=file, flush=flush)
        return None
    sep, end = _separator(sep, "sep", " "), _separator(end, "end", "\n")
    inputs, parts = [], []
    for a in args:
        part = _print_part(a)
        if type(part) is str:
            parts.append(part)
        else:
            inputs.append(part)
            parts.append(ARG)
    attrs = {"parts": tuple(parts), "sep": sep, "end": end}
    stream = _stream(file)
    if stream != "stdout":
        attrs["file"] = stream
    if flush:
        attrs["flush"] = True
    options = printoptions_delta()
    if options and inputs:
        attrs["printoptions"] = options
    record("print", inputs, attrs)
    return None


def _separator(value, name: str, default: str):
    if value is None:
        return default
    if type(value) is str:
        return value
    if isinstance(value, str):
        return builtins.str(value)
    if is_staged_str(value):
        raise errors.UnsupportedOpError(
            f"{where()}print() with a staged string as {name}= is not staged; give {name}= a "
            f"literal"
        )
    raise TypeError(f"{name} must be None or a string, not {type(value).__name__}")


def _stream(file):
    """Where a staged print writes: "stdout" or "stderr" (the sys attribute as it is when the
    graph runs, as print looks it up when it runs), or the file object itself."""
    if file is None or file is sys.stdout:
        return "stdout"
    if file is sys.stderr:
        return "stderr"
    if isinstance(file, Tensor) or not callable(getattr(file, "write", None)):
        raise AttributeError(f"'{type(file).__name__}' object has no attribute 'write'")
    return file


def _print_part(a):
    """An argument of a staged print: its text now (a Python str) or a value whose str() is
    printed when the graph runs (a symbolic or NumPy value, or a staged string)."""
    if has_staged_value(a):
        a = staged_value(a)
    if isinstance(a, Tensor) or isinstance(a, (np.ndarray, np.generic)):
        return a
    if formatting.holds_staged(a) or (
        isinstance(a, BaseException) and formatting.holds_staged(a.args)
    ):
        return formatting.to_str(a)
    return builtins.str(a)


def assert_true(condition, message=None):
    """`assert condition, message`, staged when `condition` is symbolic: failing raises
    an error that is an AssertionError carrying `message`."""
    if current_graph() is not None:
        condition = staged_value(condition)
    if not isinstance(condition, Tensor):
        if not condition:
            raise AssertionError(message) if message is not None else AssertionError()
        return None
    if condition.static_shape != ():  # (the shape its kinds share: `bool | bool[]` is 0-d)
        raise errors.SymbolicValueError(
            f"{where()}assert on a tensor of shape {condition.type}: its truth value is ambiguous; "
            f"assert on .all() or .any() of it"
        )
    parts, inputs = [], [condition]
    if message is not None:
        if isinstance(message, Tensor):
            parts.append(ARG)
            inputs.append(message)
        else:
            parts.append(builtins.str(message))
    record("assert", inputs, {"parts": tuple(parts)})
    return None


def _as_type(spec) -> TensorType:
    if isinstance(
        spec, (type, np.dtype, str)
    ):  # a dtype (np.float64 has class attributes `shape`, `dtype`)
        return TensorType(np.dtype(spec), ())
    shape = getattr(spec, "shape", None)
    dtype = getattr(spec, "dtype", spec)
    if shape is None:
        return TensorType(np.dtype(dtype), ())
    return TensorType(np.dtype(dtype), shape)


def py_function(func, inputs, Tout):
    """Calls `func(*inputs)` in Python every time the graph runs.

    Tout: a dtype or TensorSpec (one output), or a list/tuple of them. A bare
    dtype means a 0-d output; give a TensorSpec for arrays. Outputs are checked
    and cast to Tout at run time.
    """
    multi = isinstance(Tout, (list, tuple))
    specs = tuple(Tout) if multi else (Tout,)
    types = tuple(_as_type(s) for s in specs)
    inputs = list(inputs)
    if current_graph() is None:
        result = func(*inputs)
        results = tuple(result) if multi else (result,)
        if len(results) != len(types):
            raise ValueError(
                f"py_function {getattr(func, '__name__', func)!r} returned {len(results)} "
                f"values, Tout declares {len(types)}"
            )
        out = []
        for value, t in zip(results, types):
            arr = np.asarray(value).astype(t.dtype, copy=False)
            if not t.accepts_shape(arr.shape):  # the check the staged kernel makes
                raise ValueError(
                    f"{where()}py_function {getattr(func, '__name__', func)!r} returned "
                    f"shape {arr.shape}, Tout declares {t}"
                )
            out.append(arr[()] if arr.ndim == 0 else arr)
        return list(out) if multi else out[0]
    outs = record("py_function", inputs, {"func": func, "out_types": types if multi else types[0]})
    return list(outs) if multi else outs[0]


def constant(value, dtype=None):
    """A NumPy value (eagerly) or a constant node (while tracing)."""
    if isinstance(value, Tensor):
        if dtype is not None and np.dtype(dtype) != value.dtype:
            return record("astype", [value], {"dtype": np.dtype(dtype)})
        return value
    arr = np.array(value, dtype=dtype)
    if current_graph() is None:
        return arr[()] if arr.ndim == 0 else arr
    return record("const", [], {"value": arr[()] if arr.ndim == 0 else arr})
