"""The pre-commit hook (.pre-commit-hooks.yaml) runs `autograph lint` on the staged files."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import shlex
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
HOOKS = ROOT / ".pre-commit-hooks.yaml"


def _hooks() -> list[dict]:
    """The hooks file read as the flat subset of YAML it uses: a list of `key: value` mappings,
    values plain words or `[a, b]` lists (no YAML library is a dependency)."""
    hooks: list[dict] = []
    for raw in HOOKS.read_text().splitlines():
        line = raw.split(" #")[0].rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith("- "):
            hooks.append({})
            line = "  " + line[2:]
        assert line.startswith("  ") and ": " in line, f"unexpected line {raw!r}"
        key, value = line.strip().split(": ", 1)
        if value.startswith("["):
            assert value.endswith("]"), raw
            hooks[-1][key] = [v.strip() for v in value[1:-1].split(",")]
        else:
            hooks[-1][key] = value
    return hooks


def test_hooks_file_exposes_autograph_lint():
    (hook,) = _hooks()
    assert hook["id"] == "autograph-lint"
    assert hook["entry"] == "autograph lint"
    assert hook["language"] == "python"  # pre-commit installs this repository, whose script it is
    assert hook["types"] == ["python"]
    assert set(hook) <= {"id", "name", "description", "entry", "language", "types"}


def _pre_commit() -> list[str]:
    if importlib.util.find_spec("pre_commit") is not None:
        return [sys.executable, "-m", "pre_commit"]
    found = shutil.which("pre-commit")
    if found is None:
        pytest.skip("pre-commit is not installed (it is not a dependency: pip install pre-commit)")
    return [found]


BAD = """\
import staging

calls = []


@staging.function
def f(x):
    calls.append(x)
    return x + 1
"""

GOOD = """\
import staging


@staging.function
def f(x):
    return x + 1
"""


def test_pre_commit_runs_the_hook_on_a_scratch_repository(tmp_path):
    """A scratch repository whose config is the hook as the hooks file declares it, run as a
    `repo: local` hook with this environment's interpreter (a `language: python` hook would make
    pre-commit install this repository and its dependencies from the package index)."""
    command = _pre_commit()
    (hook,) = _hooks()
    entry = shlex.join([sys.executable, "-m", *hook["entry"].split()[:1]]) + " lint"
    repo = tmp_path / "user_repo"
    repo.mkdir()
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        "  - repo: local\n"
        "    hooks:\n"
        f"      - id: {hook['id']}\n"
        f"        name: {hook['name']}\n"
        f"        entry: {entry}\n"
        "        language: system\n"
        f"        types: [{', '.join(hook['types'])}]\n"
    )
    (repo / "model.py").write_text(BAD)
    (repo / "notes.txt").write_text("not python\n")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")

    def run(*args):
        return subprocess.run(
            args, cwd=repo, env=env, capture_output=True, text=True, timeout=300, check=False
        )

    assert run("git", "init", "-q").returncode == 0
    assert run("git", "add", ".").returncode == 0
    failed = run(*command, "run", "--all-files")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "model.py:8:5: AG009" in failed.stdout, failed.stdout
    assert "notes.txt" not in failed.stdout
    (repo / "model.py").write_text(GOOD)
    assert run("git", "add", ".").returncode == 0
    passed = run(*command, "run", "--all-files")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "autograph lint" in passed.stdout and "Passed" in passed.stdout
