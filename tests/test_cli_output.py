"""The command line's output: a closed pipe ends it quietly, --help says FILE.py is imported,
`autograph graph --format dot|svg`."""

import io
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from autograph import cli

ROOT = Path(__file__).resolve().parent.parent

USER_MODULE = """
import numpy as np

print("top-level code ran")


def nested(x, n):
    total = x * 0.0
    for i in range(n):
        if x.sum() > i:
            total = total + x
    return total
"""

SPECS = ("--spec", "x=float64[None]", "--spec", "n=int64[]")


@pytest.fixture
def user_file(tmp_path):
    path = tmp_path / "pictures.py"
    path.write_text(USER_MODULE)
    return path


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def _closed_pipe_run(*argv):
    """Runs `python -m autograph ARGV` with its standard output a pipe whose reading end is
    already closed (as `autograph ... | head` once head has exited): every write fails."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        result = subprocess.run(
            [sys.executable, "-m", "autograph", *argv],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=120,
        )
    finally:
        os.close(write_end)
    return result


@pytest.mark.parametrize("command", ["graph", "to-code", "help"])
def test_closed_pipe_ends_quietly(user_file, command):
    argv = {
        "graph": ("graph", f"{user_file}:nested", *SPECS),
        "to-code": ("to-code", f"{user_file}:nested"),
        "help": ("--help",),
    }[command]
    result = _closed_pipe_run(*argv)
    assert "BrokenPipeError" not in result.stderr and "Traceback" not in result.stderr
    # the user's module printed to stderr while it was imported; nothing else is said
    assert [line for line in result.stderr.splitlines() if line != "top-level code ran"] == []
    # like a filter whose reader went away: status 1 (argparse's --help ignores the closed pipe
    # from Python 3.11; on 3.10 its BrokenPipeError reaches the command line's own handler)
    help_ignores_the_pipe = command == "help" and sys.version_info >= (3, 11)
    assert result.returncode == (0 if help_ignores_the_pipe else cli.FAILURE)


def test_help_says_the_file_is_imported():
    for argv in (["--help"], ["graph", "--help"], ["to-code", "--help"]):
        out = io.StringIO()
        with pytest.raises(SystemExit):
            sys_stdout, sys.stdout = sys.stdout, out
            try:
                cli.main(argv)
            finally:
                sys.stdout = sys_stdout
        text = " ".join(out.getvalue().split())
        assert "FILE.py is imported to find FUNC: its top-level code runs" in text, argv


def _parse(text):
    try:
        import pydot
    except ImportError:
        pydot = None
    if pydot is None:
        if shutil.which("dot") is None:
            pytest.skip("neither pydot nor Graphviz is installed to parse DOT")
        result = subprocess.run(
            ["dot", "-Tcanon"], input=text, capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 0, result.stderr
        return None
    with warnings.catch_warnings():  # pydot's parser uses deprecated pyparsing names
        warnings.simplefilter("ignore", DeprecationWarning)
        graphs = pydot.graph_from_dot_data(text)
    assert graphs and len(graphs) == 1
    return graphs[0]


def test_graph_format_dot(user_file):
    status, out, err = run("graph", f"{user_file}:nested", *SPECS, "--format", "dot")
    assert status == 0, err
    assert out.startswith('digraph "nested" {')
    parsed = _parse(out)
    if parsed is None:
        return
    cluster = parsed.get_subgraphs()[0]
    assert cluster.get_label() == '"while_loop at pictures.py:9"'
    body = [s for s in cluster.get_subgraphs() if s.get_label() == '"body"'][0]
    assert [s.get_label() for s in body.get_subgraphs()] == ['"cond at pictures.py:10"']


def test_graph_format_svg_without_graphviz(user_file, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    status, out, err = run("graph", f"{user_file}:nested", *SPECS, "--format", "svg")
    assert status == cli.FAILURE and out == ""
    lines = err.strip().splitlines()
    assert lines == [
        line
        for line in lines
        if line.startswith("autograph: error: --format svg: ") or line == "top-level code ran"
    ]
    assert "Graphviz's `dot` program, which is not on PATH" in err and "--format dot" in err


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_graph_format_svg(user_file):
    status, out, err = run("graph", f"{user_file}:nested", *SPECS, "--format", "svg")
    assert status == 0, err
    assert "<svg" in out and "while_loop" in out


def test_graph_format_is_checked(user_file):
    status, _, err = run("graph", f"{user_file}:nested", *SPECS, "--format", "png")
    assert status == cli.USAGE_ERROR and "invalid choice: 'png'" in err
