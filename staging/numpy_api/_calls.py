"""Binding a NumPy library call with NumPy's own signature: array arguments become op inputs,
the others static attrs (a symbolic value there is refused by name)."""

from __future__ import annotations

import inspect

import numpy as np

from runtime._compat import signature as compat_signature
from staging.core.tensor import Tensor
from staging.numpy_api._common import _as_input, _no_out, _record, _unsupported, _where, numpy_name

_EMPTY = inspect.Parameter.empty


def static_value(value, what: str, func_name: str):
    """An attr: lists become tuples; a symbolic value is refused, naming the parameter."""
    if isinstance(value, Tensor):
        raise _unsupported(
            f"{func_name} with a symbolic `{what}`",
            f"`{what}` must be known while tracing (a Python value or a NumPy array)",
        )
    if isinstance(value, (list, tuple)):
        return tuple(static_value(v, what, func_name) for v in value)
    if isinstance(value, np.ndarray):
        value = value.copy()
        value.setflags(write=False)
    return value


def bind(  # noqa: C901, PLR0912
    func, args, kwargs, arrays=None, *, name=None, dtype_params=("dtype",), refuse=(), named=False
):
    """(inputs, attrs) for `func(*args, **kwargs)`: the parameters named in `arrays` that were
    given (a prefix of them; default: the first parameter) are inputs; the other parameters given a value other than their
    default are attrs. `out=` is refused, and so are the parameters in `refuse` when given.
    named: any of `arrays` may be absent; attr `names` lists those given (an op registered
    with `named=True`)."""
    name = name or numpy_name(func)
    signature = compat_signature(func)
    if arrays is None:
        arrays = (next(iter(signature.parameters)),)
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"{_where()}{name}(): {exc}") from None
    inputs, attrs = [], {}
    absent = None
    names = []
    for pname, param in signature.parameters.items():
        given = pname in bound.arguments
        value = bound.arguments.get(pname, param.default)
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            for key, v in (value if given else {}).items():
                attrs[key] = static_value(v, key, name)
            continue
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            inputs.extend(_as_input(v) for v in (value if given else ()))
            continue
        if pname in arrays:
            if value is None or value is _EMPTY or value is np._NoValue:
                absent = absent or pname
                continue
            if absent is not None and not named:
                raise _unsupported(
                    f"{name}(..., {pname}=...) without `{absent}`", f"pass `{absent}` too"
                )
            inputs.append(_as_input(value))
            names.append(pname)
            continue
        if pname == "out":
            _no_out(value, name)
            continue
        if not given or _is_default(value, param.default):
            continue
        if pname in refuse:
            raise _unsupported(
                f"{name}(..., {pname}=...)", "drop the argument or use staging.py_function"
            )
        if pname in dtype_params and value is not None:
            value = np.dtype(value)
        attrs[pname] = static_value(value, pname, name)
    if named:
        attrs["names"] = tuple(names)
    return inputs, attrs


def _is_default(value, default) -> bool:
    if value is default:
        return True
    if isinstance(value, (np.ndarray, Tensor)) or isinstance(default, np.ndarray):
        return False
    try:
        return type(value) is type(default) and bool(value == default)
    except (TypeError, ValueError):
        return False


def staged(op, func, arrays=None, *, refuse=(), single=True, result=None, named=False):
    """A frontend handler recording `op` for calls of `func`; `result(outputs, attrs)` may wrap
    the op's outputs (NumPy's named tuples)."""

    def handler(*args, **kwargs):
        inputs, attrs = bind(func, args, kwargs, arrays, refuse=refuse, named=named)
        out = _record(op, inputs, attrs)
        return result(out, attrs) if result is not None else out

    handler.__name__ = op
    handler.staged_op = op  # for the catalogue (docs/ops.md)
    return handler
