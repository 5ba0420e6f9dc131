"""What type checkers see of the public API: staging.function keeps a decorated function's
parameters and return type (mypy runs over a small user file with reveal_type), and the
packages ship py.typed."""

from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

USER_FILE = """\
import numpy as np

import staging


@staging.function
def add(x: np.ndarray, y: float = 1.0) -> np.ndarray:
    return x + y


@staging.function(input_signature=[staging.TensorSpec([None])])
def norm(x: np.ndarray) -> float:
    return float(np.sqrt((x * x).sum()))


class Model:
    def __init__(self, w: float) -> None:
        self.w = w

    @staging.function
    def apply(self, x: np.ndarray) -> np.ndarray:
        return x * self.w


reveal_type(add)
reveal_type(norm)
reveal_type(add(np.ones(3)))
reveal_type(Model(2.0).apply)
reveal_type(Model.apply.tracing_count)
add("not an array")
norm(np.ones(2), 3)
"""


@pytest.fixture(scope="module")
def mypy_output(tmp_path_factory) -> dict[int, str]:
    """mypy's notes and errors on USER_FILE, by line (imports of staging checked silently);
    [0]: all its output."""
    if shutil.which("mypy", path=str(pathlib.Path(sys.executable).parent)) is None:
        pytest.skip("mypy is not installed (pip install '.[test]')")
    directory = tmp_path_factory.mktemp("typing")
    user = directory / "user_code.py"
    user.write_text(USER_FILE)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--follow-imports=silent",
            "--python-version",
            "3.10",
            "--cache-dir",
            str(directory / "cache"),
            str(user),
            str(ROOT / "staging" / "__init__.py"),  # the public API's own declarations
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines: dict[int, str] = {0: done.stdout}
    for line in done.stdout.splitlines():
        if line.startswith(str(user)):
            number = int(line.split(":")[1])
            lines[number] = lines.get(number, "") + _ARRAY.sub("ndarray", line)
    return lines


def _line(text: str) -> int:
    return next(i for i, line in enumerate(USER_FILE.splitlines(), 1) if line == text)


NDARRAY = "ndarray"
# NumPy's stubs spell an array's type differently across versions: compared as `ndarray`
_ARRAY = re.compile(r"numpy\.ndarray\[[^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*\]")


def test_decorated_function_keeps_its_signature(mypy_output):
    revealed = mypy_output[_line("reveal_type(add)")]
    assert f"staging.Function[[x: {NDARRAY}, y: float =], {NDARRAY}]" in revealed, revealed


def test_decorator_with_arguments_keeps_its_signature(mypy_output):
    revealed = mypy_output[_line("reveal_type(norm)")]
    assert f"staging.Function[[x: {NDARRAY}], float]" in revealed, revealed


def test_call_returns_the_functions_return_type(mypy_output):
    assert f'Revealed type is "{NDARRAY}"' in mypy_output[_line("reveal_type(add(np.ones(3)))")]


def test_method_read_from_an_instance_drops_self(mypy_output):
    revealed = mypy_output[_line("reveal_type(Model(2.0).apply)")]
    assert f"staging.Function[[x: {NDARRAY}], {NDARRAY}]" in revealed, revealed
    assert 'Revealed type is "int"' in mypy_output[_line("reveal_type(Model.apply.tracing_count)")]


def test_wrong_argument_type_is_reported(mypy_output):
    error = mypy_output[_line('add("not an array")')]
    assert "incompatible type" in error and '"str"' in error, error
    assert "Too many arguments" in mypy_output[_line("norm(np.ones(2), 3)")]


def test_packages_ship_py_typed():
    for package in ("autograph", "staging", "runtime"):
        assert (ROOT / package / "py.typed").is_file(), package
    assert '"*" = ["py.typed"]' in (ROOT / "pyproject.toml").read_text()


def test_function_is_subscriptable_at_run_time():
    import numpy as np

    import staging

    assert staging.Function[[np.ndarray], float] is not None


def test_public_api_declarations_type_check(mypy_output):
    assert "staging/__init__.py" not in mypy_output[0], mypy_output[0]
