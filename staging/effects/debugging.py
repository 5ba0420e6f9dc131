"""Staged print and assertions, and the Python escape hatch `py_function`."""

from __future__ import annotations

import builtins

import numpy as np

from runtime import TensorType
from runtime.core_ops import ARG
from staging import errors
from staging.core.recording import current_graph, record
from staging.core.source_map import where
from staging.core.tensor import Tensor, has_staged_value, leaked_error, staged_value


def print(*args, sep=" ", end="\n"):  # noqa: A001 - mirrors the builtin on purpose
    """Python's print, staged: inside a trace it prints on every call of the graph,
    formatted exactly as Python prints the NumPy values; eagerly it just prints."""
    if current_graph() is None:
        for a in args:
            if isinstance(a, Tensor):  # a symbolic tensor kept from a finished trace
                raise leaked_error(a)
        builtins.print(*args, sep=sep, end=end)
        return None
    inputs, parts = [], []
    for a in args:
        if isinstance(a, Tensor) or has_staged_value(a):
            inputs.append(staged_value(a))
            parts.append(ARG)
        elif isinstance(a, (np.ndarray, np.generic)):
            inputs.append(a)
            parts.append(ARG)
        else:
            parts.append(a if isinstance(a, str) else _printable(a))
    record("print", inputs, {"parts": tuple(parts), "sep": sep, "end": end})
    return None


def _printable(obj):
    """Python objects are printed as they print now (their text is fixed at trace time)."""
    return builtins.str(obj)


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
