"""The `autograph lint` command line: file discovery, output formats, --fix and --diff."""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tokenize
from typing import Iterable, Sequence, TextIO

from .checker import FileResult, Finding, check_source
from .fixes import apply_fixes, unified_diff
from .rules import PARSE_ERROR, RULES, expand_codes

_SKIP_DIRS = {"__pycache__", "node_modules", "build", "dist"}


class UsageError(Exception):
    """A bad argument or path: exit status 2."""


def iter_python_files(paths: Iterable[str | os.PathLike]) -> tuple[list[str], list[str]]:
    """The .py files under `paths` (sorted, recursive), and the paths that do not exist."""
    files: list[str] = []
    missing: list[str] = []
    for path in map(os.fspath, paths):
        if os.path.isdir(path):
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
                files.extend(os.path.join(root, n) for n in sorted(names) if n.endswith(".py"))
        elif os.path.isfile(path):
            files.append(path)
        else:
            missing.append(path)
    return list(dict.fromkeys(files)), missing


def check_file(
    path: str, select: frozenset[str] | None = None, ignore: frozenset[str] | None = None
) -> FileResult:
    """Read and lint one file; an unreadable file becomes an AG000 finding."""
    try:
        source = read_source(path)
    except (OSError, SyntaxError, UnicodeDecodeError) as err:
        return FileResult(path, "", [Finding(path, 1, 1, PARSE_ERROR, f"cannot read: {err}")], [])
    return check_source(source, path, select, ignore)


def read_source(path: str) -> str:
    """A file's text in its declared encoding (PEP 263), line endings untouched."""
    with open(path, "rb") as handle:
        data = handle.read()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)


def write_source(path: str, source: str) -> None:
    """Write `source` back in the encoding the file declares, line endings untouched."""
    with open(path, "rb") as handle:
        encoding, _ = tokenize.detect_encoding(handle.readline)
    with open(path, "w", encoding=encoding, newline="") as handle:
        handle.write(source)


def lint_paths(
    paths: Iterable[str | os.PathLike],
    select: str | Sequence[str] | None = None,
    ignore: str | Sequence[str] | None = None,
) -> list[Finding]:
    """Lint files and directories; the findings, sorted (AG000 for unparsable files).

    `select` / `ignore` are rule codes or prefixes, as a list or a comma-separated
    string. A path that does not exist raises FileNotFoundError.
    """
    files, missing = iter_python_files(paths)
    if missing:
        raise FileNotFoundError(f"no such file or directory: {missing[0]}")
    chosen, skipped = expand_codes(select), expand_codes(ignore)
    findings: list[Finding] = []
    for path in files:
        findings.extend(check_file(path, chosen, skipped).findings)
    return sorted(findings)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="autograph lint",
        description="Find tracing pitfalls in functions staged with staging.function.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="rules:\n" + "\n".join(f"  {r.code} {r.name}: {r.summary}" for r in RULES.values()),
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    parser.add_argument(
        "--select", metavar="CODES", help="only these rule codes or prefixes, comma-separated"
    )
    parser.add_argument(
        "--ignore", metavar="CODES", help="skip these rule codes or prefixes, comma-separated"
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    parser.add_argument(
        "--fix", action="store_true", help="apply the safe rewrites in place and print what changed"
    )
    parser.add_argument(
        "--diff",
        action="store_true",
        help="print the safe rewrites as a unified diff, write nothing",
    )
    return parser


def main(  # noqa: C901, PLR0912
    argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Run `autograph lint` with `argv` (without the word "lint"); the exit status.

    0: no findings, 1: findings, 2: usage error or a file that does not parse.
    """
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    parser = _parser()
    try:
        args = _parse(parser, list(sys.argv[1:] if argv is None else argv), out, err)
    except _Exit as exit_:
        return exit_.code
    try:
        select, ignore = expand_codes(args.select), expand_codes(args.ignore)
    except ValueError as error:
        print(f"autograph lint: error: {error}", file=err)
        return 2
    files, missing = iter_python_files(args.paths)
    status = 0
    for path in missing:
        print(f"autograph lint: error: no such file or directory: {path}", file=err)
        status = 2
    findings: list[Finding] = []
    fixed: list[tuple[Finding, str]] = []
    diffs: list[str] = []
    for path in files:
        result = check_file(path, select, ignore)
        if (args.fix or args.diff) and result.fixes:
            outcome = apply_fixes(result)
            if args.diff:
                diffs.append(unified_diff(path, result.source, outcome.source))
            else:
                write_source(path, outcome.source)
                fixed.extend(outcome.applied)
                result = check_source(outcome.source, path, select, ignore)
        findings.extend(result.findings)
    findings.sort()
    errors = [f for f in findings if f.code == PARSE_ERROR]
    problems = [f for f in findings if f.code != PARSE_ERROR]
    for finding in errors:
        print(f"{finding.path}:{finding.line}:{finding.col}: error: {finding.message}", file=err)
    if args.diff:
        out.write("".join(diffs))
    elif args.format == "json":
        json.dump([f.to_dict() for f in findings], out, indent=2)
        out.write("\n")
    else:
        for finding in problems:
            print(finding, file=out)
    log = err if args.format == "json" else out
    for finding, change in fixed:
        print(
            f"fixed {finding.path}:{finding.line}:{finding.col}: {finding.code} {change}", file=log
        )
    if errors:
        return 2
    if status:
        return status
    return 1 if problems else 0


class _Exit(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _parse(
    parser: argparse.ArgumentParser, argv: list[str], out: TextIO, err: TextIO
) -> argparse.Namespace:
    """argparse without sys.exit: help goes to `out`, usage errors to `err` (status 2)."""

    def fail(message: str) -> None:
        parser.print_usage(err)
        print(f"{parser.prog}: error: {message}", file=err)
        raise _Exit(2)

    parser.error = fail  # type: ignore[method-assign]
    if "-h" in argv or "--help" in argv:
        parser.print_help(out)
        raise _Exit(0)
    return parser.parse_args(argv)
