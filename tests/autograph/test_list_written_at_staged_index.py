"""`lst[i] = v` on a Python list with an index known only when the graph runs (outside staged
control flow too) makes the list a staged list from that line on; compared with eager."""

import numpy as np
import pytest

import staging
from staging import errors


def write_at(x, i):
    vals = list(x)
    vals[i] = vals[i] * 2
    return vals, len(vals)


def ranked(x):
    order = sorted(range(len(x)), key=lambda k: x[k])
    out = [0] * len(x)
    for rank, k in enumerate(order):
        out[k] = rank
    return out


CASES = [
    (
        write_at,
        [
            (np.array([1, 2, 3]), np.int64(1)),
            (np.array([1.5, 2.5]), np.int64(-1)),
            (np.array([1, 2]), np.int64(5)),  # (IndexError, as eagerly)
        ],
    ),
    (ranked, [np.array([3.0, 1.0, 2.0]), np.array([1.0]), np.array([2, 2, 1])]),
]


@pytest.mark.parametrize("f, inputs", CASES, ids=[c[0].__name__ for c in CASES])
def test_lists_written_at_a_staged_index_are_eagers(same_as_eager, f, inputs):
    same_as_eager(f, *inputs)


def test_a_list_something_else_refers_to_is_refused_naming_the_line():
    def f(x, i):
        vals = list(x)
        other = vals
        vals[i] = 0
        return other

    with pytest.raises(errors.MutationError) as info:
        staging.function(f)(np.array([1, 2]), np.int64(0))
    assert str(info.value).startswith(f"{__file__}:{f.__code__.co_firstlineno + 3}:")
