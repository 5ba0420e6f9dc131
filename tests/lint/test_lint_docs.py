"""docs/lint.md: every rule is documented, and its bad / good examples behave as stated."""

from __future__ import annotations

import os
import re

import pytest

from autograph.lint import RULES, check_source

DOC = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "docs", "lint.md"
)


def sections() -> dict[str, str]:
    with open(DOC, encoding="utf-8") as handle:
        text = handle.read()
    parts = re.split(r"^### (AG\d{3}) ", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2]))


def test_every_rule_has_a_section():
    assert list(sections()) == list(RULES)


@pytest.mark.parametrize("code", list(RULES))
def test_examples(code):
    section = sections()[code]
    assert section.startswith(RULES[code].name + "\n")
    quoted = re.search(r"^> (.*)$", section, flags=re.MULTILINE).group(1)
    bad = re.search(r"Bad:\n\n```python\n(.*?)```", section, flags=re.DOTALL).group(1)
    good = re.search(r"Good:\n\n```python\n(.*?)```", section, flags=re.DOTALL).group(1)
    found = check_source(bad, "bad.py").findings
    assert {f.code for f in found} == {code}
    assert found[0].message == quoted
    assert check_source(good, "good.py").findings == []
