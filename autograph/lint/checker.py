"""The rule checks, run only over the subtrees of staged functions."""

from __future__ import annotations

import ast
import dataclasses
import io
import re
import tokenize
import warnings
from typing import Iterable, Iterator, Mapping

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from .index import ModuleIndex, StagedFunction, dotted, target_names
from .rules import PARSE_ERROR, message

# Methods that mutate the object they are called on (lists, dicts, sets, deques).
MUTATORS = frozenset({
    "append", "extend", "insert", "remove", "pop", "clear", "update", "setdefault",
    "popitem", "add", "discard", "sort", "reverse", "appendleft", "extendleft",
    "difference_update", "intersection_update", "symmetric_difference_update",
    "__setitem__", "__delitem__",
})
LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception",
                         "critical", "fatal", "log"})
LOGGER_NAMES = frozenset({"logger", "log", "_logger", "_log", "LOGGER", "LOG", "_LOGGER",
                          "_LOG"})
# Calls whose result differs between calls: evaluated once while tracing.
NONDETERMINISTIC_PREFIXES = ("numpy.random.", "random.", "time.", "secrets.")
NONDETERMINISTIC = frozenset({
    "datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today",
    "datetime.date.today", "uuid.uuid1", "uuid.uuid4", "os.urandom", "os.getpid",
    "os.times",
})
ARRAY_CONSTRUCTORS = frozenset({"numpy.array", "numpy.asarray", "numpy.asanyarray"})
# Calls whose result is static (Python values) even on a symbolic argument.
STATIC_CALLS = frozenset({"isinstance", "issubclass", "hasattr", "callable", "type", "len",
                          "getattr", "id"})
STATIC_ATTRS = frozenset({"shape", "ndim", "dtype"})
MUTABLE_FACTORIES = frozenset({"list", "dict", "set", "bytearray", "collections.defaultdict",
                               "collections.OrderedDict", "collections.deque",
                               "collections.Counter"})

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?",
                   re.IGNORECASE)


@dataclasses.dataclass(frozen=True, order=True)
class Finding:
    """One finding: where, which rule, and what to do about it."""

    path: str
    line: int
    col: int                   # 1-based, like flake8 and ruff
    code: str
    message: str
    fixable: bool = dataclasses.field(default=False, compare=False)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.message}"

    def to_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class Fix:
    """A safe rewrite attached to a finding: `kind` is "print" or "default"."""

    kind: str
    node: cst.CSTNode                      # the print Call, or the mutable default's Param
    function: cst.FunctionDef | None = None


@dataclasses.dataclass
class _Raw:
    code: str
    node: cst.CSTNode
    key: str
    fields: dict[str, object]
    line_of: dict[str, cst.CSTNode] = dataclasses.field(default_factory=dict)
    fix: Fix | None = None
    top: cst.BaseStatement | None = None   # the module-level statement `node` is in


@dataclasses.dataclass
class FileResult:
    """The findings of one file, plus what the fixer needs to rewrite it."""

    path: str
    source: str
    findings: list[Finding]
    fixes: list[tuple[Finding, Fix]]
    module: cst.Module | None = None
    index: ModuleIndex | None = None


# --- expressions ------------------------------------------------------------------------

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
        return all(not isinstance(e, cst.StarredElement) and is_constant(e.value)
                   for e in expr.elements)
    if isinstance(expr, cst.Dict):
        return all(isinstance(e, cst.DictElement) and is_constant(e.key) and is_constant(e.value)
                   for e in expr.elements)
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
        return not (self.skip_static and isinstance(node.func, cst.Name)
                    and node.func.value in STATIC_CALLS)

    def visit_Comparison(self, node: cst.Comparison) -> bool:
        return not (self.skip_static and any(
            isinstance(c.operator, (cst.Is, cst.IsNot)) for c in node.comparisons))

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
    bound: dict[str, list[cst.BaseExpression | None]]   # None: bound by a non-assignment
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
    names = {p.name.value for p in (*params.posonly_params, *params.params,
                                     *params.kwonly_params)}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    scope = Scope(node, names, {}, set(), set())
    node.body.visit(_ScopeCollector(scope))
    return scope


# --- the per-function checker -----------------------------------------------------------

class FunctionChecker(cst.CSTVisitor):
    """Visit one staged function's body and record raw findings."""

    def __init__(self, index: ModuleIndex, staged: StagedFunction, staged_ids: set[int],
                 out: list[_Raw]) -> None:
        self.index = index
        self.staged = staged
        self.func = staged.node.name.value
        self.staged_ids = staged_ids
        self.out = out
        self.stack: list[Scope] = []
        self.conditional = 0
        self.targets: set[int] = set()       # Name nodes that are not reads
        self.reported_reads: set[str] = set()
        self.top = index.top_statement(staged.node)

    def run(self) -> None:
        node = self.staged.node
        self.stack.append(collect_scope(node))
        self._check_signature(node)
        node.body.visit(self)
        self.stack.pop()

    def report(self, code: str, node: cst.CSTNode, key: str | None = None,
               fix: Fix | None = None, line_of: dict[str, cst.CSTNode] | None = None,
               **fields: object) -> None:
        fields.setdefault("func", self.func)
        self.out.append(_Raw(code, node, key or code, fields, line_of or {}, fix, self.top))

    # name resolution
    def resolve(self, name: str) -> tuple[str, Scope | None]:
        """("param" | "local", scope), ("global" | "nonlocal", scope) or ("free", None)."""
        for i in range(len(self.stack) - 1, -1, -1):
            scope = self.stack[i]
            if name in scope.globals:
                return "global", scope
            if name in scope.nonlocals:
                for outer in reversed(self.stack[:i]):
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

    def is_self(self, name: str) -> bool:
        kind, scope = self.resolve(name)
        return (kind == "param" and scope is self.stack[0]
                and name == self.staged.self_name)

    def is_outer(self, name: str) -> bool:
        """Names of objects that outlive the call: globals, closures, and self / cls."""
        kind, _ = self.resolve(name)
        return kind in ("global", "nonlocal", "free") or self.is_self(name)

    def is_computed(self, expr: cst.CSTNode | None, skip_static: bool = False) -> str | None:
        """The first name in `expr` bound to a value computed in the function, if any."""
        if expr is None:
            return None
        for name in name_reads(expr, skip_static):
            kind, scope = self.resolve(name.value)
            if kind == "param" and not self.is_self(name.value):
                return name.value
            if kind == "local" and scope is not None and not all(
                    v is not None and is_constant(v) for v in scope.bound[name.value]):
                return name.value
        return None

    def is_variable_call(self, expr: cst.BaseExpression | None) -> bool:
        return (isinstance(expr, cst.Call)
                and self.index.qualname(expr.func) == "staging.Variable")

    # signature-level rules
    def _check_signature(self, node: cst.FunctionDef) -> None:
        if node.asynchronous is not None:
            self.report("AG010", node.name, "AG010-async")
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.default is not None and self._is_mutable(param.default):
                fixable = isinstance(node.body, cst.IndentedBlock)
                self.report("AG008", param.default, name=param.name.value,
                            fix=Fix("default", param, node) if fixable else None)

    def _is_mutable(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp,
                             cst.SetComp)):
            return True
        if isinstance(expr, cst.Call):
            name = dotted(expr.func)
            qualified = self.index.qualname(expr.func) or name
            return name in ("list", "dict", "set", "bytearray") or qualified in MUTABLE_FACTORIES
        return False

    # scopes: nested functions and lambdas are part of the trace, other staged functions not
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.targets.add(id(node.name))
        if id(node) in self.staged_ids:
            return False
        self.stack.append(collect_scope(node))
        node.body.visit(self)
        self.stack.pop()
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self.stack.append(collect_scope(node))
        node.body.visit(self)
        self.stack.pop()
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Global(self, node: cst.Global) -> bool:
        return False

    def visit_Nonlocal(self, node: cst.Nonlocal) -> bool:
        return False

    # conditional context (AG004)
    def visit_If(self, node: cst.If) -> None:
        self.conditional += 1

    def leave_If(self, original_node: cst.If) -> None:
        self.conditional -= 1

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self.conditional += 1

    def leave_IfExp(self, original_node: cst.IfExp) -> None:
        self.conditional -= 1

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self.conditional += 1

    def leave_BooleanOperation(self, original_node: cst.BooleanOperation) -> None:
        self.conditional -= 1

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self.conditional += 1

    def leave_ExceptHandler(self, original_node: cst.ExceptHandler) -> None:
        self.conditional -= 1

    def visit_MatchCase(self, node: cst.MatchCase) -> None:
        self.conditional += 1

    def leave_MatchCase(self, original_node: cst.MatchCase) -> None:
        self.conditional -= 1

    # names that are not reads
    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.targets.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.targets.add(id(node.keyword))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.targets.update(id(n) for n in target_names(node.target))

    def visit_AsName(self, node: cst.AsName) -> None:
        self.targets.update(id(n) for n in target_names(node.name))

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.targets.update(id(n) for n in target_names(node.target))

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.targets.update(id(n) for n in target_names(node.target))

    # AG006: reading a module-level name the module reassigns
    def visit_Name(self, node: cst.Name) -> None:
        name = node.value
        if id(node) in self.targets or name in self.reported_reads or name in self.staged.names:
            return
        if self.resolve(name)[0] != "free":
            return
        binding = self.index.reassigned(name)
        if binding is not None:
            self.reported_reads.add(name)
            self.report("AG006", node, name=name, line_of={"line": binding.node})

    # AG001 / AG009: stores into outer state
    def visit_Assign(self, node: cst.Assign) -> None:
        if self.is_variable_call(node.value):
            return
        for target in node.targets:
            self._store(target.target, node.value, "attribute assignment")

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.targets.update(id(n) for n in target_names(node.target))
        self._store(node.target, node.value, "augmented assignment")

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.targets.update(id(n) for n in target_names(node.target))
        if node.value is not None and not self.is_variable_call(node.value):
            self._store(node.target, node.value, "attribute assignment")

    def visit_Del(self, node: cst.Del) -> None:
        self.targets.update(id(n) for n in target_names(node.target))
        self._store(node.target, None, "del")

    def _store(self, target: cst.BaseExpression, value: cst.BaseExpression | None,
               how: str) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._store(element.value, value, how)
            return
        if isinstance(target, cst.StarredElement):
            self._store(target.value, value, how)
            return
        computed = self.is_computed(value)
        if isinstance(target, cst.Name):
            kind, _ = self.resolve(target.value)
            if kind in ("global", "nonlocal"):
                if computed:
                    self.report("AG009", target, "AG009-global", kind=kind, name=target.value)
                else:
                    self.report("AG001", target, "AG001-assign", kind=kind, name=target.value)
            return
        root = root_name(target)
        if root is None or not self.is_outer(root.value):
            return
        if isinstance(target, cst.Subscript):
            name = dotted(target.value) or root.value
            how = "del" if how == "del" else "item assignment"
        else:
            name = dotted(target) or root.value
        if computed and how != "del":
            self.report("AG009", target, "AG009-object", name=name, how=how)
        else:
            self.report("AG001", target, "AG001-object", name=name, how=how)

    # call-based rules
    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        qualified = self.index.qualname(func)
        if isinstance(func, cst.Name):
            self._check_print(node, func)
            if (func.value in self.staged.names and self.staged.self_name is None
                    and self.resolve(func.value)[0] == "free"):
                self.report("AG007", node)
        elif isinstance(func, cst.Attribute):
            self._check_method_call(node, func)
        if qualified is not None:
            self._check_qualified_call(node, func, qualified)

    def _check_print(self, node: cst.Call, func: cst.Name) -> None:
        if func.value != "print" or "print" in self.index.bindings:
            return
        if self.resolve("print")[0] != "free":
            return
        fixable = all(arg.keyword is None or arg.keyword.value in ("sep", "end")
                      for arg in node.args)
        fix = Fix("print", node) if fixable else None
        if not self.staged.autograph:
            self.report("AG002", node, "AG002-print-noautograph", fix=fix)
        elif all(arg.keyword is not None or self._is_python_value(arg.value)
                 for arg in node.args):
            self.report("AG002", node, "AG002-print", fix=fix)

    def _is_python_value(self, expr: cst.BaseExpression) -> bool:
        if is_constant(expr):
            return True
        if isinstance(expr, (cst.FormattedString, cst.ConcatenatedString)):
            return all(self.resolve(n.value)[0] not in ("param", "local")
                       for n in name_reads(expr))
        if isinstance(expr, cst.BinaryOperation):
            return self._is_python_value(expr.left) and self._is_python_value(expr.right)
        return False

    def _check_method_call(self, node: cst.Call, func: cst.Attribute) -> None:
        attr = func.attr.value
        root = root_name(func.value)
        if (self.staged.self_name is not None and isinstance(func.value, cst.Name)
                and attr in self.staged.names and self.is_self(func.value.value)):
            self.report("AG007", node)
        if attr in MUTATORS and root is not None and self.is_outer(root.value):
            if self.index.qualname(root) is not None:
                return                      # a module: `np.sort(...)` is no mutation
            name = dotted(func.value) or root.value
            how = f".{attr}()"
            if any(self.is_computed(arg.value) for arg in node.args):
                self.report("AG009", node, "AG009-object", name=name, how=how)
            else:
                self.report("AG001", node, "AG001-object", name=name, how=how)
        if attr in LOG_METHODS:
            receiver = dotted(func.value)
            if receiver is None and isinstance(func.value, cst.Call):
                if self.index.qualname(func.value.func) == "logging.getLogger":
                    self.report("AG002", node, "AG002-logging", name=f"logging.getLogger().{attr}")
                return
            if receiver is None or self.index.qualname(func.value) is not None:
                return
            last = receiver.split(".")[-1]
            if last in LOGGER_NAMES or self._bound_to_call(receiver, ("logging.getLogger",)):
                self.report("AG002", node, "AG002-logging", name=f"{receiver}.{attr}")

    def _bound_to_call(self, name: str, qualnames: Iterable[str] | None = None,
                       prefixes: tuple[str, ...] = ()) -> bool:
        """Is `name` a free name bound at module level to a call of one of `qualnames`?"""
        if "." in name or self.resolve(name)[0] != "free":
            return False
        wanted = set(qualnames or ())
        for binding in self.index.value_bindings(name):
            value = binding.value
            if isinstance(value, cst.Call):
                qualified = self.index.qualname(value.func) or ""
                if qualified in wanted or (prefixes and qualified.startswith(prefixes)):
                    return True
        return False

    def _check_qualified_call(self, node: cst.Call, func: cst.BaseExpression,
                              qualified: str) -> None:
        source = dotted(func) or qualified
        root = root_name(func)
        if root is not None and self.resolve(root.value)[0] != "free":
            return                              # shadowed by a local or parameter
        if qualified == "staging.Variable":
            if len(self.stack) == 1 and self.conditional == 0:
                self.report("AG004", node)
            return
        if qualified.startswith("logging.") and qualified.split(".")[-1] in LOG_METHODS:
            self.report("AG002", node, "AG002-logging", name=source)
        elif qualified == "warnings.warn":
            self.report("AG002", node, "AG002-logging", name=source)
        elif qualified.startswith(NONDETERMINISTIC_PREFIXES) or qualified in NONDETERMINISTIC:
            self.report("AG003", node, name=source)

    def leave_Call(self, original_node: cst.Call) -> None:
        # calls on a module-level random generator: `rng.normal(...)`
        func = original_node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            if self._bound_to_call(func.value.value,
                                   prefixes=NONDETERMINISTIC_PREFIXES):
                self.report("AG003", original_node, name=dotted(func))

    # AG004 is in _check_qualified_call; AG005: loops that unroll
    def visit_For(self, node: cst.For) -> None:
        self.targets.update(id(n) for n in target_names(node.target))
        what = self._unrolled(node.iter)
        if what is not None:
            self.report("AG005", node.iter, what=what)

    def _unrolled(self, expr: cst.BaseExpression) -> str | None:
        if isinstance(expr, cst.Call):
            name = dotted(expr.func)
            if name in ("enumerate", "reversed", "sorted", "list", "tuple", "zip") and (
                    self.resolve(name)[0] == "free"):
                for arg in expr.args:
                    what = self._unrolled(arg.value)
                    if what is not None:
                        return what
                return None
            if (isinstance(expr.func, cst.Attribute) and not expr.args
                    and expr.func.attr.value in ("items", "keys", "values")):
                return self._unrolled(expr.func.value)
        kind = self._display_kind(expr)
        if kind is not None:
            return f"a {kind} literal"
        if isinstance(expr, cst.Name):
            kind_of_name, scope = self.resolve(expr.value)
            if kind_of_name == "local" and scope is not None:
                values = scope.bound[expr.value]
            elif kind_of_name == "free":
                values = [b.value for b in self.index.value_bindings(expr.value)]
            else:
                return None
            kinds = {self._display_kind(v) if v is not None else None for v in values}
            if values and None not in kinds and len(kinds) == 1:
                return f"{kinds.pop()} '{expr.value}'"
        return None

    def _display_kind(self, expr: cst.BaseExpression) -> str | None:
        if isinstance(expr, cst.List):
            return "Python list"
        if isinstance(expr, cst.Tuple):
            return "Python tuple"
        if isinstance(expr, cst.Dict):
            return "Python dict"
        if isinstance(expr, cst.Set):
            return "Python set"
        if (isinstance(expr, cst.Call) and expr.args
                and self.index.qualname(expr.func) in ARRAY_CONSTRUCTORS
                and isinstance(expr.args[0].value, (cst.List, cst.Tuple))):
            return "NumPy array"
        return None

    # AG010: constructs the converter rejects
    def visit_Yield(self, node: cst.Yield) -> None:
        if len(self.stack) == 1:
            name = "yield from" if isinstance(node.value, cst.From) else "yield"
            self.report("AG010", node, "AG010-yield", name=name)

    def visit_Try(self, node: cst.Try) -> None:
        self._check_block(node, "try")

    def visit_TryStar(self, node: cst.TryStar) -> None:
        self._check_block(node, "try")

    def visit_With(self, node: cst.With) -> None:
        self._check_block(node, "with")

    def _check_block(self, node: cst.CSTNode, name: str) -> None:
        for stmt in _statements_inside(node):
            if isinstance(stmt, (cst.If, cst.While)):
                var = self.is_computed(stmt.test, skip_static=True)
            elif isinstance(stmt, cst.For):
                var = self.is_computed(stmt.iter, skip_static=True)
            else:
                continue
            if var is not None:
                self.report("AG010", node, "AG010-block", name=name, var=var)
                return


def _statements_inside(node: cst.CSTNode) -> Iterator[cst.BaseStatement]:
    """Compound statements nested in `node`'s blocks, not entering functions or classes."""
    blocks: list[cst.CSTNode] = []
    for attr in ("body", "orelse", "finalbody"):
        part = getattr(node, attr, None)
        if part is not None:
            blocks.append(part)
    blocks += list(getattr(node, "handlers", ()))
    blocks += list(getattr(node, "cases", ()))
    for block in blocks:
        if isinstance(block, cst.If):
            yield block
            yield from _statements_inside(block)
            continue
        if isinstance(block, (cst.Else, cst.Finally, cst.ExceptHandler,
                              cst.ExceptStarHandler, cst.MatchCase)):
            block = block.body
        if not isinstance(block, cst.IndentedBlock):
            continue
        for stmt in block.body:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue
            if isinstance(stmt, cst.BaseCompoundStatement):
                yield stmt
                yield from _statements_inside(stmt)


# --- files ------------------------------------------------------------------------------

def noqa_lines(source: str) -> dict[int, frozenset[str] | None]:
    """Line -> codes silenced by a `# noqa: ...` comment there (None: a bare `# noqa`)."""
    result: dict[int, frozenset[str] | None] = {}
    try:
        tokens = [(tok.start[0], tok.string)
                  for tok in tokenize.generate_tokens(io.StringIO(source).readline)
                  if tok.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        tokens = [(i, line) for i, line in enumerate(source.splitlines(), 1) if "#" in line]
    for line, comment in tokens:
        match = _NOQA.search(comment)
        if match is None:
            continue
        codes = match.group("codes")
        result[line] = (None if codes is None
                        else frozenset(c.upper() for c in re.split(r"[\s,]+", codes) if c))
    return result


_NEWLINE = re.compile(r"\r\n?|\n")     # what libcst's PositionProvider counts as a line break
_FINAL_NEWLINE = re.compile(r"(?:\r\n?|\n)\Z")


class Positions:
    """Start positions of nodes, equal to `PositionProvider` over the whole module.

    Resolving positions for a whole module is a code generation pass with position
    tracking plus a visit of the whole tree (close to half a second for 3,000 lines), so
    only the module-level statements that hold a reported node are resolved. Such a
    statement's code starts at column 0 of a fresh line and does not depend on what
    precedes it, so positions inside it are its positions on its own, moved down by
    the lines before it. That line offset comes from Python's `ast` (the line of the
    statement's first token) and is checked against the source text. The whole module
    is resolved instead when the reported statements are most of it (one pass is then
    cheaper) or when anything does not line up: a source `ast` rejects, a node whose
    statement is unknown, a statement libcst does not reproduce exactly.
    """

    # Above this share of the module's statements or lines, resolve the whole module.
    whole_module_above = 0.5

    def __init__(self, module: cst.Module, source: str,
                 tops: Iterable[cst.BaseStatement | None]) -> None:
        """`tops`: the module-level statements of every node that will be asked for."""
        self.module = module
        self.source = source
        self._whole: Mapping[cst.CSTNode, CodeRange] | None = None
        # id(statement) -> (positions in the statement alone, lines before it)
        self._statements: dict[int, tuple[Mapping[cst.CSTNode, CodeRange], int]] = {}
        if not self._resolve_statements(tops):
            self._statements.clear()
            self._resolve_whole()

    def start(self, node: cst.CSTNode, top: cst.BaseStatement | None) -> CodePosition:
        """Where `node` starts; `top` is the module-level statement it is in, if known."""
        found = self._statements.get(id(top)) if top is not None else None
        if found is not None:
            ranges, offset = found
            where = ranges.get(node)
            if where is not None:
                return CodePosition(where.start.line + offset, where.start.column)
        return self._resolve_whole()[node].start

    def _resolve_whole(self) -> Mapping[cst.CSTNode, CodeRange]:
        if self._whole is None:
            self._whole = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(
                PositionProvider)
        return self._whole

    def _resolve_statements(self, tops: Iterable[cst.BaseStatement | None]) -> bool:
        """Resolve only the statements `tops`; False when the whole module is needed."""
        module = self.module
        order = {id(stmt): i for i, stmt in enumerate(module.body)}
        wanted: set[int] = set()
        for top in tops:
            i = order.get(id(top))
            if i is None or module.body[i] is not top:
                return False                    # a node outside any known statement
            wanted.add(i)
        share = self.whole_module_above
        if len(wanted) > share * len(module.body):
            return False                        # findings all over: one pass is cheaper
        lines = self._statement_lines()
        if lines is None:
            return False
        first, last = lines
        if sum(last[i] - first[i] + 1 for i in wanted) > share * last[-1]:
            return False
        line_starts = [0] + [m.end() for m in _NEWLINE.finditer(self.source)]
        for i in sorted(wanted):
            top = module.body[i]
            alone = cst.Module(body=[top], header=[], footer=[], encoding=module.encoding,
                               default_indent=module.default_indent,
                               default_newline=module.default_newline)
            ranges = MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider)
            offset = first[i] - ranges[top].start.line
            # Its code, leading comments and blank lines included, must be the source
            # text from the start of line offset + 1.
            code = alone.code
            if i == len(module.body) - 1 and not module.has_trailing_newline:
                code = _FINAL_NEWLINE.sub("", code)   # no line break at the end of the file
            if not (0 <= offset < len(line_starts)
                    and self.source.startswith(code, line_starts[offset])):
                return False
            self._statements[id(top)] = (ranges, offset)
        return True

    def _statement_lines(self) -> tuple[list[int], list[int]] | None:
        """Per module-level statement, the lines of its first and last token (from `ast`)."""
        source = self.source
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # a byte order mark is no line; `ast` accepts one in bytes only
                tree = ast.parse(source[1:] if source.startswith("\ufeff") else source)
        except Exception:                       # syntax newer than this Python, ...
            return None
        body = tree.body
        first: list[int] = []
        last: list[int] = []
        j = 0
        for stmt in self.module.body:
            # a line `a = 1; b = 2` is one libcst statement and two `ast` ones
            n = len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
            if j + n > len(body):
                return None
            first.append(body[j].lineno)
            last.append(body[j + n - 1].end_lineno or body[j + n - 1].lineno)
            j += n
        return (first, last) if first and j == len(body) else None


def _parse_error(source: str, path: str, err: cst.ParserSyntaxError) -> Finding:
    """AG000 for an unparsable file, located by Python's own parser when it agrees."""
    try:
        ast.parse(source)
    except SyntaxError as syntax:
        return Finding(path, syntax.lineno or 1, syntax.offset or 1, PARSE_ERROR,
                       f"cannot parse: {syntax.msg}")
    except ValueError:
        pass
    return Finding(path, err.raw_line, err.raw_column + 1, PARSE_ERROR,
                   f"cannot parse: {err.message}")


def check_source(source: str, path: str, select: frozenset[str] | None = None,
                 ignore: frozenset[str] | None = None) -> FileResult:
    """Lint one module's source text; `path` is only used in the findings."""
    result = FileResult(path, source, [], [])
    if "staging" not in source:
        return result                           # cannot hold a staged function
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as err:
        result.findings.append(_parse_error(source, path, err))
        return result
    index = ModuleIndex(module)
    result.module, result.index = module, index
    if not index.staged:
        return result
    raw: list[_Raw] = []
    staged_ids = {id(s.node) for s in index.staged}
    for staged in index.staged:
        FunctionChecker(index, staged, staged_ids, raw).run()
    items = [item for item in raw if (select is None or item.code in select)
             and not (ignore and item.code in ignore)]
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
        finding = Finding(path, start.line, start.column + 1, item.code,
                          message(item.key, **fields), fixable=item.fix is not None)
        result.findings.append(finding)
        if item.fix is not None:
            result.fixes.append((finding, item.fix))
    result.findings.sort()
    return result

