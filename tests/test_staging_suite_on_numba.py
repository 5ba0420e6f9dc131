"""The whole staging suite again with numba as every staged function's backend
(STAGING_TEST_BACKEND=numba, see tests/staging/conftest.py): a graph numba compiles must do what
the interpreter does in every one of those tests (a graph it does not take runs on the
interpreter with its note). Run in a process of its own, where the environment variable is set
before the tests are collected."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("numba")

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_the_staging_suite_passes_with_numba_as_the_backend():
    env = dict(os.environ, STAGING_TEST_BACKEND="numba")
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:warnings", "tests/staging"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
    tail = "\n".join(done.stdout.splitlines()[-60:])
    assert done.returncode == 0, f"STAGING_TEST_BACKEND=numba pytest tests/staging:\n{tail}"
