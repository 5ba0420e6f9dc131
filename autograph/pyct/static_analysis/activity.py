"""Which names a piece of code reads and which it modifies (nested scopes excluded)."""

from __future__ import annotations

import ast

from autograph.pyct import transformer

_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


class _Activity(transformer.Visitor):
    def __init__(self):
        self.read = set()
        self.modified = set()

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self.read.add(node.id)
        else:  # Store, Del
            self.modified.add(node.id)

    def visit_arg(self, node):
        self.modified.add(node.arg)

    def visit_AugAssign(self, node):
        if isinstance(node.target, ast.Name):
            self.read.add(node.target.id)
        self.generic_visit(node)

    def _function(self, node):
        if not isinstance(node, ast.Lambda):
            self.modified.add(node.name)
            for d in node.decorator_list:
                self.visit(d)
        for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            self.visit(d)
        self.read |= free_reads(node)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_ClassDef(self, node):
        self.modified.add(node.name)
        for n in node.bases + node.keywords + node.decorator_list:
            self.visit(n)
        # The body runs in its own scope, at once: what it (or a method) reads from outside.
        inner = _Activity()
        for s in node.body:
            inner.visit(s)
        self.read |= inner.read

    # Names a `match` case pattern binds.
    def visit_MatchAs(self, node):
        if node.name is not None:
            self.modified.add(node.name)
        if node.pattern is not None:
            self.visit(node.pattern)

    def visit_MatchStar(self, node):
        if node.name is not None:
            self.modified.add(node.name)

    def visit_MatchMapping(self, node):
        if node.rest is not None:
            self.modified.add(node.rest)
        self.generic_visit(node)

    def _comprehension(self, node):
        inner = _Activity()
        for gen in node.generators:
            inner.visit(gen)
        for field in ("elt", "key", "value"):
            if hasattr(node, field):
                inner.visit(getattr(node, field))
        self.read |= inner.read - inner.modified
        # The first iterable is evaluated in the enclosing scope.
        self.visit(node.generators[0].iter)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_NamedExpr(self, node):
        self.modified.add(node.target.id)
        self.visit(node.value)

    def visit_Import(self, node):
        for alias in node.names:
            self.modified.add((alias.asname or alias.name).split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node):
        if node.name is not None:
            self.modified.add(node.name)
        if node.type is not None:
            self.visit(node.type)
        for s in node.body:
            self.visit(s)


def free_reads(fn_node) -> set:
    """Names a nested function or lambda reads from enclosing scopes."""
    inner = _Activity()
    args = fn_node.args
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            inner.modified.add(a.arg)
    body = fn_node.body if isinstance(fn_node.body, list) else [fn_node.body]
    for s in body:
        inner.visit(s)
    declared = set()
    for s in transformer.walk(fn_node):
        if s.__class__ is ast.Global or s.__class__ is ast.Nonlocal:
            declared.update(s.names)
    return (inner.read - inner.modified) | (inner.read & declared)


class _Bindings(_Activity):
    """The names code binds, only: a nested function binds its name (what it reads from
    outside, which _Activity works out by walking its body, is not needed)."""

    def _function(self, node):
        if not isinstance(node, ast.Lambda):
            self.modified.add(node.name)
            for d in node.decorator_list:
                self.visit(d)
        for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            self.visit(d)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def _comprehension(self, node):
        self.visit(node.generators[0].iter)  # (its targets are its own scope's)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension


# The node classes _Activity has a visit_ method for besides Name: scopes, bindings other than
# names, reads an AugAssign makes. A tree without them needs no visitor (_plain_activity).
_VISITED = frozenset(
    getattr(ast, name[len("visit_") :])
    for name in dir(_Activity)
    if name.startswith("visit_") and name != "visit_Name" and hasattr(ast, name[len("visit_") :])
)


def _plain_activity(node, read: set, modified: set) -> bool:
    """Adds the names `node` reads and binds, when its tree holds no node _Activity visits
    otherwise than by walking its children (most statements: assignments, calls, tests);
    False, having added nothing, when it does."""
    names = []
    for n in transformer.walk(node):
        cls = n.__class__
        if cls is ast.Name:
            names.append(n)
        elif cls in _VISITED:
            return False
    for n in names:
        (read if n.ctx.__class__ is ast.Load else modified).add(n.id)
    return True


def analyze(nodes) -> tuple[set, set]:
    """(read, modified) names of a node or a list of nodes."""
    a = _Activity()
    for n in nodes if isinstance(nodes, list) else [nodes]:
        if not _plain_activity(n, a.read, a.modified):
            a.visit(n)
    return a.read, a.modified


def modified(nodes) -> set:
    """The names a node or a list of nodes binds (nested scopes excluded)."""
    bindings = _Bindings()
    for n in nodes if isinstance(nodes, list) else [nodes]:
        bindings.visit(n)
    return bindings.modified


class StatementBindings:
    """modified() of lists of statements, each statement's names worked out once: for an
    analysis that asks about nested blocks again and again while the tree does not change."""

    def __init__(self):
        self._of: dict[int, frozenset] = {}  # id of a statement (kept alive by the tree)

    def __call__(self, stmts) -> set:
        found: set = set()
        for s in stmts:
            names = self._of.get(id(s))
            if names is None:
                names = self._of[id(s)] = frozenset(modified(s))
            found |= names
        return found


def read(nodes) -> set:
    return analyze(nodes)[0]


def declared_outer(fn_node) -> set:
    """Names declared `global` or `nonlocal` at the top scope of a function."""
    names = set()
    stack = list(fn_node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            names.update(n.names)
        elif not isinstance(n, _SCOPES):
            stack.extend(c for c in transformer.children(n) if isinstance(c, ast.stmt))
    return names
