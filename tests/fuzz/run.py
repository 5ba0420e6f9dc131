"""Command line for long fuzzing runs: `python -m tests.fuzz.run --examples N --seed S`.

Generates N programs (seeded: the same N and seed give the same programs), runs each eagerly
and staged, prints a table of categories, then one shrunk reproducer per failure class
(category and mechanism). Exits with status 1 when any program is not acceptable (see
runner.Outcome.acceptable).
"""

from __future__ import annotations

import argparse
import collections
import functools
import sys
import time

from hypothesis import HealthCheck, Phase, given, seed, settings

import staging

from .analysis import analyze
from .features import ALL_FEATURES, CI_FEATURES, FEATURES
from .generate import programs
from .runner import ORDER, run_program
from .shrink import shrink


def parse_features(spec: str, without: str) -> frozenset:
    """A comma-separated list of feature names, where `all` and `ci` stand for those sets."""
    features = set()
    for name in (f.strip() for f in spec.split(",")):
        if name == "all":
            features |= ALL_FEATURES
        elif name == "ci":
            features |= CI_FEATURES
        elif name:
            features.add(name)
    features -= {f.strip() for f in without.split(",") if f.strip()}
    unknown = features - set(FEATURES)
    if unknown:
        raise SystemExit(
            f"unknown features: {', '.join(sorted(unknown))} (known: {', '.join(sorted(FEATURES))})"
        )
    return frozenset(features)


# --backend: what stages the programs (jit_compile of each staging.function)
BACKENDS = {"interpreter": None, "numba": "numba", "jax": True}


def staged_factory(backend: str):
    """staging.function with the backend's jit_compile (None: the runner's default)."""
    if BACKENDS[backend] is None:
        return None
    return functools.partial(staging.function, jit_compile=BACKENDS[backend])


def survey(
    features,
    examples,
    seed_value,
    timeout,
    progress=None,
    skip_type_errors=False,
    backend="interpreter",
):
    """{failure class: [count, smallest outcome]}, Counter of (category, stable), Counter of
    refusal mechanisms."""
    factory = staged_factory(backend)
    classes = {}
    table = collections.Counter()
    refusals = collections.Counter()

    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @seed(seed_value)
    @given(programs(features))
    def run_one(program):
        analysis = analyze(program)
        if skip_type_errors and analysis.errors:
            table[("SKIPPED", False)] += 1
            return
        try:
            outcome = run_program(
                program, timeout=timeout, staged_factory=factory, analysis=analysis
            )
        except Exception as error:  # noqa: BLE001 - a bug in the fuzzer itself: report it, go on
            table[("FUZZER_ERROR", False)] += 1
            key = f"FUZZER_ERROR {type(error).__name__}: {error}"
            classes.setdefault(key, [0, None])[0] += 1
            return
        table[(outcome.category, outcome.stable)] += 1
        if outcome.category == "REFUSED":
            refusals[outcome.key] += 1
        if progress is not None:
            progress(sum(table.values()))
        if outcome.acceptable:
            return
        entry = classes.setdefault(outcome.failure_class, [0, outcome])
        entry[0] += 1
        if entry[1] is None or len(program.source()) < len(entry[1].program.source()):
            entry[1] = outcome

    run_one()
    return classes, table, refusals


def format_table(table) -> str:
    cats = [c for c in ORDER if any(k[0] == c for k in table)] + sorted(
        {k[0] for k in table} - set(ORDER)
    )
    lines = [f"{'category':<16} {'dtype-stable':>12} {'other':>8} {'total':>8}"]
    for c in cats:
        s, u = table.get((c, True), 0), table.get((c, False), 0)
        lines.append(f"{c:<16} {s:>12} {u:>8} {s + u:>8}")
    s_all = sum(v for k, v in table.items() if k[1])
    u_all = sum(v for k, v in table.items() if not k[1])
    lines.append(f"{'all':<16} {s_all:>12} {u_all:>8} {s_all + u_all:>8}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.fuzz.run", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--examples", type=int, default=2000, help="programs to generate (default 2000)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    parser.add_argument(
        "--features",
        default="all",
        help="comma-separated feature names; 'all' (the default) and 'ci' (the set the test "
        "suite runs) stand for those sets, e.g. --features ci,lists",
    )
    parser.add_argument("--without", default="", help="comma-separated features to leave out")
    parser.add_argument(
        "--skip-type-errors",
        action="store_true",
        help="skip programs with an operation some input signature's types reject "
        "(a branch eager never takes then raises while tracing), as the test suite does",
    )
    parser.add_argument(
        "--ci",
        action="store_true",
        help="what the test suite checks: --features ci --skip-type-errors",
    )
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="seconds per call before TIMEOUT"
    )
    parser.add_argument(
        "--backend",
        choices=sorted(BACKENDS),
        default="interpreter",
        help="what runs the staged graphs: the interpreter (default), numba "
        "(jit_compile='numba') or JAX (jit_compile=True)",
    )
    parser.add_argument(
        "--no-shrink", action="store_true", help="print the smallest generated program as is"
    )
    parser.add_argument(
        "--shrink-tries", type=int, default=1500, help="candidate programs tried per class"
    )
    parser.add_argument(
        "--match", default="", help="print reproducers only for classes containing this text"
    )
    parser.add_argument(
        "--refusals",
        type=int,
        default=0,
        metavar="N",
        help="list the N commonest refusal mechanisms (error type and normalised message)",
    )
    parser.add_argument(
        "--list-features", action="store_true", help="list the feature switches and exit"
    )
    args = parser.parse_args(argv)
    if args.list_features:
        for name, text in FEATURES.items():
            print(f"{name:<16} {'ci ' if name in CI_FEATURES else '   '} {text}")
        return 0
    if args.ci:
        args.features, args.skip_type_errors = "ci", True
    features = parse_features(args.features, args.without)
    print(f"features: {', '.join(sorted(features))}")
    start = time.perf_counter()

    def progress(done):
        if done % 500 == 0:
            print(
                f"  {done} programs, {time.perf_counter() - start:.0f} s",
                file=sys.stderr,
                flush=True,
            )

    classes, table, refusals = survey(
        features,
        args.examples,
        args.seed,
        args.timeout,
        progress,
        args.skip_type_errors,
        args.backend,
    )
    elapsed = time.perf_counter() - start
    print(f"\n{sum(table.values())} programs in {elapsed:.0f} s (seed {args.seed})\n")
    print(format_table(table))
    if refusals and args.refusals:
        print(f"\nrefusals by mechanism ({len(refusals)} kinds, the {args.refusals} commonest)")
        for key, count in refusals.most_common(args.refusals):
            print(f"  {count:>5}  {key}")
    if not classes:
        print("\nevery program is acceptable")
        return 0
    order = {c: i for i, c in enumerate(ORDER + ["FUZZER_ERROR"])}
    ranked = sorted(
        classes.items(),
        key=lambda kv: (order.get(kv[0].split(" ")[0].split("(")[0], 99), -kv[1][0]),
    )
    print(f"\n{len(ranked)} failure classes (category, mechanism: programs)")
    for cls, (count, _) in ranked:
        print(f"  {count:>5}  {cls}")
    for number, (cls, (count, outcome)) in enumerate(ranked, 1):
        if args.match not in cls:
            continue
        print("\n" + "=" * 100)
        print(f"[{number}] {cls}  ({count} programs)")
        if outcome is None:
            continue
        if not args.no_shrink:
            outcome = shrink_outcome(outcome, args.timeout, args.shrink_tries, args.backend)
        print(outcome.report())
    return 1


def shrink_outcome(outcome, timeout, tries, backend="interpreter"):
    """The outcome of the smallest program found with the same failure class."""
    target = outcome.failure_class
    best = [outcome]
    factory = staged_factory(backend)

    def keep(program):
        try:
            candidate = run_program(program, timeout=timeout, staged_factory=factory)
        except Exception:  # noqa: BLE001
            return False
        if (
            candidate.failure_class == target
            and not candidate.acceptable
            and candidate.stable == outcome.stable
        ):
            best[0] = candidate
            return True
        return False

    shrink(outcome.program, keep, max_tries=tries)
    return best[0]


if __name__ == "__main__":
    sys.exit(main())
