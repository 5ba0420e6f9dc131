"""Converted source is the same text on every supported Python (3.11's ast.unparse output)."""

from __future__ import annotations

import ast
import sys

import pytest

from autograph.pyct.codegen import to_source

# source -> the text every Python must emit (what ast.unparse gives on Python 3.11)
CASES = {
    "(a, b) = v": "a, b = v",
    "a, = v": "a, = v",
    "for (i, x) in pairs: pass": "for i, x in pairs:\n    pass",
    "ys = [x for (x, y) in pairs]": "ys = [x for x, y in pairs]",
    "t = (1, 2)": "t = (1, 2)",
    "return_value = ()": "return_value = ()",
    "f(lambda: 1)": "f(lambda: 1)",
    "f(lambda a, *b: a)": "f(lambda a, *b: a)",
    "s = f\"{', '.join(x)}\"": "s = f\"{', '.join(x)}\"",
    "s = f'{d[\"k\"]!r:>{w}}'": "s = f\"{d['k']!r:>{w}}\"",
    "s = f'{x}\\n'": "s = f'{x}\\n'",
    "s = f'a {f\"{y}\"} b'": "s = f\"a {f'{y}'} b\"",
    "s = f'''{x!r} \"q\" 'p' '''": 's = f"""{x!r} "q" \'p\' """',
    "print((y := 2), y)": "print((y := 2), y)",
    "if (n := len(a)) > 3: pass": "if (n := len(a)) > 3:\n    pass",
}


@pytest.mark.parametrize("source", CASES)
def test_emitted_source_does_not_depend_on_the_python_version(source):
    text, _ = to_source(ast.parse(source).body)
    assert text == CASES[source]
    assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(source))  # same program


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="the reference output is Python 3.11's")
@pytest.mark.parametrize("source", CASES)
def test_emitted_source_is_python_311s_unparse(source):
    tree = ast.parse(source)
    assert to_source(tree.body)[0] == ast.unparse(tree)
