"""Runs TensorFlow's AutoGraph reference tests against staging and reports where it differs from Python.

    python -m tests.conformance.tf_reference /path/to/tensorflow/python/autograph/tests

Each `*_test.py` file of the directory is imported with `tf_shim.install()` in place of
TensorFlow, and each test method (one per parameter set) is run. Every comparison the
method makes (`assertFunctionMatchesEager`, or a direct `tf.function(f)(...)`) is a *case*:
the function is called plainly and through `staging.function` with the same arguments,
and the case is

* `agree`   - same value, dtype and shape, same printed output, same globals rebound and
              arguments mutated, or the same exception type (the staged one may subclass it);
* `refused` - the staged call raises a `staging.errors` type whose message names the
              user's file:line where Python returns or raises something else;
* `silent`  - the staged call returns where Python raises, or returns something different;
* `wrong`   - the staged call raises anything else (another error type, no location, or it
              does not finish);
* `skipped` - the case needs tf.data, a distribution strategy or another TensorFlow-only API
              (or the XLA backend without jax installed); a method stopped by one before its
              first comparison counts as one skipped case.

The test files' own assertions encode TensorFlow's answer (its errors and limitations);
they are not the judge here, Python is. Their failures are listed as notes with --notes.
`skipTest` calls made for TensorFlow limitations are ignored (the case runs) unless
--honour-skips is given. Exit status: 1 when any case is silent, else 0.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import traceback
import unittest
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[2]
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

from tests.conformance import tf_shim  # noqa: E402  (after the repository root is importable)
from tests.conformance.tf_shim import RUN, Case  # noqa: E402

VERDICTS = ("agree", "refused", "silent", "wrong", "skipped")


class FileResult:
    def __init__(self, path: Path):
        self.path = path
        self.cases: list[Case] = []
        self.load_error: str | None = None

    def counts(self) -> dict:
        counts = dict.fromkeys(VERDICTS, 0)
        for case in self.cases:
            for check in case.checks:
                counts[check.verdict] += 1
            if case.skip_kind and not case.checks:
                counts["skipped"] += 1
        return counts


def _load(path: Path):
    name = f"tf_reference_tests.{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _test_classes(module):
    for value in vars(module).values():
        if (
            isinstance(value, type)
            and issubclass(value, unittest.TestCase)
            and value.__module__ == module.__name__
        ):
            yield value


def run_case(cls, method_name, suffix, args, kwargs, file_name) -> Case:
    case = Case(file_name, cls.__name__, method_name + suffix)
    RUN.case = case
    test = cls(methodName=method_name)
    try:
        test.setUp()
        getattr(test, method_name)(*args, **kwargs)
    except tf_shim.Unsupported as unsupported:
        case.skip_kind = unsupported.kind
    except unittest.SkipTest as skip:
        case.skip_kind = f"skipped by the test: {skip}"
    except Exception as error:  # noqa: BLE001 - the test's own assertions encode TensorFlow's answer
        case.note = f"{type(error).__name__}: {str(error).strip().splitlines()[0] if str(error).strip() else ''}"
    finally:
        try:
            test.tearDown()
        except Exception:  # noqa: BLE001
            pass
        RUN.case = None
    return case


def run_file(path: Path, name_filter=None) -> FileResult:
    result = FileResult(path)
    try:
        module = _load(path)
    except Exception:  # noqa: BLE001 - reported per file
        result.load_error = traceback.format_exc(limit=3)
        return result
    for cls in _test_classes(module):
        for method_name, method in vars(cls).items():
            if not method_name.startswith("test") or not callable(method):
                continue
            for suffix, args, kwargs in tf_shim.expand(method):
                if name_filter and name_filter not in method_name + suffix:
                    continue
                result.cases.append(run_case(cls, method_name, suffix, args, kwargs, path.name))
    return result


def run_directory(
    directory: Path, pattern="*_test.py", only=None, name_filter=None
) -> list[FileResult]:
    tf_shim.install()
    files = sorted(p for p in directory.glob(pattern) if p.name != "reference_test_base.py")
    if only:
        files = [p for p in files if p.name in only or p.stem in only]
    RUN.user_files = {p.name for p in files} | {Path(tf_shim.__file__).name}
    return [run_file(p, name_filter) for p in files]


# -- report ----------------------------------------------------------------------------------


def _table(results) -> list[str]:
    header = f"{'file':<46} {'cases':>5} {'agree':>5} {'refused':>7} {'silent':>6} {'wrong':>5} {'skipped':>7}"
    lines = [header, "-" * len(header)]
    total = dict.fromkeys(VERDICTS, 0)
    for r in results:
        c = r.counts()
        for k in VERDICTS:
            total[k] += c[k]
        n = sum(c.values())
        suffix = "  (could not be loaded)" if r.load_error else ""
        lines.append(
            f"{r.path.name:<46} {n:>5} {c['agree']:>5} {c['refused']:>7} {c['silent']:>6} "
            f"{c['wrong']:>5} {c['skipped']:>7}{suffix}"
        )
    n = sum(total.values())
    lines.append("-" * len(header))
    lines.append(
        f"{'total':<46} {n:>5} {total['agree']:>5} {total['refused']:>7} {total['silent']:>6} "
        f"{total['wrong']:>5} {total['skipped']:>7}"
    )
    in_scope = n - total["skipped"]
    if in_scope:
        weak = sum(
            1
            for r in results
            for case in r.cases
            for check in case.checks
            if check.verdict == "agree" and check.reason.startswith(tf_shim.WEAK_AGREEMENT)
        )
        lines.append(
            f"in scope (not skipped): {in_scope} cases; agree with Python: {total['agree']} "
            f"({100.0 * total['agree'] / in_scope:.1f}%); silent: {total['silent']}; "
            f"refused: {total['refused']}; wrong error or crash: {total['wrong']}"
        )
        methods = [case for r in results for case in r.cases if case.checks and not case.skip_kind]
        clean = sum(1 for case in methods if all(c.verdict == "agree" for c in case.checks))
        lines.append(
            f"test methods (one per parameter set) that compared something and were not skipped: "
            f"{len(methods)}; every comparison agrees in {clean}"
        )
        lines.append(
            f"of the agreeing cases, {weak} return a NumPy scalar where Python returns a Python "
            f"number of the same kind and value (a dtype that depends on the data cannot be staged)"
        )
    return lines


def _details(results, verdicts) -> list[str]:
    lines = []
    for verdict in verdicts:
        rows = [
            (r, case, check)
            for r in results
            for case in r.cases
            for check in case.checks
            if check.verdict == verdict
        ]
        if not rows:
            continue
        lines.append("")
        lines.append(f"== {verdict} ({len(rows)}) ==")
        for r, case, check in rows:
            mode = "" if check.mode == "function" else f" [{check.mode}]"
            lines.append(f"{r.path.name}::{case.name}{mode}")
            lines.append(f"    {check.function}({check.args})")
            lines.append(f"    {check.reason}")
    return lines


def _skips(results) -> list[str]:
    kinds: dict[str, int] = {}
    for r in results:
        for case in r.cases:
            for check in case.checks:
                if check.verdict == "skipped":
                    kinds[check.skip_kind] = kinds.get(check.skip_kind, 0) + 1
            if case.skip_kind and not case.checks:
                kinds[case.skip_kind] = kinds.get(case.skip_kind, 0) + 1
    if not kinds:
        return []
    return ["", "skipped cases by reason:"] + [f"    {n:>4}  {k}" for k, n in sorted(kinds.items())]


def _notes(results) -> list[str]:
    lines = ["", "the tests' own assertions (TensorFlow's answer) that failed:"]
    for r in results:
        for case in r.cases:
            if case.note:
                lines.append(f"    {r.path.name}::{case.name}: {case.note}")
    return lines


def _json(results) -> list[dict]:
    out = []
    for r in results:
        for case in r.cases:
            base = {
                "file": r.path.name,
                "case": case.name,
                "tf_skip": case.tf_skip,
                "note": case.note,
            }
            if not case.checks and case.skip_kind:
                out.append(dict(base, verdict="skipped", reason=case.skip_kind))
            for check in case.checks:
                out.append(
                    dict(
                        base,
                        function=check.function,
                        args=check.args,
                        mode=check.mode,
                        verdict=check.verdict,
                        reason=check.reason,
                    )
                )
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.conformance.tf_reference",
        description="Run TensorFlow's AutoGraph reference tests (tensorflow/python/autograph/tests) "
        "through staging and compare every case with plain Python.",
    )
    parser.add_argument("directory", type=Path, help="directory holding the *_test.py files")
    parser.add_argument(
        "--file",
        action="append",
        dest="files",
        metavar="NAME",
        help="only this test file (repeatable; with or without .py)",
    )
    parser.add_argument(
        "-k", dest="name_filter", help="only test methods whose name contains this text"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=5.0,
        help="seconds one call may take before it counts as not finishing (default 5)",
    )
    parser.add_argument(
        "--honour-skips",
        action="store_true",
        help="honour the tests' own skipTest calls (by default they are ignored)",
    )
    parser.add_argument(
        "--ignore-dtype",
        action="store_true",
        help="compare values only, not NumPy dtypes (the looser rule of TensorFlow's own base)",
    )
    parser.add_argument(
        "--show",
        default="silent,wrong,refused",
        help="verdicts to list case by case (default: silent,wrong,refused; 'none' for none)",
    )
    parser.add_argument(
        "--notes", action="store_true", help="also list the tests' own failed assertions"
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write every case as JSON")
    options = parser.parse_args(argv)
    if not options.directory.is_dir():
        parser.error(f"{options.directory} is not a directory")
    RUN.timeout = options.timeout
    RUN.honour_skips = options.honour_skips
    RUN.compare_dtypes = not options.ignore_dtype
    results = run_directory(options.directory, only=options.files, name_filter=options.name_filter)
    lines = ["TensorFlow AutoGraph reference tests: staging.function vs plain Python", ""]
    lines += _table(results)
    for r in results:
        if r.load_error:
            lines += ["", f"{r.path.name} could not be loaded:", r.load_error]
    lines += _skips(results)
    shown = (
        [] if options.show == "none" else [v.strip() for v in options.show.split(",") if v.strip()]
    )
    lines += _details(results, shown)
    if options.notes:
        lines += _notes(results)
    print("\n".join(lines))
    if options.json:
        options.json.write_text(json.dumps(_json(results), indent=1), encoding="utf-8")
    silent = sum(r.counts()["silent"] for r in results)
    return 1 if silent else 0


if __name__ == "__main__":
    sys.exit(main())
