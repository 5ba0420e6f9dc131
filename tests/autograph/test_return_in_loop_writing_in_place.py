"""A `return` inside a staged loop that writes an array in place may return that array: the
return value (a loop variable of the converted loop) and the written array are one array
eagerly, which cannot show: once the return value is set no iteration runs, and on the paths
that do not set it it is never read. Writes after the return (a `finally`) still refuse."""

import numpy as np
import pytest

from staging import errors


def drop(board, column, player):
    board = board.copy()
    for row in range(board.shape[0] - 1, -1, -1):
        if board[row, column] == 0:
            board[row, column] = player
            return board, row
    return board, -1


def first_over(w, x, limit):
    w = w.copy()
    for i in range(len(x)):
        w[i % len(w)] += x[i]
        if w.sum() > limit:
            return w
    return -w


def written_by_finally(w, x):
    w = w.copy()
    try:
        for i in range(len(x)):
            w += x[i]
            if w.sum() > 3:
                return w
    finally:
        w += 100
    return w


def test_returned_array_written_in_the_loop(same_as_eager):
    same_as_eager(
        drop,
        (np.zeros((3, 2), int), 1, 5),
        (np.array([[0, 1], [1, 1], [1, 1]]), 1, 5),
        (np.ones((2, 2), int), 0, 3),
        (np.zeros((1, 1), int), 0, np.int64(7)),
    )


@pytest.mark.parametrize(
    "f, args",
    [
        (written_by_finally, (np.zeros(2), np.array([1.0, 2.0, 3.0]))),
        # (each iteration writes the array the return value may be: refused, a limitation)
        (first_over, (np.zeros(2), np.array([1.0, 2.0, 3.0]), 2.0)),
    ],
)
def test_a_write_the_return_value_may_see_is_refused_naming_the_line(f, args):
    import staging

    with pytest.raises(errors.MutationError) as info:
        staging.function(f)(*args)
    assert f"{__file__}:" in str(info.value)
