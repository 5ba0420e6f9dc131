"""The golden corpus: converted code and staged graph of every golden/<case>, compared exactly.

`pytest --update-golden` rewrites the files (through the `golden` fixture of
autograph.pytest_plugin); a second run after it passes.
"""

from pathlib import Path

import pytest

from autograph.golden import CONVERTED_FILE, GRAPH_FILE, SOURCE_FILE, discover_cases

GOLDEN_ROOT = Path(__file__).resolve().parent.parent / "golden"
CASES = discover_cases(GOLDEN_ROOT)

# Cases whose graph cannot be staged yet, each with the bug it is waiting for. strict:
# when the bug is fixed the test fails, so the entry gets removed and the graph generated.
KNOWN_GRAPH_FAILURES = {}


def _graph_param(case):
    reason = KNOWN_GRAPH_FAILURES.get(case.name)
    marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
    return pytest.param(case, id=case.name, marks=marks)


def test_corpus_is_complete():
    assert len(CASES) >= 40
    for case in CASES:
        names = {p.name for p in case.directory.iterdir() if p.is_file()}
        assert SOURCE_FILE in names, case.name


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_converted_code(case, golden):
    func, _ = case.load()
    golden.check_code(func, case.directory / CONVERTED_FILE)


@pytest.mark.parametrize("case", [_graph_param(c) for c in CASES])
def test_graph(case, golden):
    func, specs = case.load()
    golden.check_graph(func, specs, case.directory / GRAPH_FILE)
