"""Assignments to subscripts and attributes become `ag__.setitem` / `ag__.setattr` calls.

Writes to composite names then go through one place (operators/composites.py).

    d[k] = v            ->  d = ag__.setitem(d, k, v)
    x[:, 0] = v         ->  x = ag__.setitem(x, ag__.key[:, 0], v)
    self.count += 1     ->  ag__.setattr(self, 'count', ag__.iadd(self.count, 1))
    a, d[k] = pair      ->  a, item = pair
                            d = ag__.setitem(d, k, item)
    x[i] += v           ->  x = ag__.setitem(x, i, ag__.iadd(ag__.getitem(x, i), v))
    n += 1              ->  n = ag__.iadd(n, 1)
    self.w[i] = v       ->  ag__.setitem_into(self.w, i, v)
    row = out[i]        ->  out, row = ag__.take_view(out, i)   (items of `out` or `row`
                                                             are written somewhere)

A subscript write through a name of the function rebinds the name to what `ag__.setitem` gives
back: the object itself, or the staged value a NumPy array made while tracing becomes when it
receives one (staging.state.concrete_arrays); so does an augmented assignment to a name (which
Python's own rebinds anyway). In a branch or loop body function (or a function the user nested)
that does not bind the name itself, the name is declared `nonlocal`, so the rebinding reaches
the variable of the function that binds it. Names the converted function does not bind (globals,
variables of enclosing functions) are not rebound: `ag__.setitem_into` writes into them. A view
taken by indexing a name whose items the function writes (or writes through such views) makes
a NumPy array made while tracing a staged value there, so that the view follows later writes.

Python evaluates the value first, then the object and the key: when both the value and the
target hold calls, the value is bound to a temporary first. An augmented assignment reads,
applies the in-place operator (`ag__.iadd` is operator.iadd ...) and writes; an object or
key that is not a plain name is evaluated once, into a temporary.
"""

from __future__ import annotations

import ast

from autograph.pyct import templates, transformer
from autograph.pyct.static_analysis import activity, item_writes

_AUG = {
    ast.Add: "iadd",
    ast.Sub: "isub",
    ast.Mult: "imul",
    ast.MatMult: "imatmul",
    ast.Div: "itruediv",
    ast.FloorDiv: "ifloordiv",
    ast.Mod: "imod",
    ast.Pow: "ipow",
    ast.LShift: "ilshift",
    ast.RShift: "irshift",
    ast.BitAnd: "iand",
    ast.BitOr: "ior",
    ast.BitXor: "ixor",
}


def _composite(node) -> bool:
    return isinstance(node, (ast.Subscript, ast.Attribute))


def _has_composite(target) -> bool:
    if _composite(target):
        return True
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_has_composite(e) for e in target.elts)
    if isinstance(target, ast.Starred):
        return _has_composite(target.value)
    return False


def _plain(node) -> bool:
    """A name, a constant, or attributes of a name: evaluating it has no effect and gives the
    same value before and after evaluating another plain expression."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, (ast.Name, ast.Constant))


def _pure(node) -> bool:
    return all(
        not isinstance(n, (ast.Call, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom))
        for n in ast.walk(node)
    )


def _key(slice_node, origin):
    """The key of a subscript as an expression (slices through `ag__.key[...]`)."""
    if any(isinstance(n, ast.Slice) for n in ast.walk(slice_node)):
        return templates.replace_as_expression("ag__.key[k]", origin, k=slice_node)
    return slice_node


class _Scope:
    """A function of the converted code: the names it binds, those it declares global or
    nonlocal, and the names a rebinding write needs it to declare nonlocal."""

    __slots__ = ("node", "local", "globals", "nonlocals", "added")

    def __init__(self, node):
        self.node = node
        args = node.args
        params = {
            a.arg
            for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
            if a is not None
        }
        self.globals, self.nonlocals = set(), set()
        for n in _top_scope(node.body):
            if isinstance(n, ast.Global):
                self.globals.update(n.names)
            elif isinstance(n, ast.Nonlocal):
                self.nonlocals.update(n.names)
        self.local = (activity.modified(node.body) | params) - self.globals - self.nonlocals
        self.added: list = []


def _top_scope(body):
    """The statements of a function's own scope (not those of nested functions and classes)."""
    stack = list(body)
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(c for c in ast.iter_child_nodes(n) if isinstance(c, ast.stmt))
            for handler in getattr(n, "handlers", ()):
                stack.extend(handler.body)
            for case in getattr(n, "cases", ()):
                stack.extend(case.body)


class _Composite(transformer.Transformer):
    statements_only = True

    def __init__(self, ctx):
        self.ctx = ctx
        self.scopes: list[_Scope] = []  # the functions around the statement being converted
        self.written: set = set()  # the names the function writes items of, or through views

    def visit_FunctionDef(self, node):
        if not self.scopes:
            self.written = item_writes.written_through(node.body)
        scope = _Scope(node)
        self.scopes.append(scope)
        try:
            self.generic_visit(node)
        finally:
            self.scopes.pop()
        if scope.added:
            decl = ast.Nonlocal(names=sorted(scope.added))
            decl.lineno = node.lineno
            first = node.body[0] if node.body else None
            docstring = (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            )
            node.body.insert(1 if docstring else 0, decl)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def _rebinds(self, name: str) -> bool:
        """Whether a write through `name` may rebind it: it is bound by a function of the
        converted code (declaring it nonlocal where needed), not a global or a variable of a
        function outside it."""
        if not self.scopes:
            return False
        inner = self.scopes[-1]
        if name in inner.globals:
            return False
        if name in inner.local:
            return True
        for scope in reversed(self.scopes[:-1]):
            if name in scope.globals:
                return False
            if name in scope.local:
                if name not in inner.nonlocals and name not in inner.added:
                    inner.added.append(name)
                return True
        return False

    def _temp(self, base, value, origin):
        name = self.ctx.namer.new(base)
        assign = ast.Assign(
            targets=[templates.name(name, ast.Store())], value=value, type_comment=None
        )
        assign.lineno = origin.lineno
        return name, assign

    def _store(self, target, value, origin):
        """Statements storing `value` (an expression) into the composite `target`."""
        if isinstance(target, ast.Subscript):
            if isinstance(target.value, ast.Name) and self._rebinds(target.value.id):
                (stmt,) = templates.replace(
                    "obj = ag__.setitem(obj, key, value)",
                    origin,
                    obj=target.value.id,
                    key=_key(target.slice, origin),
                    value=value,
                )
                stmt.lineno = origin.lineno
                return stmt
            call = templates.replace_as_expression(
                "ag__.setitem_into(obj, key, value)",
                origin,
                obj=target.value,
                key=_key(target.slice, origin),
                value=value,
            )
        else:
            call = templates.replace_as_expression(
                "ag__.setattr(obj, name, value)",
                origin,
                obj=target.value,
                name=ast.Constant(value=target.attr, kind=None),
                value=value,
            )
        stmt = ast.Expr(value=call)
        stmt.lineno = origin.lineno
        return stmt

    def visit_Assign(self, node):
        view = item_writes.view_assignment(node)
        if view and view[1] in self.written and self._rebinds(view[1]):
            # `row = out[i]` where items of `out` (or of `row`) are written:
            # `out, row = ag__.take_view(out, i)`
            (stmt,) = templates.replace(
                "base, target = ag__.take_view(base, key)",
                node,
                base=view[1],
                target=view[0],
                key=_key(node.value.slice, node),
            )
            stmt.lineno = node.lineno
            return stmt
        if not any(_has_composite(t) for t in node.targets):
            return node
        if len(node.targets) == 1 and _composite(node.targets[0]):
            target = node.targets[0]
            parts = [target.value] + ([target.slice] if isinstance(target, ast.Subscript) else [])
            if _pure(node.value) or all(_plain(p) for p in parts):
                return self._store(target, node.value, node)
        out = []
        if (len(node.targets) == 1 and not _composite(node.targets[0])) or isinstance(
            node.value, (ast.Name, ast.Constant)
        ):
            value = node.value  # one unpacking, or a value that may be read more than once
        else:
            name, assign = self._temp("value", node.value, node)
            out.append(assign)
            value = templates.name(name, lineno=node.lineno)
        for target in node.targets:  # Python assigns the targets left to right
            out.extend(self._assign(target, value, node))
        return out

    def _assign(self, target, value, origin):
        if _composite(target):
            return [self._store(target, value, origin)]
        if not _has_composite(target):
            stmt = ast.Assign(targets=[target], value=value, type_comment=None)
            stmt.lineno = origin.lineno
            return [stmt]
        # Unpacking with composite parts: unpack into temporaries, then store them in order.
        later = []

        def plain_target(t):
            if isinstance(t, (ast.Tuple, ast.List)):
                return type(t)(elts=[plain_target(e) for e in t.elts], ctx=ast.Store())
            if isinstance(t, ast.Starred):
                return ast.Starred(value=plain_target(t.value), ctx=ast.Store())
            name = self.ctx.namer.new("item")
            later.append((t, templates.name(name, lineno=origin.lineno)))
            return templates.name(name, ast.Store(), origin.lineno)

        unpack = ast.Assign(targets=[plain_target(target)], value=value, type_comment=None)
        unpack.lineno = origin.lineno
        out = [unpack]
        for t, v in later:
            out.extend(self._assign(t, v, origin))
        return out

    def visit_AnnAssign(self, node):
        if node.value is None or not _composite(node.target):
            return node
        assign = ast.Assign(targets=[node.target], value=node.value, type_comment=None)
        assign.lineno = node.lineno
        return self.visit_Assign(assign)

    def visit_AugAssign(self, node):
        target = node.target
        if isinstance(target, ast.Name):
            (stmt,) = templates.replace(
                f"name = ag__.{_AUG[type(node.op)]}(name, value)",
                node,
                name=target.id,
                value=node.value,
            )
            stmt.lineno = node.lineno
            return stmt
        if not _composite(target):
            return node
        out = []
        obj = target.value
        if not _plain(obj):
            name, assign = self._temp("obj", obj, node)
            out.append(assign)
            obj = templates.name(name, lineno=node.lineno)
        if isinstance(target, ast.Subscript):
            key = target.slice
            if not (_plain(key) or (_pure(key) and not isinstance(key, ast.Slice))):
                name, assign = self._temp("key", _key(key, node), node)
                out.append(assign)
                key = templates.name(name, lineno=node.lineno)
            read = templates.replace_as_expression(
                "ag__.getitem(obj, key)", node, obj=obj, key=_key(key, node)
            )
            new_target = ast.Subscript(value=obj, slice=key, ctx=ast.Store())
        else:
            read = ast.Attribute(value=obj, attr=target.attr, ctx=ast.Load())
            new_target = ast.Attribute(value=obj, attr=target.attr, ctx=ast.Store())
        value = templates.replace_as_expression(
            f"ag__.{_AUG[type(node.op)]}(current, value)", node, current=read, value=node.value
        )
        out.append(self._store(new_target, value, node))
        return out

    visit_ClassDef = transformer.Transformer.methods_only


def transform(node, ctx):
    return _Composite(ctx).visit(node)
