"""Room on the stack for deep work: frames granted to work that nests by design (a staged function
traced inside another's trace, the JAX lowering of a call inside a call), and a thread with a
large stack for the recursive library steps (parsing, compiling, unparsing) of deeply nested code.

Python's recursion limit is one number for the whole process. A grant raises it while the work
that needs it runs and gives it back afterwards: every thread's active grants are kept here,
the limit is the one found before the first grant plus the largest total any thread holds, and
when the last grant ends the limit is set back (unless something else changed it meanwhile,
which is then left as it is). Threads tracing at the same time therefore never lower the limit
under one another. `threading.stack_size` is process-wide too: it is set only around starting
a worker thread, under a lock, and set back at once.
"""

from __future__ import annotations

import sys
import threading

# The stack of a worker thread (virtual memory: pages are used only as deep as the work goes).
WORKER_STACK_BYTES = 256 << 20

_lock = threading.Lock()  # guards the grants and the limit
_grants: dict[int, list[int]] = {}  # thread ident -> the frames each of its active grants adds
_base: list = [None]  # the limit found before the first active grant
_set: list = [None]  # the limit the grants set last
_start_lock = threading.Lock()  # threading.stack_size is set only while a worker starts


def _apply() -> None:
    """Sets the limit for the active grants (under _lock)."""
    current = sys.getrecursionlimit()
    extra = max((sum(g) for g in _grants.values()), default=None)
    if extra is None:  # no grant left: give the limit back
        if _set[0] is not None and current == _set[0] and _base[0] != current:
            _set_limit(_base[0])
        _base[0] = _set[0] = None
        return
    if _base[0] is None or current != _set[0]:
        _base[0] = current  # the first grant, or someone else set a limit: build on theirs
    target = _base[0] + extra
    if target != current:
        _set_limit(target)
    _set[0] = sys.getrecursionlimit()


def _set_limit(limit: int) -> None:
    try:
        sys.setrecursionlimit(limit)
    except RecursionError:  # (lower than this thread's depth: keep the higher limit)
        pass


class more_frames:  # noqa: N801  (used as `with more_frames(n):`)
    """`with more_frames(n):` raises the recursion limit by `n` frames for what runs inside (on
    this thread; nested grants add up), and gives them back at the end."""

    __slots__ = ("frames",)

    def __init__(self, frames: int):
        self.frames = max(0, int(frames))

    def __enter__(self):
        me = threading.get_ident()
        with _lock:
            _grants.setdefault(me, []).append(self.frames)
            _apply()
        return self

    def __exit__(self, *exc):
        me = threading.get_ident()
        with _lock:
            grants = _grants[me]
            grants.pop()
            if not grants:
                del _grants[me]
            _apply()
        return False


# Frames the graph passes (optimizing, verifying, lowering) take per level of subgraphs nested
# in one another (a branch inside a branch ...), with room to spare.
FRAMES_PER_NESTED_GRAPH = 10


def frames_for_graph(graph) -> int:
    """The frames the graph passes need beyond their own for `graph`'s nested subgraphs (found
    without recursion): granted around them (`with more_frames(frames_for_graph(g)):`)."""
    deepest, todo = 0, [(graph, 0)]
    while todo:
        g, depth = todo.pop()
        deepest = max(deepest, depth)
        todo.extend((sub, depth + 1) for node in g.nodes for sub in node.subgraphs.values())
    return deepest * FRAMES_PER_NESTED_GRAPH


def on_large_stack(work, *args, frames: int):
    """`work(*args)` run on a new thread with a large stack and `frames` more frames than the
    recursion limit allows (granted while it runs): for recursive library steps on deeply nested
    code (compiling, unparsing). Returns its result or raises its error. The work must run no
    user code: it sees none of this thread's thread-local state."""
    outcome: list = []

    def run():
        try:
            with more_frames(frames):
                outcome.append((True, work(*args)))
        except BaseException as error:  # (handed to the calling thread, raised there)
            outcome.append((False, error))

    thread = _started(run)
    thread.join()
    ok, value = outcome.pop()
    if ok:
        return value
    try:
        raise value
    finally:
        del value


def _started(run) -> threading.Thread:
    """A daemon thread running `run`, started with a large stack (with the default one where
    the large one cannot be had)."""
    with _start_lock:
        previous: int | None = threading.stack_size()
        try:
            threading.stack_size(WORKER_STACK_BYTES)
        except (ValueError, RuntimeError):  # pragma: no cover - a platform without the setting
            previous = None
        try:
            thread = threading.Thread(target=run, name="staging-deep-step", daemon=True)
            try:
                thread.start()
            except RuntimeError:  # pragma: no cover - no memory for such a stack
                if previous is None:
                    raise
                threading.stack_size(previous)
                previous = None
                thread = threading.Thread(target=run, name="staging-deep-step", daemon=True)
                thread.start()
        finally:
            if previous is not None:
                threading.stack_size(previous)
    return thread


__all__ = ["frames_for_graph", "more_frames", "on_large_stack"]
