"""Shared plumbing of the NumPy frontend: turning arguments into op inputs and static attrs."""

from __future__ import annotations

import operator

import numpy as np

from runtime import TensorType
from runtime.types import NONE
from runtime.types import kinds as kinds_of
from staging import errors
from staging.core.recording import record
from staging.core.source_map import where as _where
from staging.core.tensor import Tensor, has_staged_value, staged_value

_NO_VALUE = np._NoValue  # NumPy's own "argument not given" sentinel
_PY_SCALARS = (bool, int, float, complex)


def _record(op_name, inputs, attrs=None):
    return record(op_name, list(inputs), dict(attrs or {}))


def _is_tensor(x) -> bool:
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
        return "np." + module[len("numpy.") :] + "." + name
    return f"{module}.{name}"


def _unsupported(what: str, hint: str = "") -> errors.UnsupportedOpError:
    hint = hint or (
        "wrap the computation in staging.py_function(func, inputs, Tout) to run it in "
        "Python on the concrete values"
    )
    return errors.UnsupportedOpError(
        f"{_where()}{what} is not supported on symbolic tensors; {hint}"
    )


def _as_input(x):
    """An op input: a Tensor, a Python scalar literal, or a concrete NumPy value.

    Lists/tuples holding tensors become one tensor, as np.array would make them.
    """
    if _is_tensor(x) or type(x) in _PY_SCALARS or isinstance(x, (np.ndarray, np.generic)):
        return x
    if has_staged_value(x):  # a Variable: read it where it is used
        return x._staged_value()
    if isinstance(x, (list, tuple)):
        if _contains_tensor(x):
            return array_from_nested(x)
        return np.asarray(x)
    if isinstance(x, _PY_SCALARS):  # subclasses of Python numbers (not NumPy scalars)
        return np.asarray(x)
    if x is None:  # (an op that does not take None raises eager's error: `x + None`)
        return record("const", [], {"value": None})
    return np.asarray(x)


def _flat_leaves(obj, out: list) -> list:
    if isinstance(obj, (list, tuple)):
        for item in obj:
            _flat_leaves(item, out)
    else:
        out.append(obj)
    return out


def _stand_ins(leaf) -> list:
    """Concrete values NumPy's array construction treats like `leaf` when choosing a dtype: one
    per kind the leaf may have at run time (staging.kinds)."""
    if _is_tensor(leaf):
        return [_stand_in(t) for t in kinds_of(leaf.type)]
    if isinstance(leaf, np.ndarray):
        return [np.zeros((), leaf.dtype)]
    return [leaf]


def _stand_in(kind):
    if kind is NONE:
        return None
    return kind.python_type(0) if kind.weak else np.zeros((), kind.dtype)


def _array_dtype(leaves, dtype):
    """The dtype np.array gives `leaves`: the same for every combination of their kinds, or a
    refusal naming the line (the array's dtype would depend on the path taken)."""
    combinations = [[]]
    for leaf in leaves:
        choices = _stand_ins(leaf)
        if len(choices) > 1 and len(combinations) * len(choices) > 64:
            raise errors.BranchMismatchError(
                f"{_where()}np.array of values of several kinds by path: too many combinations"
            )
        combinations = [c + [s] for c in combinations for s in choices]
    found = {np.array(c, dtype=dtype).dtype for c in combinations}
    if len(found) != 1:
        names = " or ".join(sorted(d.name for d in found))
        raise errors.BranchMismatchError(
            f"{_where()}np.array of these values is {names} depending on the path taken (some "
            f"are of several kinds by path); give them one type on every path"
        )
    return found.pop()


def _read_leaves(obj):
    """`obj` with Variables and staged lists replaced by their symbolic reads."""
    if isinstance(obj, (list, tuple)):
        return [_read_leaves(v) for v in obj]
    return staged_value(obj) if has_staged_value(obj) else obj


def array_from_nested(obj, dtype=None):
    """np.array(obj, dtype) for a (nested) list or tuple holding symbolic tensors: the dtype NumPy
    would choose (Python numbers are not weak here: np.array([np.float32(1), 2.0]) is float64),
    then one `stack` per nesting level."""
    obj = _read_leaves(obj)
    leaves = _flat_leaves(obj, [])
    try:
        found = _array_dtype(leaves, dtype)
    except (TypeError, ValueError, OverflowError) as exc:
        if isinstance(exc, errors.StagingError):
            raise
        raise type(exc)(f"{_where()}{exc}") from None
    if found.hasobject:
        raise errors.UnsupportedOpError(
            f"{_where()}np.array of these values gives an object array, which cannot be staged"
        )

    def build(item):
        if _is_tensor(item):
            t = item.type
            one_kind = type(t) is TensorType and not t.weak and t.dtype == found
            return item if one_kind else _record("astype", [item], {"dtype": found})
        if isinstance(item, (list, tuple)) and _contains_tensor(item):
            return _record("stack", [build(v) for v in item])
        return np.array(item, dtype=found)

    return build(obj)


def _ndim(x) -> int:
    return x.static_ndim if _is_tensor(x) else np.ndim(x)


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
        raise _unsupported(
            f"a symbolic {what}", f"{what} must be a Python bool known while tracing"
        )
    return bool(value)


def _no_out(out, name):
    if out is not None:
        raise _unsupported(
            f"{name}(..., out=...)",
            "out= is not staged here; use the returned value (`y[...] = np.sum(x)` writes it into y)",
        )


def _reject(name, **given):
    """Raises for arguments that were passed with a value other than NumPy's default."""
    for key, value in given.items():
        if value is not _NO_VALUE:
            raise _unsupported(
                f"{name}(..., {key}=...)", "drop the argument or use staging.py_function"
            )


def _shape_attr(shape, what: str = "shape"):
    """A shape argument -> (attr with None for symbolic dims, the symbolic dim inputs)."""
    if _is_tensor(shape):
        if shape.static_ndim != 0:
            raise _unsupported(
                f"a symbolic {what} vector", f"pass the {what} as a tuple of ints / scalar tensors"
            )
        shape = (shape,)
    elif not isinstance(shape, (tuple, list)):
        shape = (shape,)
    attr, inputs = [], []
    for d in shape:
        if _is_tensor(d):
            if d.static_ndim != 0 or d.static_dtype.kind not in "iu":
                raise TypeError(
                    f"{_where()}a symbolic {what} entry must be an integer scalar, got {d.type}"
                )
            attr.append(None)
            inputs.append(d)
        else:
            try:
                attr.append(operator.index(d))
            except TypeError:
                raise TypeError(f"{_where()}{what} entries must be integers, got {d!r}") from None
    return tuple(attr), inputs


def _check_order(order, name):
    if order not in ("C", "K", "A", None):
        raise _unsupported(f"{name}(..., order={order!r})", "only C order can be staged")
