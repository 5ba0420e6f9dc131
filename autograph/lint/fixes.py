"""Safe rewrites for `--fix` / `--diff`: staging.print, and None for mutable defaults."""

from __future__ import annotations

import dataclasses
import difflib

import libcst as cst

from .checker import FileResult, Finding
from .index import STAGING, dotted


@dataclasses.dataclass
class FixOutcome:
    """The rewritten source and one description per applied fix."""

    source: str
    applied: list[tuple[Finding, str]]


def apply_fixes(result: FileResult) -> FixOutcome:
    """Apply every fix attached to `result`'s findings; comments and layout are kept."""
    if not result.fixes or result.module is None or result.index is None:
        return FixOutcome(result.source, [])
    module, index = result.module, result.index
    alias = index.staging_alias()
    prints: set[int] = set()
    defaults: dict[int, list[cst.Param]] = {}
    applied: list[tuple[Finding, str]] = []
    for finding, fix in result.fixes:
        if fix.kind == "print":
            prints.add(id(fix.node))
            applied.append((finding, f"print(...) -> {alias or STAGING}.print(...)"))
        else:
            assert isinstance(fix.node, cst.Param) and fix.function is not None
            defaults.setdefault(id(fix.function), []).append(fix.node)
            name = fix.node.name.value
            default = module.code_for_node(fix.node.default)
            applied.append(
                (
                    finding,
                    f"{name}={default} -> {name}=None, "
                    f"'if {name} is None: {name} = {default}' in the body",
                )
            )
    new = module.visit(_Fixer(prints, defaults, alias or STAGING))
    if prints and alias is None:
        new = _add_staging_import(module, new, index.staging_import_stmt, index.last_import_stmt)
    return FixOutcome(new.code, applied)


def unified_diff(path: str, before: str, after: str) -> str:
    """A unified diff between two versions of a file, `a/` and `b/` prefixed."""
    name = path.lstrip("/")
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{name}",
            tofile=f"b/{name}",
        )
    )


class _Fixer(cst.CSTTransformer):
    def __init__(self, prints: set[int], defaults: dict[int, list[cst.Param]], alias: str) -> None:
        self.prints = prints
        self.defaults = defaults
        self.alias = alias

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if id(original_node) not in self.prints:
            return updated_node
        return updated_node.with_changes(
            func=cst.Attribute(value=cst.Name(self.alias), attr=cst.Name("print"))
        )

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        params = self.defaults.get(id(original_node))
        if not params or not isinstance(updated_node.body, cst.IndentedBlock):
            return updated_node
        wanted = {id(p) for p in params}
        inits: list[cst.BaseStatement] = []
        groups = {}
        for group in ("posonly_params", "params", "kwonly_params"):
            before = getattr(original_node.params, group)
            after = list(getattr(updated_node.params, group))
            for i, param in enumerate(before):
                if id(param) in wanted:
                    after[i] = after[i].with_changes(default=cst.Name("None"))
                    inits.append(_default_init(param.name.value, param.default))
            groups[group] = after
        body = list(updated_node.body.body)
        at = 1 if body and _is_docstring(body[0]) else 0
        body[at:at] = inits
        return updated_node.with_changes(
            params=updated_node.params.with_changes(**groups),
            body=updated_node.body.with_changes(body=body),
        )


def _default_init(name: str, default: cst.BaseExpression) -> cst.If:
    """`if name is None:` / `    name = default`, default kept exactly as written."""
    return cst.If(
        test=cst.Comparison(
            left=cst.Name(name), comparisons=[cst.ComparisonTarget(cst.Is(), cst.Name("None"))]
        ),
        body=cst.IndentedBlock(
            body=[
                cst.SimpleStatementLine(
                    body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=default)]
                )
            ]
        ),
    )


def _is_docstring(stmt: cst.BaseStatement) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _add_staging_import(
    original: cst.Module,
    new: cst.Module,
    staging_stmt: cst.CSTNode | None,
    last_import: cst.CSTNode | None,
) -> cst.Module:
    """Insert `import staging` after the staging import (or the last import)."""
    statement = cst.SimpleStatementLine(
        body=[cst.Import(names=[cst.ImportAlias(cst.Name(STAGING))])]
    )
    position = None
    for anchor in (staging_stmt, last_import):
        for i, stmt in enumerate(original.body):
            if stmt is anchor:
                position = i + 1
                break
        if position is not None:
            break
    if position is None:
        position = 0
        for i, stmt in enumerate(original.body):
            if i == 0 and _is_docstring(stmt):
                position = 1
            elif (
                isinstance(stmt, cst.SimpleStatementLine)
                and isinstance(stmt.body[0], cst.ImportFrom)
                and stmt.body[0].module is not None
                and dotted(stmt.body[0].module) == "__future__"
            ):
                position = i + 1
    body = list(new.body)
    body.insert(position, statement)
    return new.with_changes(body=body)
