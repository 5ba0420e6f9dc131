"""Process-wide switches for the graph optimiser and the executor.

They are read when a graph is optimised and compiled, that is when a function
is traced: changing them affects functions traced afterwards, never a
ConcreteFunction that already exists.
"""

from __future__ import annotations

import contextlib
import difflib
import glob
import threading

from .parallel import available_cores


def cache_bytes(level: int, default: int) -> int:
    """The size of CPU 0's level-`level` data cache as Linux reports it; `default` elsewhere."""
    for index in sorted(glob.glob("/sys/devices/system/cpu/cpu0/cache/index*")):
        try:
            with (
                open(f"{index}/level") as lv,
                open(f"{index}/type") as kind,
                open(f"{index}/size") as size,
            ):
                if lv.read().strip() != str(level) or kind.read().strip() == "Instruction":
                    continue
                text = size.read().strip().upper()
        except OSError:
            continue
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
        try:
            return int(text.rstrip("KMG")) * scale
        except ValueError:
            continue
    return default


_DEFAULTS = {
    # graph passes (runtime.optimize)
    "constant_folding": True,
    "arithmetic_simplification": True,  # x * 1, x + 0 ... removed only where exact
    "common_subexpression_elimination": True,
    "dead_code_elimination": True,
    # executor
    "buffer_reuse": True,  # ufunc writes into the buffer of an input that dies there
    "elementwise_fusion": True,  # True: exact ops only; "all": any elementwise ufunc; False: off
    "unboxed_scalar_loops": True,  # scalar loops on Python numbers, NumPy's answers (runtime.scalar_loops)
    # a call of a small staged function is written in place: its nodes, no Python call (a chain of
    # functions each calling the next runs without a call per level; runtime.call_inlining)
    "inline_calls": True,
    # A run is fused when, op by op, its live arrays would outgrow this (default: the last-level
    # cache, where op-by-op passes start going to main memory); smaller runs execute op by op.
    "fusion_min_bytes": min(max(cache_bytes(3, 0) or cache_bytes(2, 0), 1 << 20), 1 << 30)
    or (8 << 20),
    # scratch memory of one chunk of a fused run (all its intermediates): the L2 cache size
    "fusion_chunk_bytes": min(max(cache_bytes(2, 1 << 19), 1 << 16), 1 << 23),
    # threads a big fused run is split across (NumPy releases the GIL in its loops; results are
    # bitwise the same): the cores this process may use, at most 8; 1 turns splitting off
    "threads": min(available_cores(), 8),
    # a run is split (and fused, even inside the caches) when its ops, op by op, would write at
    # least this many bytes in all (elements x itemsize x ops): below it a thread's hand-off
    # costs more than it saves
    "parallel_min_bytes": 16 << 20,
    # a fused run of plain float arithmetic becomes one loop compiled by numba when it is
    # installed (runtime.native; bitwise NumPy's results); False keeps every run on NumPy's loops
    "native_kernels": True,
    # ... from this many element-ops (elements x ops; the compile, once per kernel and then
    # cached on disk, takes a second or two in the background)
    "native_min_work": 1 << 20,
    # checks every graph after the passes (runtime.verify); the test suite turns it on
    "verify_graphs": False,
}

_BOOLEAN = (
    "constant_folding",
    "arithmetic_simplification",
    "common_subexpression_elimination",
    "dead_code_elimination",
    "buffer_reuse",
    "unboxed_scalar_loops",
    "inline_calls",
    "verify_graphs",
    "native_kernels",
)
_POSITIVE_INT = (
    "fusion_min_bytes",
    "fusion_chunk_bytes",
    "threads",
    "parallel_min_bytes",
    "native_min_work",
)

_options = dict(_DEFAULTS)
_lock = threading.Lock()


def get_options() -> dict:
    """A copy of the current options."""
    return dict(_options)


def _check(name: str, value) -> None:
    if name not in _DEFAULTS:
        close = difflib.get_close_matches(name, _DEFAULTS, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise TypeError(
            f"unknown optimizer option {name!r}{hint} (options: {', '.join(sorted(_DEFAULTS))})"
        )
    if name in _BOOLEAN and not isinstance(value, bool):
        raise TypeError(f"optimizer option {name!r} must be True or False, got {value!r}")
    if name == "elementwise_fusion" and not (isinstance(value, bool) or value == "all"):
        raise TypeError(
            f"optimizer option 'elementwise_fusion' must be True, False or 'all', got {value!r}"
        )
    if name in _POSITIVE_INT and (
        isinstance(value, bool) or not isinstance(value, int) or value < 1
    ):
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


__all__ = ["cache_bytes", "get_options", "options", "set_options"]
