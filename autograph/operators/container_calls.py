"""Refuses a library call that mutates a Python container while a staged branch or loop is traced.

A staged `if` traces both branches and a staged loop traces its body once, whatever happens when
the graph runs; `l.insert(0, v)`, `d.setdefault("k", v)`, `s.add(v)`, `q.appendleft(v)` or
`heapq.heappush(l, v)` made there would change the container once, while tracing, for every
path (a silent difference). Item and attribute writes are journaled and merged
(staging.state.journal), and `l.append(v)` / `l.pop()` are converted to staged list operations;
these calls are neither, so they are refused, naming the user's line.
"""

from __future__ import annotations

import collections
import heapq
import types

from staging import errors
from staging.core.source_map import where
from staging.state import journal

_CONTAINERS = (list, dict, set, collections.deque, bytearray)
MUTATORS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "remove",
        "pop",
        "clear",
        "update",
        "setdefault",
        "popitem",
        "add",
        "discard",
        "sort",
        "reverse",
        "appendleft",
        "extendleft",
        "popleft",
        "rotate",
        "difference_update",
        "intersection_update",
        "symmetric_difference_update",
        "__setitem__",
        "__delitem__",
        "__iadd__",
        "__ior__",
    }
)
_HEAPQ = frozenset(
    {heapq.heappush, heapq.heappop, heapq.heapify, heapq.heapreplace, heapq.heappushpop}
)


def _mutated(func, args):
    """What `func(*args)` mutates, described ("list.insert()"), or None."""
    if isinstance(func, types.BuiltinMethodType) and func.__name__ in MUTATORS:
        owner = getattr(func, "__self__", None)
        if type(owner) is list and func.__name__ == "append":
            return None  # (converted to a staged list's append where it matters)
        if type(owner) in _CONTAINERS:
            return f"{type(owner).__name__}.{func.__name__}()"
    if _is_heapq(func) and args and type(args[0]) is list:
        return f"heapq.{func.__name__}() on a list"
    return None


def _is_heapq(func) -> bool:
    try:
        return func in _HEAPQ
    except TypeError:  # an unhashable callable: not one of heapq's
        return False


def refuse_in_staged_control_flow(func, args) -> None:
    """Raises MutationError when `func(*args)` would mutate a Python container while a staged
    branch or loop body is traced; UnsupportedOpError for heapq's functions of a staged list."""
    if args and _is_heapq(func) and getattr(type(args[0]), "_is_staged_list", False):
        raise errors.UnsupportedOpError(
            f"{where()}heapq.{func.__name__}() of a list that staged code appends to or pops "
            f"from (a staged list) is not supported; keep the heap in Python, outside staged "
            f"loops and branches"
        )
    if not journal.recording_active():
        return
    what = _mutated(func, args)
    if what is not None:
        raise errors.MutationError(
            f"{where()}{what} inside a staged `if`, loop or `try` would change the container once, "
            f"while tracing, whatever path runs; build the container before the staged "
            f"construct, or write items (`d[k] = v`), or use `l.append(v)` / `l.pop()`"
        )
