"""Code templates: readable source snippets whose placeholder names are replaced by AST pieces."""

from __future__ import annotations

import textwrap

import gast

_PARSED: dict[str, list] = {}


def _copy(node, lineno):
    """Copies a template node; every copied statement gets the origin's line number."""
    if isinstance(node, list):
        return [_copy(n, lineno) for n in node]
    if not isinstance(node, gast.AST):
        return node
    new = type(node)(**{f: _copy(getattr(node, f), lineno) for f in node._fields})
    if isinstance(node, (gast.stmt, gast.expr)):
        new.lineno = lineno
        new.col_offset = 0
    return new


class _Replacer(gast.NodeTransformer):
    def __init__(self, subs):
        self.subs = subs

    def _names(self, value, ctx):
        return [gast.Name(id=v, ctx=type(ctx)(), annotation=None, type_comment=None)
                if isinstance(v, str) else v for v in value]

    def visit_Name(self, node):
        value = self.subs.get(node.id)
        if value is None:
            return node
        if isinstance(value, str):
            node.id = value
            return node
        if isinstance(value, gast.AST):
            if hasattr(value, "ctx"):
                value.ctx = type(node.ctx)()
            return value
        raise ValueError(f"placeholder {node.id!r} cannot take a list here")

    def _splice(self, elts, ctx):
        out = []
        for e in elts:
            if isinstance(e, gast.Name) and isinstance(self.subs.get(e.id), (list, tuple)):
                out.extend(self._names(self.subs[e.id], ctx))
            else:
                out.append(self.visit(e))
        return out

    def visit_Tuple(self, node):
        node.elts = self._splice(node.elts, node.ctx)
        return node

    visit_List = visit_Tuple

    def visit_Call(self, node):
        node.func = self.visit(node.func)
        node.args = self._splice(node.args, gast.Load())
        node.keywords = [self.visit(k) for k in node.keywords]
        return node

    def visit_arguments(self, node):
        args = []
        for a in node.args:
            value = self.subs.get(a.id)
            if isinstance(value, (list, tuple)):
                args.extend(gast.Name(id=v, ctx=gast.Param(), annotation=None, type_comment=None)
                            for v in value)
            else:
                args.append(self.visit(a))
        node.args = args
        return node

    def visit_FunctionDef(self, node):
        value = self.subs.get(node.name)
        if isinstance(value, str):
            node.name = value
        node.args = self.visit(node.args)
        node.body = self._stmts(node.body)
        return node

    def _stmts(self, stmts):
        out = []
        for s in stmts:
            if (isinstance(s, gast.Expr) and isinstance(s.value, gast.Name)
                    and isinstance(self.subs.get(s.value.id), list)):
                out.extend(self.subs[s.value.id])
            else:
                r = self.visit(s)
                out.extend(r if isinstance(r, list) else [r])
        return out

    def generic_visit(self, node):
        for field in node._fields:
            old = getattr(node, field)
            if isinstance(old, list) and old and isinstance(old[0], gast.stmt):
                setattr(node, field, self._stmts(old))
            elif isinstance(old, list):
                setattr(node, field, [self.visit(x) if isinstance(x, gast.AST) else x for x in old])
            elif isinstance(old, gast.AST):
                setattr(node, field, self.visit(old))
        return node


def replace(template: str, origin=None, **subs) -> list:
    """Parses `template` (cached) and substitutes placeholders.

    A value may be a str (renames the name), an AST expression (replaces the
    name), a list of statements (replaces a placeholder statement) or a list of
    str (expands into several names in a tuple, call or parameter list).
    Statements created from the template carry the line of `origin`.
    """
    body = _PARSED.get(template)
    if body is None:
        body = gast.parse(textwrap.dedent(template)).body
        _PARSED[template] = body
    lineno = getattr(origin, "lineno", 1)
    nodes = _copy(body, lineno)
    replacer = _Replacer(subs)
    return replacer._stmts(nodes)


def replace_as_expression(template: str, origin=None, **subs):
    """Like replace(), for a template that is one expression; returns the expression."""
    stmt, = replace(template, origin, **subs)
    return stmt.value


def name(id_, ctx=None):
    """A gast Name node."""
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def str_tuple(names):
    """A tuple literal of string constants, e.g. ('i', 'total')."""
    return gast.Tuple(elts=[gast.Constant(value=n, kind=None) for n in names], ctx=gast.Load())


def name_tuple(names, ctx=None):
    """A tuple of names, e.g. (i, total)."""
    ctx = ctx or gast.Load()
    return gast.Tuple(elts=[name(n, type(ctx)()) for n in names], ctx=ctx)
