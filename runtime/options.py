"""Process-wide switches for the graph optimiser and the executor.

They are read when a graph is optimised and compiled, that is when a function
is traced: changing them affects functions traced afterwards, never a
ConcreteFunction that already exists.
"""

from __future__ import annotations

import contextlib
import difflib
import threading

_DEFAULTS = {
    # graph passes (runtime.optimize)
    "constant_folding": True,
    "arithmetic_simplification": True,  # x * 1, x + 0 ... removed only where exact
    "common_subexpression_elimination": True,
    "dead_code_elimination": True,
    # executor
    "buffer_reuse": True,  # ufunc writes into the buffer of an input that dies there
    "elementwise_fusion": True,  # True: exact ops only; "all": any elementwise ufunc; False: off
    "fusion_min_elements": 1 << 17,  # runs over fewer elements execute op by op
    "fusion_chunk_bytes": 1 << 18,  # size of one chunk of the widest dtype in a fused run
}

_BOOLEAN = ("constant_folding", "arithmetic_simplification", "common_subexpression_elimination",
            "dead_code_elimination", "buffer_reuse")
_POSITIVE_INT = ("fusion_min_elements", "fusion_chunk_bytes")

_options = dict(_DEFAULTS)
_lock = threading.Lock()


def get_options() -> dict:
    """A copy of the current options."""
    return dict(_options)


def defaults() -> dict:
    return dict(_DEFAULTS)


def _check(name: str, value) -> None:
    if name not in _DEFAULTS:
        close = difflib.get_close_matches(name, _DEFAULTS, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise TypeError(f"unknown optimizer option {name!r}{hint} "
                        f"(options: {', '.join(sorted(_DEFAULTS))})")
    if name in _BOOLEAN and not isinstance(value, bool):
        raise TypeError(f"optimizer option {name!r} must be True or False, got {value!r}")
    if name == "elementwise_fusion" and not (isinstance(value, bool) or value == "all"):
        raise TypeError(f"optimizer option 'elementwise_fusion' must be True, False or 'all', got {value!r}")
    if name in _POSITIVE_INT and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise TypeError(f"optimizer option {name!r} must be a positive int, got {value!r}")


def set_options(**changes) -> dict:
    """Sets the given options; returns their previous values (so they can be restored)."""
    for name, value in changes.items():
        _check(name, value)
    with _lock:
        previous = {name: _options[name] for name in changes}
        _options.update(changes)
    return previous


@contextlib.contextmanager
def options(**changes):
    """Sets options for the duration of a `with` block (process-wide, not per thread)."""
    previous = set_options(**changes)
    try:
        yield get_options()
    finally:
        set_options(**previous)


__all__ = ["defaults", "get_options", "options", "set_options"]
