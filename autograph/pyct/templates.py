"""Code templates: readable source snippets whose placeholder names are replaced by AST pieces."""

from __future__ import annotations

import ast
import textwrap

_PARSED: dict[str, list] = {}
_AST = ast.AST
_Name, _arg, _Expr, _FunctionDef = ast.Name, ast.arg, ast.Expr, ast.FunctionDef
_Tuple, _List, _Call, _arguments = ast.Tuple, ast.List, ast.Call, ast.arguments
_POSITIONED: dict = {}


def _positioned(cls) -> bool:
    p = _POSITIONED.get(cls)
    if p is None:
        p = _POSITIONED[cls] = "lineno" in cls._attributes
    return p


class _Builder:
    """Copies a parsed template, substituting placeholders on the way (one pass).

    Every copied node that has a position gets the origin's line (column 0)."""

    __slots__ = ("subs", "lineno")

    def __init__(self, subs, lineno):
        self.subs = subs
        self.lineno = lineno

    def _new(self, cls, fields):
        new = cls.__new__(cls)
        d = new.__dict__
        d.update(fields)
        if _positioned(cls):
            line = self.lineno
            d["lineno"] = d["end_lineno"] = line
            d["col_offset"] = d["end_col_offset"] = 0
        return new

    def _name_node(self, cls, name, ctx):
        if cls is _arg:
            return self._new(_arg, {"arg": name, "annotation": None, "type_comment": None})
        return self._new(_Name, {"id": name, "ctx": ctx.__class__()})

    def node(self, n):
        cls = n.__class__
        subs = self.subs
        if cls is _Name:
            value = subs.get(n.id)
            if value is None:
                return self._name_node(_Name, n.id, n.ctx)
            if value.__class__ is str:
                return self._name_node(_Name, value, n.ctx)
            if isinstance(value, _AST):
                if hasattr(value, "ctx"):
                    value.ctx = n.ctx.__class__()
                return value
            raise ValueError(f"placeholder {n.id!r} cannot take a list here")
        if cls is _arg:
            value = subs.get(n.arg)
            return self._name_node(_arg, value if value.__class__ is str else n.arg, None)
        fields = {}
        for f in cls._fields:
            v = getattr(n, f, None)
            if v.__class__ is list:
                if cls in (_Tuple, _List) and f == "elts" or cls is _Call and f == "args":
                    v = self._splice(v, getattr(n, "ctx", None))
                elif cls is _arguments and f == "args":
                    v = self._splice(v, None)
                elif v and isinstance(v[0], ast.stmt):
                    v = self.stmts(v)
                else:
                    v = [self.node(x) if isinstance(x, _AST) else x for x in v]
            elif isinstance(v, _AST):
                v = self.node(v)
            elif f == "name" and cls is _FunctionDef and subs.get(v).__class__ is str:
                v = subs[v]
            fields[f] = v
        return self._new(cls, fields)

    def _splice(self, elts, ctx):
        out = []
        for e in elts:
            key = e.id if e.__class__ is _Name else e.arg if e.__class__ is _arg else None
            value = self.subs.get(key) if key is not None else None
            if value.__class__ in (list, tuple):
                cls = e.__class__
                out.extend(self._name_node(cls, v, e.ctx if cls is _Name else None)
                           if v.__class__ is str else v for v in value)
            else:
                out.append(self.node(e))
        return out

    def stmts(self, stmts):
        out = []
        for s in stmts:
            if s.__class__ is _Expr and s.value.__class__ is _Name:
                value = self.subs.get(s.value.id)
                if value.__class__ is list:
                    out.extend(value)
                    continue
            out.append(self.node(s))
        return out


def replace(template: str, origin=None, **subs) -> list:
    """Parses `template` (cached) and substitutes placeholders.

    A value may be a str (renames the name), an AST expression (replaces the
    name), a list of statements (replaces a placeholder statement) or a list of
    str (expands into several names in a tuple, call or parameter list).
    Statements created from the template carry the line of `origin`.
    """
    body = _PARSED.get(template)
    if body is None:
        body = ast.parse(textwrap.dedent(template)).body
        _PARSED[template] = body
    return _Builder(subs, getattr(origin, "lineno", 1)).stmts(body)


def replace_as_expression(template: str, origin=None, **subs):
    """Like replace(), for a template that is one expression; returns the expression."""
    stmt, = replace(template, origin, **subs)
    return stmt.value


def name(id_, ctx=None):
    """An ast Name node."""
    return ast.Name(id=id_, ctx=ctx or ast.Load())


def str_tuple(names):
    """A tuple literal of string constants, e.g. ('i', 'total')."""
    return ast.Tuple(elts=[ast.Constant(value=n, kind=None) for n in names], ctx=ast.Load())


def name_tuple(names, ctx=None):
    """A tuple of names, e.g. (i, total)."""
    ctx = ctx or ast.Load()
    return ast.Tuple(elts=[name(n, type(ctx)()) for n in names], ctx=ctx)
