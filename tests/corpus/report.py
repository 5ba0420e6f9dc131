"""Runs the whole corpus and prints a summary: `python -m tests.corpus.report` (from the root).

Options:
  -k TEXT        only the cases whose id (`module.function[index]`) contains TEXT
  --refused      also list every refused case with its error
  --write-known  rewrite known_failures.py from this run (entries whose category did not change
                 keep their reason; the others get their likely cause and the harness's description)
  --refresh-reasons  with --write-known, give every entry a new reason
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import sys
import time

from runtime.options import set_options

from . import causes, harness
from .known_failures import KNOWN_FAILURES

KNOWN_PATH = pathlib.Path(__file__).with_name("known_failures.py")
COLUMNS = ("agree", "both_raise_same", "silent", "wrong_error", "refused")


def table(results: list[harness.Result]) -> str:
    """Counts per category (columns) and domain (rows), with totals."""
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    programs: dict[str, set] = collections.defaultdict(set)
    for result in results:
        counts[result.case.domain][result.category] += 1
        programs[result.case.domain].add(result.case.func)
    header = ["domain", "programs", *COLUMNS, "cases"]
    rows = []
    for domain in sorted(counts):
        row = counts[domain]
        rows.append([domain, len(programs[domain]), *(row[c] for c in COLUMNS), sum(row.values())])
    total = collections.Counter(result.category for result in results)
    rows.append(
        [
            "TOTAL",
            sum(len(p) for p in programs.values()),
            *(total[c] for c in COLUMNS),
            len(results),
        ]
    )
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def line(row):
        cells = [str(row[0]).ljust(widths[0])]
        cells += [str(cell).rjust(width) for cell, width in zip(row[1:], widths[1:])]
        return "  ".join(cells)

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(header), rule, *map(line, rows[:-1]), rule, line(rows[-1])])


def listing(results: list[harness.Result], category: str) -> str:
    chosen = [r for r in results if r.category == category]
    lines = [f"{category} ({len(chosen)}):"]
    lines += [f"  {r.case.id}: {r.description}" for r in chosen]
    return "\n".join(lines)


def refusal_kinds(results: list[harness.Result]) -> str:
    kinds = collections.Counter()
    for result in results:
        if result.category == "refused":
            error = result.staged[0].error or result.staged[1].error
            kinds[type(error).__name__] += 1
    lines = ["refused, by error type:"]
    lines += [f"  {count:4d}  {name}" for name, count in kinds.most_common()]
    return "\n".join(lines)


def cause_table(results: list[harness.Result]) -> str:
    """Failing cases per likely cause (causes.py), most common first, with one example each."""
    by_cause: dict[str, list[harness.Result]] = collections.defaultdict(list)
    for result in results:
        if not result.passed:
            by_cause[causes.cause(result)].append(result)
    lines = ["likely causes (heuristic; silent/wrong_error/refused, example):"]
    for name, chosen in sorted(by_cause.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        count = collections.Counter(r.category for r in chosen)
        split = "/".join(str(count[c]) for c in ("silent", "wrong_error", "refused"))
        lines.append(f"  {len(chosen):4d}  {split:>9}  {name}  [{chosen[0].case.id}]")
    return "\n".join(lines)


def _quote(text: str) -> str:
    """A string literal as `ruff format` writes it (double quotes unless single need fewer escapes)."""
    text = " ".join(text.split()).replace("\\", "\\\\")
    if text.count('"') > text.count("'"):
        return "'" + text.replace("'", "\\'") + "'"
    return '"' + text.replace('"', '\\"') + '"'


def write_known(results: list[harness.Result], keep_reasons: bool = True) -> None:
    """Rewrites known_failures.py from `results` (sorted; stable under `ruff format`)."""
    entries = {}
    for result in results:
        if result.passed:
            continue
        old = KNOWN_FAILURES.get(result.case.key)
        if keep_reasons and old and old[0] == result.category:
            reason = old[1]
        else:
            reason = f"{causes.cause(result)}; {result.description}"
        entries[result.case.key] = (result.category, reason)
    text = KNOWN_PATH.read_text()
    head = text[: text.index("KNOWN_FAILURES:")]
    body = ["KNOWN_FAILURES: dict[tuple[str, str, int], tuple[str, str]] = {"]
    for (module, function, index), (category, reason) in sorted(entries.items()):
        body.append(f"    ({_quote(module)}, {_quote(function)}, {index}): (")
        body.append(f"        {_quote(category)},")
        body.append(f"        {_quote(reason)},")
        body.append("    ),")
    body.append("}")
    KNOWN_PATH.write_text(head + "\n".join(body) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.corpus.report")
    parser.add_argument("-k", default="", help="only cases whose id contains this text")
    parser.add_argument("--refused", action="store_true", help="list the refused cases too")
    parser.add_argument("--write-known", action="store_true", help="rewrite known_failures.py")
    parser.add_argument(
        "--refresh-reasons",
        action="store_true",
        help="with --write-known: describe every entry anew (not only those that changed)",
    )
    options = parser.parse_args(argv)
    set_options(verify_graphs=True)  # as the test suite runs (tests/conftest.py)

    cases = [case for case in harness.discover() if options.k in case.id]
    start = time.perf_counter()
    results = [harness.run_case(case) for case in cases]
    seconds = time.perf_counter() - start

    print(f"{len(cases)} cases in {seconds:.1f} s\n")
    print(table(results))
    print()
    print(listing(results, "silent"))
    print()
    print(listing(results, "wrong_error"))
    print()
    print(refusal_kinds(results))
    print()
    print(cause_table(results))
    if options.refused:
        print()
        print(listing(results, "refused"))
    stale = [
        r
        for r in results
        if (r.case.key in KNOWN_FAILURES or not r.passed)
        and KNOWN_FAILURES.get(r.case.key, ("agree",))[0] != r.category
    ]
    if stale:
        print(f"\n{len(stale)} cases differ from known_failures.py (run with --write-known)")
    if options.write_known:
        if options.k:
            parser.error("--write-known needs the whole corpus (no -k)")
        write_known(results, keep_reasons=not options.refresh_reasons)
        print(f"\nwrote {KNOWN_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
