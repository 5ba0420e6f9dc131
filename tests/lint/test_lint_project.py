"""Lint the project's own examples/ and golden/ sources: only the intended findings."""

from __future__ import annotations

import os
import re

import pytest

from autograph.lint import lint_paths
from autograph.lint.cli import iter_python_files

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# A source that shows a pitfall on purpose marks the line: `# lint-expect: AG005`.
EXPECT = re.compile(r"#\s*lint-expect:\s*(?P<codes>AG\d{3}(?:[\s,]+AG\d{3})*)")


def expected_findings(paths: list[str]) -> set[tuple[str, int, str]]:
    expected = set()
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                match = EXPECT.search(line)
                if match:
                    expected.update(
                        (path, number, code) for code in re.split(r"[\s,]+", match.group("codes"))
                    )
    return expected


@pytest.mark.parametrize("folder", ["examples", "golden"])
def test_project_sources_report_only_intended_findings(folder):
    root = os.path.join(ROOT, folder)
    if not os.path.isdir(root):
        pytest.skip(f"{folder}/ does not exist")
    files, _ = iter_python_files([root])
    found = {(f.path, f.line, f.code) for f in lint_paths([root])}
    assert not [f for f in found if f[2] == "AG000"], "unparsable sources"
    assert found == expected_findings(files)


def test_expect_markers_are_matched_exactly(tmp_path):
    # The harness itself: a marked pitfall passes, an unmarked or missing one does not.
    path = tmp_path / "ex.py"
    path.write_text(
        "import staging\n\n@staging.function\ndef f(x):\n"
        "    log.info('t')  # lint-expect: AG002\n    return x\n"
    )
    found = {(f.path, f.line, f.code) for f in lint_paths([tmp_path])}
    assert found == expected_findings([str(path)]) == {(str(path), 5, "AG002")}
    path.write_text(
        "import staging\n\n@staging.function\ndef f(x):\n"
        "    print(x)  # lint-expect: AG002\n    return x\n"
    )
    found = {(f.path, f.line, f.code) for f in lint_paths([tmp_path])}
    assert found != expected_findings([str(path)])
