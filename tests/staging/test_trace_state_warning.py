"""A trace that changes Python state (an attribute of an argument or of the instance, a global):
the change happens once, while tracing, so it is named in a TraceStateWarning at the user's line."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import staging


def line_of(func, text):
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, line in enumerate(lines) if text in line)


class Counter:
    def __init__(self):
        self.n = 0
        self.label = "counter"

    @staging.function
    def step(self, x):
        self.n += 1
        return x * self.n

    def step_eagerly(self, x):
        self.n += 1
        return x * self.n


def test_a_method_incrementing_a_python_attribute_warns_at_its_line():
    eager, staged = Counter(), Counter()
    expected = [eager.step_eagerly(np.float64(1.0)) for _ in range(3)]
    with pytest.warns(staging.TraceStateWarning) as record:
        results = [staged.step(np.float64(1.0)) for _ in range(3)]
    assert expected == [1.0, 2.0, 3.0] and results == [1.0, 1.0, 1.0]  # the documented difference
    assert len(record) == 1  # one trace, one warning
    message = str(record[0].message)
    assert message.startswith(
        f"{__file__}:{line_of(Counter.step.python_function, 'self.n += 1')}: "
    )
    assert "tracing 'step' changed self.n from 0 to 1" in message
    assert "staging.Variable" in message


TOTAL = 0


@staging.function
def adds_to_a_global(x):
    global TOTAL
    TOTAL = TOTAL + 1
    return x + TOTAL


def test_a_global_the_function_assigns_is_named():
    with pytest.warns(staging.TraceStateWarning, match="changed the global 'TOTAL' from 0 to 1"):
        adds_to_a_global(np.float64(1.0))


def test_an_attribute_left_holding_a_symbolic_value_is_named():
    class Stats:
        count = None

        def __init__(self):
            self.count = 0

    @staging.function
    def count_positive(x, stats):
        for v in x:
            if v > 0:
                stats.count = stats.count + 1
        return stats.count

    with pytest.warns(
        staging.TraceStateWarning, match="changed stats.count from 0 to a symbolic value"
    ):
        count_positive(np.array([1.0, -2.0]), Stats())


class Lazy:
    def __init__(self):
        self.v = None
        self.scale = 2.0

    @staging.function
    def apply(self, x):
        if self.v is None:
            self.v = staging.Variable(np.float64(0.0))  # state created once: the documented pattern
        self.v.assign_add(x)
        return self.v.read_value() * self.scale


def test_unchanged_state_and_variables_created_once_do_not_warn():
    obj = Lazy()
    with warnings.catch_warnings():
        warnings.simplefilter("error", staging.TraceStateWarning)
        assert obj.apply(np.float64(1.0)) == 2.0
        assert obj.apply(np.float64(1.0)) == 4.0


def test_a_trace_changing_a_list_or_dict_it_was_given_is_refused_naming_the_argument():
    import collections

    import numpy as np

    from staging import errors

    @staging.function
    def appends(x, log):
        log.append(1)
        return x + 1

    @staging.function
    def counts(x, seen):
        seen["calls"] = seen.get("calls", 0) + 1
        return x * 2

    @staging.function
    def reads(x, items):
        return x + len(items)  # (reading is fine)

    for function, container in (
        (appends, []),
        (counts, {}),
        (appends, collections.deque()),
    ):
        with pytest.raises(
            errors.MutationError, match=r"test_trace_state_warning\.py:\d+: .*argument"
        ):
            function(np.float64(1.0), container)
    assert reads(np.float64(1.0), [1, 2]) == 3.0
