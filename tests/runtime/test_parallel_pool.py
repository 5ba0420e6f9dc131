"""The thread pool of runtime/parallel.py under concurrent callers: a pool made bigger for one
caller never refuses another caller's parts (it used to be shut down while they were being
submitted: `RuntimeError: cannot schedule new futures after shutdown`)."""

from __future__ import annotations

import sys
import threading

import pytest

from runtime import parallel


@pytest.fixture
def fast_switching():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch between any two bytecodes: races show up
    yield
    sys.setswitchinterval(old)


def test_callers_needing_bigger_pools_at_once(fast_switching):
    failures = []

    def caller(parts, start):
        done = []
        start.wait()
        try:
            for _ in range(3):
                parallel.run_parts(done.append, tuple(range(parts)))
        except Exception as exc:  # noqa: BLE001
            failures.append(exc)
        if sorted(done) != sorted(list(range(parts)) * 3):
            failures.append(f"{parts} parts ran as {sorted(done)}")

    for _ in range(150):
        parallel._forget_pool()  # a small pool first, then callers that need bigger ones
        start = threading.Barrier(4)
        threads = [threading.Thread(target=caller, args=(n, start)) for n in (2, 3, 4, 5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert failures == []


def test_parts_run_on_the_caller_when_no_thread_can_start(monkeypatch):
    class Closed:
        def submit(self, *args):
            raise RuntimeError("cannot schedule new futures after interpreter shutdown")

    monkeypatch.setattr(parallel, "_executor", lambda workers: Closed())
    ran = []
    parallel.run_parts(ran.append, (0, 1, 2))
    assert ran == [0, 1, 2]
