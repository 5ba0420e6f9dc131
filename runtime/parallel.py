"""Fused elementwise runs split across threads.

A fused run (runtime.fusion) applies its ufuncs chunk by chunk; the chunks are independent, and
NumPy releases the GIL inside a ufunc's loop, so on a machine with several cores the chunks can
run on several threads at once. Each thread takes one contiguous part of the arrays and walks it
chunk by chunk with scratch buffers of its own; every element goes through the same ufunc loops
as op by op, so the result is bitwise the same.

The emitted code calls `run_parts(work, parts)`: `work(bounds)` runs the chunks `bounds` (a tuple
of (start, stop) pairs), `parts` one such tuple per thread. The calling thread runs the first
part itself, the pool the others; each pool task runs in a copy of the caller's context, so
`np.errstate` (a context variable in NumPy 2) applies in the pool threads as in the caller. An
exception of any part is raised in the caller (the first part's first). The pool is made on
first use, made again in a child process after fork (its threads do not survive a fork), and
replaced by a bigger one when a caller needs more threads; the old one is never shut down under
a caller still submitting to it (its threads end when nothing refers to it).
"""

from __future__ import annotations

import contextvars
import os
import threading
from concurrent.futures import ThreadPoolExecutor

_ALIGN = 64  # part boundaries at multiples of this many units: no cache line shared by two threads


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS reports it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - platforms without affinity
        return max(1, os.cpu_count() or 1)


def split_bounds(n: int, chunk: int, threads: int, min_units: int) -> tuple:
    """The chunks of `n` units split into at most `threads` contiguous parts, each a tuple of
    (start, stop) pairs of at most `chunk` units (a shorter chunk only at the end of a part);
    one part when `n` is below `min_units` per extra thread."""
    parts = max(1, min(threads, n // max(min_units, 1)))
    cuts = [0]
    for k in range(1, parts):
        cut = (n * k // parts) // _ALIGN * _ALIGN
        if cut > cuts[-1]:
            cuts.append(cut)
    cuts.append(n)
    return tuple(
        tuple((s, min(s + chunk, stop)) for s in range(start, stop, chunk))
        for start, stop in zip(cuts, cuts[1:])
        if stop > start
    )


_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_pool_lock = threading.Lock()


def _executor(workers: int) -> ThreadPoolExecutor:
    """The pool, made bigger when it has fewer than `workers` threads. A pool that is replaced is
    not shut down: another thread may be about to submit to it. Its threads end once nothing
    refers to it any more (ThreadPoolExecutor's workers hold it weakly)."""
    global _pool, _pool_size
    with _pool_lock:
        if _pool is None or _pool_size < workers:
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="staging-fused")
            _pool_size = workers
        return _pool


def _forget_pool() -> None:
    global _pool, _pool_size, _pool_lock
    _pool, _pool_size, _pool_lock = None, 0, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def _submit(work, parts: tuple) -> tuple[list, list]:
    """(futures of the parts the pool took, parts left to the calling thread)."""
    pool = _executor(len(parts))
    futures, inline = [], []
    for part in parts:
        try:
            futures.append(pool.submit(contextvars.copy_context().run, work, part))
        except RuntimeError:  # the interpreter is shutting down: no new threads; run it here
            inline.append(part)
    return futures, inline


def run_parts(work, parts: tuple) -> None:
    """Runs `work(part)` for each part: the first on this thread, the others on the pool."""
    if len(parts) == 1:
        work(parts[0])
        return
    futures, inline = _submit(work, parts[1:])
    error = None
    for part in (parts[0], *inline):
        try:
            work(part)
        except BaseException as exc:  # noqa: BLE001 - raised once the other parts are done
            if error is None:
                error = exc
    for future in futures:  # wait for every part: none may still write after we return
        try:
            future.result()
        except BaseException as exc:  # noqa: BLE001
            if error is None:
                error = exc
    if error is not None:
        raise error


__all__ = ["available_cores", "run_parts", "split_bounds"]
