"""and / or / not / chained comparisons keep Python's short-circuit meaning."""

import numpy as np
import pytest

import autograph
from conftest import i64


def guarded(x):
    return x != 0 and 12 // x > 2


def either(x, y):
    if x > 0 or y > 0:
        return 1
    return 0


def negate(x):
    return not x > 3


def chained(x):
    return 0 < x < 10


def chained_call(x):
    calls = []

    def mid():
        calls.append(1)
        return x
    ok = 0 < mid() < 10
    return ok, len(calls)


@pytest.mark.parametrize("f, inputs", [
    (guarded, [0, 3, 5, 10]),
    (either, [(1, -1), (-1, 1), (-1, -1)]),
    (negate, [1, 5]),
    (chained, [-1, 5, 20]),
    (chained_call, [-1, 5, 20]),
])
def test_native_matches_python(check_native, f, inputs):
    check_native(f, *inputs)


def test_right_side_does_not_run():
    seen = []

    def right():
        seen.append(1)
        return True

    def f(x):
        return x > 0 and right()
    autograph.convert(f)(-1)
    assert seen == []


def test_converted_form():
    code = autograph.to_code(guarded)
    assert "ag__.and_(x != 0, lambda: 12 // x > 2)" in code


def test_staged_short_circuit(check_staged):
    # 12 // 0 never runs: the right side is in the untaken branch of a staged cond.
    check_staged(guarded, i64(0), i64(3), i64(5))


def test_staged_or_and_chained(check_staged):
    check_staged(either, (i64(1), i64(-1)), (i64(-1), i64(-1)))
    check_staged(chained, i64(-1), i64(5), i64(20))
