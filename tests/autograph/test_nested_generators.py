"""A generator function defined inside a converted function runs as plain Python, as a
generator function called from converted code does: lazily, its items computed as the
consumer asks for them. A symbolic decision inside it is refused naming its line."""

import numpy as np
import pytest

import autograph
from staging import errors

HERE = __file__


def pairwise_slopes(t, y):
    def pairs(seq):
        for i in range(len(seq) - 1):
            yield seq[i], seq[i + 1]

    slopes = []
    for (t0, t1), (y0, y1) in zip(pairs(t), pairs(y)):
        slopes.append((y1 - y0) / (t1 - t0))
    steepest = max(slopes, key=abs) if slopes else None
    return slopes, steepest


def interleaved(x):
    scale = 2.0

    def scaled(values):
        for v in values:
            yield v * scale

    total = 0.0
    for s in scaled(x):
        total = total * 10.0 + s
        scale = scale + 1.0  # (read by the generator for the next item, as eagerly)
    return total


def prints(x):
    def loud(values):
        for v in values:
            print("give")
            yield v

    return sum(loud(x))


def generator_in_a_staged_branch(x):
    if np.sum(x) > 0:

        def halves(values):
            yield from (v / 2 for v in values)

        return sum(halves(x))
    return -1.0


def decides_on_a_symbolic_value(x):
    def positives(values):
        for v in values:
            if v > 0:
                yield v

    return list(positives(x))


def writes_a_nonlocal(x):
    n = 0

    def counted(values):
        nonlocal n
        for v in values:
            n += 1
            yield v

    return sum(counted(x)), n


def test_nested_generators_run_as_python(same_as_eager):
    same_as_eager(
        pairwise_slopes,
        (np.array([0.0, 1.0, 3.0]), np.array([0.0, 2.0, -2.0])),
        (np.array([1.0]), np.array([5.0])),
        ([0, 2], [1, 2]),
        (np.array([0.0, 1.0]), np.array([1.0, 1.0])),
    )
    same_as_eager(interleaved, np.array([1.0, 2.0, 3.0]), np.zeros(0))
    same_as_eager(generator_in_a_staged_branch, np.array([1.0, 3.0]), np.array([-1.0, 0.5]))


def test_the_generator_stays_as_written():
    code = autograph.to_code(pairwise_slopes)
    assert "    def pairs(seq):\n        for i in range(len(seq) - 1):\n" in code
    assert "yield (seq[i], seq[i + 1])" in code


def test_a_symbolic_decision_inside_it_is_refused_naming_the_line():
    import staging

    with pytest.raises(errors.SymbolicValueError) as info:
        staging.function(decides_on_a_symbolic_value)(np.array([1.0, -1.0]))
    line = decides_on_a_symbolic_value.__code__.co_firstlineno + 3
    assert f"{HERE}:{line}" in str(info.value)


@pytest.mark.parametrize("f, offset", [(writes_a_nonlocal, 7), (prints, 4)])
def test_a_generator_with_effects_is_still_refused(f, offset):
    # (its effects would happen while tracing only)
    with pytest.raises(errors.UnsupportedConstructError) as info:
        autograph.to_code(f)
    line = f.__code__.co_firstlineno + offset
    assert f"{HERE}:{line}" in str(info.value) and "yield" in str(info.value)
