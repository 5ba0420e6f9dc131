"""Code templates: readable source snippets whose placeholder names are replaced by AST pieces."""

from __future__ import annotations

import ast
import textwrap

_PARSED: dict[str, list] = {}
_AST = ast.AST
_Name, _arg, _Expr, _FunctionDef = ast.Name, ast.arg, ast.Expr, ast.FunctionDef
_Tuple, _List, _Call, _arguments = ast.Tuple, ast.List, ast.Call, ast.arguments
_POSITIONED: dict = {}
_LOAD, _STORE, _DEL = ast.Load(), ast.Store(), ast.Del()
_CTX = {ast.Load: "_LOAD", ast.Store: "_STORE", ast.Del: "_DEL"}


def _positioned(cls) -> bool:
    p = _POSITIONED.get(cls)
    if p is None:
        p = _POSITIONED[cls] = "lineno" in cls._attributes
    return p


# -- a template is compiled once into a Python function that builds its nodes --------------
#
# `build(subs, L)` returns the template's statements with the placeholders of `subs`
# substituted; every node it creates has line L (column 0).


def _name(subs, id_, ctx, L):
    value = subs.get(id_)
    if value is None:
        return ast.Name(id=id_, ctx=ctx, lineno=L, col_offset=0, end_lineno=L, end_col_offset=0)
    if value.__class__ is str:
        return ast.Name(id=value, ctx=ctx, lineno=L, col_offset=0, end_lineno=L, end_col_offset=0)
    if isinstance(value, _AST):
        if hasattr(value, "ctx"):
            value.ctx = ctx.__class__()
        return value
    raise ValueError(f"placeholder {id_!r} cannot take a list here")


def _names(subs, id_, ctx, L):
    """A Name in a tuple, list or call arguments: a list of str or nodes expands in place."""
    value = subs.get(id_)
    if value.__class__ in (list, tuple):
        return [
            ast.Name(
                id=v, ctx=ctx.__class__(), lineno=L, col_offset=0, end_lineno=L, end_col_offset=0
            )
            if v.__class__ is str
            else v
            for v in value
        ]
    return [_name(subs, id_, ctx, L)]


def _params(subs, id_, L):
    value = subs.get(id_)
    if value.__class__ in (list, tuple):
        names = value
    else:
        names = [value if value.__class__ is str else id_]
    return [
        ast.arg(
            arg=v,
            annotation=None,
            type_comment=None,
            lineno=L,
            col_offset=0,
            end_lineno=L,
            end_col_offset=0,
        )
        for v in names
    ]


def _stmt(subs, id_, L):
    """A statement that is only a name: a list of statements replaces it."""
    value = subs.get(id_)
    if value.__class__ is list:
        return value
    return [
        ast.Expr(
            value=_name(subs, id_, _LOAD, L), lineno=L, col_offset=0, end_lineno=L, end_col_offset=0
        )
    ]


def _rename(subs, name):
    value = subs.get(name)
    return value if value.__class__ is str else name


_HELPERS = {
    "_name": _name,
    "_names": _names,
    "_params": _params,
    "_stmt": _stmt,
    "_rename": _rename,
    "_LOAD": _LOAD,
    "_STORE": _STORE,
    "_DEL": _DEL,
    "ast": ast,
}


def _emit(node, splice=False) -> str:  # noqa: C901
    """Python source of an expression that builds `node` (a `*list` element when `splice`)."""
    cls = node.__class__
    if cls is _Name:
        ctx = _CTX[node.ctx.__class__]
        if splice:
            return f"*_names(subs, {node.id!r}, {ctx}, L)"
        return f"_name(subs, {node.id!r}, {ctx}, L)"
    if cls is _arg:
        return f"*_params(subs, {node.arg!r}, L)"
    if cls is _Expr and node.value.__class__ is _Name and splice:
        return f"*_stmt(subs, {node.value.id!r}, L)"
    parts = []
    for f in cls._fields:
        v = getattr(node, f, None)
        if f == "ctx":
            code = _CTX[v.__class__]
        elif v.__class__ is list:
            inner = (
                cls in (_Tuple, _List)
                and f == "elts"
                or cls is _Call
                and f == "args"
                or cls is _arguments
                and f == "args"
                or bool(v)
                and isinstance(v[0], ast.stmt)
            )
            code = (
                "["
                + ", ".join(_emit(x, inner) if isinstance(x, _AST) else repr(x) for x in v)
                + "]"
            )
        elif isinstance(v, _AST):
            code = _emit(v)
        elif f == "name" and cls is _FunctionDef:
            code = f"_rename(subs, {v!r})"
        else:
            code = repr(v)
        parts.append(f"{f}={code}")
    if _positioned(cls):
        parts.append("lineno=L, col_offset=0, end_lineno=L, end_col_offset=0")
    return f"ast.{cls.__name__}({', '.join(parts)})"


def _compile(template: str):
    body = ast.parse(textwrap.dedent(template)).body
    source = "def build(subs, L):\n    return [" + ", ".join(_emit(s, True) for s in body) + "]\n"
    namespace = dict(_HELPERS)
    exec(compile(source, "<autograph template>", "exec"), namespace)
    return namespace["build"]


def replace(template: str, origin=None, **subs) -> list:
    """Parses `template` (cached) and substitutes placeholders.

    A value may be a str (renames the name), an AST expression (replaces the
    name), a list of statements (replaces a placeholder statement) or a list of
    str (expands into several names in a tuple, call or parameter list).
    Statements created from the template carry the line of `origin`.
    """
    build = _PARSED.get(template)
    if build is None:
        build = _PARSED[template] = _compile(template)
    return build(subs, getattr(origin, "lineno", 1))


def replace_as_expression(template: str, origin=None, **subs):
    """Like replace(), for a template that is one expression; returns the expression."""
    (stmt,) = replace(template, origin, **subs)
    return stmt.value


def name(id_, ctx=None, lineno=1):
    """An ast Name node (on line `lineno`)."""
    return ast.Name(
        id=id_,
        ctx=ctx or ast.Load(),
        lineno=lineno,
        col_offset=0,
        end_lineno=lineno,
        end_col_offset=0,
    )


def str_tuple(names, lineno=1):
    """A tuple literal of string constants, e.g. ('i', 'total')."""
    return ast.Tuple(
        elts=[
            ast.Constant(
                value=n, kind=None, lineno=lineno, col_offset=0, end_lineno=lineno, end_col_offset=0
            )
            for n in names
        ],
        ctx=ast.Load(),
        lineno=lineno,
        col_offset=0,
        end_lineno=lineno,
        end_col_offset=0,
    )


def name_tuple(names, ctx=None, lineno=1):
    """A tuple of names, e.g. (i, total)."""
    ctx = ctx or ast.Load()
    return ast.Tuple(
        elts=[name(n, type(ctx)(), lineno) for n in names],
        ctx=ctx,
        lineno=lineno,
        col_offset=0,
        end_lineno=lineno,
        end_col_offset=0,
    )
