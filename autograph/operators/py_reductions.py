"""min, max and sum on symbolic values, with Python's semantics.

min/max return the first extreme operand (compared with `<` / `>`, by key= when given) as it
is; sum is a left fold from `start`.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from autograph.operators import data_structures, py_functional
from runtime.types import kinds
from staging import control_flow, errors
from staging.core.recording import record
from staging.core.source_map import where as _where
from staging.core.tensor import is_symbolic

_MISSING = py_functional.MISSING


def _has_symbolic(items) -> bool:
    return any(
        is_symbolic(v)
        or isinstance(v, data_structures.StagedList)
        or (type(v) is tuple and _has_symbolic(v))
        for v in items
    )


def min_(*args, **kwargs):
    """`min(...)`: with symbolic operands, the first operand not greater than the others."""
    return _extreme(builtins.min, "min", operator.lt, args, kwargs)


def max_(*args, **kwargs):
    """`max(...)`: with symbolic operands, the first operand not less than the others."""
    return _extreme(builtins.max, "max", operator.gt, args, kwargs)


def _extreme(python, name, better, args, kwargs):
    """Python's min/max: the first item whose key no later one beats (`better`), as it is (a
    staged `if` per comparison keeps each item's own type: a Python float and a float64 scalar
    stay what they are). A tensor or a staged list without key= is reduced (np.min/np.max)."""
    if set(kwargs) - {"key", "default"} or (len(args) > 1 and "default" in kwargs) or not args:
        return python(*args, **kwargs)  # Python's TypeError
    key, default = kwargs.get("key"), kwargs.get("default", _MISSING)
    if len(args) == 1 and _is_sequence(args[0]) and key is None:
        return _extreme_of_tensor(name, args[0], better, default)
    items = list(args[0]) if len(args) == 1 else list(args)
    if not items:
        return python(items, **kwargs)  # the default, or Python's ValueError
    keys = items if key is None else [py_functional.call_user(key, item) for item in items]
    if not (_has_symbolic(items) or _has_symbolic(keys)):
        best = 0
        for i in range(1, len(items)):
            if better(keys[i], keys[best]):
                best = i
        return items[best]
    return _chosen(name, items, keys, better)


def _is_sequence(x) -> bool:
    return is_symbolic(x) or isinstance(x, data_structures.StagedList)


def _chosen(name, items, keys, better):
    for k in keys:
        for part in k if type(k) is tuple else (k,):
            _scalar_operand(name, part)
    best, best_key = items[0], keys[0]
    for item, k in zip(items[1:], keys[1:]):
        wins = _compare(better, k, best_key)
        if is_symbolic(wins):
            best, best_key = control_flow.cond(
                wins, lambda item=item, k=k: (item, k), lambda b=best, bk=best_key: (b, bk)
            )
        elif wins:
            best, best_key = item, k
    return best


def _compare(better, a, b):
    """`better(a, b)`; for tuples Python's lexicographic order: the first entries that differ
    decide, else the shorter tuple is less (staged where entries are symbolic)."""
    if not (type(a) is tuple and type(b) is tuple and _has_symbolic((a, b))):
        return better(a, b)
    result = better(len(a), len(b))
    for x, y in reversed(list(zip(a, b))):
        same = x == y
        if is_symbolic(same) or is_symbolic(result):
            result = np.where(same, result, better(x, y))
        else:
            result = result if same else better(x, y)
    return result


def _scalar_operand(name, x):
    """Python compares arrays elementwise: their truth value is ambiguous."""
    if isinstance(x, data_structures.StagedList):
        x = x.stack()
    shape = x.static_shape if is_symbolic(x) else np.shape(x) if isinstance(x, np.ndarray) else ()
    if shape != ():
        raise errors.SymbolicValueError(
            f"{_where()}{name}() of arrays compares them with `<`, whose truth value is "
            f"ambiguous for an array of shape {tuple(shape)}; use np.minimum / np.maximum or "
            f"np.min / np.max"
        )


def _extreme_of_tensor(name, items, better, default=_MISSING):
    """min/max over the first axis of a tensor (or a staged list): Python compares element by
    element and keeps the first extreme one; a NaN first element is never replaced and later
    NaNs are never chosen. The items of a staged list that are Python numbers give a Python
    number, as Python's min/max returns the item itself. No items: the default, or Python's
    ValueError (when the graph runs, for a length known only then)."""
    python_kind = None
    if isinstance(items, data_structures.StagedList):
        python_kind = _python_kind(name, items)
        items = items.stack()

    def found():
        best = _extreme_of_array(name, items, better)
        if python_kind is not None:
            return record("python_number", [best], {"kind": python_kind})
        return best

    def empty():
        if default is _MISSING:
            raise ValueError(f"{name}() arg is an empty sequence")
        return default

    n = items.static_shape[0] if items.static_ndim else None
    if n == 0:
        return empty()
    if n is not None or not items.static_ndim:
        return found()
    return control_flow.cond(np.shape(items)[0] == 0, empty, found)


def _python_kind(name, items):
    """The Python type of a staged list's items when they are Python numbers (else None)."""
    ta = items.tensor_array
    element = ta._handle.type.element if ta._staged else None
    found = kinds(element) if element is not None else ()
    if found and all(k.weak for k in found):
        if len({k.python_type for k in found}) == 1:
            return found[0].python_type
    if any(k.weak for k in found):
        raise errors.SymbolicValueError(
            f"{_where()}{name}() of a list holding Python numbers and NumPy values "
            f"({' | '.join(map(str, found))}): the result's type would depend on which is chosen; "
            f"give the items one type"
        )
    return None


def _extreme_of_array(name, items, better):
    if items.static_ndim != 1:
        raise errors.SymbolicValueError(
            f"{_where()}{name}() of a tensor of shape {items.static_shape} compares its rows with "
            f"`<`, whose truth value is ambiguous; use np.{name}(x, axis=0)"
        )
    kind = items.static_dtype.kind
    if kind == "c":
        return _fold_extreme(name, items, better)
    # Python keeps the first of equal extremes (-0.0 before 0.0), never replaces a NaN first
    # element and never chooses a later NaN: the first index of the extreme, NaNs left out
    find = np.argmin if name == "min" else np.argmax
    if kind != "f":
        return items[find(items)]
    fill = np.inf if name == "min" else -np.inf
    index = np.where(np.isnan(items[0]), 0, find(np.where(np.isnan(items), fill, items)))
    return items[index]


def _fold_extreme(name, items, better):
    """Python's own loop, staged: the items are NumPy complex scalars, which `<` orders
    lexicographically (real parts, then imaginary ones; a comparison with a NaN part is False),
    an order NaNs keep from being total, so no argmin stands in for it. An empty tensor raises
    the ValueError np.argmin raises."""
    find = np.argmin if name == "min" else np.argmax
    first = items[find(items) * 0]
    length = items.shape[0] if items.shape[0] is not None else np.shape(items)[0]
    _, best = control_flow.while_loop(
        lambda i, best: i < length,
        lambda i, best: (i + 1, np.where(better(items[i], best), items[i], best)[()]),
        (np.int64(1), first),
        names=(f"<{name} index>", name),
    )
    return best


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
    else:
        if iterable.ndim == 0:
            raise errors.SymbolicValueError(
                f"{_where()}sum() of a scalar tensor: it is not iterable"
            )
        length = iterable.shape[0] if iterable.shape[0] is not None else np.shape(iterable)[0]

        def item(i):
            return iterable[i]

    # The total starts as `start` itself: no item gives `start` (a Python 0 stays one), the
    # loop's type joins the kinds the additions give.
    _, total = control_flow.while_loop(
        lambda i, total: i < length,
        lambda i, total: (i + 1, total + item(i)),
        (np.int64(0), start),
        names=("<sum index>", "sum"),
    )
    return total
