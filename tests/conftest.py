"""Suite-wide settings: every graph a test traces is checked by the verifier after the passes;
the `stress` marker and the `stress` fixture, whose sizes the STRESS environment variable sets
(small by default, for CI; STRESS=full for the full sizes, see docs/testing.md)."""

import os

import pytest

from runtime.options import set_options


def pytest_configure(config):
    set_options(verify_graphs=True)
    config.addinivalue_line(
        "markers",
        "stress: robustness under load (threads, big programs, many functions, "
        "fault injection, unusual inputs); STRESS=full runs them at full size",
    )
    config.addinivalue_line(
        "markers",
        "differs_on(backend, reason): what the test checks is a documented difference of that "
        "compiled backend; skipped when STAGING_TEST_BACKEND chooses it",
    )


class StressSizes:
    """The sizes of the stress tests: `size(ci, full)` is `full` under STRESS=full, else `ci`."""

    def __init__(self, mode: str):
        self.full = mode == "full"

    def size(self, ci, full):
        return full if self.full else ci


@pytest.fixture(scope="session")
def stress():
    mode = os.environ.get("STRESS", "").strip().lower()
    if mode not in ("", "ci", "full"):
        raise pytest.UsageError(f"STRESS={mode!r}: expected 'full' (or 'ci', the default)")
    return StressSizes(mode)
