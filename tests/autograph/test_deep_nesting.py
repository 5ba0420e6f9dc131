"""Expressions nested deeply (a sum of a thousand terms, a long chain of unary operators) are
converted and traced as Python runs them: the converters walk nested nodes without recursion,
and the recursive library steps (parsing, compiling, unparsing) run again on a large stack when
they run out of room. Deeper than conversion takes (autograph.pyct.deep_trees.MAX_DEPTH), a
NestingTooDeepError names the user's file, line and function, at conversion and at tracing time,
instead of a bare RecursionError from inside autograph. The process's recursion limit and thread
stack size are as they were afterwards."""

import importlib
import itertools
import sys
import threading

import numpy as np
import pytest

import autograph
import staging
from autograph.pyct import deep_trees
from staging import errors
from staging.core import recording

_IDS = itertools.count()
TERMS = 1200  # deeper than the recursion limit, below what Python's own compiler refuses
INPUTS = (2.0, -3.0, 0.0, -0.0, np.inf, np.nan)


def _module(tmp_path, monkeypatch, source):
    monkeypatch.syspath_prepend(str(tmp_path))
    name = f"ag_deep_mod_{next(_IDS)}"
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    mod = importlib.import_module(name)
    monkeypatch.setitem(sys.modules, name, mod)
    return mod, str(path)


def _long_sum(terms=TERMS):
    return " + ".join(f"x * {i}.0" for i in range(terms))


SUM_IN_IF = f"""\
def long_sum(x):
    if x > 0:
        y = {_long_sum()}
    else:
        y = x
    return y
"""


def _same(staged, eager):
    assert type(staged) is type(eager)
    np.testing.assert_array_equal(staged, eager)


@pytest.fixture
def unchanged_process():
    """The recursion limit and the thread stack size are as they were after the test."""
    before = sys.getrecursionlimit(), threading.stack_size()
    yield
    assert (sys.getrecursionlimit(), threading.stack_size()) == before


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_a_long_sum_in_a_staged_if_matches_eager(tmp_path, monkeypatch, unchanged_process, dtype):
    mod, _ = _module(tmp_path, monkeypatch, SUM_IN_IF)
    staged = staging.function(mod.long_sum)
    with np.errstate(all="ignore"):
        for value in INPUTS:
            if dtype is np.int64 and not np.isfinite(value):
                continue
            x = dtype(value)
            _same(staged(x), mod.long_sum(x))
        for value in (1.5, -2.0):  # a 0-d array (NumPy scalars out, as eagerly)
            x = np.array(value, dtype=dtype)
            _same(staged(x), mod.long_sum(x))


def test_a_python_number_keeps_its_type(tmp_path, monkeypatch, unchanged_process):
    mod, _ = _module(tmp_path, monkeypatch, SUM_IN_IF)
    staged = staging.function(mod.long_sum)
    for value in (2.0, -1.0, 3):
        _same(staged(value), mod.long_sum(value))


def test_to_code_shows_and_compiles_the_whole_sum(tmp_path, monkeypatch, unchanged_process):
    mod, _ = _module(tmp_path, monkeypatch, SUM_IN_IF)
    code = autograph.to_code(mod.long_sum)
    assert f"x * {TERMS - 1}.0" in code and "ag__.if_stmt" in code
    compile(code, "<to_code>", "exec")  # (on this thread: Python takes a sum this long)
    converted = autograph.convert(mod.long_sum)
    _same(converted(np.float64(2.0)), mod.long_sum(np.float64(2.0)))


def test_helper_converted_while_tracing(tmp_path, monkeypatch, unchanged_process):
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
    mod, _ = _module(tmp_path, monkeypatch, source)
    staged = staging.function(mod.caller)
    for value in (1.0, 250.0, -4.0, np.nan):
        _same(staged(np.float64(value)), mod.caller(np.float64(value)))


def test_unary_chain(tmp_path, monkeypatch, unchanged_process):
    source = f"""\
def negated(x):
    if x > 0:
        x = {"-" * (TERMS + 1)}x
    return x
"""
    mod, _ = _module(tmp_path, monkeypatch, source)
    staged = staging.function(mod.negated)
    for value in (2.0, -2.0, np.nan):
        _same(staged(np.float64(value)), mod.negated(np.float64(value)))


def test_conversion_from_deep_in_the_stack(tmp_path, monkeypatch, unchanged_process):
    """Converted while the stack is already deep (the user's recursion reached the call): the
    steps run again on a fresh stack."""
    mod, _ = _module(tmp_path, monkeypatch, SUM_IN_IF)
    staged = staging.function(mod.long_sum)

    def down(n):
        return down(n - 1) if n else staged(np.float64(2.0))

    _same(down(sys.getrecursionlimit() - 150), mod.long_sum(np.float64(2.0)))


def _check(error, path, line, name):
    message = str(error.value)
    assert message.startswith(f"{path}:{line}: cannot convert {name!r}: ")
    assert "nested too deeply" in message and f"at most {deep_trees.MAX_DEPTH}" in message
    assert isinstance(error.value, errors.ConversionError)
    assert isinstance(error.value, RecursionError)  # code catching RecursionError still does


def test_deeper_than_conversion_takes_names_the_line(tmp_path, monkeypatch, unchanged_process):
    monkeypatch.setattr(deep_trees, "MAX_DEPTH", 200)
    mod, path = _module(tmp_path, monkeypatch, SUM_IN_IF)
    with pytest.raises(errors.NestingTooDeepError) as error:
        autograph.to_code(mod.long_sum)
    _check(error, path, 3, "long_sum")
    with pytest.raises(errors.NestingTooDeepError) as error:
        autograph.convert(mod.long_sum)
    _check(error, path, 3, "long_sum")


def test_tracing_refuses_it_instead_of_tracing_unconverted(
    tmp_path, monkeypatch, unchanged_process
):
    monkeypatch.setattr(deep_trees, "MAX_DEPTH", 200)
    mod, path = _module(tmp_path, monkeypatch, SUM_IN_IF)
    with pytest.raises(errors.NestingTooDeepError) as error:
        staging.function(mod.long_sum)(np.float64(1.0))
    _check(error, path, 3, "long_sum")


def test_a_unary_chain_deeper_than_conversion_takes(tmp_path, monkeypatch, unchanged_process):
    monkeypatch.setattr(deep_trees, "MAX_DEPTH", 200)
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
    mod, _ = _module(tmp_path, monkeypatch, "def plain(x):\n    return " + _long_sum() + "\n")
    assert staging.function(mod.plain)(np.float64(1.0)) == mod.plain(np.float64(1.0))


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


def _elif_chain(cases):
    lines = ["def pick(x):", "    if x < 0.0:", "        y = x * 0.0"]
    for i in range(1, cases):
        lines += [f"    elif x < {i}.0:", f"        y = x * {i}.0"]
    return "\n".join([*lines, "    else:", "        y = x", "    return y", ""])


def test_a_long_elif_chain_on_symbolic_conditions(tmp_path, monkeypatch, unchanged_process):
    """Each case is traced inside the one before (a cond in the else branch of a cond): 200
    cases nest deeper than the recursion limit allows without the frames granted per graph."""
    mod, _ = _module(tmp_path, monkeypatch, _elif_chain(200))
    staged = staging.function(mod.pick)
    for value in (-1.0, 0.0, 5.5, 198.5, 199.0, 1e9, np.nan):
        x = np.float64(value)
        _same(staged(x), mod.pick(x))
    _same(staged(np.float32(7.25)), mod.pick(np.float32(7.25)))
    # a file holds less nesting than a trace: saving it is refused, naming the function
    with pytest.raises(errors.SaveError, match="cannot save 'pick': its staged control flow is"):
        staging.save(staged, tmp_path / "pick.stg")
    assert list(tmp_path.glob("pick*")) == []


def test_nesting_deeper_than_tracing_takes_names_the_line(tmp_path, monkeypatch, unchanged_process):
    monkeypatch.setattr(recording, "MAX_NESTED_GRAPHS", 30)
    mod, path = _module(tmp_path, monkeypatch, _elif_chain(60))
    with pytest.raises(errors.NestingTooDeepError) as error:
        staging.function(mod.pick)(np.float64(1.0))
    message = str(error.value)
    line = 2 + 2 * 29  # the `elif` of the 31st graph (the function's is the first)
    assert message.startswith(f"{path}:{line}: staged code is nested too deeply here (31 graphs")
    assert "the limit is 30" in message and "np.select" in message
    assert isinstance(error.value, RecursionError)
    assert recording.current_graph() is None  # every graph entered was left


def test_control_flow_nested_deeper_than_one_function_takes_names_the_line(
    tmp_path, monkeypatch, unchanged_process
):
    monkeypatch.setattr(recording, "MAX_NESTED_CONTROL_FLOW", 25)
    mod, path = _module(tmp_path, monkeypatch, _elif_chain(60))
    with pytest.raises(errors.NestingTooDeepError) as error:
        staging.function(mod.pick)(np.float64(1.0))
    message = str(error.value)
    line = 2 + 2 * 25  # the `elif` whose branch would be the 26th nested
    assert message.startswith(f"{path}:{line}: staged code is nested too deeply here (26 branches")
    assert "in 'pick'; the limit is 25" in message
    assert recording.current_graph() is None


def test_graph_passes_get_frames_for_nested_subgraphs(tmp_path, monkeypatch, unchanged_process):
    """Optimizing and lowering a graph walk its subgraphs recursively: from deep in the stack,
    they get the frames its nesting needs."""
    mod, _ = _module(tmp_path, monkeypatch, _elif_chain(120))
    staged = staging.function(mod.pick)

    def down(n):
        return down(n - 1) if n else staged(np.float64(50.5))

    _same(down(sys.getrecursionlimit() - 200), mod.pick(np.float64(50.5)))
