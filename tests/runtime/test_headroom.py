"""runtime.headroom: frames granted while deep work runs, the limit given back afterwards (also
when threads hold grants at the same time, and left alone when something else changed it), and
work run on a thread with a large stack, its result or its error handed back."""

from __future__ import annotations

import sys
import threading

import pytest

from runtime import headroom


def _recurse(n):
    return 0 if n == 0 else 1 + _recurse(n - 1)


@pytest.fixture
def unchanged_process():
    before = sys.getrecursionlimit(), threading.stack_size()
    yield before[0]
    assert (sys.getrecursionlimit(), threading.stack_size()) == before


def test_grants_add_up_and_are_given_back(unchanged_process):
    base = unchanged_process
    with headroom.more_frames(300):
        assert sys.getrecursionlimit() == base + 300
        with headroom.more_frames(200):
            assert sys.getrecursionlimit() == base + 500
            assert _recurse(base + 300) == base + 300
        assert sys.getrecursionlimit() == base + 300
    assert sys.getrecursionlimit() == base


def test_a_grant_of_nothing_changes_nothing(unchanged_process):
    with headroom.more_frames(0):
        assert sys.getrecursionlimit() == unchanged_process


def test_threads_never_lower_the_limit_under_one_another(unchanged_process):
    base = unchanged_process
    big_held, small_done, release = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def big():
        with headroom.more_frames(5000):
            big_held.set()
            small_done.wait(10)
            seen["after small"] = sys.getrecursionlimit()
            seen["depth ok"] = _recurse(base + 3000) == base + 3000
            release.wait(10)

    thread = threading.Thread(target=big)
    thread.start()
    big_held.wait(10)
    with headroom.more_frames(100):
        seen["both"] = sys.getrecursionlimit()
    small_done.set()
    release.set()
    thread.join()
    assert seen == {"both": base + 5000, "after small": base + 5000, "depth ok": True}


def test_a_limit_set_during_a_grant_is_kept():
    before = sys.getrecursionlimit()
    try:
        with headroom.more_frames(100):
            sys.setrecursionlimit(before + 7000)
        assert sys.getrecursionlimit() == before + 7000
    finally:
        sys.setrecursionlimit(before)


def test_work_on_a_large_stack_goes_deep(unchanged_process):
    depth = 20 * unchanged_process
    assert headroom.on_large_stack(_recurse, depth, frames=depth + 100) == depth


def test_work_on_a_large_stack_hands_its_error_back(unchanged_process):
    class Failure(Exception):
        pass

    def fail():
        raise Failure("from the worker")

    with pytest.raises(Failure, match="from the worker") as error:
        headroom.on_large_stack(fail, frames=0)
    assert any(entry.name == "fail" for entry in error.traceback)  # (the worker's frames too)
    with pytest.raises(RecursionError):
        headroom.on_large_stack(_recurse, 10**6, frames=1000)


def test_work_on_large_stacks_from_several_threads(unchanged_process):
    results = []

    def work(k):
        results.append(headroom.on_large_stack(_recurse, 5000 + k, frames=6000))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [5000, 5001, 5002, 5003]
