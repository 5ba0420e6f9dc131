"""The `autograph lint` command line: output, exit status, formats and errors."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

from autograph.lint import main

STAGED = "import staging\n\n@staging.function(autograph=False)\ndef f(x):\n    print('t')\n    return x\n"
CLEAN = "import staging\n\n@staging.function\ndef f(x):\n    staging.print(x)\n    return x\n"


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    status = main([str(a) for a in argv], stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_clean_file_exits_zero(tmp_path):
    (tmp_path / "ok.py").write_text(CLEAN)
    assert run([tmp_path]) == (0, "", "")


def test_findings_exit_one_one_per_line(tmp_path):
    (tmp_path / "bad.py").write_text(STAGED)
    status, out, err = run([tmp_path])
    assert status == 1 and err == ""
    assert out == (
        f"{tmp_path}/bad.py:5:5: AG002 print() in staged function 'f' (autograph=False) runs "
        "only while tracing, not on every call; use staging.print(...) to print on every call\n"
    )


def test_directories_are_walked_recursively_and_sorted(tmp_path):
    for rel in ("z.py", "pkg/a.py", "pkg/sub/b.py", ".hidden/c.py", "pkg/notes.txt"):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(STAGED)
    status, out, _ = run([tmp_path])
    assert status == 1
    assert [line.split(":")[0] for line in out.splitlines()] == [
        f"{tmp_path}/pkg/a.py",
        f"{tmp_path}/pkg/sub/b.py",
        f"{tmp_path}/z.py",
    ]


def test_unparsable_file_is_reported_and_others_still_checked(tmp_path):
    (tmp_path / "a.py").write_text("import staging\ndef broken(:\n    pass\n")
    (tmp_path / "b.py").write_text(STAGED)
    status, out, err = run([tmp_path])
    assert status == 2
    assert out.startswith(f"{tmp_path}/b.py:5:5: AG002 ")
    assert err.startswith(f"{tmp_path}/a.py:2:")
    assert "error: cannot parse" in err


def test_missing_path_is_a_usage_error(tmp_path):
    (tmp_path / "b.py").write_text(STAGED)
    status, out, err = run([tmp_path / "nope.py", tmp_path / "b.py"])
    assert status == 2
    assert "AG002" in out
    assert f"no such file or directory: {tmp_path}/nope.py" in err


def test_usage_errors(tmp_path):
    status, out, err = run([])
    assert status == 2 and "the following arguments are required: PATH" in err
    status, _, err = run(["--format", "xml", tmp_path])
    assert status == 2 and "invalid choice" in err
    status, _, err = run(["--select", "XY1", tmp_path])
    assert status == 2 and "unknown rule code 'XY1'" in err


def test_help_lists_the_rules():
    status, out, _ = run(["--help"])
    assert status == 0
    assert "AG001 outer-mutation" in out and "AG010 unsupported-construct" in out


def test_select_and_ignore_options(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(
        "import staging, time\n\n@staging.function(autograph=False)\ndef f(x, a=[]):\n"
        "    print('t')\n    return x + time.ctime()\n"
    )
    assert [line.split(" ")[1] for line in run([path])[1].splitlines()] == [
        "AG008",
        "AG002",
        "AG003",
    ]
    assert [
        line.split(" ")[1] for line in run(["--select", "AG002,AG003", path])[1].splitlines()
    ] == ["AG002", "AG003"]
    assert [line.split(" ")[1] for line in run(["--ignore", "AG002", path])[1].splitlines()] == [
        "AG008",
        "AG003",
    ]
    assert run(["--select", "AG004", path]) == (0, "", "")


def test_json_format(tmp_path):
    (tmp_path / "a.py").write_text("import staging\ndef broken(:\n")
    (tmp_path / "b.py").write_text(STAGED)
    status, out, err = run(["--format", "json", tmp_path])
    assert status == 2
    data = json.loads(out)
    assert [(d["path"], d["line"], d["col"], d["code"], d["fixable"]) for d in data] == [
        (f"{tmp_path}/a.py", 2, 12, "AG000", False),
        (f"{tmp_path}/b.py", 5, 5, "AG002", True),
    ]
    assert data[1]["message"].startswith("print() in staged function 'f' (autograph=False)")
    assert "cannot parse" in err


def test_json_format_clean(tmp_path):
    (tmp_path / "ok.py").write_text(CLEAN)
    assert run(["--format", "json", tmp_path]) == (0, "[]\n", "")


def test_entry_point_runs_standalone(tmp_path):
    # `autograph.lint` imports nothing from staging, runtime or the rest of autograph.
    (tmp_path / "bad.py").write_text(STAGED)
    code = (
        "import sys; from autograph.lint import main; status = main(sys.argv[1:]); "
        "assert not [m for m in sys.modules if m.split('.')[0] in ('staging', 'runtime')]; "
        "assert not [m for m in sys.modules if m.startswith('autograph.') "
        "and not m.startswith('autograph.lint')], sorted(sys.modules); sys.exit(status)"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root)
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith(f"{tmp_path}/bad.py:5:5: AG002 ")
