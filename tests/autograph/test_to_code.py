"""to_code: deterministic, compilable, readable (at most 2.5x the source's non-blank lines)."""

import ast
import inspect

from test_loops import collatz, loop_heavy, nested_break

import autograph


def _lines(text):
    return [l for l in text.splitlines() if l.strip()]


def test_deterministic():
    first = autograph.to_code(loop_heavy)
    autograph.to_code(collatz)
    assert autograph.to_code(loop_heavy) == first


def test_compilable():
    for f in (loop_heavy, collatz, nested_break):
        ast.parse(autograph.to_code(f))


def test_readability_ratio():
    source = _lines(inspect.getsource(loop_heavy))
    code = _lines(autograph.to_code(loop_heavy))
    assert len(code) <= 2.5 * len(source), (len(code), len(source))
    assert "nonlocal" not in "\n".join(code) and "get_state" not in "\n".join(code)


def test_names_are_positional():
    code = autograph.to_code(loop_heavy)
    for name in (
        "def loop_body(",
        "def if_true(",
        "def if_false(",
        "def if_true_1(",
        "def loop_body_1(",
    ):
        assert name in code


def test_decorators_are_stripped():
    @autograph.do_not_convert
    def helper(x):
        return x

    def f(x):
        return helper(x)

    assert "@" not in autograph.to_code(f)
