"""What converted comprehensions call (autograph/converters/comprehensions.py): the iterable of
each of their `for` clauses, and the set or dict their items become."""

from __future__ import annotations

from autograph.operators import data_structures, py_builtins
from runtime.types import TensorType
from staging import errors
from staging.core.source_map import where as _where
from staging.core.strings import is_staged_str
from staging.core.tensor import is_symbolic
from staging.state import keyed

_PYTHON = -1  # the length of a Python iterable in a zip or enumerate: Python iteration decides it


def comprehension_iter(iterable):
    """The iterable of a comprehension's `for` clause.

    A staged value whose number of items is known while tracing (a tensor of known first dim, a
    staged list of known length, enumerate() or zip() of such values; at most
    py_builtins.MAX_ITEMS items) gives its items one by one, as Python iteration does: the
    converted `for` runs while tracing, and the result has that many items (as it had before
    comprehensions were converted). A staged value whose number of items is known only when the
    graph runs is given as it is: the converted `for` is a staged loop over it. Anything else
    is given as it is (a Python loop)."""
    if not py_builtins.is_staged_iterable(iterable):
        return iterable
    n = _known_length(iterable)
    if n is None or n > py_builtins.MAX_ITEMS:
        return iterable
    return iter(iterable)  # (a 0-d tensor: the TypeError eager iteration raises)


def _known_length(x):
    """The number of items of a staged iterable if it is known while tracing, else None;
    _PYTHON for a Python iterable (Python iteration stops where it ends)."""
    if isinstance(x, data_structures.StagedList):
        size = x.tensor_array.length()
        return None if is_symbolic(size) else int(size)
    if isinstance(x, py_builtins.StagedEnumerate):
        return _known_length(x.iterable)
    if isinstance(x, py_builtins.StagedZip):
        lengths = [_known_length(part) for part in x.iterables]
        return None if None in lengths else max(lengths)
    if isinstance(x, py_builtins.StagedRange) or is_staged_str(x):
        return None
    if is_symbolic(x):
        if not isinstance(x.type, TensorType):  # (a staged container: its size is run-time)
            return None
        shape = x.static_shape
        return shape[0] if shape else 0
    return _PYTHON


def comprehension_set(items):
    """The set a set comprehension makes of its items (a list, in order): Python's set; made
    when the graph runs (staging.state.keyed) where the items are (a staged list: a staged loop
    or condition made them) or where they hash only then."""
    staged = keyed.build("set", items)
    return set(items) if staged is None else staged


def comprehension_dict(pairs):
    """The dict a dict comprehension makes of its (key, value) pairs (a list, in order):
    Python's dict, or one made when the graph runs, as comprehension_set."""
    staged = keyed.build("dict", pairs)
    return dict(pairs) if staged is None else staged


def _staged_items(kind, part):
    return errors.SymbolicValueError(
        f"{_where()}a {kind} comprehension whose items are known only when the staged graph runs "
        f"(its `for` is a staged loop, or one of its `if` conditions is symbolic): a Python {kind} "
        f"needs {part} while tracing. Build a list instead (a list comprehension is staged), or "
        f"use NumPy (np.unique, a boolean mask)"
    )
