"""Ufunc calls and `ufunc.reduce` on symbolic tensors."""

from __future__ import annotations

import numpy as np

from runtime import TensorType
from runtime.ops import UFUNCS
from staging.kinds import forms as array0d
from staging.numpy_api._common import _as_input, _is_tensor, _record, _unsupported, _where
from staging.numpy_api.linalg import vecdot
from staging.numpy_api.reductions import _reduce
from staging.state import aliasing

_UFUNC_DEFAULT_KWARGS = {
    "where": True,
    "casting": "same_kind",
    "order": "K",
    "subok": True,
    "dtype": None,
    "signature": None,
}

# ufunc name -> the reduction op its .reduce records
_REDUCE_OPS = {
    "add": "sum",
    "multiply": "prod",
    "maximum": "max",
    "minimum": "min",
    "logical_and": "all",
    "logical_or": "any",
}
# ufuncs whose .reduce(..., dtype=) is staged (their reduction takes a dtype, as np.sum does)
_REDUCE_WITH_DTYPE = frozenset(("add", "multiply"))


def _check_out(kwargs, name):
    out = kwargs.get("out")
    if out is not None and not (isinstance(out, tuple) and all(o is None for o in out)):
        raise _unsupported(
            f"{name}(..., out=...)",
            "out= is not staged here; use the returned value (`y[...] = np.sum(x)` writes it into y)",
        )


def ufunc_into(ufunc, target, inputs, what):
    """`ufunc(*inputs, out=target)` for a symbolic target: the result, cast to target's dtype with
    NumPy's same-kind rule, is written into target in place (staging.state.aliasing). Returns target."""
    if (
        type(target.type) is TensorType  # (one kind, a NumPy 0-d value)
        and not target.type.weak
        and target.type.shape == ()
        and target._alias is None
        and what.startswith("np.")
        and array0d.written_as_array(target, "`" + what.replace("...)", "{name})") + "`") is False
    ):
        raise TypeError(f"{_where()}return arrays must be of ArrayType (`out=` is a NumPy scalar)")
    aliasing.check_writable(target, what, in_place_op=True)
    attrs = {"ufunc": ufunc.__name__, "numpy_out": what.startswith("np.")}
    new = _record("ufunc_out", [target, *[_as_input(x) for x in inputs]], attrs)
    aliasing.write(target, new)
    return target


def _out_target(out, ufunc, name):
    """The symbolic array named by `out=`, or None when out is not given."""
    if isinstance(out, tuple):
        if all(o is None for o in out):
            return None
        if len(out) != 1 or ufunc.nout != 1:
            raise _unsupported(f"np.{name}(..., out=...) with several outputs")
        out = out[0]
    if out is None:
        return None
    if not _is_tensor(out):
        what = "a NumPy array" if isinstance(out, np.ndarray) else type(out).__name__
        raise _unsupported(
            f"np.{name}(..., out=...) into {what} with symbolic operands",
            "a NumPy array cannot hold a symbolic result; use the returned value "
            "(`a = a + t` instead of `a += t`)",
        )
    return out


def apply_ufunc(ufunc, method, inputs, kwargs):  # noqa: C901, PLR0912
    """`ufunc.method(*inputs, **kwargs)` on symbolic inputs (from Tensor.__array_ufunc__ and operators)."""
    name = getattr(ufunc, "__name__", repr(ufunc))
    if UFUNCS.get(name) is not ufunc:
        raise _unsupported(f"the ufunc {name!r} (not a NumPy ufunc with a staged op)")
    kwargs = dict(kwargs)
    if method == "__call__":
        target = _out_target(kwargs.pop("out", None), ufunc, name)
        if name == "vecdot" and "axis" in kwargs and target is None and len(kwargs) == 1:
            axis = kwargs.pop("axis")
            if _is_tensor(axis):
                raise _unsupported(
                    "np.vecdot with a symbolic `axis`", "`axis` must be a Python int"
                )
            return vecdot(*inputs, axis=axis)
        for key, value in kwargs.items():
            if key not in _UFUNC_DEFAULT_KWARGS or not _same(value, _UFUNC_DEFAULT_KWARGS[key]):
                raise _unsupported(
                    f"np.{name}(..., {key}={value!r})",
                    "only the default ufunc keyword arguments can be staged",
                )
        if len(inputs) != ufunc.nin:
            raise TypeError(
                f"{_where()}np.{name} takes {ufunc.nin} argument(s) but {len(inputs)} were given"
            )
        if target is not None:
            return ufunc_into(ufunc, target, inputs, f"np.{name}(..., out=...)")
        return _record(name, [_as_input(x) for x in inputs])
    if method == "reduce":
        op = _REDUCE_OPS.get(name)
        if op is None:
            raise _unsupported(
                f"np.{name}.reduce",
                f"supported: {', '.join(f'np.{n}.reduce' for n in _REDUCE_OPS)}",
            )
        _check_out(kwargs, f"np.{name}.reduce")
        kwargs.pop("out", None)
        (array,) = inputs
        axis = kwargs.pop("axis", 0)
        keepdims = kwargs.pop("keepdims", False)
        dtype = kwargs.pop("dtype", None)
        for key, value in kwargs.items():
            if not (key == "where" and value is True):
                raise _unsupported(f"np.{name}.reduce(..., {key}=...)")
        if dtype is not None and name not in _REDUCE_WITH_DTYPE:
            raise _unsupported(f"np.{name}.reduce(..., dtype=...)")
        return _reduce(op, array, axis, keepdims, dtype=dtype)
    raise _unsupported(f"np.{name}.{method}", "only ufunc calls and .reduce are staged")


def _same(a, b) -> bool:
    return a is b or (type(a) is type(b) and a == b)
