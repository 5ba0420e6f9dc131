"""The lock a Function holds while it traces: one per Function, re-entrant, and never a deadlock.

Unrelated functions trace in parallel, and a trace may wait for another thread that traces
another function. Two threads that each hold one function's lock and ask for the other's (f's
trace calls g while another thread's trace of g calls f) would wait for each other forever:
a thread about to wait for a lock whose holder waits, directly or through other threads, for
a lock this thread holds goes on without it instead. The function is then traced by both
threads at once, which is safe (the first trace to finish is kept), just duplicate work.
"""

from __future__ import annotations

import threading

_graph = threading.Lock()  # guards the owners and the wait-for map below
_waiting: dict[int, "TraceLock"] = {}  # thread ident -> the TraceLock it waits for


class TraceLock:
    """A re-entrant lock; `with lock.hold():` holds it unless waiting would deadlock."""

    __slots__ = ("_lock", "_owner", "_depth")

    def __init__(self):
        self._lock = threading.Lock()
        self._owner: int | None = None
        self._depth = 0

    def _would_deadlock(self, me: int) -> bool:
        """Whether the holder of this lock waits, through a chain of threads, for `me`."""
        seen = set()
        lock = self
        while lock is not None and id(lock) not in seen:
            seen.add(id(lock))
            owner = lock._owner
            if owner is None:
                return False
            if owner == me:
                return True
            lock = _waiting.get(owner)
        return False

    def acquire(self) -> bool:
        """Takes the lock (re-entrantly); returns False, without it, when waiting would deadlock."""
        me = threading.get_ident()
        with _graph:
            if self._owner == me:
                self._depth += 1
                return True
            if self._lock.acquire(blocking=False):
                self._owner, self._depth = me, 1
                return True
            if self._would_deadlock(me):
                return False
            _waiting[me] = self
        try:
            self._lock.acquire()
        finally:
            with _graph:
                del _waiting[me]
        with _graph:
            self._owner, self._depth = me, 1
        return True

    def release(self) -> None:
        with _graph:
            self._depth -= 1
            if self._depth:
                return
            self._owner = None
        self._lock.release()

    def hold(self):
        return _Held(self)


class _Held:
    __slots__ = ("lock", "held")

    def __init__(self, lock: TraceLock):
        self.lock = lock

    def __enter__(self):
        self.held = self.lock.acquire()
        return self.held

    def __exit__(self, *exc):
        if self.held:
            self.lock.release()
        return False
