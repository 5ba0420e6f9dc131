"""min, max and sum on symbolic values, with Python's semantics.

min/max return the first extreme operand (compared with `<` / `>`), sum is a left fold
from `start`.
"""

from __future__ import annotations

import builtins

import numpy as np

from autograph.operators import data_structures
from staging import control_flow, errors
from staging.core.source_map import where as _where
from staging.core.tensor import is_symbolic

_PY_NUMBERS = (bool, int, float, complex)
_KINDS = {bool: "b", int: "iu", float: "f", complex: "c"}


def _has_symbolic(items) -> bool:
    return any(is_symbolic(v) or isinstance(v, data_structures.StagedList) for v in items)


def min_(*args, **kwargs):
    """`min(...)`: with symbolic operands, the first operand not greater than the others."""
    return _extreme(builtins.min, "min", np.less, args, kwargs)


def max_(*args, **kwargs):
    """`max(...)`: with symbolic operands, the first operand not less than the others."""
    return _extreme(builtins.max, "max", np.greater, args, kwargs)


def _extreme(python, name, better, args, kwargs):
    if len(args) == 1:
        (items,) = args
        if is_symbolic(items) or isinstance(items, data_structures.StagedList):
            _no_kwargs(name, kwargs)
            return _extreme_of_tensor(name, items, better)
        if not (type(items) in (list, tuple) and _has_symbolic(items)):
            return python(*args, **kwargs)
        items = list(items)
        if not items:
            return python(*args, **kwargs)
    else:
        items = list(args)
        if not _has_symbolic(items):
            return python(*args, **kwargs)
    _no_kwargs(name, kwargs)
    dtype = _common_dtype(name, items)
    best = _operand(items[0], dtype)
    for item in items[1:]:
        item = _operand(item, dtype)
        # Python keeps the current best unless the new item is strictly better.
        best = np.where(better(item, best), item, best)
    return best


def _no_kwargs(name, kwargs):
    if kwargs:
        raise errors.SymbolicValueError(
            f"{_where()}{name}(..., {', '.join(f'{k}=' for k in kwargs)}) of symbolic values is not "
            f"supported; compare the values yourself (np.where) or call {name}() on concrete ones"
        )


def _dtype_of(x):
    if isinstance(x, data_structures.StagedList):
        x = x.stack()
    if is_symbolic(x) or isinstance(x, (np.ndarray, np.generic)):
        if (x.static_shape if is_symbolic(x) else x.shape) != ():
            raise errors.SymbolicValueError(
                f"{_where()}min()/max() of arrays compares them with `<`, whose truth value is "
                f"ambiguous for an array of shape {tuple(x.shape)}; use np.minimum / np.maximum or "
                f"np.min / np.max"
            )
        return np.dtype(x.dtype)
    return None


def _common_dtype(name, items):
    """The one dtype of the operands, when the result's dtype does not depend on which operand
    is chosen; else a clear error (Python returns the chosen operand as it is)."""
    strong = {d for d in map(_dtype_of, items) if d is not None}
    weak = [type(v) for v in items if type(v) in _PY_NUMBERS]
    other = [v for v in items if type(v) not in _PY_NUMBERS and _dtype_of(v) is None]
    if other:
        raise errors.SymbolicValueError(
            f"{_where()}{name}() of a symbolic value and a {type(other[0]).__name__}: only numbers "
            f"and tensors can be compared in a staged function"
        )
    if len(strong) == 1:
        (dtype,) = strong
        if all(dtype.kind in _KINDS[t] for t in weak):
            return dtype
    kinds = sorted({str(d) for d in strong} | {t.__name__ for t in weak})
    raise errors.SymbolicValueError(
        f"{_where()}{name}() of operands of different types ({', '.join(kinds)}): Python returns "
        f"the chosen operand as it is, so the result's type would depend on the values, which are "
        f"only known when the graph runs; cast the operands to one dtype first"
    )


def _operand(x, dtype):
    if is_symbolic(x):
        return x
    return np.asarray(x, dtype=dtype)[()]


def _extreme_of_tensor(name, items, better):
    """min/max over the first axis of a tensor (or a staged list): Python compares element by
    element and keeps the first extreme one; a NaN first element is never replaced and later
    NaNs are never chosen."""
    if isinstance(items, data_structures.StagedList):
        items = items.stack()
    if items.ndim != 1:
        raise errors.SymbolicValueError(
            f"{_where()}{name}() of a tensor of shape {tuple(items.shape)} compares its rows with "
            f"`<`, whose truth value is ambiguous; use np.{name}(x, axis=0)"
        )
    reduce = np.min if name == "min" else np.max
    if items.dtype.kind not in "fc":
        return reduce(items)
    first = items[0]
    fill = np.inf if name == "min" else -np.inf
    rest = reduce(np.where(np.isnan(items), fill, items))
    return np.where(np.isnan(first), first, rest)


def sum_(iterable, start=0):
    """`sum(iterable, start)`: over a symbolic tensor's first axis or a staged list, a staged
    left fold, so the additions happen in Python's order (and round as Python's do)."""
    if not (is_symbolic(iterable) or isinstance(iterable, data_structures.StagedList)):
        return builtins.sum(iterable, start)
    if isinstance(iterable, data_structures.StagedList):
        ta = iterable.tensor_array
        element = ta._handle.type.element if ta._staged else None
        if element is None:  # nothing was ever appended
            return start
        length, item = ta.size(), ta.read
        dtype, shape = element.dtype, element.shape
    else:
        if iterable.ndim == 0:
            raise errors.SymbolicValueError(
                f"{_where()}sum() of a scalar tensor: it is not iterable"
            )
        length = iterable.shape[0] if iterable.shape[0] is not None else np.shape(iterable)[0]
        dtype, shape = iterable.dtype, tuple(iterable.shape[1:])

        def item(i):
            return iterable[i]

    if any(d is None for d in shape):
        raise errors.SymbolicValueError(
            f"{_where()}sum() of items of shape {shape} (unknown dims): use np.sum(x, axis=0)"
        )
    # start + 0 has the type start + item has, and adding the items to it rounds as Python does.
    zero = np.zeros(shape, dtype)[()] if shape == () else np.zeros(shape, dtype)
    _, total = control_flow.while_loop(
        lambda i, total: i < length,
        lambda i, total: (i + 1, total + item(i)),
        (np.int64(0), start + zero),
        names=("<sum index>", "sum"),
    )
    return total
