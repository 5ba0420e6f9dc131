"""An expression nested too deeply to convert (a sum of a thousand terms, a long chain of
unary operators) raises NestingTooDeepError naming the user's file, line and function, at
conversion and at tracing time, instead of a bare RecursionError from inside autograph."""

import importlib
import itertools
import sys

import numpy as np
import pytest

import autograph
import staging
from staging import errors

_IDS = itertools.count()
TERMS = 1200  # deeper than the recursion limit, below what Python's own compiler refuses


def _module(tmp_path, monkeypatch, source):
    monkeypatch.syspath_prepend(str(tmp_path))
    name = f"ag_deep_mod_{next(_IDS)}"
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    mod = importlib.import_module(name)
    monkeypatch.setitem(sys.modules, name, mod)
    return mod, str(path)


def _long_sum(terms=TERMS):
    return " + ".join(["x"] * terms)


SUM_IN_IF = f"""\
def long_sum(x):
    if x > 0:
        x = {_long_sum()}
    return x
"""


def _check(error, path, line, name):
    message = str(error.value)
    assert message.startswith(f"{path}:{line}: cannot convert {name!r}: ")
    assert "nested too deeply" in message and "RecursionError" not in type(error.value).__name__
    assert isinstance(error.value, errors.ConversionError)
    assert isinstance(error.value, RecursionError)  # code catching RecursionError still does


def test_to_code_and_convert_name_the_line(tmp_path, monkeypatch):
    mod, path = _module(tmp_path, monkeypatch, SUM_IN_IF)
    with pytest.raises(errors.NestingTooDeepError) as error:
        autograph.to_code(mod.long_sum)
    _check(error, path, 3, "long_sum")
    with pytest.raises(errors.NestingTooDeepError) as error:
        autograph.convert(mod.long_sum)
    _check(error, path, 3, "long_sum")


def test_tracing_raises_it_instead_of_tracing_unconverted(tmp_path, monkeypatch):
    mod, path = _module(tmp_path, monkeypatch, SUM_IN_IF)
    with pytest.raises(errors.NestingTooDeepError) as error:
        staging.function(mod.long_sum)(np.float64(1.0))
    _check(error, path, 3, "long_sum")


def test_helper_converted_while_tracing(tmp_path, monkeypatch):
    source = f"""\
def helper(x):
    while x > 100:
        x = x - 1
    return {" - ".join(["x"] * TERMS)}


def caller(x):
    if x > 0:
        x = helper(x)
    return x
"""
    mod, path = _module(tmp_path, monkeypatch, source)
    with pytest.raises(errors.NestingTooDeepError) as error:
        staging.function(mod.caller)(np.float64(1.0))
    _check(error, path, 4, "helper")


def test_unary_chain(tmp_path, monkeypatch):
    source = f"""\
def negated(x):
    if x > 0:
        x = {"-" * TERMS}x
    return x
"""
    mod, path = _module(tmp_path, monkeypatch, source)
    with pytest.raises(errors.NestingTooDeepError) as error:
        autograph.convert(mod.negated)
    _check(error, path, 3, "negated")


def test_straight_line_sum_needs_no_conversion_and_traces(tmp_path, monkeypatch):
    mod, _ = _module(tmp_path, monkeypatch, f"def plain(x):\n    return {_long_sum()}\n")
    assert staging.function(mod.plain)(np.float64(1.0)) == TERMS


def test_deep_user_recursion_is_not_blamed_on_an_expression(tmp_path, monkeypatch):
    """A RecursionError from the user's own recursion stays a RecursionError."""
    source = """\
def down(n):
    if n > 0:
        return down(n - 1)
    return 0
"""
    mod, _ = _module(tmp_path, monkeypatch, source)
    converted = autograph.convert(mod.down)
    with pytest.raises(RecursionError) as error:
        converted(10 * sys.getrecursionlimit())
    assert not isinstance(error.value, errors.NestingTooDeepError)
