"""The `autograph` command line: to-code, graph, demo, lint, and one-line errors."""

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import staging
from autograph import cli

ROOT = Path(__file__).resolve().parent.parent

USER_MODULE = """
import numpy as np


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def scale(x, k):
    return x * k


class Model:
    def __init__(self):
        self.w = 2.0

    def call(self, x):
        if x.sum() > 0:
            x = x * self.w
        return x


MODEL = Model()
NOT_A_FUNCTION = 3


def generator(n):
    for i in range(n):
        yield i
"""


@pytest.fixture
def user_file(tmp_path):
    path = tmp_path / "user_code.py"
    path.write_text(USER_MODULE)
    return path


def run(*argv):
    """(status, stdout, stderr) of cli.main(argv)."""
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def assert_one_line_error(status, out, err, *fragments, expected_status=None):
    assert status != 0
    if expected_status is not None:
        assert status == expected_status
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("autograph: error: "), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


# ---------------------------------------------------------------------------
# to-code


def test_to_code_prints_converted_source(user_file):
    status, out, err = run("to-code", f"{user_file}:collatz")
    assert status == 0, err
    assert out.startswith("def collatz(n):")
    assert "ag__.while_stmt" in out and "ag__.if_stmt" in out
    compile(out, "<converted>", "exec")


def test_to_code_of_a_method(user_file):
    status, out, err = run("to-code", f"{user_file}:Model.call")
    assert status == 0, err
    assert out.startswith("def call(self, x):")


# ---------------------------------------------------------------------------
# graph


def test_graph_prints_signature_and_graph(user_file):
    status, out, err = run("graph", f"{user_file}:collatz", "--spec", "n=int64[]")
    assert status == 0, err
    signature, graph = out.split("\n\n", 1)
    assert signature.startswith("collatz(n)") and "n: i64[]" in signature
    assert graph.startswith("collatz(a:i64[]) {")
    assert "while_loop" in graph and "cond" in graph


def test_graph_matches_str_of_concrete_graph(user_file):
    status, out, _ = run(
        "graph", f"{user_file}:scale", "--spec", "x=float32[3,None]", "--spec", "k=2"
    )
    assert status == 0
    from autograph.golden import load_module

    scale = load_module(user_file).scale
    cf = staging.function(scale).get_concrete_function(staging.TensorSpec([3, None], np.float32), 2)
    assert out.endswith(str(cf.graph).rstrip("\n") + "\n")
    assert "f32[3,?]" in out


def test_graph_positional_specs_and_methods(user_file):
    status, out, err = run("graph", f"{user_file}:MODEL.call", "--spec", "float64[?]")
    assert status == 0, err
    assert "cond" in out


@pytest.mark.parametrize(
    "text, name, shape, dtype",
    [
        ("x=float64[None]", "x", (None,), np.float64),
        ("m=float32[3,None]", "m", (3, None), np.float32),
        ("m=f32[ 3 , ? ]", "m", (3, None), np.float32),
        ("n=int64[]", "n", (), np.int64),
        ("b=bool[2]", "b", (2,), np.bool_),
        ("int32[4]", None, (4,), np.int32),
        ("x=float64", "x", (), np.float64),
        ("f32", None, (), np.float32),
    ],
)
def test_parse_spec(text, name, shape, dtype):
    got_name, spec = cli.parse_spec(text)
    assert got_name == name
    assert tuple(spec.shape) == shape
    assert spec.dtype == np.dtype(dtype)


def test_parse_spec_python_literal():
    assert cli.parse_spec("k=3") == ("k", 3)
    assert cli.parse_spec("flag=True") == ("flag", True)
    assert cli.parse_spec("nothing=None") == ("nothing", None)


# ---------------------------------------------------------------------------
# errors: one line, non-zero, no traceback


def test_missing_file(tmp_path):
    assert_one_line_error(
        *run("to-code", f"{tmp_path}/nope.py:f"), "no such file", "nope.py", expected_status=2
    )


def test_target_without_function(user_file):
    assert_one_line_error(*run("to-code", str(user_file)), "expected FILE.py:FUNC")


def test_no_such_function(user_file):
    assert_one_line_error(
        *run("graph", f"{user_file}:colatz", "--spec", "n=int64[]"),
        "has no function 'colatz'",
        "collatz",
        expected_status=2,
    )


def test_not_a_function(user_file):
    assert_one_line_error(*run("to-code", f"{user_file}:NOT_A_FUNCTION"), "not a function")


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("n=int99[]", "unknown dtype 'int99'"),
        ("n=int64[3", "bad --spec"),
        ("n=int64[-1]", "dimension '-1'"),
        ("n=int64[a]", "dimension 'a'"),
        ("n=object[]", "unknown dtype 'object'"),
        ("n=float65", "unknown dtype 'float65'"),
        ("n=", "bad --spec"),
    ],
)
def test_bad_spec(user_file, spec, fragment):
    assert_one_line_error(
        *run("graph", f"{user_file}:collatz", "--spec", spec), fragment, expected_status=2
    )


def test_spec_for_unknown_argument(user_file):
    assert_one_line_error(
        *run("graph", f"{user_file}:collatz", "--spec", "m=int64[]"),
        "specs do not match",
        "collatz(n)",
    )


def test_function_that_cannot_be_converted(user_file):
    assert_one_line_error(
        *run("to-code", f"{user_file}:generator"), "cannot convert", expected_status=1
    )


def test_function_that_cannot_be_staged(user_file):
    # a vector condition for `while` is ambiguous: a staging error, reported on one line
    assert_one_line_error(
        *run("graph", f"{user_file}:collatz", "--spec", "n=int64[None]"),
        "cannot stage",
        "user_code.py",
        expected_status=1,
    )


def test_module_that_fails_to_import(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("import no_such_module_anywhere\n")
    assert_one_line_error(*run("to-code", f"{path}:f"), "cannot import", "ModuleNotFoundError")


def test_module_with_syntax_error(tmp_path):
    path = tmp_path / "bad_syntax.py"
    path.write_text("def f(:\n")
    assert_one_line_error(*run("to-code", f"{path}:f"), "SyntaxError", "line 1")


def test_unknown_command():
    assert_one_line_error(*run("frobnicate"), "invalid choice", expected_status=2)


def test_missing_target():
    assert_one_line_error(*run("to-code"), "FILE.py:FUNC", expected_status=2)


def test_traceback_flag_shows_the_cause(user_file):
    status, _, err = run("--traceback", "to-code", f"{user_file}:generator")
    assert status == 1
    assert "Traceback" in err and err.strip().splitlines()[-1].startswith("autograph: error:")


def test_no_command_prints_help():
    status, out, _ = run()
    assert status == 2 and "to-code" in out and "graph" in out and "demo" in out


# ---------------------------------------------------------------------------
# lint


def test_lint_delegates_to_autograph_lint(tmp_path, monkeypatch):
    seen = []
    import autograph.lint

    monkeypatch.setattr(autograph.lint, "main", lambda argv: seen.append(argv) or 7)
    assert cli.main(["lint", str(tmp_path), "--select", "AG001"]) == 7
    assert seen == [[str(tmp_path), "--select", "AG001"]]


def test_lint_options_before_paths_and_help_reach_lint(tmp_path, monkeypatch):
    seen = []
    import autograph.lint

    monkeypatch.setattr(autograph.lint, "main", lambda argv: seen.append(argv) or 0)
    assert cli.main(["lint", "--select", "AG001", str(tmp_path)]) == 0
    assert cli.main(["lint", "--help"]) == 0
    assert seen == [["--select", "AG001", str(tmp_path)], ["--help"]]


def test_lint_runs_on_a_clean_file(tmp_path):
    path = tmp_path / "clean.py"
    path.write_text("def f(x):\n    return x + 1\n")
    status, _, _ = run("lint", str(path))
    assert status == 0


# ---------------------------------------------------------------------------
# demo


def test_demo_runs_every_example():
    status, out, err = run("demo", "--budget", "0.02")
    assert status == 0, err
    examples = sorted(
        p.stem for p in (ROOT / "examples").glob("*.py") if not p.name.startswith("_")
    )
    assert len(examples) >= 4
    for name in examples:
        assert f"=== {name}:" in out
    for heading in (
        "--- source",
        "--- converted code",
        "--- concrete function and its graph",
        "--- staged vs eager",
        "agree: yes",
        "traces: 1",
        "staged ",
        "eager ",
        "ratio ",
    ):
        assert heading in out, heading


def test_demo_output_is_deterministic_except_timings():
    def without_timings(text):
        lines = text.splitlines()
        cut = [i for i, line in enumerate(lines) if line.startswith("--- time per call")]
        kept = []
        skip = 0
        for i, line in enumerate(lines):
            if i in cut:
                skip = 4
            if skip:
                skip -= 1
                continue
            kept.append(line)
        return kept

    first = run("demo", "collatz", "myadd", "--budget", "0.01")[1]
    second = run("demo", "collatz", "myadd", "--budget", "0.01")[1]
    assert without_timings(first) == without_timings(second)


def test_demo_shows_prints_on_every_call():
    status, out, _ = run("demo", "myadd", "--budget", "0.01")
    assert status == 0
    staged_part = out.split("--- staged vs eager")[1].split("--- time per call")[0]
    # the Python print is staged: tracing prints nothing, every staged call prints as eager does
    assert out.split("--- tracing")[1].split("---")[0].count("| tracing") == 0
    assert staged_part.count("| tracing") == 2 * staged_part.count("  eager  ->")


def test_demo_list_and_unknown_example():
    status, out, _ = run("demo", "--list")
    assert status == 0 and "collatz" in out
    assert_one_line_error(*run("demo", "no_such_example"), "no example 'no_such_example'")


# ---------------------------------------------------------------------------
# entry points: python -m autograph and the console script


def _subprocess(*argv):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


def test_python_dash_m(user_file):
    result = _subprocess(sys.executable, "-m", "autograph", "to-code", f"{user_file}:scale")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("def scale(x, k):")


def test_python_dash_m_error_is_one_line(tmp_path):
    result = _subprocess(sys.executable, "-m", "autograph", "graph", f"{tmp_path}/missing.py:f")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"autograph: error: no such file: {tmp_path}/missing.py"
    ]


def test_demo_finishes_quickly():
    import time

    start = time.perf_counter()
    result = _subprocess(sys.executable, "-m", "autograph", "demo")
    assert result.returncode == 0, result.stderr
    assert time.perf_counter() - start < 15
    assert "ratio" in result.stdout
