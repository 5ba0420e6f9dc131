"""The corpus on the numba backend: each program's first case staged with jit_compile="numba"
must do what the plain function does, as on the interpreter (a graph numba does not take runs
on the interpreter with its note; one it compiles must give eager's results, printouts and
errors). Cases the interpreter refuses (known_failures.py) are left out: their refusal is the
interpreter's."""

import functools
import warnings

import pytest

import staging

from . import harness
from .known_failures import KNOWN_FAILURES

pytest.importorskip("numba")

from runtime.numba_backend import NumbaFallbackWarning  # noqa: E402

CASES = [c for c in harness.discover() if c.index == 0 and c.key not in KNOWN_FAILURES]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_compiled_by_numba_matches_eager(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumbaFallbackWarning)
        result = harness.run_case(case, functools.partial(staging.function, jit_compile="numba"))
    assert result.passed, f"{result.category}: {result.description}"


def test_the_numba_run_covers_most_programs():
    assert len(CASES) >= 150
