"""The habits CI keeps: ruff's formatter and linter (pyflakes, import order, function length
and complexity limits, configured in pyproject.toml) and mypy over runtime/."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHECKED = ["autograph", "staging", "runtime", "tests", "benchmarks", "examples", "tools"]


def _tool(name: str) -> list[str]:
    """The command running `name` from this interpreter's environment (a test extra)."""
    if shutil.which(name, path=str(pathlib.Path(sys.executable).parent)) is None:
        pytest.skip(f"{name} is not installed (pip install '.[test]')")
    return [sys.executable, "-m", name]


def _run(command: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_lint_passes():
    done = _run([*_tool("ruff"), "check", "--no-cache", *CHECKED])
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_leaves_every_file_as_it_is():
    done = _run([*_tool("ruff"), "format", "--check", "--no-cache", *CHECKED])
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_passes_over_runtime():
    """The type checker over runtime/ as pyproject.toml's [tool.mypy] configures it (no cache is
    written into the repository)."""
    done = _run([*_tool("mypy"), "--config-file", "pyproject.toml", "--cache-dir", os.devnull])
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_lint_configuration_refuses_a_branchy_function(tmp_path):
    """The limits replace the old per-file line count: a function over them fails the lint."""
    branches = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(14))
    module = tmp_path / "branchy.py"
    module.write_text(f'"""A module."""\n\n\ndef f(x):\n{branches}\n    return -1\n')
    done = _run(
        [
            *_tool("ruff"),
            "check",
            "--no-cache",
            "--config",
            str(ROOT / "pyproject.toml"),
            str(module),
        ]
    )
    assert done.returncode != 0
    assert "C901" in done.stdout and "PLR0912" in done.stdout
