"""Finding positions are resolved per module-level statement, and equal whole-module ones.

The expected positions are computed independently: each offending token sits on a line
with a unique marker, so its line is found by searching the source text and its column
is the token's index in that line (1-based, counted in characters like libcst does).
"""

from __future__ import annotations

import io
import json
import re

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from autograph.lint import check_source, lint_paths, main
from autograph.lint.checker import Positions

HEADER = '''"""Generated module ✓: ünïcode, tabs and multi-line strings before the findings."""

import random
import staging

FACTOR = 2.0
history = []
TEXT = """a multi-line string ✓
  print("not code")
end"""
offset = 1 + \\
    2
tabbed_value = 0\t# a tab inside the line ✓
'''

CLEAN = '''

@staging.function
def clean_{i}(x, y=None):
    """A staged function without findings ✓."""
    total = x * 2
    if y is not None:
        total = total + y
    for k in staging.range(3):
        total = total + k
    return total
'''

# (marker, offending token, code): the finding is on the marker's line, at the token.
TOP = (
    """

@staging.function(autograph=False)
def top(x, acc=[]):  # mark-top-default
    print("mark-top")
    return x
""",
    [("mark-top-default", "[]", "AG008"), ('"mark-top"', "print", "AG002")],
)

MULTILINE = (
    '''

@staging.function(autograph=False)
def after_strings(x):
    doc = """ünïcode ✓
    spans lines"""; print("mark-after-string")
    y = x + \\
        random.random()  # mark-continuation
    return doc, y
''',
    [("mark-after-string", "print", "AG002"), ("mark-continuation", "random.random", "AG003")],
)

NESTED = (
    '''

class Model:
    """A class ✓ with a staged method and a nested function."""

    def __init__(self):
        self.calls = 0

    @staging.function(autograph=False)
    def step(self, x):
        self.calls += 1  # mark-self
        def inner(z):
            print("mark-inner", "✓")
            return z
        return inner(x)

    # a comment at the end of the class body
''',
    [("mark-self", "self.calls", "AG001"), ("mark-inner", "print", "AG002")],
)

IN_IF = (
    """

if True:
    @staging.function
    def in_if(x):
        for k in [1, 2]:  # mark-loop
            x = x + k
        return x
""",
    [("mark-loop", "[1, 2]", "AG005")],
)

TABS = (
    """

@staging.function(autograph=False)
def tabbed(x):
\ts = "é✓"; print("mark-tab")
\treturn x * FACTOR  # mark-factor
""",
    [("mark-tab", "print", "AG002"), ("mark-factor", "FACTOR", "AG006")],
)

END = (
    """

@staging.function \\
    # a comment after a line continuation is no code: this is still the decorator line
def last(x):
    history.append(x)  # mark-end
    return x
""",
    [("mark-end", "history.append", "AG009")],
)

REASSIGN = "\nFACTOR = 3.0  # mark-reassigned\n"


def big_module(newline: str = "\n", lines: int = 3000) -> tuple[str, list]:
    """A ~3,000-line module: clean staged functions, findings at the top, middle and end."""
    parts = [HEADER, TOP[0]]
    expected = list(TOP[1])
    middle = [MULTILINE, NESTED, IN_IF, TABS]
    clean_lines = CLEAN.count("\n")
    i = 0
    while sum(p.count("\n") for p in parts) + clean_lines + 60 < lines:
        parts.append(CLEAN.format(i=i))
        i += 1
        if middle and i % 60 == 0:
            block, found = middle.pop(0)
            parts.append(block)
            expected += found
    for block, found in middle:
        parts.append(block)
        expected += found
    parts += [REASSIGN, END[0]]
    expected += END[1]
    source = "".join(parts).replace("\n", newline)
    return source, expected


def located(source: str, newline: str, wanted: list) -> list[tuple[int, int, str]]:
    """(line, col, code) of each (marker, token, code), found by searching the text."""
    lines = source.split(newline)
    out = []
    for marker, token, code in wanted:
        hits = [n for n, text in enumerate(lines, 1) if marker in text]
        assert len(hits) == 1, marker
        text = lines[hits[0] - 1]
        assert text.count(token) >= 1, (marker, token)
        out.append((hits[0], text.index(token) + 1, code))
    return sorted(out)


def line_of(source: str, newline: str, marker: str) -> int:
    return next(n for n, text in enumerate(source.split(newline), 1) if marker in text)


def whole_module(monkeypatch):
    """Make Positions resolve the whole module, as the linter did before."""
    monkeypatch.setattr(Positions, "whole_module_above", -1.0)


def no_whole_module(monkeypatch):
    def refuse(self):
        raise AssertionError("positions were resolved for the whole module")

    monkeypatch.setattr(Positions, "_resolve_whole", refuse)


def as_tuples(findings) -> list[tuple]:
    return [(f.path, f.line, f.col, f.code, f.message, f.fixable) for f in findings]


@pytest.mark.parametrize("newline, lines", [("\n", 3000), ("\r\n", 1000)])
def test_big_module_positions_match_the_text(tmp_path, monkeypatch, newline, lines):
    source, wanted = big_module(newline, lines)
    assert lines - 100 <= source.count("\n") <= lines + 100
    path = tmp_path / "big.py"
    path.write_bytes(source.encode("utf-8"))
    with monkeypatch.context() as patch:
        no_whole_module(patch)  # only the statements with findings
        findings = lint_paths([path])
    assert sorted((f.line, f.col, f.code) for f in findings) == located(source, newline, wanted)
    ag006 = next(f for f in findings if f.code == "AG006")
    assert f"reassigned at line {line_of(source, newline, 'mark-reassigned')}" in ag006.message
    whole_module(monkeypatch)
    assert as_tuples(lint_paths([path])) == as_tuples(findings)


def test_big_module_positions_are_not_resolved_for_the_whole_module(monkeypatch):
    source, _ = big_module()
    resolved: list[int] = []
    original = MetadataWrapper.resolve

    def counting(self, provider):
        resolved.append(len(self.module.body))
        return original(self, provider)

    monkeypatch.setattr(MetadataWrapper, "resolve", counting)
    result = check_source(source, "big.py")
    assert result.findings
    assert source.count("\n@staging.function\n") > 250
    assert resolved and max(resolved) == 1  # one module-level statement at a time
    assert len(resolved) <= 8  # just the statements with findings


def test_select_and_ignore_and_noqa_keep_positions(tmp_path, monkeypatch):
    source, _ = big_module(lines=600)
    source = source.replace('print("mark-tab")', 'print("mark-tab")  # noqa: AG002')
    path = tmp_path / "big.py"
    path.write_text(source, encoding="utf-8")
    runs = [dict(), dict(select="AG002,AG006"), dict(ignore="AG00"), dict(ignore="AG002")]
    with monkeypatch.context() as patch:
        no_whole_module(patch)
        fast = [as_tuples(lint_paths([path], **kw)) for kw in runs]
    whole_module(monkeypatch)
    assert [as_tuples(lint_paths([path], **kw)) for kw in runs] == fast
    assert not any("mark-tab" in source.splitlines()[f[1] - 1] for f in fast[0])


def run_cli(argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main([str(a) for a in argv], stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_cli_text_json_diff_and_fix_output_unchanged(tmp_path, monkeypatch):
    source, _ = big_module(lines=600)
    outputs = {}
    for name in ("fast", "whole"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "big.py").write_text(source, encoding="utf-8")
        with monkeypatch.context() as patch:
            (whole_module if name == "whole" else no_whole_module)(patch)
            runs = [
                run_cli([folder, *flags])
                for flags in ([], ["--format", "json"], ["--diff"], ["--fix"])
            ]
        outputs[name] = [
            tuple(str(part).replace(str(folder), "<dir>") for part in run) for run in runs
        ]
        outputs[name].append((folder / "big.py").read_text(encoding="utf-8"))
    assert outputs["fast"] == outputs["whole"]
    text, as_json, diff, fixed, after = outputs["fast"]
    assert text[0] == as_json[0] == "1" and len(json.loads(as_json[1])) == text[1].count("\n")
    assert diff[1].startswith("--- a") and "fixed <dir>/big.py:" in fixed[1]
    assert 'staging.print("mark-top")' in after


# Unusual layouts: the last line without a line break, a form feed libcst drops, a byte
# order mark, old Mac line breaks, findings in most statements (one pass is cheaper).
LAYOUTS = {
    "no trailing newline": "import staging\n@staging.function(autograph=False)\ndef f(x, a={}):\n"
    "    print(1)\n    return x",
    "form feed before a statement": "import staging\nx = 1\n\n\x0c@staging.function(autograph=False)\n"
    "def f(x):\n    print(1)\n    return x\n",
    "byte order mark, first statement": "\ufeff@staging.function(autograph=False)\ndef f(x):\n    print(1)\n"
    "    return x\nimport staging\n",
    "carriage returns": "import staging\r\r@staging.function(autograph=False)\rdef f(x):\r    print(1)\r"
    "    return x\r",
    "findings everywhere": "import staging\n@staging.function(autograph=False)\ndef f(x):\n    print(1)\n"
    "    return x\n",
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
@pytest.mark.parametrize("padding", [0, 50])
def test_unusual_layouts_match_the_whole_module(monkeypatch, name, padding):
    source = LAYOUTS[name]
    newline = "\r" if name == "carriage returns" else "\n"
    # padding: enough other statements for the finding's statement to be resolved alone
    source = source.replace("import staging", "import staging" + f"{newline}C = 1" * padding, 1)
    fast = as_tuples(check_source(source, "m.py").findings)
    with monkeypatch.context() as patch:
        whole_module(patch)
        assert as_tuples(check_source(source, "m.py").findings) == fast
    assert fast and all(f[3] in ("AG002", "AG008") for f in fast)
    line = next(n for n, t in enumerate(re.split(r"\r\n?|\n", source), 1) if "print(1)" in t)
    assert [f[1:3] for f in fast if f[3] == "AG002"] == [(line, 5)]


TRICKY = '''"""Every kind of module-level statement ✓."""
import staging, random
a = 1; b = (2,
            3)
s = """x
y ✓"""
t = 1 + \\
    2

@staging.function
@ \\
  staging.function
def deco(x, acc=[]):
\tprint("é", x)
\treturn x

async def agen():
    async for v in source():
        yield v

class C:
    """Doc."""
    def m(self):
        def n(q):
            return (q,
                    q)
        return n
    # footer comment

# leading comment
if a:
    pass
elif b:
    pass
else:
    c = 3
try:
    pass
except ValueError:
    pass
finally:
    pass
with open("f") as (h):
    pass
while False: break
for i in [1]: print(i)
match a:
    case 1:
        pass
    case _:
        pass
(x) = f"{a} ✓"
'''


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_every_node_of_every_statement_matches_the_whole_module(monkeypatch, newline):
    # Direct check of the mechanism: resolve each statement alone and compare every node
    # in it (whatever its kind) with PositionProvider over the whole module.
    monkeypatch.setattr(Positions, "whole_module_above", 1.0)
    no_whole_module(monkeypatch)
    source = TRICKY.replace("\n", newline)
    module = cst.parse_module(source)
    whole = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)

    class Nodes(cst.CSTVisitor):
        def __init__(self) -> None:
            self.nodes: list[cst.CSTNode] = []

        def on_visit(self, node: cst.CSTNode) -> bool:
            self.nodes.append(node)
            return True

    checked = 0
    for top in module.body:
        nodes = Nodes()
        top.visit(nodes)
        positions = Positions(module, source, [top])
        for node in nodes.nodes:
            if node in whole:
                assert positions.start(node, top) == whole[node].start, (top, node)
                checked += 1
    assert checked > 300
