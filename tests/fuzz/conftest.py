"""After the differential test, the table of its outcomes (how many programs agree, raise the
same error, are refused...): refusals are counted here, not failed."""

from __future__ import annotations


def pytest_terminal_summary(terminalreporter):
    from . import test_differential
    from .run import format_table

    if not test_differential.OUTCOMES:
        return
    terminalreporter.write_sep("-", "differential fuzzing: outcomes of the generated programs")
    terminalreporter.write_line(format_table(test_differential.OUTCOMES))
