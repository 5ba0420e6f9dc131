"""The corpus cases that do not agree today: (module, function, case index) -> (category, reason).

test_corpus.py marks each of them `xfail(strict=True)`, expecting exactly this category: a fix
that makes a case agree turns it into an XPASS, which fails until its entry is removed here, and
a case that changes category (a refusal becoming a silent difference) fails too. Keep the entries
sorted; `python -m tests.corpus.report --write-known` rewrites this file from a run (keeping the
reasons of entries whose category did not change).
"""

KNOWN_FAILURES: dict[tuple[str, str, int], tuple[str, str]] = {}
