"""Code autograph does not convert: the SymbolicValueError says what was not converted and why,
naming the user's file, line and function; functools.partial-wrapped helpers are converted."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

import autograph
import staging
from staging import errors


def line_of(func, offset):
    return f"{__file__}:{func.__code__.co_firstlineno + offset}:"


def error_of(staged, *args):
    with pytest.raises(errors.SymbolicValueError) as info:
        staged(*args)
    return str(info.value)


def positive(v):
    if v > 0:
        return v
    return -v


@autograph.do_not_convert
def marked(v):
    if v > 0:
        return v
    return -v


def scaled(x, k):
    if x.sum() > 0:
        return x * k
    return -x * k


def in_genexpr(x):
    return next(v for v in [x, -x] if v > 0)  # (a generator next() reads lazily)


def in_listcomp(x):
    return [(y := v) for v in [x, -x] if v > 0]  # (`:=` binds in the enclosing function)


def in_dictcomp(x):
    return {i: (y := v) for i, v in enumerate([x, -x]) if v > 0}


@pytest.mark.parametrize(
    "func, kind",
    [
        (in_genexpr, "a generator expression"),
        (in_listcomp, "a list comprehension"),
        (in_dictcomp, "a dict comprehension"),
    ],
)
def test_comprehensions(func, kind):
    message = error_of(staging.function(func), np.float64(1.0))
    assert message.startswith(line_of(func, 1))
    assert f"This is inside {kind}, which autograph does not convert" in message
    assert "`for` statement" in message
    assert "write the control flow with autograph" not in message  # the user already does


def test_do_not_convert_function():
    @staging.function
    def calls_marked(x):
        return marked(x)

    message = error_of(calls_marked, np.float64(1.0))
    assert line_of(marked, 2) in message  # the line of the `if` in the marked function
    assert "autograph did not convert 'marked': it is marked autograph.do_not_convert" in message


def test_partial_of_a_do_not_convert_function_is_not_converted():
    @staging.function
    def calls_partial(x):
        return functools.partial(marked)(x)

    message = error_of(calls_partial, np.float64(1.0))
    assert line_of(marked, 2) in message and "'marked'" in message and "do_not_convert" in message


def test_staged_without_autograph():
    def plain(x):
        if x > 0:
            return x
        return -x

    message = error_of(staging.function(plain, autograph=False), np.float64(1.0))
    assert message.startswith(line_of(plain, 1))
    assert "autograph did not convert 'plain': it is traced as written" in message
    assert "autograph=False" in message


def test_called_by_a_builtin():
    @staging.function
    def maps(x):
        return list(itertools.starmap(positive, [(x,), (-x,)]))

    message = error_of(maps, np.float64(1.0))
    assert message.startswith(line_of(positive, 1))
    assert (
        "autograph did not convert 'positive': it is called by a builtin or library function"
        in message
    )
    assert "itertools.starmap()" in message


def test_map_sorted_and_reduce_convert_the_function_they_call():
    @staging.function
    def maps(x):
        return list(map(positive, [x, -x])), sorted([x, -x], key=positive)

    for v in (np.float64(1.0), np.float64(-2.0)):
        assert maps(v) == maps.python_function(v)


def test_called_by_staging_cond_directly():
    def branch(x):
        if x > 0:  # called by staging.cond as written
            return x
        return -x

    @staging.function(autograph=False)
    def explicit(x):
        return staging.cond(x.sum() > 0, lambda: branch(x), lambda: x)

    message = error_of(explicit, np.ones(2))
    assert message.startswith(line_of(branch, 1))
    assert "autograph did not convert 'branch'" in message


def test_generator_function():
    def generate(x):
        if x > 0:
            yield x

    @staging.function
    def uses_generator(x):
        return list(generate(x))

    message = error_of(uses_generator, np.float64(1.0))
    assert message.startswith(line_of(generate, 1))
    assert "autograph did not convert 'generate': generator functions run as written" in message


def test_converted_code_with_a_use_it_does_not_stage():
    def explicit_bool(x):
        return x.__bool__()

    message = error_of(staging.function(explicit_bool), np.float64(1.0))
    assert message.startswith(line_of(explicit_bool, 1))
    assert (
        "autograph converted this function, but this use of a symbolic value is not one it stages"
        in message
    )


def test_iterating_message_reads_as_sentences():
    def unpack(x):
        a, b = x
        return a

    message = error_of(
        staging.function(unpack).get_concrete_function, staging.TensorSpec([None], np.float64)
    )
    assert message.startswith(line_of(unpack, 1))
    assert (
        "iterating (a Python `for` loop, unpacking, list(), ...) of a symbolic tensor <f64[?]>"
        in message
    )
    assert "elsewhere index it with x[i])." in message
    assert "or;" not in message and ", or)" not in message


# -- functools.partial ----------------------------------------------------------------


def test_partial_helper_is_converted():
    @staging.function
    def calls_partial(x):
        helper = functools.partial(scaled, k=2.0)
        return helper(x)

    assert np.array_equal(calls_partial(np.ones(2)), np.full(2, 2.0))
    assert np.array_equal(calls_partial(-np.ones(2)), np.full(2, 2.0))
    assert calls_partial.tracing_count == 1  # one graph, the `if` staged as a cond
    assert "cond" in str(calls_partial.get_concrete_function(np.ones(2)).graph)


def test_partial_with_positional_arguments_and_nested_partials():
    inner = functools.partial(scaled, np.ones(2))

    @staging.function
    def nested(k):
        return functools.partial(inner, k=k)()

    assert np.array_equal(nested(np.float64(3.0)), np.full(2, 3.0))
    assert np.array_equal(nested(np.float64(-3.0)), np.full(2, -3.0))


def test_staged_partial_and_convert_of_a_partial():
    staged = staging.function(functools.partial(scaled, k=np.float64(2.0)))
    assert np.array_equal(staged(-np.ones(2)), np.full(2, 2.0))
    converted = autograph.convert(functools.partial(scaled, k=3.0))
    assert isinstance(converted, functools.partial) and converted.keywords == {"k": 3.0}
    assert np.array_equal(converted(np.ones(2)), np.full(2, 3.0))
