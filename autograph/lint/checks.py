"""The rule checks, run only over the subtrees of staged functions."""

from __future__ import annotations

import dataclasses
from typing import Iterable, Iterator

import libcst as cst

from . import scopes
from .index import ModuleIndex, StagedFunction, dotted, target_names
from .scopes import Scope, collect_scope, is_constant, name_reads, root_name

# Methods that mutate the object they are called on (lists, dicts, sets, deques).
MUTATORS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "remove",
        "pop",
        "clear",
        "update",
        "setdefault",
        "popitem",
        "add",
        "discard",
        "sort",
        "reverse",
        "appendleft",
        "extendleft",
        "difference_update",
        "intersection_update",
        "symmetric_difference_update",
        "__setitem__",
        "__delitem__",
    }
)
# mutators of Python containers that arrays do not have (an array argument written in place
# is staged: `x.sort()` and item assignment are not reported for arguments)
CONTAINER_MUTATORS = MUTATORS - {"sort", "__setitem__", "__delitem__"}
LOG_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"}
)
LOGGER_NAMES = frozenset({"logger", "log", "_logger", "_log", "LOGGER", "LOG", "_LOGGER", "_LOG"})
# Calls whose result differs between calls (RUN_TIME ones are made on every call by converted code).
NONDETERMINISTIC_PREFIXES = ("numpy.random.", "random.", "time.", "secrets.")
RUN_TIME = ("numpy.random.", "random.") + tuple(
    f"time.{c}{ns}("
    for c in ("time", "perf_counter", "monotonic", "process_time", "thread_time")
    for ns in ("", "_ns")
)
NONDETERMINISTIC = frozenset(
    {
        "datetime.datetime.now",
        "datetime.datetime.utcnow",
        "datetime.datetime.today",
        "datetime.date.today",
        "uuid.uuid1",
        "uuid.uuid4",
        "os.urandom",
        "os.getpid",
        "os.times",
    }
)
ARRAY_CONSTRUCTORS = frozenset({"numpy.array", "numpy.asarray", "numpy.asanyarray"})
RUN_TIME_CONTEXTS = frozenset({"warnings.catch_warnings", "contextlib.suppress"})
MUTABLE_FACTORIES = frozenset(
    {
        "list",
        "dict",
        "set",
        "bytearray",
        "collections.defaultdict",
        "collections.OrderedDict",
        "collections.deque",
        "collections.Counter",
    }
)


@dataclasses.dataclass
class Fix:
    """A safe rewrite attached to a finding: `kind` is "print" or "default"."""

    kind: str
    node: cst.CSTNode  # the print Call, or the mutable default's Param
    function: cst.FunctionDef | None = None


@dataclasses.dataclass
class RawFinding:
    """A finding before its position is known: the node, the message key and fields."""

    code: str
    node: cst.CSTNode
    key: str
    fields: dict[str, object]
    line_of: dict[str, cst.CSTNode] = dataclasses.field(default_factory=dict)
    fix: Fix | None = None
    top: cst.BaseStatement | None = None  # the module-level statement `node` is in


class FunctionChecker(cst.CSTVisitor):
    """Visit one staged function's body and record raw findings."""

    def __init__(
        self,
        index: ModuleIndex,
        staged: StagedFunction,
        staged_ids: set[int],
        out: list[RawFinding],
    ) -> None:
        self.index = index
        self.staged = staged
        self.func = staged.node.name.value
        self.staged_ids = staged_ids
        self.out = out
        self.stack: list[Scope] = []
        self.mutable_defaults: set[str] = set()  # parameters AG008 reports
        self.conditional = 0
        self.targets: set[int] = set()  # Name nodes that are not reads
        self.reported_reads: set[str] = set()
        self.top = index.top_statement(staged.node)

    def run(self) -> None:
        node = self.staged.node
        self.stack.append(collect_scope(node))
        self._check_signature(node)
        node.body.visit(self)
        self.stack.pop()

    def report(
        self,
        code: str,
        node: cst.CSTNode,
        key: str | None = None,
        fix: Fix | None = None,
        line_of: dict[str, cst.CSTNode] | None = None,
        **fields: object,
    ) -> None:
        fields.setdefault("func", self.func)
        self.out.append(RawFinding(code, node, key or code, fields, line_of or {}, fix, self.top))

    # name resolution
    def resolve(self, name: str) -> tuple[str, Scope | None]:
        return scopes.resolve(self.stack, name)

    def is_self(self, name: str) -> bool:
        kind, scope = self.resolve(name)
        return kind == "param" and scope is self.stack[0] and name == self.staged.self_name

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
            if (
                kind == "local"
                and scope is not None
                and not all(v is not None and is_constant(v) for v in scope.bound[name.value])
            ):
                return name.value
        return None

    def is_variable_call(self, expr: cst.BaseExpression | None) -> bool:
        return isinstance(expr, cst.Call) and self.index.qualname(expr.func) == "staging.Variable"

    # signature-level rules
    def _check_signature(self, node: cst.FunctionDef) -> None:
        if node.asynchronous is not None:
            self.report("AG010", node.name, "AG010-async")
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.default is not None and self._is_mutable(param.default):
                self.mutable_defaults.add(param.name.value)  # (AG008's: not AG001 as well)
                fixable = isinstance(node.body, cst.IndentedBlock)
                self.report(
                    "AG008",
                    param.default,
                    name=param.name.value,
                    fix=Fix("default", param, node) if fixable else None,
                )

    def _is_mutable(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)):
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

    def _store(
        self, target: cst.BaseExpression, value: cst.BaseExpression | None, how: str
    ) -> None:
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
            if (
                func.value in self.staged.names
                and self.staged.self_name is None
                and self.resolve(func.value)[0] == "free"
            ):
                self.report("AG007", node)
        elif isinstance(func, cst.Attribute):
            self._check_method_call(node, func)
        if qualified is not None:
            self._check_qualified_call(node, func, qualified)

    def _check_print(self, node: cst.Call, func: cst.Name) -> None:
        """A print in a function staged with autograph=False runs while tracing only (converted
        code stages every print: it prints on every call, as staging.print does)."""
        if func.value != "print" or "print" in self.index.bindings or self.staged.autograph:
            return
        if self.resolve("print")[0] != "free":
            return
        fixable = all(
            arg.keyword is None or arg.keyword.value in ("sep", "end") for arg in node.args
        )
        fix = Fix("print", node) if fixable else None
        self.report("AG002", node, "AG002-print-noautograph", fix=fix)

    def _check_argument_mutation(self, node: cst.Call, name: str, how: str) -> None:
        """A list, dict or set passed in and changed by a container method: the trace is
        refused (staging.effects.trace_effects): the caller's container would never change."""
        kind, scope = self.resolve(name)
        rebound = scope is not None and name in scope.bound  # (`acc = []` when None is given)
        reported = name in self.mutable_defaults
        if kind == "param" and not rebound and not reported and not self.is_self(name):
            self.report("AG001", node, "AG001-argument", name=name, how=how)

    def _check_mutation(self, node: cst.Call, func: cst.Attribute, attr: str, root) -> bool:
        """AG001 / AG009 for a container method changing an outer object or an argument; True
        for a module's function of a mutator's name (`np.sort(...)`: nothing more to check)."""
        if attr in MUTATORS and root is not None and self.is_outer(root.value):
            if self.index.qualname(root) is not None:
                return True  # a module: `np.sort(...)` is no mutation
            name = dotted(func.value) or root.value
            how = f".{attr}()"
            if any(self.is_computed(arg.value) for arg in node.args):
                self.report("AG009", node, "AG009-object", name=name, how=how)
            else:
                self.report("AG001", node, "AG001-object", name=name, how=how)
        elif attr in CONTAINER_MUTATORS and isinstance(func.value, cst.Name):
            self._check_argument_mutation(node, func.value.value, f".{attr}()")
        return False

    def _check_method_call(self, node: cst.Call, func: cst.Attribute) -> None:
        attr = func.attr.value
        root = root_name(func.value)
        if (
            self.staged.self_name is not None
            and isinstance(func.value, cst.Name)
            and attr in self.staged.names
            and self.is_self(func.value.value)
        ):
            self.report("AG007", node)
        if self._check_mutation(node, func, attr, root):
            return
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

    def _bound_to_call(
        self, name: str, qualnames: Iterable[str] | None = None, prefixes: tuple[str, ...] = ()
    ) -> bool:
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

    def _check_qualified_call(
        self, node: cst.Call, func: cst.BaseExpression, qualified: str
    ) -> None:
        source = dotted(func) or qualified
        root = root_name(func)
        if root is not None and self.resolve(root.value)[0] != "free":
            return  # shadowed by a local or parameter
        if qualified == "staging.Variable":
            if len(self.stack) == 1 and self.conditional == 0:
                self.report("AG004", node)
            return
        if qualified.startswith("logging.") and qualified.split(".")[-1] in LOG_METHODS:
            self.report("AG002", node, "AG002-logging", name=source)
        elif qualified == "warnings.warn":
            self.report("AG002", node, "AG002-logging", name=source)
        elif (
            qualified.startswith(NONDETERMINISTIC_PREFIXES) or qualified in NONDETERMINISTIC
        ) and not (
            self.staged.autograph and (qualified + "(").startswith(RUN_TIME)
        ):  # converted: staged
            self.report(
                "AG003",
                node,
                "AG003-noautograph" if (qualified + "(").startswith(RUN_TIME) else "AG003",
                name=source,
            )

    def leave_Call(self, original_node: cst.Call) -> None:
        func = (
            original_node.func
        )  # `rng.normal(...)` on a module-level generator: staged when converted
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and not self.staged.autograph
            and self._bound_to_call(func.value.value, prefixes=NONDETERMINISTIC_PREFIXES)
        ):
            self.report("AG003", original_node, "AG003-noautograph", name=dotted(func))

    # AG004 is in _check_qualified_call; AG005: loops that unroll
    def visit_For(self, node: cst.For) -> None:
        self.targets.update(id(n) for n in target_names(node.target))
        what = self._unrolled(node.iter)
        if what is not None:
            self.report("AG005", node.iter, what=what)

    def _unrolled(self, expr: cst.BaseExpression) -> str | None:  # noqa: C901
        if isinstance(expr, cst.Call):
            name = dotted(expr.func)
            if name in ("enumerate", "reversed", "sorted", "list", "tuple", "zip") and (
                self.resolve(name)[0] == "free"
            ):
                for arg in expr.args:
                    what = self._unrolled(arg.value)
                    if what is not None:
                        return what
                return None
            if (
                isinstance(expr.func, cst.Attribute)
                and not expr.args
                and expr.func.attr.value in ("items", "keys", "values")
            ):
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
        if (
            isinstance(expr, cst.Call)
            and expr.args
            and self.index.qualname(expr.func) in ARRAY_CONSTRUCTORS
            and isinstance(expr.args[0].value, (cst.List, cst.Tuple))
        ):
            return "NumPy array"
        return None

    # AG010: constructs the converter rejects
    def visit_Yield(self, node: cst.Yield) -> None:
        if len(self.stack) == 1:
            name = "yield from" if isinstance(node.value, cst.From) else "yield"
            self.report("AG010", node, "AG010-yield", name=name)

    # Refused while tracing: a try/except (its clauses may catch what staged code raises at
    # run time) and a `with` of a NumPy run-time context, around staged code.
    def visit_Try(self, node: cst.Try | cst.TryStar) -> None:
        if node.handlers:
            self._check_block(node, "try")

    visit_TryStar = visit_Try

    def visit_With(self, node: cst.With) -> None:
        names = [
            self.index.qualname(i.item.func) for i in node.items if isinstance(i.item, cst.Call)
        ]
        for name in (n for n in names if n in RUN_TIME_CONTEXTS):
            return self._check_block(node, f"with {name}")

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
        if isinstance(
            block, (cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase)
        ):
            block = block.body
        if not isinstance(block, cst.IndentedBlock):
            continue
        for stmt in block.body:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue
            if isinstance(stmt, cst.BaseCompoundStatement):
                yield stmt
                yield from _statements_inside(stmt)
