"""Every ```python block in docs/*.md runs, so the documentation cannot rot.

The blocks of one file run in order in one module namespace (a later block may use
what an earlier one defined). Each block is written to a real file first, so
functions defined in docs have source that autograph can convert. Snippets that
are not meant to run use another fence (```text, ```console, ```pycon).
"""

import contextlib
import io
import re
import sys
import types
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


def python_blocks(path: Path):
    """(first line number, code) of each ```python block of a Markdown file."""
    text = path.read_text(encoding="utf-8")
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start(1)) + 1
        yield line, match.group(1)


DOC_FILES = sorted(DOCS.glob("*.md"))


def test_docs_exist():
    names = {p.name for p in DOC_FILES}
    for required in ("index.md", "guide.md", "reference.md", "limitations.md", "dependencies.md"):
        assert required in names


def test_index_links_every_doc():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for path in DOC_FILES:
        if path.name != "index.md":
            assert f"({path.name})" in index, f"docs/index.md does not link {path.name}"


def test_block_extraction(tmp_path):
    sample = "text\n```python\nx = 1\n```\n```text\nnot run\n```\n```python\ny = x\n```\n"
    path = tmp_path / "sample.md"
    path.write_text(sample)
    assert list(python_blocks(path)) == [(3, "x = 1\n"), (9, "y = x\n")]


@pytest.mark.parametrize("doc", DOC_FILES, ids=[p.name for p in DOC_FILES])
def test_doc_examples_run(doc, tmp_path, monkeypatch):
    import staging

    blocks = list(python_blocks(doc))
    if not blocks:
        pytest.skip(f"{doc.name} has no python blocks")
    module_name = "docs_" + re.sub(r"\W", "_", doc.stem)
    module = types.ModuleType(module_name)
    module.__file__ = str(tmp_path / f"{module_name}.py")
    monkeypatch.setitem(sys.modules, module_name, module)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    try:
        for line, code in blocks:
            # Pad with blank lines so tracebacks give the line number in the .md file.
            block_file = tmp_path / f"{doc.stem}_line{line}.py"
            block_file.write_text("\n" * (line - 1) + code, encoding="utf-8")
            with contextlib.redirect_stdout(io.StringIO()):
                try:
                    compiled = compile(
                        block_file.read_text(encoding="utf-8"), str(block_file), "exec"
                    )
                    exec(compiled, module.__dict__)
                except BaseException as error:
                    pytest.fail(
                        f"docs/{doc.name}: the python block at line {line} raised "
                        f"{type(error).__name__}: {error}",
                        pytrace=True,
                    )
    finally:
        staging.run_functions_eagerly(False)
