"""`autograph save` and `autograph inspect`."""

import io
import subprocess
import sys
from pathlib import Path

import numpy as np

import staging
from autograph import cli

ROOT = Path(__file__).resolve().parents[2]
SOURCE = """
import numpy as np


def f(x, n):
    total = 0.0
    for i in range(n):
        total += x[i] * 2.0
    return total


def g(x):
    import staging
    return staging.py_function(np.median, [x], np.float64)
"""


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_save_then_inspect_in_a_process_without_the_source(tmp_path):
    source = tmp_path / "user.py"
    source.write_text(SOURCE)
    out_file = tmp_path / "f.stg"
    status, out, err = run(
        "save",
        f"{source}:f",
        "--spec",
        "x=float64[None]",
        "--spec",
        "n=int64[]",
        "-o",
        str(out_file),
    )
    assert (status, err) == (0, "")
    # (`total` is the Python 0.0 when the loop runs zero times: a value of two kinds)
    assert out == f"saved f(x: f64[?], n: i64[]) -> float | f64[] to {out_file}\n"
    source.unlink()  # the saved file needs nothing of it
    proc = subprocess.run(
        [sys.executable, "-m", "autograph", "inspect", str(out_file)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(
        "f: saved function, format version 1, 1 signature(s)\n\nf(x, n)\n  Args:\n"
    )
    assert "while_loop" in proc.stdout and "num_loop_vars=2" in proc.stdout
    loaded = staging.load(out_file)
    x = np.array([1.0, 2.0, 3.5])
    assert loaded(x, np.int64(3)) == 13.0
    assert repr(loaded(x, np.int64(0))) == "0.0"  # the Python 0.0, as eagerly


def test_save_refusal_and_inspect_of_a_bad_file(tmp_path):
    source = tmp_path / "user.py"
    source.write_text(SOURCE)
    status, out, err = run(
        "save", f"{source}:g", "--spec", "x=float64[3]", "-o", str(tmp_path / "g.stg")
    )
    assert status == 1 and out == ""
    assert err.startswith(
        f"autograph: error: cannot save {source}:g: SaveError: {source}:14: cannot save `"
    )
    status, out, err = run("inspect", str(source))
    assert status == 1
    assert (
        err
        == f"autograph: error: cannot load {source}: not a saved function (not a zip file: File is not a zip file)\n"
    )
    status, out, err = run("save", f"{source}:f", "--spec", "x=float64[None]")
    assert status == 2 and "-o/--output" in err
