"""Assignments to subscripts and attributes become `ag__.setitem` / `ag__.setattr` calls.

Writes to composite names then go through one place (today plain Python writes, see
operators/composites.py).

    d[k] = v            ->  ag__.setitem(d, k, v)
    x[:, 0] = v         ->  ag__.setitem(x, ag__.key[:, 0], v)
    self.count += 1     ->  ag__.setattr(self, 'count', ag__.iadd(self.count, 1))
    a, d[k] = pair      ->  a, item = pair
                            ag__.setitem(d, k, item)

Python evaluates the value first, then the object and the key: when both the value and the
target hold calls, the value is bound to a temporary first. An augmented assignment reads,
applies the in-place operator (`ag__.iadd` is operator.iadd ...) and writes; an object or
key that is not a plain name is evaluated once, into a temporary.
"""

from __future__ import annotations

import ast

from autograph.pyct import templates, transformer

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


class _Composite(transformer.Transformer):
    statements_only = True

    def __init__(self, ctx):
        self.ctx = ctx

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
            call = templates.replace_as_expression(
                "ag__.setitem(obj, key, value)",
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
            read = ast.Subscript(value=obj, slice=key, ctx=ast.Load())
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
