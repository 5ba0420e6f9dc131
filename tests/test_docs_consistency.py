"""Docs that describe the same thing agree: the unsupported constructs of docs/autograph.md are
all listed in docs/limitations.md; the lint rules the guide names exist."""

import re
from pathlib import Path

from autograph.lint import RULES

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _section(text, title):
    start = text.index(title)
    end = text.find("\n## ", start + len(title))
    return text[start : end if end != -1 else len(text)]


def test_limitations_list_every_unsupported_construct_of_autograph_md():
    table = _section(
        (DOCS / "autograph.md").read_text(encoding="utf-8"), "## Limitations and their errors"
    )
    constructs = []
    for row in table.splitlines():
        if row.startswith("|") and "UnsupportedConstructError" in row:
            situation = row.split("|")[1]
            constructs.append(re.findall(r"`([^`]+)`", situation)[0])
    assert {"yield", "with warnings.catch_warnings(...)", "global"} <= {
        c.split("/")[0] for c in constructs
    }
    listed = _section(
        (DOCS / "limitations.md").read_text(encoding="utf-8"),
        "## Constructs that cannot be converted",
    )
    for construct in constructs:
        for word in construct.split("/"):
            if word != "try":  # "a `try` whose `except` clauses ..." in both
                assert f"`{word}" in listed, (construct, word)
    assert "a `try` whose `except` clauses" in listed


def test_the_guide_names_the_retracing_lint_rule():
    guide = (DOCS / "guide.md").read_text(encoding="utf-8")
    assert "retracing arguments" in guide and "AG011" in guide
    assert RULES["AG011"].name == "retracing-argument"
