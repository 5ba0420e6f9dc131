"""Scope analysis for the checks: what each function binds, what names resolve to, what is read."""

from __future__ import annotations

import dataclasses

import libcst as cst

from .index import dotted, target_names

# Calls whose result is static (Python values) even on a symbolic argument.
STATIC_CALLS = frozenset(
    {"isinstance", "issubclass", "hasattr", "callable", "type", "len", "getattr", "id"}
)
STATIC_ATTRS = frozenset({"shape", "ndim", "dtype"})


def is_constant(expr: cst.BaseExpression) -> bool:
    """A literal Python value: numbers, strings, True/False/None, displays of those."""
    if isinstance(expr, (cst.SimpleString, cst.Integer, cst.Float, cst.Imaginary)):
        return True
    if isinstance(expr, cst.ConcatenatedString):
        return is_constant(expr.left) and is_constant(expr.right)
    if isinstance(expr, cst.Name):
        return expr.value in ("True", "False", "None")
    if isinstance(expr, cst.UnaryOperation):
        return is_constant(expr.expression)
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
        return all(
            not isinstance(e, cst.StarredElement) and is_constant(e.value) for e in expr.elements
        )
    if isinstance(expr, cst.Dict):
        return all(
            isinstance(e, cst.DictElement) and is_constant(e.key) and is_constant(e.value)
            for e in expr.elements
        )
    return False


def root_name(expr: cst.BaseExpression) -> cst.Name | None:
    """The Name at the root of an attribute / subscript chain (`a` in `a.b[0].c`)."""
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        expr = expr.value
    return expr if isinstance(expr, cst.Name) else None


class _NameReads(cst.CSTVisitor):
    """Collect the Names an expression reads, optionally skipping static-only parts."""

    def __init__(self, skip_static: bool) -> None:
        self.skip_static = skip_static
        self.names: list[cst.Name] = []
        self._targets: set[int] = set()

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self._targets.add(id(node.attr))
        return not (self.skip_static and node.attr.value in STATIC_ATTRS)

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._targets.add(id(node.keyword))

    def visit_Call(self, node: cst.Call) -> bool:
        return not (
            self.skip_static and isinstance(node.func, cst.Name) and node.func.value in STATIC_CALLS
        )

    def visit_Comparison(self, node: cst.Comparison) -> bool:
        return not (
            self.skip_static
            and any(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in node.comparisons)
        )

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._targets.update(id(n) for n in target_names(node.target))

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._targets:
            self.names.append(node)


def name_reads(expr: cst.CSTNode, skip_static: bool = False) -> list[cst.Name]:
    reads = _NameReads(skip_static)
    expr.visit(reads)
    return reads.names


# --- scopes -----------------------------------------------------------------------------


@dataclasses.dataclass
class Scope:
    """The names a function (or lambda) binds, and the values it binds them to."""

    node: cst.CSTNode
    params: set[str]
    bound: dict[str, list[cst.BaseExpression | None]]  # None: bound by a non-assignment
    globals: set[str]
    nonlocals: set[str]

    def is_local(self, name: str) -> bool:
        return name in self.bound and name not in self.globals and name not in self.nonlocals


class _ScopeCollector(cst.CSTVisitor):
    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        for name in target_names(target):
            self.scope.bound.setdefault(name.value, []).append(value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.scope.bound.setdefault(node.name.value, []).append(None)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.scope.bound.setdefault(node.name.value, []).append(None)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        single = len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name)
        for target in node.targets:
            self._bind(target.target, node.value if single else None)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target, None)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target, node.value)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target, None)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bind(node.target, None)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bind(node.name, None)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target, None)

    def visit_Del(self, node: cst.Del) -> None:
        self._bind(node.target, None)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None:
            name = dotted(node.name)
            if name:
                self.scope.bound.setdefault(name.split(".")[0], []).append(None)

    def visit_Global(self, node: cst.Global) -> None:
        self.scope.globals.update(item.name.value for item in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.scope.nonlocals.update(item.name.value for item in node.names)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self._bind(node.name, None)


def collect_scope(node: cst.FunctionDef | cst.Lambda) -> Scope:
    params = node.params
    names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    scope = Scope(node, names, {}, set(), set())
    node.body.visit(_ScopeCollector(scope))
    return scope


def resolve(stack: list[Scope], name: str) -> tuple[str, Scope | None]:
    """("param" | "local", scope), ("global" | "nonlocal", scope) or ("free", None), looking
    `name` up from the innermost scope of `stack` outwards."""
    for i in range(len(stack) - 1, -1, -1):
        scope = stack[i]
        if name in scope.globals:
            return "global", scope
        if name in scope.nonlocals:
            for outer in reversed(stack[:i]):
                if name in outer.params:
                    return "param", outer
                if outer.is_local(name):
                    return "local", outer
            return "nonlocal", scope
        if name in scope.params:
            return "param", scope
        if scope.is_local(name):
            return "local", scope
    return "free", None
