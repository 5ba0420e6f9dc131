"""Saved files kept in golden/saved: today's staging.save writes them byte for byte (a format
change shows as a diff, to be reviewed with a version decision), and the checked-in files load
and give the outputs recorded next to them (old files keep loading).

`pytest --update-golden` rewrites the .stg files and the .txt records.
"""

import contextlib
import io
from pathlib import Path

import pytest

import staging
from autograph.golden import check_text, load_module
from autograph.pytest_plugin import update_requested
from autograph.saving_cli import inspect_text

ROOT = Path(__file__).resolve().parents[2]
SAVED_DIR = ROOT / "golden" / "saved"
NAMES = ["collatz_steps", "collect", "stateful"]


@pytest.fixture(scope="module")
def sources():
    return load_module(SAVED_DIR / "sources.py", "golden_saved_sources")


def _record(loaded, inputs) -> str:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        result = loaded(*inputs)
    return f"{inspect_text(loaded)}\n--- call with {inputs!r}\nprinted: {printed.getvalue()!r}\nresult: {result!r}\n"


def test_all_saved_files_are_tested():
    assert sorted(p.stem for p in SAVED_DIR.glob("*.stg")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_save_writes_the_checked_in_bytes(name, sources, tmp_path, request):
    func, specs, _ = sources.SAVED[name]
    function = func if isinstance(func, staging.Function) else staging.function(func)
    staging.save(function.get_concrete_function(*specs), tmp_path / "new.stg")
    new = (tmp_path / "new.stg").read_bytes()
    path = SAVED_DIR / f"{name}.stg"
    if update_requested(request.config):
        if not path.is_file() or path.read_bytes() != new:
            path.write_bytes(new)
        return
    assert path.read_bytes() == new, (
        f"staging.save now writes {name}.stg differently: a format change? "
        f"Bump the version if old readers cannot read it, keep loading old "
        f"files, then run `pytest --update-golden`"
    )


@pytest.mark.parametrize("name", NAMES)
def test_checked_in_file_loads_and_runs(name, sources, request):
    _, _, inputs = sources.SAVED[name]
    loaded = staging.load(SAVED_DIR / f"{name}.stg")
    check_text(
        SAVED_DIR / f"{name}.txt", _record(loaded, inputs), update=update_requested(request.config)
    )
