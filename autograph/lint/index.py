"""Cheap statement-level index of a module: imports, bindings and the staged functions."""

from __future__ import annotations

import dataclasses
from typing import Iterator

import libcst as cst

STAGING = "staging"
STAGING_FUNCTION = "staging.function"

_COMPOUND_BODIES = ("body", "orelse", "finalbody")


def dotted(expr: cst.BaseExpression) -> str | None:
    """`a.b.c` as a string, or None when `expr` is not a plain dotted name."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        head = dotted(expr.value)
        return None if head is None else f"{head}.{expr.attr.value}"
    return None


def target_names(target: cst.BaseExpression) -> Iterator[cst.Name]:
    """The Name nodes bound by an assignment target (through tuples, lists and stars)."""
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from target_names(target.value)


def import_bindings(stmt: cst.Import | cst.ImportFrom) -> Iterator[tuple[str, str]]:
    """(local name, qualified name) pairs bound by an import statement."""
    if isinstance(stmt, cst.Import):
        for alias in stmt.names:
            full = dotted(alias.name)
            if full is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                yield alias.asname.name.value, full
            else:
                head = full.split(".")[0]
                yield head, head
        return
    if isinstance(stmt.names, cst.ImportStar):
        return
    module = dotted(stmt.module) if stmt.module is not None else None
    for alias in stmt.names:
        name = dotted(alias.name)
        if name is None:
            continue
        local = name
        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
            local = alias.asname.name.value
        if name == STAGING:
            # `from . import staging`, `from pkg import staging`: the staging package itself.
            yield local, STAGING
        else:
            yield local, f"{module}.{name}" if module else name


@dataclasses.dataclass
class Binding:
    """One module-level binding of a name."""

    name: str
    node: cst.CSTNode  # the node to point at (a Name, or the statement)
    kind: str  # "value", "import", "def", "global-write"
    value: cst.BaseExpression | None = None


@dataclasses.dataclass
class StagedFunction:
    """A function that `staging.function` stages, and how it is reached."""

    node: cst.FunctionDef
    names: set[str]  # names it is called by (its own name, wrapper names)
    self_name: str | None  # first parameter of a method (self / cls)
    autograph: bool  # False when staged with autograph=False


@dataclasses.dataclass
class _Def:
    node: cst.FunctionDef
    scope: cst.CSTNode  # the Module, ClassDef or FunctionDef it is defined in
    cls: cst.ClassDef | None  # the class it is a method of


class ModuleIndex:
    """Statement-level facts about a module, gathered without visiting expressions."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.imports: dict[str, str] = {}  # local name -> qualified name
        self.module_imports: dict[str, str] = {}  # the same, module-level imports only
        self.bindings: dict[str, list[Binding]] = {}
        self.staging_import_stmt: cst.SimpleStatementLine | None = None
        self.last_import_stmt: cst.SimpleStatementLine | None = None
        self._synthetic: set[int] = set()  # ids of statement lines made up for one-line suites
        self._keep: list = []
        self._defs: list[_Def] = []
        self._defs_by_scope: dict[int, dict[str, _Def]] = {}
        self._wraps: list[tuple[cst.Call, cst.CSTNode, cst.ClassDef | None, set[str]]] = []
        # id(def or binding node) -> (node, the module-level statement it is in)
        self._tops: dict[int, tuple[cst.CSTNode, cst.BaseStatement | None]] = {}
        self._top: cst.BaseStatement | None = None
        for stmt in module.body:
            self._top = stmt
            self._walk((stmt,), module, None, module_level=True)
        self.staged: list[StagedFunction] = self._find_staged()

    # -- qualified names -------------------------------------------------------------
    def qualname(self, expr: cst.BaseExpression) -> str | None:
        """The qualified name of a dotted expression, resolving the first part via imports."""
        name = dotted(expr)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        if head not in self.imports:
            return None
        base = self.imports[head]
        return f"{base}.{rest}" if rest else base

    def staging_alias(self) -> str | None:
        """The module-level name the staging package is imported under, if any."""
        for local, qualified in self.module_imports.items():
            if qualified == STAGING:
                return local
        return None

    def value_bindings(self, name: str) -> list[Binding]:
        """Module-level bindings of `name`, ignoring re-bindings by staging.function(name)."""
        return [
            b
            for b in self.bindings.get(name, ())
            if not (b.value is not None and self._is_staging_function_call(b.value))
        ]

    def top_statement(self, node: cst.CSTNode) -> cst.BaseStatement | None:
        """The module-level statement a function or binding node is in (None: unknown)."""
        entry = self._tops.get(id(node))
        return entry[1] if entry is not None and entry[0] is node else None

    def reassigned(self, name: str) -> Binding | None:
        """A second binding of a module-level value name, or a `global` write; else None."""
        bindings = self.value_bindings(name)
        if not bindings or all(b.kind in ("import", "def") for b in bindings):
            return None
        writes = [b for b in bindings if b.kind == "global-write"]
        if writes:
            return writes[0]
        return bindings[1] if len(bindings) > 1 else None

    # -- the statement walk ----------------------------------------------------------
    def _bind(
        self, name: str, node: cst.CSTNode, kind: str, value: cst.BaseExpression | None = None
    ) -> None:
        self.bindings.setdefault(name, []).append(Binding(name, node, kind, value))
        self._tops[id(node)] = (node, self._top)

    def _walk(
        self,
        body: tuple | list,
        scope: cst.CSTNode,
        cls: cst.ClassDef | None,
        module_level: bool,
        globals_: frozenset[str] = frozenset(),
    ) -> None:
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._small(small, stmt, scope, cls, module_level, globals_)
            elif isinstance(stmt, cst.FunctionDef):
                self._function(stmt, scope, cls, module_level)
            elif isinstance(stmt, cst.ClassDef):
                if module_level:
                    self._bind(stmt.name.value, stmt.name, "def")
                if isinstance(stmt.body, cst.IndentedBlock):
                    self._walk(stmt.body.body, stmt, stmt, False)
            else:
                self._compound(stmt, scope, cls, module_level, globals_)

    def _compound(  # noqa: C901, PLR0912
        self,
        stmt: cst.BaseCompoundStatement,
        scope: cst.CSTNode,
        cls: cst.ClassDef | None,
        module_level: bool,
        globals_: frozenset[str],
    ) -> None:
        if module_level:
            if isinstance(stmt, cst.For):
                for name in target_names(stmt.target):
                    self._bind(name.value, name, "value")
            elif isinstance(stmt, cst.With):
                for item in stmt.items:
                    if item.asname is not None:
                        for name in target_names(item.asname.name):
                            self._bind(name.value, name, "value")
        elif globals_ and isinstance(stmt, cst.For):
            for name in target_names(stmt.target):
                if name.value in globals_:
                    self._bind(name.value, name, "global-write")
        blocks: list = []
        for attr in _COMPOUND_BODIES:
            part = getattr(stmt, attr, None)
            if isinstance(part, (cst.Else, cst.Finally)):
                part = part.body
            elif isinstance(part, cst.If):  # elif chain
                self._compound(part, scope, cls, module_level, globals_)
                continue
            if part is not None:
                blocks.append(part)
        for handler in getattr(stmt, "handlers", ()):
            blocks.append(handler.body)
        for case in getattr(stmt, "cases", ()):
            blocks.append(case.body)
        for block in blocks:
            if isinstance(block, cst.IndentedBlock):
                self._walk(block.body, scope, cls, module_level, globals_)
            elif isinstance(block, cst.SimpleStatementSuite):
                self._walk([self._suite_line(block)], scope, cls, module_level, globals_)

    def _suite_line(self, suite: cst.SimpleStatementSuite) -> cst.SimpleStatementLine:
        """A statement line standing for the one-line suite of `if c: ...` or `def f(): ...`,
        to walk it like a block; it is not in the module tree, so nothing may point at it."""
        line = cst.SimpleStatementLine(body=suite.body)
        self._synthetic.add(id(line))
        self._keep.append(line)  # ids stay unique while the index lives
        return line

    def _small(  # noqa: C901, PLR0912
        self,
        small: cst.BaseSmallStatement,
        line: cst.SimpleStatementLine,
        scope: cst.CSTNode,
        cls: cst.ClassDef | None,
        module_level: bool,
        globals_: frozenset[str],
    ) -> None:
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            # `if c: import x` sits in a suite, not a statement line of the module: bind the
            # import itself, and never insert fixes after it
            real_line = id(line) not in self._synthetic
            for local, qualified in import_bindings(small):
                self.imports[local] = qualified
                if module_level:
                    self.module_imports[local] = qualified
                    self._bind(local, line if real_line else small, "import")
                    if (
                        real_line
                        and qualified.split(".")[0] == STAGING
                        and self.staging_import_stmt is None
                    ):
                        self.staging_import_stmt = line
            if module_level and real_line:
                self.last_import_stmt = line
            return
        targets: list[cst.BaseExpression] = []
        value = None
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
            value = small.value
        elif isinstance(small, (cst.AugAssign, cst.AnnAssign)) and small.value is not None:
            targets = [small.target]
            value = small.value
        if value is not None and self._is_staging_function_call(value):
            names = {n.value for t in targets for n in target_names(t)}
            self._wraps.append((value, scope, cls, names))
        elif isinstance(small, cst.Expr) and self._is_staging_function_call(small.value):
            self._wraps.append((small.value, scope, cls, set()))
        for target in targets:
            for name in target_names(target):
                if module_level:
                    self._bind(name.value, name, "value", value)
                elif name.value in globals_:
                    self._bind(name.value, name, "global-write", value)

    def _function(
        self,
        node: cst.FunctionDef,
        scope: cst.CSTNode,
        cls: cst.ClassDef | None,
        module_level: bool,
    ) -> None:
        if module_level:
            self._bind(node.name.value, node.name, "def")
        entry = _Def(node, scope, cls if scope is cls else None)
        self._tops[id(node)] = (node, self._top)
        self._defs.append(entry)
        self._defs_by_scope.setdefault(id(scope), {})[node.name.value] = entry
        if isinstance(node.body, cst.IndentedBlock):
            body = node.body.body
        else:
            body = [self._suite_line(node.body)]
        self._walk(body, node, None, False, _declared_globals(body))

    # -- staged functions ------------------------------------------------------------
    def _is_staging_function(self, expr: cst.BaseExpression) -> bool:
        return self.qualname(expr) == STAGING_FUNCTION

    def _is_staging_function_call(self, expr: cst.BaseExpression) -> bool:
        if not isinstance(expr, cst.Call):
            return False
        func = expr.func
        if isinstance(func, cst.Call):  # staging.function(...)(f)
            return self._is_staging_function(func.func)
        return self._is_staging_function(func)

    def _find_staged(self) -> list[StagedFunction]:
        staged: dict[int, StagedFunction] = {}
        for entry in self._defs:
            for decorator in entry.node.decorators:
                expr = decorator.decorator
                call = expr if isinstance(expr, cst.Call) else None
                if self._is_staging_function(call.func if call is not None else expr):
                    self._add(staged, entry, {entry.node.name.value}, _autograph_flag(call))
        for call, scope, cls, names in self._wraps:
            inner = call.func if isinstance(call.func, cst.Call) else None
            args = (
                call.args if inner is not None else [a for a in call.args if a.keyword is None][:1]
            )
            if not args or args[0].keyword is not None:
                continue
            entry = self._resolve_def(args[0].value, scope, cls)
            if entry is not None:
                flag = _autograph_flag(inner if inner is not None else call)
                self._add(staged, entry, names | {entry.node.name.value}, flag)
        return list(staged.values())

    def _add(
        self, staged: dict[int, StagedFunction], entry: _Def, names: set[str], autograph: bool
    ) -> None:
        existing = staged.get(id(entry.node))
        if existing is not None:
            existing.names |= names
            existing.autograph = existing.autograph and autograph
            return
        self_name = None
        if entry.cls is not None and not any(
            dotted(d.decorator) == "staticmethod" for d in entry.node.decorators
        ):
            params = entry.node.params
            first = (params.posonly_params or params.params or (None,))[0]
            self_name = first.name.value if first is not None else None
        staged[id(entry.node)] = StagedFunction(entry.node, names, self_name, autograph)

    def _resolve_def(
        self, expr: cst.BaseExpression, scope: cst.CSTNode, cls: cst.ClassDef | None
    ) -> _Def | None:
        if isinstance(expr, cst.Name):
            for where in (scope, self.module):
                entry = self._defs_by_scope.get(id(where), {}).get(expr.value)
                if entry is not None:
                    return entry
            return None
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
            # self.method / cls.method / ClassName.method
            owner = cls
            if owner is None:
                owner = self._enclosing_class(scope)
            if expr.value.value not in ("self", "cls") and (
                owner is None or owner.name.value != expr.value.value
            ):
                owner = next(
                    (
                        d.scope
                        for d in self._defs
                        if isinstance(d.scope, cst.ClassDef)
                        and d.scope.name.value == expr.value.value
                    ),
                    None,
                )
            if owner is not None:
                return self._defs_by_scope.get(id(owner), {}).get(expr.attr.value)
        return None

    def _enclosing_class(self, scope: cst.CSTNode) -> cst.ClassDef | None:
        for entry in self._defs:
            if entry.node is scope:
                return entry.cls
        return None


def _declared_globals(body: tuple | list) -> frozenset[str]:  # noqa: C901
    names: set[str] = set()
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Global):
                    names.update(item.name.value for item in small.names)
        elif isinstance(stmt, (cst.If, cst.For, cst.While, cst.With, cst.Try)):
            blocks = [getattr(stmt, "body", None)]
            blocks += [h.body for h in getattr(stmt, "handlers", ())]
            for attr in ("orelse", "finalbody"):
                part = getattr(stmt, attr, None)
                if part is not None:
                    blocks.append(part if isinstance(part, cst.If) else part.body)
            for block in blocks:
                if isinstance(block, cst.If):
                    names |= _declared_globals([block])
                elif isinstance(block, cst.IndentedBlock):
                    names |= _declared_globals(block.body)
    return frozenset(names)


def _autograph_flag(call: cst.Call | None) -> bool:
    """False when the staging.function call passes autograph=False."""
    if call is None:
        return True
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "autograph":
            return not (isinstance(arg.value, cst.Name) and arg.value.value == "False")
    return True
