"""functools.reduce, map, filter, sorted, any and all over symbolic values, with Python's results.

These take the items of a staged iterable as lists (autograph.operators.py_builtins gives them:
a tensor of known first dim, a list built by a staged loop of known length, zip/enumerate/range
of them), call the user's function on each through converted code (ag__.call, so a helper with
`if`s on the items is staged), and give what Python gives:

- reduce: Python's left fold over the items; over an iterable whose length is known only when
  the graph runs, a staged loop (the accumulator is what each iteration made it);
- map / filter: Python's lazy `map` / `filter` objects over the items; a filter test that is
  symbolic would make the number of items depend on the values, which is refused;
- sorted: Python's sort of the run-time keys (stable, `reverse=`, NaN compared as Python
  compares it) by one `python_sort` node giving the permutation, then the items in that order;
- any / all: the truth of the items, as Python's bool(); over a generator, each further item is
  traced in a staged `if` on the earlier ones, so it is computed only where Python would.
"""

from __future__ import annotations

import builtins

import numpy as np

from autograph.operators import data_structures
from runtime.types import StrType, TensorType, TupleType
from staging import control_flow, errors
from staging.core.recording import check, record
from staging.core.source_map import where
from staging.core.tensor import has_staged_value, is_symbolic, staged_value
from staging.state import containers
from staging.state.tensor_array import TensorArray

MISSING = object()

# How converted code calls a user function (autograph.impl.api sets it to ag__.call, which
# converts it); plain calls until then.
_USER_CALL = [lambda func, *args, **kwargs: func(*args, **kwargs)]

# the most nested staged `if`s any()/all() trace for the items of one generator
MAX_SHORT_CIRCUIT = 256


def set_user_call(call) -> None:
    _USER_CALL[0] = call


def call_user(func, *args, **kwargs):
    return _USER_CALL[0](func, *args, **kwargs)


def is_staged_value(x) -> bool:
    return is_symbolic(x) or has_staged_value(x)


# -- reduce ------------------------------------------------------------------------------------


def fold(function, items, initial=MISSING):
    """functools.reduce over a list of items: Python's left fold."""
    items = iter(items)
    if initial is MISSING:
        try:
            initial = next(items)
        except StopIteration:
            raise TypeError(f"{where()}reduce() of empty iterable with no initial value") from None
    acc = initial
    for item in items:
        acc = call_user(function, acc, item)
    return acc


def staged_fold(function, length, item, initial=MISSING):
    """functools.reduce over `length` items (known when the graph runs) read by `item(i)`: a
    staged loop; without an initial value, an empty iterable raises TypeError there."""
    start = 0
    if initial is MISSING:
        check(length > 0, "reduce() of empty iterable with no initial value", TypeError)
        start, initial = 1, item(0)
    _, acc = control_flow.while_loop(
        lambda i, acc: i < length,
        lambda i, acc: (i + 1, call_user(function, acc, item(i))),
        (start, initial),
        names=("<reduce index>", "reduce"),
    )
    return acc


# -- map and filter ----------------------------------------------------------------------------


def mapped(function, item_lists):
    """map(function, *lists): Python's lazy map, calling the function through converted code."""
    return builtins.map(lambda *args: call_user(function, *args), *item_lists)


def filtered(function, items):
    """filter(function, items): Python's lazy filter; a test whose truth is symbolic (known only
    when the graph runs) is refused, naming the line."""
    location = where()

    def keep(item):
        test = item if function is None else call_user(function, item)
        if is_staged_value(test):
            raise errors.SymbolicValueError(
                f"{location}filter() with a test whose value is known only when the staged graph "
                f"runs: how many items it keeps would depend on the values. Select with a "
                f"boolean mask (x[mask]), or append the items in a `for` loop (staged)"
            )
        return test

    return builtins.filter(keep, items)


# -- sorted ------------------------------------------------------------------------------------


def _key_parts(key):
    """A sort key as its scalar parts (a tuple key: its entries, compared in order)."""
    parts = key if type(key) is tuple else (key,)
    for part in parts:
        if is_staged_value(part):
            part = staged_value(part)
            if part.static_shape != ():
                raise errors.SymbolicValueError(
                    f"{where()}sorted() by a key that is an array of shape {part.static_shape}: "
                    f"Python compares arrays elementwise, whose truth value is ambiguous; sort "
                    f"by scalars, or use np.sort / np.argsort"
                )
        elif type(part) not in (bool, int, float):
            raise errors.SymbolicValueError(
                f"{where()}sorted() of symbolic values by a key holding a "
                f"{type(part).__name__}: only numbers and symbolic scalars can be compared "
                f"when the graph runs"
            )
    return parts


def sort_items(items, keys, reverse=False):
    """sorted(items) by `keys` (the items themselves without key=): the permutation Python's sort
    gives on the run-time keys (a python_sort node), then the items in that order."""
    parts = [_key_parts(k) for k in keys]
    width = len(parts[0])
    if any(len(p) != width for p in parts):
        raise errors.SymbolicValueError(
            f"{where()}sorted() by keys of different lengths: compare them in Python before staging"
        )
    flat = [staged_value(p) if is_staged_value(p) else p for key in parts for p in key]
    attrs = {"width": width}
    if reverse:
        attrs["reverse"] = True
    order = record("python_sort", flat, attrs)
    return [_gathered(items, order, j) for j in range(len(items))]


def sort_staged_list(items, key=None, reverse=False):
    """sorted() of a list built by a staged loop (its length known when the graph runs): the
    keys (the items, or key(item) computed by a staged loop) sorted by Python at run time (one
    python_sort node), then a new list of the items read in that order (a staged loop)."""
    source = items.tensor_array
    if source._staged and source._handle.type.element is None:
        return data_structures.StagedList(TensorArray(dtype=None, size=0, dynamic_size=True))
    n = source.size()
    if key is None:
        listed = source
    else:  # (a tuple item is passed as the tuple it is when the graph runs)
        listed = _staged_map(
            lambda item: _packed(call_user(key, containers.unpacked(item))), source, n
        )
    element = getattr(listed, "_handle", None) is not None and listed._handle.type.element
    if isinstance(element, (TupleType, StrType)):  # (compared by Python as they are)
        keys = listed._handle
    else:
        keys = listed.stack()
    if not isinstance(element, (TupleType, StrType)) and keys.static_ndim != 1:
        raise errors.SymbolicValueError(
            f"{where()}sorted() of a list built by a staged loop by keys that are not numbers "
            f"(of shape {keys.static_shape[1:]}): compare scalar keys"
        )
    attrs = {"width": 1, "stacked": True}
    if reverse:
        attrs["reverse"] = True
    order = record("python_sort", [keys], attrs)
    return data_structures.StagedList(_staged_map(lambda i: source.read(order[i]), None, n))


def _packed(key):
    """A tuple sort key as one value (a tuple when the graph runs), to be put in a staged list."""
    if type(key) is not tuple:
        return key
    template, inputs = containers.encode_arguments(key, "a sort key")
    return record("tuple_pack", inputs, {"items": template})


def _staged_map(function, source, n):
    """A new list of function(source.read(i)) (of function(i) without a source) for i < n: a
    staged loop."""
    _, target = control_flow.while_loop(
        lambda i, t: i < n,
        lambda i, t: (i + 1, t.append(function(i if source is None else source.read(i)))),
        (np.int64(0), TensorArray(dtype=None, size=0, dynamic_size=True)),
        names=("<sorted index>", "list"),
    )
    return target


def _gathered(items, order, j):
    """The item at position order[j] of `items` (all of one type, or tuples of such)."""
    first = items[0]
    if type(first) is tuple:
        columns = list(zip(*items))
        return tuple(_gathered(list(column), order, j) for column in columns)
    return _take(items, order[j])


def _take(items, index):
    values = [staged_value(v) if is_staged_value(v) else v for v in items]
    types = {v.type if is_symbolic(v) else TensorType.of(v) for v in values}
    one = next(iter(types))
    if len(types) != 1 or type(one) is not TensorType or one.shape != ():
        described = ", ".join(sorted(str(t) for t in types))
        raise errors.SymbolicValueError(
            f"{where()}sorted() of items of several types ({described}): the type at each "
            f"position of the result would depend on the values; give the items one type"
        )
    stacked = record("stack", [record("astype", [v], {"dtype": one.dtype}) for v in values])
    chosen = stacked[index]
    if one.weak:  # the Python number that was there (stacked as NumPy's default dtype)
        return record("python_number", [chosen], {"kind": one.python_type})
    return chosen


# -- any and all -------------------------------------------------------------------------------


def _truth(item):
    item = staged_value(item)
    if item.static_shape != ():
        raise ValueError(
            f"{where()}The truth value of an array with more than one element is ambiguous. "
            f"Use a.any() or a.all()"
        )
    return record("truth", [item])


def truth_of_all(items, wanted):
    """any (wanted True) / all (wanted False) of items already computed: a Python bool when the
    graph runs."""
    found = None  # whether some item decides (is true for any, false for all)
    for item in items:
        if not is_staged_value(item):
            if bool(item) is wanted:
                return wanted
            continue
        decides = _truth(item) if wanted else np.logical_not(_truth(item))
        found = decides if found is None else np.logical_or(found, decides)
    if found is None:
        return not wanted
    return record("python_number", [found if wanted else np.logical_not(found)], {"kind": bool})


def short_circuit(iterator, wanted, depth=0):
    """any / all over a generator: the next item is pulled (and its operations traced) in the
    branch where the earlier ones did not decide, as Python stops at the first deciding one."""
    for item in iterator:
        if not is_staged_value(item):
            if bool(item) is wanted:
                return wanted
            continue
        if depth >= MAX_SHORT_CIRCUIT:
            raise errors.SymbolicValueError(
                f"{where()}{'any' if wanted else 'all'}() of a generator of more than "
                f"{MAX_SHORT_CIRCUIT} symbolic values: use np.any / np.all of an array"
            )
        decided = _truth(item) if wanted else np.logical_not(_truth(item))
        return control_flow.cond(
            decided, lambda: wanted, lambda: short_circuit(iterator, wanted, depth + 1)
        )
    return not wanted


def tensor_truth(x, wanted):
    """any(x) / all(x) of a 1-d tensor: Python's truth of each element, np.any / np.all."""
    if x.static_ndim != 1:
        raise ValueError(
            f"{where()}The truth value of an array with more than one element is ambiguous. "
            f"Use a.any() or a.all()"
        )
    reduced = np.any(x) if wanted else np.all(x)
    return record("python_number", [reduced], {"kind": bool})
