"""Lints one module: runs the checks on its staged functions, then places and filters findings."""

from __future__ import annotations

import ast
import dataclasses
import io
import re
import tokenize

import libcst as cst

from . import retracing
from .checks import Fix, FunctionChecker, RawFinding
from .index import ModuleIndex
from .positions import Positions
from .rules import PARSE_ERROR, message

_NOQA = re.compile(
    r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE
)


@dataclasses.dataclass(frozen=True, order=True)
class Finding:
    """One finding: where, which rule, and what to do about it."""

    path: str
    line: int
    col: int  # 1-based, like flake8 and ruff
    code: str
    message: str
    fixable: bool = dataclasses.field(default=False, compare=False)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.message}"

    def to_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class FileResult:
    """The findings of one file, plus what the fixer needs to rewrite it."""

    path: str
    source: str
    findings: list[Finding]
    fixes: list[tuple[Finding, Fix]]
    module: cst.Module | None = None
    index: ModuleIndex | None = None


def noqa_lines(source: str) -> dict[int, frozenset[str] | None]:
    """Line -> codes silenced by a `# noqa: ...` comment there (None: a bare `# noqa`)."""
    result: dict[int, frozenset[str] | None] = {}
    try:
        tokens = [
            (tok.start[0], tok.string)
            for tok in tokenize.generate_tokens(io.StringIO(source).readline)
            if tok.type == tokenize.COMMENT
        ]
    except (tokenize.TokenError, SyntaxError):
        tokens = [(i, line) for i, line in enumerate(source.splitlines(), 1) if "#" in line]
    for line, comment in tokens:
        match = _NOQA.search(comment)
        if match is None:
            continue
        codes = match.group("codes")
        result[line] = (
            None if codes is None else frozenset(c.upper() for c in re.split(r"[\s,]+", codes) if c)
        )
    return result


def _parse_error(source: str, path: str, err: cst.ParserSyntaxError) -> Finding:
    """AG000 for an unparsable file, located by Python's own parser when it agrees."""
    try:
        ast.parse(source)
    except SyntaxError as syntax:
        return Finding(
            path, syntax.lineno or 1, syntax.offset or 1, PARSE_ERROR, f"cannot parse: {syntax.msg}"
        )
    except ValueError:
        pass
    return Finding(
        path, err.raw_line, err.raw_column + 1, PARSE_ERROR, f"cannot parse: {err.message}"
    )


def check_source(
    source: str,
    path: str,
    select: frozenset[str] | None = None,
    ignore: frozenset[str] | None = None,
) -> FileResult:
    """Lint one module's source text; `path` is only used in the findings."""
    result = FileResult(path, source, [], [])
    if "staging" not in source:
        return result  # cannot hold a staged function
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as err:
        result.findings.append(_parse_error(source, path, err))
        return result
    index = ModuleIndex(module)
    result.module, result.index = module, index
    if not index.staged:
        return result
    raw: list[RawFinding] = []
    staged_ids = {id(s.node) for s in index.staged}
    for staged in index.staged:
        FunctionChecker(index, staged, staged_ids, raw).run()
    retracing.check(index, raw)  # call sites of staged functions in loops (AG011)
    items = [
        item
        for item in raw
        if (select is None or item.code in select) and not (ignore and item.code in ignore)
    ]
    if not items:
        return result
    tops = [item.top for item in items]
    tops += [index.top_statement(node) for item in items for node in item.line_of.values()]
    positions = Positions(module, source, tops)
    noqa = noqa_lines(source)
    seen: set[tuple[int, int, str]] = set()
    for item in items:
        start = positions.start(item.node, item.top)
        key = (start.line, start.column, item.code)
        silenced = noqa.get(start.line, frozenset())
        if key in seen or silenced is None or item.code in silenced:
            continue
        seen.add(key)
        fields = dict(item.fields)
        for field, node in item.line_of.items():
            fields[field] = positions.start(node, index.top_statement(node)).line
        finding = Finding(
            path,
            start.line,
            start.column + 1,
            item.code,
            message(item.key, **fields),
            fixable=item.fix is not None,
        )
        result.findings.append(finding)
        if item.fix is not None:
            result.fixes.append((finding, item.fix))
    result.findings.sort()
    return result
