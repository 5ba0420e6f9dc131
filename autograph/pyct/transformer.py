"""Fast replacements for ast.NodeVisitor / ast.NodeTransformer.

Same protocol (visit_<Class> methods, generic_visit; a transformer's visit
may return a node, a list of nodes to splice into a list field, or None to
drop the node), but the method lookup is cached per class and the walk skips
what never holds statements or expressions: contexts, operators, names and
other scalar fields, and leaf nodes without a handler.
"""

from __future__ import annotations

import ast

_AST = ast.AST
# generic_visit recurses (the cheapest walk) up to this depth of nested generic walks, and walks
# deeper nodes without recursion (a sum of a thousand terms nests a thousand BinOp nodes)
RECURSIVE_DEPTH = 60
_SCALAR_FIELDS = frozenset(
    {
        "ctx",
        "op",
        "ops",
        "id",
        "arg",
        "attr",
        "name",
        "names",
        "type_comment",
        "kind",
        "level",
        "module",
        "conversion",
        "is_async",
        "simple",
        "asname",
    }
)
# Nodes with no children worth visiting.
_LEAVES = frozenset(
    {
        ast.Name,
        ast.Constant,
        ast.Pass,
        ast.Break,
        ast.Continue,
        ast.Global,
        ast.Nonlocal,
        ast.alias,
        ast.Load,
        ast.Store,
        ast.Del,
    }
)
_FIELDS: dict = {}
_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")
_STMT_FIELDS: dict = {}


def child_fields(cls) -> tuple:
    """The fields of `cls` that may hold nodes."""
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = (
            () if cls in _LEAVES else tuple(f for f in cls._fields if f not in _SCALAR_FIELDS)
        )
    return fields


def children(node) -> list:
    """The child nodes of `node` that may hold statements or expressions (ast.iter_child_nodes
    without contexts, operators and import aliases, which hold nothing), in field order."""
    found = []
    d = node.__dict__
    for f in child_fields(node.__class__):
        v = d.get(f)
        if v.__class__ is list:
            found.extend(x for x in v if isinstance(x, _AST))
        elif isinstance(v, _AST):
            found.append(v)
    return found


def walk(node, stop=()):
    """The nodes of `node`'s tree, `node` first (ast.walk without contexts, operators and
    import aliases; depth first, the siblings in no particular order): one stack, no
    generator per node. The children of a node of the classes `stop` are not walked (the
    node itself is)."""
    stack = [node]
    pop, push, fields = stack.pop, stack.extend, _FIELDS
    while stack:
        n = pop()
        if not isinstance(n, _AST):  # (None in a Dict's keys, str in a MatchClass's names)
            continue
        yield n
        cls = n.__class__
        names = fields.get(cls)
        if names is None:
            names = child_fields(cls)
        if not names or (stop and isinstance(n, stop)):
            continue
        d = n.__dict__
        for f in names:
            v = d.get(f)
            if v.__class__ is list:
                push(v)
            elif v is not None:
                stack.append(v)


def statement_fields(cls) -> tuple:
    """The fields of `cls` that hold statement lists (or except handlers / match cases)."""
    fields = _STMT_FIELDS.get(cls)
    if fields is None:
        fields = ()
        if issubclass(cls, (ast.stmt, ast.excepthandler, ast.match_case)):
            fields = tuple(
                f for f in _BLOCK_FIELDS if f in cls._fields and cls not in (ast.Lambda, ast.IfExp)
            )
        _STMT_FIELDS[cls] = fields
    return fields


class _Leave:
    """A `leave_<Class>` method: called after the node's children were visited (by the walk,
    without recursion), with the node; what it returns replaces the node."""

    __slots__ = ("method",)

    def __init__(self, method):
        self.method = method


class _Dispatch:
    # True: generic_visit descends only into statement lists (bodies, handlers, cases), never
    # into expressions, for converters that rewrite statements only.
    statements_only = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "visit" in cls.__dict__ and cls.__module__ != __name__:  # (the walk dispatches itself)
            raise TypeError(f"{cls.__name__} overrides visit: define visit_ or leave_ methods")
        cls._methods = {}
        cls._fields_of = staticmethod(statement_fields if cls.statements_only else child_fields)

    def _method(self, cls):
        methods = type(self)._methods
        m = methods.get(cls, False)
        if m is False:
            m = getattr(type(self), "visit_" + cls.__name__, None)
            leave = getattr(type(self), "leave_" + cls.__name__, None)
            if m is None and leave is not None:
                m = _Leave(leave)
            elif m is None and not self._fields_of(cls):
                m = None  # nothing inside to visit
            elif m is None:
                m = type(self).generic_visit
            methods[cls] = m
        return m


class Visitor(_Dispatch):
    """ast.NodeVisitor, faster. generic_visit walks nested nodes without recursion (a long sum
    is a chain of a thousand nested BinOp nodes): only visit_ methods add frames."""

    def visit(self, node):
        try:
            m = self._methods[node.__class__]
        except KeyError:
            m = self._method(node.__class__)
        if m is None:
            return None
        if m.__class__ is _Leave:
            self.generic_visit(node)
            return m.method(self, node)
        return m(self, node)

    _depth = 0  # generic_visit calls on the stack (recursive ones, while it is shallow)

    def generic_visit(self, node):
        """Visits the children of `node` in order. Recursively while the walk is shallow (the
        cheapest walk); deeper, without recursion (_walk)."""
        if self._depth > RECURSIVE_DEPTH:
            return self._walk(node)
        self._depth += 1
        for f in self._fields_of(node.__class__):
            v = getattr(node, f, None)
            if v.__class__ is list:
                for x in v:
                    if isinstance(x, _AST):
                        self.visit(x)
            elif isinstance(v, _AST):
                self.visit(v)
        self._depth -= 1
        return None

    def _walk(self, node):
        """generic_visit without recursion: a child without a visit_ method is walked here, its
        children before the next sibling (as recursion would), on an explicit stack."""
        methods, method = self._methods, self._method
        stack = [(node, None)]  # nodes whose children are to be visited; (node, call) in turn
        while stack:
            n, call = stack.pop()
            if call is not None:
                call.method(self, n)
                continue
            for x in reversed(self._children(n)):
                try:
                    m = methods[x.__class__]
                except KeyError:
                    m = method(x.__class__)
                if m is _VISITOR_GENERIC:
                    stack.append((x, None))
                elif m.__class__ is _Leave:
                    stack.append((x, m))
                    stack.append((x, None))
                elif m is not None:
                    stack.append((x, _Call(m)))
        return None

    def _children(self, node) -> list:
        children = []
        for f in self._fields_of(node.__class__):
            v = getattr(node, f, None)
            if v.__class__ is list:
                children.extend(x for x in v if isinstance(x, _AST))
            elif isinstance(v, _AST):
                children.append(v)
        return children


class _Call:
    """A child with a visit_ method, in the Visitor's walk: called in its turn."""

    __slots__ = ("method",)

    def __init__(self, visit):
        self.method = visit


class Transformer(_Dispatch):
    """ast.NodeTransformer, faster. generic_visit walks nested nodes without recursion (a long
    sum is a chain of a thousand nested BinOp nodes): only visit_ methods add frames; a
    leave_<Class> method, called after the node's children were visited, adds none."""

    def visit(self, node):
        try:
            m = self._methods[node.__class__]
        except KeyError:
            m = self._method(node.__class__)
        if m is None:
            return node
        if m.__class__ is _Leave:
            self.generic_visit(node)
            return m.method(self, node)
        return m(self, node)

    _depth = 0  # generic_visit calls on the stack (recursive ones, while it is shallow)

    def generic_visit(self, node):
        """Visits the children of `node`, replacing each by what its visit returns (a node, a
        list to splice, None to drop it: _fields). Recursively while the walk is shallow (the
        cheapest walk); deeper, without recursion (_walk)."""
        if self._depth > RECURSIVE_DEPTH:
            return self._walk(node)
        self._depth += 1
        d = node.__dict__
        for f in self._fields_of(node.__class__):
            v = d.get(f)
            if v.__class__ is list:
                self._visit_list(v)
            elif isinstance(v, _AST):
                _replace_field(d, f, v, self.visit(v))
        self._depth -= 1
        return node

    def _visit_list(self, v) -> None:
        """Visits the nodes of list field `v`, splicing in what each visit gives (as _fields
        does, with calls instead of a generator: the walk of shallow trees)."""
        new, visit = None, self.visit
        for i, x in enumerate(v):
            new = _spliced(new, v, i, x, visit(x) if isinstance(x, _AST) else x)
        if new is not None:
            v[:] = new  # in place, like ast.NodeTransformer

    def _walk(self, node):
        """generic_visit without recursion: a child without a visit_ method is walked here, its
        children before the next sibling (as recursion would), each node's walk a suspended
        generator on an explicit stack."""
        methods, method = self._methods, self._method
        stack = [(self._fields(node), node, None)]
        result = None  # what the walk of the child the top generator yielded gave
        while stack:
            walk, n, leave = stack[-1]
            try:
                child = walk.send(result)
            except StopIteration:
                stack.pop()
                result = leave.method(self, n) if leave is not None else n
                continue
            try:
                m = methods[child.__class__]
            except KeyError:
                m = method(child.__class__)
            if m is _TRANSFORMER_GENERIC:
                stack.append((self._fields(child), child, None))
                result = None
            elif m.__class__ is _Leave:
                stack.append((self._fields(child), child, m))
                result = None
            else:
                result = child if m is None else m(self, child)
        return node

    def _fields(self, node):
        """Replaces the children of `node` (a generator: it yields each child and is sent back
        what visiting it gave: the same node, another, a list to splice, or None to drop it)."""
        d = node.__dict__
        for f in self._fields_of(node.__class__):
            v = d.get(f)
            if v.__class__ is list:
                new = None
                for i, x in enumerate(v):
                    new = _spliced(new, v, i, x, (yield x) if isinstance(x, _AST) else x)
                if new is not None:
                    v[:] = new  # in place, like ast.NodeTransformer
            elif isinstance(v, _AST):
                _replace_field(d, f, v, (yield v))

    def methods_only(self, node):
        """For visit_ClassDef: a class body is left as written (it runs once, when the class
        is created); the functions defined in it are visited."""
        body = []
        for s in node.body:
            r = (
                self.visit(s)
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                else s
            )
            body.extend(r if isinstance(r, list) else [r])
        node.body = body
        return node


_VISITOR_GENERIC = Visitor.generic_visit
_TRANSFORMER_GENERIC = Transformer.generic_visit


def _spliced(new, v, i, x, r):
    """The replacement list of list field `v` (None while nothing changed) after item `x`
    (v[i]) was visited and gave `r`: the same node, another, a list to splice, or None to drop
    it."""
    if r is x:
        if new is not None:
            new.append(x)
        return new
    if new is None:
        new = v[:i]
    if r is not None:
        if isinstance(r, _AST):
            new.append(r)
        else:
            new.extend(r)
    return new


def _replace_field(d: dict, field: str, old, r) -> None:
    """Node field `field` (in the node's __dict__ `d`), which held `old`, after its visit gave
    `r`: replaced, or dropped for None."""
    if r is old:
        return
    if r is None:
        del d[field]
    else:
        d[field] = r
