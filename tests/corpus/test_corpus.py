"""One test per corpus case: the staged function must do what the plain function does.

The cases listed in known_failures.py are expected to fail, in their listed category
(`xfail(strict=True)`, raising that category's exception): one that starts to agree, or that
fails in another category, fails the suite until the list is updated.
"""

import pytest

from . import harness
from .known_failures import KNOWN_FAILURES

CASES = harness.discover()


class CorpusFailure(AssertionError):
    """A case whose staged calls do not agree with the eager call."""


class SilentDifference(CorpusFailure):
    pass


class WrongError(CorpusFailure):
    pass


class Refused(CorpusFailure):
    pass


FAILURES = {"silent": SilentDifference, "wrong_error": WrongError, "refused": Refused}


def _param(case):
    known = KNOWN_FAILURES.get(case.key)
    if known is None:
        return pytest.param(case, id=case.id)
    category, reason = known
    mark = pytest.mark.xfail(strict=True, raises=FAILURES[category], reason=f"{category}: {reason}")
    return pytest.param(case, id=case.id, marks=mark)


@pytest.mark.parametrize("case", [_param(case) for case in CASES])
def test_staged_matches_eager(case):
    result = harness.run_case(case)
    if not result.passed:
        raise FAILURES[result.category](f"{result.category}: {result.description}")


def test_known_failures_name_existing_cases_in_order():
    keys = {case.key for case in CASES}
    assert sorted(set(KNOWN_FAILURES) - keys) == []
    assert list(KNOWN_FAILURES) == sorted(KNOWN_FAILURES)
    for category, reason in KNOWN_FAILURES.values():
        assert category in FAILURES and reason and "\n" not in reason


def test_the_corpus_is_varied():
    programs = {(case.module, case.func.__name__) for case in CASES}
    assert len(programs) >= 150
    assert len({case.domain for case in CASES}) >= 8
