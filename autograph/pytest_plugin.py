"""pytest plugin: the `golden` fixture and the `--update-golden` flag for golden-file tests.

Loaded automatically through the ``pytest11`` entry point ``autograph_golden`` of the
installed package; do not also list it in ``pytest_plugins``. With plugin autoloading
disabled (PYTEST_DISABLE_PLUGIN_AUTOLOAD=1), enable it with ``-p autograph_golden``.

    def test_scale(golden):
        golden.check_code(scale)                                   # golden/scale.converted.py.txt
        golden.check_graph(scale, {"x": staging.TensorSpec([None], "float64")})
        golden.check("notes.txt", some_text)

Files live in the ``golden/`` directory next to the test module, or under the
``golden_dir`` ini option (relative to the rootdir) when it is set.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from autograph.golden import Golden, GoldenMismatch

UPDATE_OPTION = "--update-golden"
_WRITTEN = pytest.StashKey[list]()
_GOLDEN = pytest.StashKey["_FixtureGolden"]()  # the `golden` fixture a test used


def _option_registered(parser, name: str) -> bool:
    groups = [parser._anonymous, *getattr(parser, "_groups", [])]  # noqa: SLF001
    return any(name in opt.names() for group in groups for opt in group.options)


def pytest_addoption(parser):
    # Registered once: guard against a second registration of this module under another name.
    if _option_registered(parser, UPDATE_OPTION):
        return
    group = parser.getgroup("autograph golden files")
    group.addoption(
        UPDATE_OPTION,
        action="store_true",
        default=False,
        help="rewrite golden files with the actual output instead of comparing",
    )
    parser.addini(
        "golden_dir",
        default="",
        help="directory of golden files, relative to the rootdir "
        "(default: golden/ next to each test module)",
    )


def pytest_configure(config):
    config.stash[_WRITTEN] = []


def update_requested(config) -> bool:
    """Whether --update-golden was given."""
    return bool(config.getoption("update_golden", default=False))


def golden_directory(request) -> Path:
    configured = request.config.getini("golden_dir")
    if configured:
        return Path(request.config.rootpath) / configured
    return Path(request.path).parent / "golden"


class _FixtureGolden(Golden):
    """Golden whose mismatches fail the test with the diffs only (no traceback noise).

    A mismatch does not stop the test: every check runs, and the test fails at its end with the
    diff of every stale file (pytest_runtest_makereport below)."""

    def __init__(self, directory, update, written):
        super().__init__(directory, update)
        self.written = written
        self.mismatches: list[str] = []

    def check(self, name, text):
        __tracebackhide__ = True
        try:
            super().check(name, text)
        except GoldenMismatch as mismatch:
            self.mismatches.append(str(mismatch))

    def check_case(self, case):
        __tracebackhide__ = True
        try:
            super().check_case(case)
        except GoldenMismatch as mismatch:
            self.mismatches.append(str(mismatch))


@pytest.fixture
def golden(request) -> Golden:
    """Compares text, `to_code` output and staged graphs with golden files (see module doc)."""
    fixture = _FixtureGolden(
        golden_directory(request),
        update_requested(request.config),
        request.config.stash.get(_WRITTEN, []),
    )
    request.node.stash[_GOLDEN] = fixture
    return fixture


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test that used the `golden` fixture fails when any file it checked is stale, with the
    diff of each one (it ran to its end, so none is left unchecked)."""
    outcome = yield
    report = outcome.get_result()
    fixture = item.stash.get(_GOLDEN, None)
    if report.when != "call" or fixture is None or not fixture.mismatches:
        return
    count = len(fixture.mismatches)
    message = (f"{count} golden files are stale:\n\n" if count > 1 else "") + "\n\n".join(
        fixture.mismatches
    )
    if report.passed:
        report.outcome = "failed"
        report.longrepr = message
    else:  # failed for another reason too: show the diffs beside that failure
        report.sections.append(("golden files", message))


def pytest_report_header(config):
    if update_requested(config):
        return "autograph golden: --update-golden (golden files are rewritten, not compared)"
    return None


def pytest_terminal_summary(terminalreporter, config):
    written = config.stash.get(_WRITTEN, [])
    if not update_requested(config):
        return
    terminalreporter.write_sep("-", "autograph golden files")
    if written:
        for path in written:
            terminalreporter.write_line(f"rewrote {path}")
    else:
        terminalreporter.write_line("all golden files were already up to date")
