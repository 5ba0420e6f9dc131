"""The NumPy frontend of symbolic tensors: ufuncs, NumPy functions, methods and indexing become op records."""

from __future__ import annotations

import operator

import numpy as np

from runtime.ops import UFUNCS
from runtime.ops.indexing import format_slice

from . import errors

_NO_VALUE = np._NoValue  # NumPy's own "argument not given" sentinel
_PY_SCALARS = (bool, int, float, complex)


# --- plumbing --------------------------------------------------------------------------------

def _record(op_name, inputs, attrs=None):
    from .graph_building import record
    return record(op_name, list(inputs), dict(attrs or {}))


def _where() -> str:
    from .graph_building import _where as where
    return where()


def _is_tensor(x) -> bool:
    from .tensor import Tensor
    return isinstance(x, Tensor)


def _contains_tensor(x) -> bool:
    if _is_tensor(x):
        return True
    if isinstance(x, (list, tuple)):
        return any(_contains_tensor(v) for v in x)
    return False


def numpy_name(func) -> str:
    """`np.linalg.svd` style name of a NumPy callable."""
    name = getattr(func, "__name__", repr(func))
    module = getattr(func, "__module__", None) or "numpy"
    if module == "numpy" or module.startswith("numpy._"):
        return f"np.{name}"
    if module.startswith("numpy."):
        return "np." + module[len("numpy."):] + "." + name
    return f"{module}.{name}"


def _unsupported(what: str, hint: str = "") -> errors.UnsupportedOpError:
    hint = hint or ("wrap the computation in staging.py_function(func, inputs, Tout) to run it in "
                    "Python on the concrete values")
    return errors.UnsupportedOpError(f"{_where()}{what} is not supported on symbolic tensors; {hint}")


def _as_input(x):
    """An op input: a Tensor, a Python scalar literal, or a concrete NumPy value.

    Lists/tuples holding tensors are stacked into one tensor (as np.array would).
    """
    if _is_tensor(x) or type(x) in _PY_SCALARS or isinstance(x, (np.ndarray, np.generic)):
        return x
    if hasattr(type(x), "_staged_value"):  # a Variable: read it where it is used
        return x._staged_value()
    if isinstance(x, (list, tuple)):
        if _contains_tensor(x):
            if not x:
                return np.asarray(x)
            return _record("stack", [_as_input(v) for v in x])
        return np.asarray(x)
    if isinstance(x, _PY_SCALARS):  # subclasses of Python numbers (not NumPy scalars)
        return np.asarray(x)
    if x is None:
        raise TypeError(f"{_where()}None cannot be used as an array operand")
    return np.asarray(x)


def _ndim(x) -> int:
    return x.ndim if _is_tensor(x) else np.ndim(x)


def _static_int(value, what: str) -> int:
    if _is_tensor(value):
        raise _unsupported(f"a symbolic {what}", f"{what} must be a Python int known while tracing")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{_where()}{what} must be an integer, got {value!r}") from None


def _axis_attr(axis, what: str = "axis"):
    """axis as an attr: None, an int or a tuple of ints."""
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        return tuple(_static_int(a, what) for a in axis)
    return _static_int(axis, what)


def _static_bool(value, what: str) -> bool:
    if _is_tensor(value):
        raise _unsupported(f"a symbolic {what}", f"{what} must be a Python bool known while tracing")
    return bool(value)


def _no_out(out, name):
    if out is not None:
        raise _unsupported(f"{name}(..., out=...)", "symbolic tensors are immutable; use the returned value")


def _reject(name, **given):
    """Raises for arguments that were passed with a value other than NumPy's default."""
    for key, value in given.items():
        if value is not _NO_VALUE:
            raise _unsupported(f"{name}(..., {key}=...)", "drop the argument or use staging.py_function")


def _shape_attr(shape, what: str = "shape"):
    """A shape argument -> (attr with None for symbolic dims, the symbolic dim inputs)."""
    if _is_tensor(shape):
        if shape.ndim != 0:
            raise _unsupported(f"a symbolic {what} vector", f"pass the {what} as a tuple of ints / scalar tensors")
        shape = (shape,)
    elif not isinstance(shape, (tuple, list)):
        shape = (shape,)
    attr, inputs = [], []
    for d in shape:
        if _is_tensor(d):
            if d.ndim != 0 or d.dtype.kind not in "iu":
                raise TypeError(f"{_where()}a symbolic {what} entry must be an integer scalar, got {d.type}")
            attr.append(None)
            inputs.append(d)
        else:
            try:
                attr.append(operator.index(d))
            except TypeError:
                raise TypeError(f"{_where()}{what} entries must be integers, got {d!r}") from None
    return tuple(attr), inputs


# --- ufuncs ----------------------------------------------------------------------------------

_UFUNC_DEFAULT_KWARGS = {"where": True, "casting": "same_kind", "order": "K", "subok": True,
                         "dtype": None, "signature": None}

_REDUCE_OPS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
               "logical_and": "all", "logical_or": "any"}


def _check_out(kwargs, name):
    out = kwargs.get("out")
    if out is not None and not (isinstance(out, tuple) and all(o is None for o in out)):
        raise _unsupported(f"{name}(..., out=...)", "symbolic tensors are immutable; use the returned value")


def apply_ufunc(ufunc, method, inputs, kwargs):
    """`ufunc.method(*inputs, **kwargs)` on symbolic inputs (from Tensor.__array_ufunc__ and operators)."""
    name = getattr(ufunc, "__name__", repr(ufunc))
    if UFUNCS.get(name) is not ufunc:
        raise _unsupported(f"the ufunc {name!r} (not a NumPy ufunc with a staged op)")
    kwargs = dict(kwargs)
    if method == "__call__":
        _check_out(kwargs, f"np.{name}")
        kwargs.pop("out", None)
        for key, value in kwargs.items():
            if key not in _UFUNC_DEFAULT_KWARGS or not _same(value, _UFUNC_DEFAULT_KWARGS[key]):
                raise _unsupported(f"np.{name}(..., {key}={value!r})",
                                   "only the default ufunc keyword arguments can be staged")
        if len(inputs) != ufunc.nin:
            raise TypeError(f"{_where()}np.{name} takes {ufunc.nin} argument(s) but {len(inputs)} were given")
        return _record(name, [_as_input(x) for x in inputs])
    if method == "reduce":
        op = _REDUCE_OPS.get(name)
        if op is None:
            raise _unsupported(f"np.{name}.reduce", f"supported: {', '.join(f'np.{n}.reduce' for n in _REDUCE_OPS)}")
        _check_out(kwargs, f"np.{name}.reduce")
        kwargs.pop("out", None)
        (array,) = inputs
        axis = kwargs.pop("axis", 0)
        keepdims = kwargs.pop("keepdims", False)
        dtype = kwargs.pop("dtype", None)
        for key, value in kwargs.items():
            if not (key == "where" and value is True):
                raise _unsupported(f"np.{name}.reduce(..., {key}=...)")
        if dtype is not None and op not in ("sum", "prod"):
            raise _unsupported(f"np.{name}.reduce(..., dtype=...)")
        return _reduce(op, array, axis, keepdims, dtype=dtype)
    raise _unsupported(f"np.{name}.{method}", "only ufunc calls and .reduce are staged")


def _same(a, b) -> bool:
    return a is b or (type(a) is type(b) and a == b)


# --- reductions ------------------------------------------------------------------------------

def _reduce(op, a, axis=None, keepdims=False, **extra):
    attrs = {}
    axis = _axis_attr(axis)
    if axis is not None:
        attrs["axis"] = axis
    if _static_bool(keepdims, "keepdims"):
        attrs["keepdims"] = True
    for key, value in extra.items():
        if key == "dtype" and value is not None:
            attrs["dtype"] = np.dtype(value)
        elif key == "ddof" and value != 0:
            if _is_tensor(value):
                raise _unsupported("a symbolic ddof")
            attrs["ddof"] = value
    return _record(op, [_as_input(a)], attrs)


def _sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    _no_out(out, "np.sum")
    _reject("np.sum", initial=initial, where=where)
    return _reduce("sum", a, axis, keepdims, dtype=dtype)


def _prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    _no_out(out, "np.prod")
    _reject("np.prod", initial=initial, where=where)
    return _reduce("prod", a, axis, keepdims, dtype=dtype)


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=_NO_VALUE):
    _no_out(out, "np.mean")
    _reject("np.mean", where=where)
    return _reduce("mean", a, axis, keepdims, dtype=dtype)


def _max(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    _no_out(out, "np.max")
    _reject("np.max", initial=initial, where=where)
    return _reduce("max", a, axis, keepdims)


def _min(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    _no_out(out, "np.min")
    _reject("np.min", initial=initial, where=where)
    return _reduce("min", a, axis, keepdims)


def _argmax(a, axis=None, out=None, *, keepdims=False):
    _no_out(out, "np.argmax")
    return _reduce("argmax", a, axis, keepdims)


def _argmin(a, axis=None, out=None, *, keepdims=False):
    _no_out(out, "np.argmin")
    return _reduce("argmin", a, axis, keepdims)


def _any(a, axis=None, out=None, keepdims=False, *, where=_NO_VALUE):
    _no_out(out, "np.any")
    _reject("np.any", where=where)
    return _reduce("any", a, axis, keepdims)


def _all(a, axis=None, out=None, keepdims=False, *, where=_NO_VALUE):
    _no_out(out, "np.all")
    _reject("np.all", where=where)
    return _reduce("all", a, axis, keepdims)


def _std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=_NO_VALUE, mean=_NO_VALUE,
         correction=_NO_VALUE):
    _no_out(out, "np.std")
    _reject("np.std", where=where, mean=mean, correction=correction)
    return _reduce("std", a, axis, keepdims, dtype=dtype, ddof=ddof)


def _var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=_NO_VALUE, mean=_NO_VALUE,
         correction=_NO_VALUE):
    _no_out(out, "np.var")
    _reject("np.var", where=where, mean=mean, correction=correction)
    return _reduce("var", a, axis, keepdims, dtype=dtype, ddof=ddof)


def _scan(op):
    def scan(a, axis=None, dtype=None, out=None):
        _no_out(out, f"np.{op}")
        attrs = {}
        if axis is not None:
            attrs["axis"] = _static_int(axis, "axis")
        if dtype is not None:
            attrs["dtype"] = np.dtype(dtype)
        return _record(op, [_as_input(a)], attrs)
    scan.__name__ = op
    return scan


def _sort_attrs(name, axis, kind, order, stable):
    if order is not None:
        raise _unsupported(f"{name}(..., order=...) (structured arrays)")
    attrs = {}
    if axis is None:
        attrs["axis"] = None
    elif _static_int(axis, "axis") != -1:
        attrs["axis"] = _static_int(axis, "axis")
    if kind is not None:
        attrs["kind"] = str(kind)
    if stable is not None:
        attrs["stable"] = _static_bool(stable, "stable")
    return attrs


def _sort(a, axis=-1, kind=None, order=None, *, stable=None):
    return _record("sort", [_as_input(a)], _sort_attrs("np.sort", axis, kind, order, stable))


def _argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    return _record("argsort", [_as_input(a)], _sort_attrs("np.argsort", axis, kind, order, stable))


# --- shape functions -------------------------------------------------------------------------

def _reshape_to(a, shape):
    attr, inputs = _shape_attr(shape)
    return _record("reshape", [_as_input(a), *inputs], {"shape": attr})


def _check_order(order, name):
    if order not in ("C", "K", "A", None):
        raise _unsupported(f"{name}(..., order={order!r})", "only C order can be staged")


def _reshape(a, /, shape=None, order="C", *, newshape=None, copy=None):
    _check_order(order, "np.reshape")
    if shape is None:
        shape = newshape
    if shape is None:
        raise TypeError(f"{_where()}reshape() missing required argument 'shape'")
    return _reshape_to(a, shape)


def _ravel(a, order="C"):
    _check_order(order, "np.ravel")
    return _reshape_to(a, (-1,))


def _transpose(a, axes=None):
    attrs = {} if axes is None else {"axes": tuple(_static_int(x, "axes") for x in axes)}
    return _record("transpose", [_as_input(a)], attrs)


def _permute_dims(a, /, axes=None):
    return _transpose(a, axes)


def _swapaxes(a, axis1, axis2):
    a = _as_input(a)
    n = _ndim(a)
    i = _static_int(axis1, "axis1")
    j = _static_int(axis2, "axis2")
    for ax in (i, j):
        if not -n <= ax < n:
            raise np.exceptions.AxisError(ax, n)
    perm = list(range(n))
    perm[i % n], perm[j % n] = perm[j % n], perm[i % n]
    return _record("transpose", [a], {"axes": tuple(perm)})


def _expand_dims(a, axis):
    return _record("expand_dims", [_as_input(a)], {"axis": _axis_attr(axis)})


def _squeeze(a, axis=None):
    attrs = {} if axis is None else {"axis": _axis_attr(axis)}
    return _record("squeeze", [_as_input(a)], attrs)


def _concatenate(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    _no_out(out, "np.concatenate")
    if casting != "same_kind":
        raise _unsupported(f"np.concatenate(..., casting={casting!r})")
    attrs = {}
    if axis is None:
        attrs["axis"] = None
    elif _static_int(axis, "axis") != 0:
        attrs["axis"] = _static_int(axis, "axis")
    if dtype is not None:
        attrs["dtype"] = np.dtype(dtype)
    return _record("concatenate", [_as_input(x) for x in arrays], attrs)


def _stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    _no_out(out, "np.stack")
    if casting != "same_kind":
        raise _unsupported(f"np.stack(..., casting={casting!r})")
    attrs = {}
    if _static_int(axis, "axis") != 0:
        attrs["axis"] = _static_int(axis, "axis")
    if dtype is not None:
        attrs["dtype"] = np.dtype(dtype)
    return _record("stack", [_as_input(x) for x in arrays], attrs)


def _atleast(x, ndim):
    x = _as_input(x)
    n = _ndim(x)
    if n >= ndim:
        return x
    if ndim == 1 or n == 0:
        return _reshape_to(x, (1,) * ndim) if n == 0 else x
    return _record("expand_dims", [x], {"axis": 0})  # 1-d -> (1, n)


def _hstack(tup, *, dtype=None, casting="same_kind"):
    arrs = [_atleast(x, 1) for x in tup]
    axis = 0 if arrs and _ndim(arrs[0]) == 1 else 1
    return _concatenate(arrs, axis=axis, dtype=dtype, casting=casting)


def _vstack(tup, *, dtype=None, casting="same_kind"):
    return _concatenate([_atleast(x, 2) for x in tup], axis=0, dtype=dtype, casting=casting)


def _broadcast_to(array, shape, subok=False):
    attr, inputs = _shape_attr(shape)
    return _record("broadcast_to", [_as_input(array), *inputs], {"shape": attr})


def _nonzero(a):
    a = _as_input(a)
    n = _ndim(a)
    if n == 0:
        raise ValueError(f"{_where()}Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() "
                         "instead.")
    coords = _record("argwhere", [a])
    return tuple(getitem(coords, (slice(None), i)) for i in range(n))


def _argwhere(a):
    return _record("argwhere", [_as_input(a)])


def _np_where(condition, *xy):
    if not xy:
        return _nonzero(condition)
    if len(xy) != 2:
        raise ValueError(f"{_where()}either both or neither of x and y should be given")
    return _record("where", [_as_input(condition), _as_input(xy[0]), _as_input(xy[1])])


def _clip(a, a_min=_NO_VALUE, a_max=_NO_VALUE, out=None, *, min=_NO_VALUE, max=_NO_VALUE, **kwargs):  # noqa: A002
    _no_out(out, "np.clip")
    if kwargs:
        raise _unsupported(f"np.clip(..., {next(iter(kwargs))}=...)")
    if min is not _NO_VALUE:
        if a_min is not _NO_VALUE:
            raise ValueError(f"{_where()}Passed more than one argument for minimum: a_min and min")
        a_min = min
    if max is not _NO_VALUE:
        if a_max is not _NO_VALUE:
            raise ValueError(f"{_where()}Passed more than one argument for maximum: a_max and max")
        a_max = max
    lo = None if a_min is _NO_VALUE else a_min
    hi = None if a_max is _NO_VALUE else a_max
    inputs = [_as_input(a)] + [_as_input(b) for b in (lo, hi) if b is not None]
    bounds = {(True, True): "min_max", (True, False): "min", (False, True): "max", (False, False): "none"}[
        (lo is not None, hi is not None)]
    return _record("clip", inputs, {} if bounds == "min_max" else {"bounds": bounds})


def _take(a, indices, axis=None, out=None, mode="raise"):
    _no_out(out, "np.take")
    if mode != "raise":
        raise _unsupported(f"np.take(..., mode={mode!r})")
    attrs = {} if axis is None else {"axis": _static_int(axis, "axis")}
    return _record("take", [_as_input(a), _as_input(indices)], attrs)


def _astype(x, dtype, /, *, copy=True, device=None):
    if device is not None:
        raise _unsupported("np.astype(..., device=...)")
    return _record("astype", [_as_input(x)], {"dtype": np.dtype(dtype)})


def _copy(a, order="K", subok=False):
    _check_order(order, "np.copy")
    return _record("copy", [_as_input(a)])


def _round(a, decimals=0, out=None):
    _no_out(out, "np.round")
    d = _static_int(decimals, "decimals")
    return _record("round", [_as_input(a)], {"decimals": d} if d else {})


def _repeat(a, repeats, axis=None):
    if _is_tensor(repeats) or np.ndim(repeats) != 0:
        raise _unsupported("np.repeat with an array or symbolic `repeats`", "pass a Python int")
    attrs = {"repeats": _static_int(repeats, "repeats")}
    if axis is not None:
        attrs["axis"] = _static_int(axis, "axis")
    return _record("repeat", [_as_input(a)], attrs)


def _diag_attrs(offset, axis1, axis2):
    attrs = {}
    for key, value, default in (("offset", offset, 0), ("axis1", axis1, 0), ("axis2", axis2, 1)):
        v = _static_int(value, key)
        if v != default:
            attrs[key] = v
    return attrs


def _diagonal(a, offset=0, axis1=0, axis2=1):
    return _record("diagonal", [_as_input(a)], _diag_attrs(offset, axis1, axis2))


def _trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    _no_out(out, "np.trace")
    attrs = _diag_attrs(offset, axis1, axis2)
    if dtype is not None:
        attrs["dtype"] = np.dtype(dtype)
    return _record("trace", [_as_input(a)], attrs)


def _ndim_func(a):
    return _ndim(a)


def _shape_func(a):
    return a.shape if _is_tensor(a) else np.shape(a)


# --- linear algebra --------------------------------------------------------------------------

def _dot(a, b, out=None):
    _no_out(out, "np.dot")
    return _record("dot", [_as_input(a), _as_input(b)])


def _outer(a, b, out=None):
    _no_out(out, "np.outer")
    return _record("outer", [_as_input(a), _as_input(b)])


def _einsum(*operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    """np.einsum with a subscripts string. `optimize` only changes the contraction order, so it is
    accepted and the staged kernel uses NumPy's default."""
    _no_out(out, "np.einsum")
    if not operands or not isinstance(operands[0], str):
        raise _unsupported("np.einsum in the interleaved (operand, sublist) form", "pass a subscripts string")
    if dtype is not None or casting != "safe" or order != "K":
        raise _unsupported("np.einsum(..., dtype/casting/order=...)")
    subscripts, *arrays = operands
    return _record("einsum", [_as_input(x) for x in arrays], {"subscripts": subscripts.replace(" ", "")})


# --- creation --------------------------------------------------------------------------------

def _like(op):
    def like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
        if shape is not None:
            raise _unsupported(f"np.{op}(..., shape=...)", f"use np.{op.replace('_like', '')}(shape, dtype)")
        attrs = {} if dtype is None else {"dtype": np.dtype(dtype)}
        return _record(op, [_as_input(a)], attrs)
    like.__name__ = op
    return like


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    if shape is not None:
        raise _unsupported("np.full_like(..., shape=...)", "use np.full(shape, fill_value, dtype)")
    attrs = {} if dtype is None else {"dtype": np.dtype(dtype)}
    return _record("full_like", [_as_input(a), _as_input(fill_value)], attrs)


def _sized(op, func):
    def create(shape, dtype=float, order="C", *, device=None, like=None):
        if not _contains_tensor(shape):
            return func(shape, dtype=dtype, order=order)
        _check_order(order, f"np.{op}")
        attr, inputs = _shape_attr(shape)
        return _record(op, inputs, {"shape": attr, "dtype": np.dtype(dtype)})
    create.__name__ = op
    return create


def _full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    if not _contains_tensor(shape) and not _is_tensor(fill_value):
        return np.full(shape, fill_value, dtype=dtype, order=order)
    _check_order(order, "np.full")
    attr, inputs = _shape_attr(shape)
    attrs = {"shape": attr}
    if dtype is not None:
        attrs["dtype"] = np.dtype(dtype)
    return _record("full", [_as_input(fill_value), *inputs], attrs)


def _scalar_attr(value, what, inputs, allow_float=False):
    """A static number stays an attr (NumPy scalars become Python numbers); a tensor becomes '?'."""
    if _is_tensor(value):
        if value.ndim != 0:
            raise ValueError(f"{_where()}{what} must be a scalar, got {value.type}")
        inputs.append(value)
        return "?"
    if isinstance(value, np.generic):
        value = value.item()
    if allow_float and type(value) in (int, float):
        return value
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{_where()}{what} must be {'a real number' if allow_float else 'an integer'}, "
                        f"got {value!r}") from None


def _eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    if not any(_is_tensor(v) for v in (N, M, k)):
        return np.eye(N, M, k, dtype=dtype, order=order)
    _check_order(order, "np.eye")
    inputs = []
    attrs = {"N": _scalar_attr(N, "N", inputs)}
    if M is not None:
        attrs["M"] = _scalar_attr(M, "M", inputs)
    if not (type(k) is int and k == 0):
        attrs["k"] = _scalar_attr(k, "k", inputs)
    attrs["dtype"] = np.dtype(dtype)
    return _record("eye", inputs, attrs)


def _arange(start_or_stop=_NO_VALUE, /, stop=_NO_VALUE, step=_NO_VALUE, dtype=None, *, device=None,
            like=None, start=_NO_VALUE):
    if start is not _NO_VALUE:  # np.arange(start=..., stop=...)
        if start_or_stop is not _NO_VALUE:
            raise TypeError(f"{_where()}arange() got multiple values for argument 'start'")
        first, last = start, stop
    elif stop is _NO_VALUE or stop is None:
        first, last = 0, start_or_stop
    else:
        first, last = start_or_stop, stop
    if last is _NO_VALUE:
        raise TypeError(f"{_where()}arange() requires stop to be specified.")
    step = 1 if step is _NO_VALUE or step is None else step
    if not any(_is_tensor(v) for v in (first, last, step)):
        return np.arange(first, last, step, dtype=dtype)
    inputs = []
    attrs = {}
    a = _scalar_attr(first, "start", inputs, allow_float=True)
    if not (type(a) is int and a == 0):
        attrs["start"] = a
    attrs["stop"] = _scalar_attr(last, "stop", inputs, allow_float=True)
    s = _scalar_attr(step, "step", inputs, allow_float=True)
    if not (type(s) is int and s == 1):
        attrs["step"] = s
    if dtype is not None:
        attrs["dtype"] = np.dtype(dtype)
    return _record("arange", inputs, attrs)


# --- the function table ----------------------------------------------------------------------

_FUNCTIONS = {
    np.sum: _sum, np.prod: _prod, np.mean: _mean, np.max: _max, np.min: _min,
    np.argmax: _argmax, np.argmin: _argmin, np.any: _any, np.all: _all, np.std: _std, np.var: _var,
    np.cumsum: _scan("cumsum"), np.cumprod: _scan("cumprod"), np.sort: _sort, np.argsort: _argsort,
    np.reshape: _reshape, np.ravel: _ravel, np.transpose: _transpose, np.swapaxes: _swapaxes,
    np.expand_dims: _expand_dims, np.squeeze: _squeeze, np.concatenate: _concatenate, np.stack: _stack,
    np.hstack: _hstack, np.vstack: _vstack, np.broadcast_to: _broadcast_to,
    np.where: _np_where, np.nonzero: _nonzero, np.argwhere: _argwhere, np.clip: _clip, np.take: _take,
    np.copy: _copy, np.round: _round, np.repeat: _repeat, np.diagonal: _diagonal, np.trace: _trace,
    np.ndim: _ndim_func, np.shape: _shape_func,
    np.dot: _dot, np.outer: _outer, np.einsum: _einsum,
    np.zeros_like: _like("zeros_like"), np.ones_like: _like("ones_like"), np.full_like: _full_like,
    np.zeros: _sized("zeros", np.zeros), np.ones: _sized("ones", np.ones), np.full: _full,
    np.eye: _eye, np.arange: _arange,
}
for _alias, _target in (("amax", np.max), ("amin", np.min), ("around", np.round), ("concat", np.concatenate),
                        ("permute_dims", None), ("astype", None)):
    _func = getattr(np, _alias, None)
    if _func is None or _func in _FUNCTIONS:
        continue
    if _alias == "permute_dims":
        _FUNCTIONS[_func] = _permute_dims
    elif _alias == "astype":
        _FUNCTIONS[_func] = _astype
    else:
        _FUNCTIONS[_func] = _FUNCTIONS[_target]
del _alias, _target, _func


def has_function(func) -> bool:
    """True when `func` (a NumPy function) can be staged by apply_function."""
    return func in _FUNCTIONS


def supported_functions() -> list[str]:
    """Names (np.xxx) of the NumPy functions apply_function stages."""
    return sorted({numpy_name(f) if numpy_name(f).startswith("np.") else f"np.{f.__name__}" for f in _FUNCTIONS})


def apply_function(func, args, kwargs):
    """`func(*args, **kwargs)` for a NumPy function with symbolic arguments (Tensor.__array_function__)."""
    handler = _FUNCTIONS.get(func)
    if handler is None:
        raise _unsupported(f"{numpy_name(func)} (no staged op)")
    return handler(*args, **kwargs)


# --- indexing --------------------------------------------------------------------------------

def _slice_part(value, inputs):
    if value is None:
        return None
    if _is_tensor(value):
        if value.ndim != 0 or value.dtype.kind not in "iu":
            raise IndexError(f"{_where()}slice indices must be integers or None, got a symbolic {value.type}")
        inputs.append(value)
        return "?"
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{_where()}slice indices must be integers or None or have an __index__ method") from None


def getitem(x, key):
    """x[key] on a symbolic x: ints, slices (static or symbolic bounds), None, Ellipsis, integer
    scalars/arrays and boolean masks (concrete or symbolic)."""
    if not isinstance(key, tuple):
        key = (key,)
    index, inputs = [], []
    for k in key:
        if k is None:
            index.append(None)
        elif k is Ellipsis:
            index.append("...")
        elif isinstance(k, slice):
            parts = tuple(_slice_part(p, inputs) for p in (k.start, k.stop, k.step))
            index.append(format_slice(*parts))
        elif _is_tensor(k):
            if k.dtype.kind not in "iub":
                raise IndexError(f"{_where()}only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
                                 f"and integer or boolean arrays are valid indices; got a symbolic {k.type}")
            index.append("?")
            inputs.append(k)
        elif isinstance(k, (bool, np.bool_)):
            index.append("?")
            inputs.append(np.asarray(k))
        elif isinstance(k, (int, np.integer)):
            index.append(int(k))
        elif isinstance(k, (list, np.ndarray)):
            arr = _as_input(k)
            if not _is_tensor(arr) and arr.dtype.kind not in "iub":
                if arr.size == 0:
                    arr = arr.astype(np.intp)  # x[[]] selects nothing, as in NumPy
                else:
                    raise IndexError(f"{_where()}arrays used as indices must be of integer (or boolean) type")
            index.append("?")
            inputs.append(arr)
        else:
            raise IndexError(f"{_where()}only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                             f"integer or boolean arrays are valid indices; got {type(k).__name__}")
    return _record("getitem", [x, *inputs], {"index": tuple(index)})


# --- methods ---------------------------------------------------------------------------------

def _m_reshape(x, *shape, order="C", copy=None):
    _check_order(order, "ndarray.reshape")
    if len(shape) == 1 and (isinstance(shape[0], (tuple, list)) or (_is_tensor(shape[0]) and shape[0].ndim == 1)):
        shape = shape[0]
    return _reshape_to(x, shape)


def _m_transpose(x, *axes):
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    return _transpose(x, axes if axes else None)


def _m_astype(x, dtype, order="K", casting="unsafe", subok=True, copy=True):
    if order != "K" or casting != "unsafe":
        raise _unsupported("ndarray.astype(..., order/casting=...)")
    return _record("astype", [x], {"dtype": np.dtype(dtype)})


def _m_sort(x, *args, **kwargs):
    raise _unsupported("ndarray.sort() (it sorts in place, and symbolic tensors are immutable)",
                       "use the functional form `x = np.sort(x, axis)`")


def _m_fill(x, *args, **kwargs):
    raise _unsupported("ndarray.fill() (it writes in place, and symbolic tensors are immutable)",
                       "use np.full_like(x, value)")


def _m_flatten(x, order="C"):
    _check_order(order, "ndarray.flatten")
    return _reshape_to(x, (-1,))


def _m_copy(x, order="C"):
    _check_order(order, "ndarray.copy")
    return _record("copy", [x])


def _m_clip(x, min=None, max=None, out=None, **kwargs):  # noqa: A002
    return _clip(x, min, max, out, **kwargs)


def _m_conj(x):
    return _record("conjugate", [x])


def _m_symbolic(name):
    def method(x, *args, **kwargs):
        raise errors.SymbolicValueError(
            f"{_where()}.{name}() of a symbolic tensor needs its value, which is only known when the staged "
            f"graph runs; return the tensor from the staged function, or use staging.py_function")
    return method


_METHODS = {
    "sum": _sum, "prod": _prod, "mean": _mean, "max": _max, "min": _min, "argmax": _argmax, "argmin": _argmin,
    "any": _any, "all": _all, "std": _std, "var": _var, "cumsum": _scan("cumsum"), "cumprod": _scan("cumprod"),
    "argsort": _argsort, "squeeze": _squeeze, "take": _take, "dot": _dot, "repeat": _repeat,
    "swapaxes": _swapaxes, "diagonal": _diagonal, "trace": _trace, "round": _round, "nonzero": _nonzero,
    "reshape": _m_reshape, "transpose": _m_transpose, "astype": _m_astype, "sort": _m_sort, "fill": _m_fill,
    "flatten": _m_flatten, "ravel": _m_flatten, "copy": _m_copy, "clip": _m_clip, "conj": _m_conj,
    "conjugate": _m_conj, "item": _m_symbolic("item"), "tolist": _m_symbolic("tolist"),
}


def call_method(name, x, args, kwargs):
    """x.name(*args, **kwargs) for a symbolic x, with ndarray's method signature."""
    handler = _METHODS.get(name)
    if handler is None:
        raise _unsupported(f"ndarray.{name}()")
    return handler(x, *args, **kwargs)
