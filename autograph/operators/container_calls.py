"""heapq's functions of a staged list (a list that staged code appends to or pops from): refused,
naming the user's line.

A staged list's items exist only when the graph runs; heapq would read and reorder them as a
Python list's while tracing. (A Python list, dict, set or deque the function makes and changes
by its methods or by heapq in a staged `if`, loop or `try` is a staged container, changed when
the graph runs: staging.state.containers; one held elsewhere, changed there, is refused by the
check of the Python state the construct reaches: staging.state.python_state.)
"""

from __future__ import annotations

import heapq

from staging import errors
from staging.core.source_map import where

_HEAPQ = frozenset(
    {heapq.heappush, heapq.heappop, heapq.heapify, heapq.heapreplace, heapq.heappushpop}
)


def _is_heapq(func) -> bool:
    try:
        return func in _HEAPQ
    except TypeError:  # an unhashable callable: not one of heapq's
        return False


def refuse_in_staged_control_flow(func, args) -> None:
    """Raises UnsupportedOpError for heapq's functions of a staged list."""
    if args and _is_heapq(func) and getattr(type(args[0]), "_is_staged_list", False):
        raise errors.UnsupportedOpError(
            f"{where()}heapq.{func.__name__}() of a list that staged code appends to or pops "
            f"from (a staged list) is not supported; keep the heap in Python, outside staged "
            f"loops and branches"
        )
