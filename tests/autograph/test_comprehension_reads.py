"""Names that only converted comprehensions read (a generator expression summed, sorted, given
to any(), ...) are read when the statement holding them runs, as any other read there: they are
not cell variables, so a staged branch or loop body may assign them (as its own local when
nothing outside it uses them, else as one of its outputs)."""

import numpy as np

import autograph


def ties_after_branch(values):
    if len(values) == 0:
        return -1, []
    top = np.max(values)
    winners = sorted(i for i, v in enumerate(values) if v == top)
    return winners[0], winners[1:]


def ties_in_staged_branch(values):
    if np.sum(values) == 0:
        return -1
    top = np.max(values)
    return sum(1 for v in values if v == top)


def prefix_in_staged_loop(rows, n):
    length = 0
    while length < n:
        c = rows[0][length]
        if any(r[length] != c for r in rows[1:]):
            break
        length += 1
    return length


def read_after_the_branch(x):
    if x > 0:
        k = x * 2.0
    else:
        k = x - 1.0
    total = sum(k * v for v in (1.0, 2.0, 3.0))
    return total, k


def carried_by_the_loop(x, n):
    k = 1.0
    s = 0.0
    for i in range(n):
        s = s + sum(k * v for v in (1.0, 2.0))
        k = k + x
    return s, k


def lambda_keeps_a_cell(x):
    k = 1.0
    f = lambda: k  # noqa: E731 - a closure that can run later
    if x > 0:
        k = max(v * x for v in (1.0, 2.0))
    return f()


def test_branch_local_read_by_a_generator_expression(same_as_eager):
    same_as_eager(
        ties_in_staged_branch,
        np.array([3, 1, 3, 2]),
        np.array([0, 0, 0]),
        np.array([5]),
        np.array([2.0, 2.0]),
    )
    same_as_eager(ties_after_branch, np.array([3, 1, 3, 2]), np.array([7]), np.array([1.5, 1.5]))


def test_loop_local_read_by_any(same_as_eager):
    rows = np.array([[1, 2, 3, 4], [1, 2, 9, 4], [1, 2, 3, 5]])
    same_as_eager(
        prefix_in_staged_loop,
        (rows, np.int64(4)),
        (rows, np.int64(0)),
        (rows[:1], np.int64(4)),
        (np.array([[1, 2], [1, 2]]), np.int64(2)),
    )


def test_read_after_and_carried_values(same_as_eager):
    same_as_eager(read_after_the_branch, np.float64(2.0), np.float64(-3.0), np.float64(0.0))
    same_as_eager(
        carried_by_the_loop,
        (np.float64(0.5), np.int64(3)),
        (np.float64(2.0), np.int64(0)),
        (np.float64(-1.0), np.int64(1)),
    )
    same_as_eager(lambda_keeps_a_cell, np.float64(2.0), np.float64(-1.0))


def test_converted_form_has_no_nonlocal_for_comprehension_reads():
    code = autograph.to_code(ties_in_staged_branch)
    assert "nonlocal" not in code
    assert "top = ag__.Undefined" not in code
    assert "nonlocal k" in autograph.to_code(lambda_keeps_a_cell)


def test_int_of_an_enumerate_index_in_a_generator_inside_a_staged_branch():
    """int() of a value that is a Python int reads the value's static facts (it raised an
    internal "'int' object has no attribute 'ndim'")."""
    import numpy as np

    import staging

    def f(values, t):
        out = [0]
        if t > 0:
            top = np.max(values)
            out = sorted(int(i) for i, v in enumerate(values) if v == top)
        return out

    staged = staging.function(f)
    for values, t in ((np.array([3, 1, 3]), np.int64(1)), (np.array([5]), np.int64(-1))):
        assert staged(values, t) == f(values, t)
