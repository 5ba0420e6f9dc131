"""`lst.append(x)` / `lst.pop()` inside if/while/for/try bodies become `ag__.list_append` / `list_pop`.

A staged branch, loop or `try` then carries the list as state (a TensorArray underneath), and
appends and pops happen when the graph runs, not once while tracing.

A `pop()` used inside an expression is hoisted into a statement before it,
`lst, popped = ag__.list_pop(lst)`; operands Python evaluates before the pop and that
could observe it (a call, a read of the list) are hoisted ahead of it into temporaries,
so the order of evaluation stays Python's. A pop that may not run (the right side of
`and`/`or`, a branch of `a if c else b`, a lambda or comprehension, a `while` test) is
left as it is.
"""

from __future__ import annotations

import ast

from autograph.pyct import templates, transformer

_DEFERRED = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _list_call(node, method):
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == method
        and isinstance(node.func.value, ast.Name)
        and not node.keywords
    )


def _is_pop(node) -> bool:
    return _list_call(node, "pop") and not node.args


def _unconditional_pops(node):
    """The pops `node` always evaluates (not inside deferred or conditional parts)."""
    if _is_pop(node):
        return [node]
    if isinstance(node, _DEFERRED):
        return []
    if isinstance(node, ast.BoolOp):
        return _unconditional_pops(node.values[0])
    if isinstance(node, ast.IfExp):
        return _unconditional_pops(node.test)
    out = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr):
            out.extend(_unconditional_pops(child))
    return out


def _safe_to_delay(node, lists) -> bool:
    """Evaluating `node` after a pop gives what it gave before: no call and no read of a
    list being popped."""
    for n in ast.walk(node):
        if isinstance(n, (ast.Call, ast.Await, ast.NamedExpr, ast.Yield, ast.YieldFrom)):
            return False
        if isinstance(n, ast.Name) and n.id in lists:
            return False
    return True


class _Hoister:
    """Rewrites one statement's expression, emitting the hoisted statements into `pre`."""

    def __init__(self, ctx, origin):
        self.ctx = ctx
        self.origin = origin
        self.pre = []

    def expr(self, node):
        if _is_pop(node):
            lst = node.func.value.id
            tmp = self.ctx.namer.new("popped")
            self.pre.extend(
                templates.replace("lst, tmp = ag__.list_pop(lst)", self.origin, lst=lst, tmp=tmp)
            )
            return templates.name(tmp, lineno=self.origin.lineno)
        if isinstance(node, _DEFERRED):
            return node
        if isinstance(node, ast.BoolOp):
            node.values[0] = self.expr(node.values[0])
            return node
        if isinstance(node, ast.IfExp):
            node.test = self.expr(node.test)
            return node
        slots = self._slots(node)
        done = []  # (getter, setter) of the slots evaluated so far
        for get, put in slots:
            child = get()
            pops = _unconditional_pops(child)
            if pops:
                lists = {p.func.value.id for p in pops}
                for prev_get, prev_put in done:
                    prev = prev_get()
                    if (
                        isinstance(prev, ast.expr)
                        and not isinstance(prev, ast.Name)
                        and not _safe_to_delay(prev, lists)
                    ):
                        tmp = self.ctx.namer.new("tmp")
                        assign = ast.Assign(
                            targets=[templates.name(tmp, ast.Store())],
                            value=prev,
                            type_comment=None,
                        )
                        assign.lineno = self.origin.lineno
                        self.pre.append(assign)
                        prev_put(templates.name(tmp, lineno=self.origin.lineno))
                    elif isinstance(prev, ast.Name) and prev.id in lists:
                        tmp = self.ctx.namer.new("tmp")
                        self.pre.extend(
                            templates.replace("tmp = lst", self.origin, tmp=tmp, lst=prev.id)
                        )
                        prev_put(templates.name(tmp, lineno=self.origin.lineno))
                put(self.expr(child))
            done.append((get, put))
        return node

    @staticmethod
    def _slots(node):
        """(get, set) of node's expression children, in the order Python evaluates them."""
        if isinstance(node, ast.Dict):
            order = []
            for i in range(len(node.values)):
                if node.keys[i] is not None:
                    order.append((node.keys, i))
                order.append((node.values, i))
        else:
            order = []
            for field in node._fields:
                value = getattr(node, field, None)
                if isinstance(value, list):
                    order.extend((value, i) for i, v in enumerate(value) if isinstance(v, ast.AST))
                elif isinstance(value, ast.AST):
                    order.append((node, field))
        slots = []
        for holder, key in order:
            if isinstance(holder, list):
                slots.append(
                    (lambda h=holder, k=key: h[k], lambda v, h=holder, k=key: h.__setitem__(k, v))
                )
            else:
                slots.append(
                    (
                        lambda h=holder, k=key: getattr(h, k),
                        lambda v, h=holder, k=key: setattr(h, k, v),
                    )
                )
        return slots


class _Lists(transformer.Transformer):
    statements_only = True

    def __init__(self, ctx):
        self.ctx = ctx
        self.depth = 0  # how many converted if/while/for bodies enclose the statement

    def _compound(self, node):
        if isinstance(node, ast.If):
            pre = self._hoist(node, "test")
        else:
            pre = []
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        return pre + [node] if pre else node

    visit_If = visit_While = visit_For = visit_Try = _compound
    visit_ClassDef = transformer.Transformer.methods_only

    def visit_FunctionDef(self, node):
        depth, self.depth = self.depth, 0
        self.generic_visit(node)
        self.depth = depth
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def _hoist(self, node, field):
        """Hoists the pops of node.<field> when inside a converted body."""
        value = getattr(node, field, None)
        if not self.depth or value is None or not _unconditional_pops(value):
            return []
        hoister = _Hoister(self.ctx, node)
        setattr(node, field, hoister.expr(value))
        return hoister.pre

    def visit_Expr(self, node):
        value = node.value
        if self.depth and _list_call(value, "append") and len(value.args) == 1:
            hoister = _Hoister(self.ctx, node)
            arg = (
                hoister.expr(value.args[0]) if _unconditional_pops(value.args[0]) else value.args[0]
            )
            return hoister.pre + templates.replace(
                "lst = ag__.list_append(lst, x)", node, lst=value.func.value.id, x=arg
            )
        if self.depth and _is_pop(value):
            return templates.replace("lst, _ = ag__.list_pop(lst)", node, lst=value.func.value.id)
        return self._hoist(node, "value") + [node] if self.depth else node

    def visit_Assign(self, node):
        if self.depth and len(node.targets) == 1 and _is_pop(node.value):
            return templates.replace(
                "lst, target = ag__.list_pop(lst)",
                node,
                lst=node.value.func.value.id,
                target=node.targets[0],
            )
        return self._hoist(node, "value") + [node] if self.depth else node

    def _value_statement(self, node):
        return self._hoist(node, "value") + [node] if self.depth else node

    visit_AugAssign = visit_AnnAssign = visit_Return = _value_statement


def transform(node, ctx):
    return _Lists(ctx).visit(node)
