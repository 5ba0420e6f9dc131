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


class _Dispatch:
    # True: generic_visit descends only into statement lists (bodies, handlers, cases), never
    # into expressions, for converters that rewrite statements only.
    statements_only = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._methods = {}
        cls._fields_of = staticmethod(statement_fields if cls.statements_only else child_fields)

    def _method(self, cls):
        methods = type(self)._methods
        m = methods.get(cls, False)
        if m is False:
            m = getattr(type(self), "visit_" + cls.__name__, None)
            if m is None and not self._fields_of(cls):
                m = None  # nothing inside to visit
            elif m is None:
                m = type(self).generic_visit
            methods[cls] = m
        return m


class Visitor(_Dispatch):
    """ast.NodeVisitor, faster."""

    def visit(self, node):
        try:
            m = self._methods[node.__class__]
        except KeyError:
            m = self._method(node.__class__)
        if m is not None:
            return m(self, node)
        return None

    def generic_visit(self, node):
        for f in self._fields_of(node.__class__):
            v = getattr(node, f, None)
            if v.__class__ is list:
                for x in v:
                    if isinstance(x, _AST):
                        self.visit(x)
            elif isinstance(v, _AST):
                self.visit(v)


class Transformer(_Dispatch):
    """ast.NodeTransformer, faster."""

    def visit(self, node):
        try:
            m = self._methods[node.__class__]
        except KeyError:
            m = self._method(node.__class__)
        if m is not None:
            return m(self, node)
        return node

    def generic_visit(self, node):  # noqa: C901, PLR0912
        d = node.__dict__
        for f in self._fields_of(node.__class__):
            v = d.get(f)
            if v.__class__ is list:
                new = None
                for i, x in enumerate(v):
                    if not isinstance(x, _AST):
                        if new is not None:
                            new.append(x)
                        continue
                    r = self.visit(x)
                    if r is x:
                        if new is not None:
                            new.append(x)
                        continue
                    if new is None:
                        new = v[:i]
                    if r is None:
                        continue
                    if isinstance(r, _AST):
                        new.append(r)
                    else:
                        new.extend(r)
                if new is not None:
                    v[:] = new  # in place, like ast.NodeTransformer
            elif isinstance(v, _AST):
                r = self.visit(v)
                if r is not v:
                    if r is None:
                        del d[f]
                    else:
                        d[f] = r
        return node

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
