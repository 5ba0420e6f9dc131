"""A staged list changed in place (pop, append, extend) where only some paths run the change: in
the right operand of a staged `and` / `or`, as Python evaluates it. Compared with eager."""

import numpy as np
import pytest

import staging


def balanced(codes):
    pairs = {41: 40, 93: 91}
    stack = []
    for i, c in enumerate(codes):
        if c in (40, 91):
            stack.append(c)
        elif c in pairs:
            if not stack or stack.pop() != pairs[c]:
                return False, i
    return len(stack) == 0, len(stack)


def drained(x):
    kept = []
    for v in x:
        if v > 0:
            kept.append(v)
    popped = 0
    for v in x:
        if v < 0 and len(kept) > 0 and kept.pop() > 1:
            popped += 1
    return kept, popped


def grown(x):
    out = []
    for v in x:
        if v > 2 or out.append(v):  # (append gives None: false)
            out.extend([v, v])
    return out


CASES = [
    (
        balanced,
        [
            np.array([40, 91, 93, 41]),
            np.array([41]),
            np.array([40, 93]),
            np.array([], dtype=np.int64),
            np.array([40, 40]),
        ],
    ),
    (drained, [np.array([3.0, 1.0, -1.0, -1.0, -1.0]), np.array([-1.0]), np.array([2.0, -2.0])]),
    (grown, [np.array([1, 3, 2]), np.array([], dtype=np.int64), np.array([5])]),
]


@pytest.mark.parametrize("f, inputs", CASES, ids=[c[0].__name__ for c in CASES])
def test_list_changes_in_operands_are_eagers(same_as_eager, f, inputs):
    same_as_eager(f, *inputs)


def test_the_list_is_carried_out_on_the_path_that_changed_it():
    staged = staging.function(balanced)
    assert staged(np.array([40, 41, 41])) == (False, 2)
    assert staged(np.array([40, 91, 41])) == (False, 2)
