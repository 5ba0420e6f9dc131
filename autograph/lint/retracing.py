"""AG011 retracing-argument: a staged function called in a loop with an argument that is a new
trace key on every iteration, so that every iteration traces it again.

Python numbers are part of the trace key by value, and most other objects by identity. So a
staged function called in a loop with the loop counter, a Python float updated each iteration
(`lr *= 0.9`), or a new object (a lambda, an instance of a class of the module) traces once per
iteration. The fix is to pass the number as a NumPy value (`np.float64(lr)`: a graph input keyed
by dtype and shape), or to create the object once before the loop.

Unlike the other rules, this one looks at the code that calls staged functions: every loop and
comprehension of the module outside staged functions. Which names hold Python numbers is found
per scope, syntactically: names bound only to number literals, arithmetic on such names,
`int()` / `float()` / `round()` / `len()`, and the counters of `range()` / `enumerate()`.
"""

from __future__ import annotations

import libcst as cst

from .checks import RawFinding
from .index import ModuleIndex, dotted

CODE = "AG011"
_NUMBER_CALLS = frozenset({"int", "float", "round", "len"})
_NUMBER_PRESERVING_CALLS = frozenset({"abs", "min", "max"})
_KEYED_BY_STRUCTURE_BASES = frozenset({"NamedTuple", "typing.NamedTuple", "tuple"})


def check(index: ModuleIndex, out: list[RawFinding]) -> None:
    """Appends AG011 findings for `index`'s module to `out`."""
    plain = {
        name: s.node.name.value
        for s in index.staged
        if s.self_name is None
        for name in s.names
        if name != s.node.name.value or _def_name_is_staged(index, s.node)
    }
    methods = {s.node.name.value for s in index.staged if s.self_name is not None}
    if not plain and not methods:
        return
    visitor = _CallSites(index, plain, methods, _fresh_classes(index.module), out)
    visitor.numbers.append(_scope_numbers(index.module, None))
    for stmt in index.module.body:
        visitor.top = stmt
        stmt.visit(visitor)


def _def_name_is_staged(index: ModuleIndex, node: cst.FunctionDef) -> bool:
    """The name of a staged def calls the staged function: it is decorated, or rebound
    (`f = staging.function(f)`); after `g = staging.function(f)` only `g` is staged."""
    for decorator in node.decorators:
        expr = decorator.decorator
        if index.qualname(expr.func if isinstance(expr, cst.Call) else expr) == "staging.function":
            return True
    return any(
        b.value is not None and index._is_staging_function_call(b.value)  # noqa: SLF001
        for b in index.bindings.get(node.name.value, ())
    )


def _fresh_classes(module: cst.Module) -> frozenset[str]:
    """Module-level classes whose instances are trace keys by identity: not dataclasses or
    named tuples (keyed by structure) and defining neither __eq__ nor __tracing_type__."""
    names = set()
    for stmt in module.body:
        if not isinstance(stmt, cst.ClassDef):
            continue
        if any(
            "dataclass"
            in (
                dotted(d.decorator if not isinstance(d.decorator, cst.Call) else d.decorator.func)
                or ""
            )
            for d in stmt.decorators
        ):
            continue
        if any(dotted(base.value) in _KEYED_BY_STRUCTURE_BASES for base in stmt.bases):
            continue
        body = stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else ()
        if any(
            isinstance(s, cst.FunctionDef) and s.name.value in ("__eq__", "__tracing_type__")
            for s in body
        ):
            continue
        names.add(stmt.name.value)
    return frozenset(names)


def _is_number(expr: cst.BaseExpression, numbers: set[str]) -> bool:
    """`expr` evaluates to a Python number, given the names known to hold one."""
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary)):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in numbers
    if isinstance(expr, cst.UnaryOperation):
        return not isinstance(expr.operator, cst.Not) and _is_number(expr.expression, numbers)
    if isinstance(expr, cst.BinaryOperation):
        return _is_number(expr.left, numbers) and _is_number(expr.right, numbers)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name):
        if expr.func.value in _NUMBER_CALLS:
            return True
        if expr.func.value in _NUMBER_PRESERVING_CALLS:
            return bool(expr.args) and all(_is_number(a.value, numbers) for a in expr.args)
    return False


def _counter_targets(target: cst.BaseExpression, iterable: cst.BaseExpression):
    """(name, is a Python int counter) for each name a `for` target binds."""
    call = dotted(iterable.func) if isinstance(iterable, cst.Call) else None
    if isinstance(target, cst.Name):
        yield target.value, call == "range"
        return
    if isinstance(target, (cst.Tuple, cst.List)):
        for i, element in enumerate(target.elements):
            yield from (
                (n, call == "enumerate" and i == 0 and isinstance(element.value, cst.Name))
                for n in _names(element.value)
            )


def _names(target: cst.BaseExpression):
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _names(target.value)


class _Bindings(cst.CSTVisitor):
    """The name bindings of one scope (not of the functions, lambdas and classes in it):
    name -> list of ("value", expr) / ("counter", None) / ("other", None)."""

    def __init__(self) -> None:
        self.bound: dict[str, list[tuple[str, cst.BaseExpression | None]]] = {}

    def add(self, name: str, kind: str, value: cst.BaseExpression | None = None) -> None:
        self.bound.setdefault(name, []).append((kind, value))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.add(node.name.value, "other")
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.add(node.name.value, "other")
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.add(target.target.value, "value", node.value)
            else:
                for name in _names(target.target):
                    self.add(name, "other")

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.add(node.target.value, "value" if node.value is not None else "other", node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.add(node.target.value, "value", node.value)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if isinstance(node.target, cst.Name):
            self.add(node.target.value, "value", node.value)

    def visit_For(self, node: cst.For) -> None:
        for name, counter in _counter_targets(node.target, node.iter):
            self.add(name, "counter" if counter else "other")

    def visit_CompFor(self, node: cst.CompFor) -> None:
        for name, counter in _counter_targets(node.target, node.iter):
            self.add(name, "counter" if counter else "other")

    def visit_AsName(self, node: cst.AsName) -> None:
        for name in _names(node.name):
            self.add(name, "other")


def _scope_numbers(body: cst.CSTNode, params: cst.Parameters | None) -> set[str]:
    """Names of a scope bound only to Python numbers (the largest consistent set)."""
    collector = _Bindings()
    body.visit(collector)
    bound = collector.bound
    if params is not None:
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            bound.setdefault(param.name.value, []).append(("other", None))
    numbers = set(bound)
    while True:
        kept = {
            n
            for n in numbers
            if all(
                kind == "counter" or (kind == "value" and _is_number(value, numbers))
                for kind, value in bound[n]
            )
        }
        if kept == numbers:
            return numbers
        numbers = kept


def _changing(loop: cst.CSTNode) -> set[str]:
    """Names that a loop (or comprehension) binds anew on every iteration."""
    collector = _Bindings()
    if isinstance(loop, cst.For):
        collector.visit_For(loop)
        loop.body.visit(collector)
    elif isinstance(loop, cst.While):
        loop.body.visit(collector)
    else:
        loop.visit(collector)
    return set(collector.bound)


class _CallSites(cst.CSTVisitor):
    """Finds calls of staged functions inside loops, outside staged functions."""

    def __init__(
        self,
        index: ModuleIndex,
        plain: dict[str, str],
        methods: set[str],
        classes: frozenset[str],
        out: list[RawFinding],
    ) -> None:
        self.staged_ids = {id(s.node) for s in index.staged}
        self.plain, self.methods, self.classes, self.out = plain, methods, classes, out
        self.top: cst.BaseStatement | None = None
        self.numbers: list[set[str]] = []  # per scope: names holding Python numbers
        self.loops: list[set[str]] = []  # per enclosing loop: names changing per iteration
        self.fresh: list[set[str]] = []  # per enclosing loop: names bound to new objects

    # scopes
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if id(node) in self.staged_ids:
            return False  # a staged function's own loops may be staged: not call sites
        self.numbers.append(_scope_numbers(node.body, node.params))
        saved, self.loops, self.fresh = (self.loops, self.fresh), [], []
        node.body.visit(self)
        self.loops, self.fresh = saved
        self.numbers.pop()
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    # loops
    def _enter(self, loop: cst.CSTNode, body: cst.CSTNode | None = None) -> None:
        changing = _changing(loop)
        self.loops.append(changing | (self.loops[-1] if self.loops else set()))
        fresh = set()
        collector = _Bindings()
        (body or loop).visit(collector)
        for name, bindings in collector.bound.items():
            if any(kind == "value" and self._fresh_object(value) for kind, value in bindings):
                fresh.add(name)
        self.fresh.append(fresh | (self.fresh[-1] if self.fresh else set()))

    def _leave(self) -> None:
        self.loops.pop()
        self.fresh.pop()

    def visit_For(self, node: cst.For) -> None:
        self._enter(node, node.body)

    def leave_For(self, original_node: cst.For) -> None:
        self._leave()

    def visit_While(self, node: cst.While) -> None:
        self._enter(node, node.body)

    def leave_While(self, original_node: cst.While) -> None:
        self._leave()

    def _visit_comprehension(self, node) -> None:
        self._enter(node.for_in)

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._visit_comprehension(node)

    def leave_ListComp(self, original_node: cst.ListComp) -> None:
        self._leave()

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._visit_comprehension(node)

    def leave_SetComp(self, original_node: cst.SetComp) -> None:
        self._leave()

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._visit_comprehension(node)

    def leave_GeneratorExp(self, original_node: cst.GeneratorExp) -> None:
        self._leave()

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._visit_comprehension(node)

    def leave_DictComp(self, original_node: cst.DictComp) -> None:
        self._leave()

    # calls
    def _fresh_object(self, expr: cst.BaseExpression | None) -> bool:
        if isinstance(expr, cst.Lambda):
            return True
        return (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Name)
            and expr.func.value in self.classes
        )

    def _staged_name(self, func: cst.BaseExpression) -> str | None:
        if isinstance(func, cst.Name):
            return self.plain.get(func.value)
        if isinstance(func, cst.Attribute) and func.attr.value in self.methods:
            return func.attr.value
        return None

    def visit_Call(self, node: cst.Call) -> None:
        if not self.loops:
            return
        func = self._staged_name(node.func)
        if func is None:
            return
        changing, fresh, numbers = self.loops[-1], self.fresh[-1], self.numbers[-1]
        for arg in node.args:
            value = arg.value
            if isinstance(value, cst.Lambda) or self._fresh_object(value):
                what = "lambda" if isinstance(value, cst.Lambda) else f"{value.func.value} object"
                self._report(value, "AG011-object", func=func, what=what)
                continue
            if isinstance(value, cst.Name) and value.value in fresh:
                self._report(value, "AG011-object", func=func, what=f"object ('{value.value}')")
                continue
            if _is_number(value, numbers):
                changed = [
                    n.value
                    for n in _name_nodes(value)
                    if n.value in changing and n.value in numbers
                ]
                if changed:
                    self._report(value, "AG011-number", func=func, name=changed[0])

    def _report(self, node: cst.CSTNode, key: str, **fields: object) -> None:
        self.out.append(RawFinding(CODE, node, key, fields, {}, None, self.top))


def _name_nodes(expr: cst.CSTNode) -> list[cst.Name]:
    found: list[cst.Name] = []

    class _Collect(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            found.append(node)

    expr.visit(_Collect())
    return found
