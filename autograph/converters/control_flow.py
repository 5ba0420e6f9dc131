"""`if`, `while` and `for` become calls of `ag__.if_stmt` / `while_stmt` / `for_stmt`.

Branch and loop bodies become small functions that take the statement's state
(the names the body modifies and later code reads) and return it:

    def if_true(y):
        y = y + 1
        return (y,)
    (y,) = ag__.if_stmt(x > 0, if_true, None, (y,), ('y',))

An `if` passes its outputs first, then the names a branch reads before writing them
(`names` lists the outputs only). A name that a nested function or lambda of the function
reads (a cell variable) is not passed: the body functions declare it `nonlocal`, so every
write reaches the variable the closure reads, and a staged statement reaches it through
`get_state()` / `set_state(values)`:

    def loop_body(i):
        nonlocal a
        a += 1
        ...
    def get_state():
        return (a,)
    def set_state(values_):
        nonlocal a
        (a,) = values_
    (i,) = ag__.while_stmt(lambda i: i < n, loop_body, (i,), ('i',), cells=('a',),
                           get_state=get_state, set_state=set_state)
"""

from __future__ import annotations

import ast

from autograph.pyct import anno, templates, transformer
from autograph.pyct.static_analysis import (
    activity,
    container_writes,
    definitions,
    item_writes,
    liveness,
    statement_state,
    try_state,
)


class _ControlFlow(transformer.Transformer):
    statements_only = True

    def __init__(self, ctx, globals_declared):
        self.ctx = ctx
        self.globals_declared = globals_declared  # names declared `global` anywhere in the function
        self.scopes = []  # per function: (cells, global/nonlocal names, names given an Undefined,
        #                  the return converter's (flag, value) names or None)
        self.values_name = None
        self.loop_depths = []  # per function: how many loops enclose the statement converted now
        self.loops = []  # per function: the loops enclosing the statement converted now
        self.local_names = []  # per function: the names it assigns (its own locals)
        self.written = []  # per function: the names it writes items of or through (item_writes)
        self.helpers = []  # per function: its cells its nested functions assign (nonlocal)
        self.bound = []  # per function: the names bound in it (assigned, parameters, shared)
        self.helper_changes = []  # per function: its cells its nested functions change (methods)
        self.deques = []  # per function: the names it assigns a collections.deque(...) to

    # Scopes

    def visit_FunctionDef(self, node):
        shared = self._shared_nonlocals(node)
        liveness.analyze(node)
        definitions.analyze(node, shared=shared)
        cells = anno.getanno(node, anno.Static.CELLS, frozenset()) | shared
        maybe_undefined = set()
        reads, loads = _returned_values(node.body)  # before the bodies move into functions
        written = _attributes_written_in_blocks(node.body)
        self.scopes.append(
            (
                cells,
                activity.declared_outer(node) - shared,
                maybe_undefined,
                anno.getanno(node, anno.Basic.RETURN_FLAG, None),
            )
        )
        own = _own_stores(node)
        self.bound.append(own | _parameters(node) | shared)
        self.loop_depths.append(0)
        self.loops.append([])
        self.local_names.append(own)
        self.written.append(item_writes.written_through(node.body))
        self.helpers.append(anno.getanno(node, anno.Static.HELPER_WRITES, frozenset()))
        self.helper_changes.append(container_writes.changed_by_helpers(node, cells))
        self.deques.append(container_writes.deques(node, self.ctx.namespace))
        node.body = self._block(node.body)
        self.helpers.pop()
        self.helper_changes.pop()
        self.deques.pop()
        self.bound.pop()
        self.written.pop()
        self.local_names.pop()
        self.loops.pop()
        self.loop_depths.pop()
        self.scopes.pop()
        for r, assigned in reads:
            r.value = _checked(r.value, maybe_undefined - assigned)
        unbound = {
            id(name)
            for name, assigned in loads
            if (
                name.id in maybe_undefined - assigned
                if isinstance(name, ast.Name)
                else f"{name.value.id}.{name.attr}" in written
            )
        }
        if unbound:
            node.body = [_CheckedLoads(unbound).visit(s) for s in node.body]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_ClassDef = transformer.Transformer.methods_only

    def _shared_nonlocals(self, node) -> frozenset:
        """The names `node` declares `nonlocal` that a function enclosing it in the converted
        code binds: variables of a frame that runs in the same call (of the function being
        converted) as this one. Its staged statements carry them as they carry their own
        cell variables; a `nonlocal` of a function outside is written outside (refused when
        a staged statement writes it)."""
        declared = set()
        for statement in node.body:
            for s in transformer.walk(statement, _NESTED):
                if s.__class__ is ast.Nonlocal:
                    declared.update(s.names)
        enclosing = set().union(*self.bound) if self.bound else set()
        return frozenset(declared & enclosing)

    def _block(self, stmts):
        out = []
        for s in stmts:
            r = self.visit(s)
            out.extend(r if isinstance(r, list) else [r])
        return out

    # Helpers

    def _state(self, node):
        """The statement's state, as the definitions analysis found it."""
        return anno.getanno(node, anno.Static.STATE)

    def _undefined(self, node, names):
        """`name = ag__.Undefined('name')` for each of `names` that may be unbound here."""
        out = []
        defined = anno.getanno(node, anno.Static.DEFINED_IN)
        for n in self.ctx.ordered(set(names) - defined):
            self.scopes[-1][2].add(n)
            out.extend(
                templates.replace(
                    "name = ag__.Undefined(label)",
                    node,
                    name=n,
                    label=ast.Constant(value=n, kind=None),
                )
            )
        return out

    def _function(self, name, params, body, outputs, state, node):
        stmts = self._declarations(state, node)
        stmts.extend(body)
        if outputs:
            stmts.extend(
                templates.replace("return state", node, state=templates.name_tuple(outputs))
            )
        if not stmts:
            stmts = [ast.Pass()]
        (fn,) = templates.replace(
            "def fn(params):\n    body", node, fn=name, params=list(params), body=stmts
        )
        return fn

    def _declarations(self, state, node):
        """`global` / `nonlocal` statements for what a body function writes outside itself."""
        globals_ = [n for n in self.ctx.ordered(state.outer) if n in self.globals_declared]
        nonlocals = [n for n in self.ctx.ordered(state.outer | state.cells) if n not in globals_]
        out = []
        for names, cls in ((globals_, ast.Global), (nonlocals, ast.Nonlocal)):
            if names:
                stmt = cls(names=names)
                stmt.lineno = node.lineno
                out.append(stmt)
        return out

    def _cell_functions(self, node, cells):
        """get_state / set_state for the merged cell variables (nothing when there are none)."""
        if not cells:
            return [], {}
        get_name, set_name = self.ctx.namer.new_group(("get_state", "set_state"))
        if self.values_name is None:  # set_state's parameter: one name serves them all
            self.values_name = self.ctx.namer.new("values_")
        values = self.values_name
        (getter,) = templates.replace(
            "def get_state():\n    return cells",
            node,
            get_state=get_name,
            cells=templates.name_tuple(cells),
        )
        (setter,) = templates.replace(
            "def set_state(values):\n    cells = values",
            node,
            set_state=set_name,
            values=values,
            cells=templates.name_tuple(cells, ast.Store()),
        )
        decl = ast.Nonlocal(names=list(cells))
        decl.lineno = node.lineno
        setter.body.insert(0, decl)
        return [getter, setter], {"get_state": get_name, "set_state": set_name}

    def _containers(self, stmts):
        """(names, appended): the containers of the function's own variables that `stmts`
        change through their methods, and the deques they only append to or pop from (see
        static_analysis/container_writes)."""
        found, appended = container_writes.changed(stmts, self.ctx.namespace)
        if self.helper_changes[-1] and statement_state.calls(stmts):
            found |= self.helper_changes[-1]
        own = set().union(*self.bound)
        deques = set().union(*self.deques)
        return self.ctx.ordered(found & own), self.ctx.ordered((appended - found) & own & deques)

    def _call(self, template, node, params, outputs, state, cells, cell_fns, arrays=(), **subs):
        containers = subs.pop("containers", ((), ()))
        call = templates.replace_as_expression(template, node, **subs)
        call.args.append(templates.name_tuple(params))
        call.args.append(templates.str_tuple(outputs))
        if state.outer:
            call.keywords.append(
                ast.keyword(
                    arg="outer_writes", value=templates.str_tuple(self.ctx.ordered(state.outer))
                )
            )
        if cells:
            call.keywords.append(ast.keyword(arg="cells", value=templates.str_tuple(cells)))
            for key, name in cell_fns.items():
                call.keywords.append(ast.keyword(arg=key, value=templates.name(name)))
        if arrays:
            call.keywords.append(ast.keyword(arg="arrays", value=templates.str_tuple(arrays)))
        for key, names in zip(("containers", "appended"), containers):
            if names:
                call.keywords.append(ast.keyword(arg=key, value=templates.str_tuple(names)))
        opts = anno.getanno(node, anno.Basic.LOOP_OPTIONS, None)
        if opts:
            call.keywords.append(
                ast.keyword(
                    arg="opts", value=ast.Call(func=templates.name("dict"), args=[], keywords=opts)
                )
            )
        if not outputs:
            stmt = ast.Expr(value=call)
        else:
            stmt = ast.Assign(
                targets=[templates.name_tuple(outputs, ast.Store())], value=call, type_comment=None
            )
        stmt.lineno = node.lineno
        return stmt

    # Statements

    def visit_If(self, node):
        true_name, false_name = self.ctx.namer.new_group(("if_true", "if_false"))
        state = self._state(node)
        unread = self._unread_after(node)
        arrays = _written_in_place(node.body + node.orelse, state, self.ctx, self.written[-1])
        containers = self._containers(node.body + node.orelse)
        node.body = self._block(node.body)
        node.orelse = self._block(node.orelse)
        outputs = self.ctx.ordered(state.outputs)
        params = outputs + self.ctx.ordered(state.inputs - state.outputs)
        cells = self.ctx.ordered(state.merged_cells)
        out = self._undefined(node, params + self.ctx.ordered(state.cells))
        out.append(self._function(true_name, params, node.body, outputs, state, node))
        if node.orelse:
            out.append(self._function(false_name, params, node.orelse, outputs, state, node))
        else:
            false_name = ast.Constant(value=None, kind=None)
        cell_defs, cell_fns = self._cell_functions(node, cells)
        out.extend(cell_defs)
        call = self._call(
            "ag__.if_stmt(test, if_true, if_false)",
            node,
            params,
            outputs,
            state,
            cells,
            cell_fns,
            arrays,
            test=node.test,
            if_true=true_name,
            if_false=false_name,
            containers=containers,
        )
        self._path_keywords(call, outputs, unread)
        out.append(call)
        return out

    def _path_keywords(self, call, outputs, unread) -> None:
        """`returns` and `unread` of an if_stmt / try_stmt call (see if_stmt)."""
        returns = self.scopes[-1][3]
        if (
            returns
            and returns[0] in outputs
            and set(outputs) - set(returns)
            and not self.loop_depths[-1]
        ):
            # a branch may return: what it leaves is never read (outside loops: a loop's
            # condition still reads its variables after a return in its body)
            call.value.keywords.append(
                ast.keyword(arg="returns", value=templates.str_tuple(returns))
            )
        if unread:
            call.value.keywords.append(
                ast.keyword(
                    arg="unread",
                    value=ast.Lambda(
                        args=_lambda_args([]),
                        body=ast.Tuple(elts=[templates.name(n) for n in unread], ctx=ast.Load()),
                    ),
                )
            )

    def _unread_after(self, node, parts=None) -> list[str]:
        """The local names whose objects the branches of `node` write items or attributes of and
        that nothing reads after it (not live after it, not captured by a nested function): a
        staged `if` need not merge such writes when nothing else refers to the objects.
        `parts`: the statements of its paths (an `if`'s two branches by default)."""
        live_out = anno.getanno(node, anno.Static.LIVE_OUT, None)
        if live_out is None or not self.local_names:
            return []
        cells, declared = self.scopes[-1][0], self.scopes[-1][1]
        bases = set()
        for part in node.body + node.orelse if parts is None else parts:
            for a in transformer.walk(part):
                if (
                    isinstance(a, (ast.Attribute, ast.Subscript))
                    and isinstance(a.ctx, ast.Store)
                    and isinstance(a.value, ast.Name)
                ):
                    bases.add(a.value.id)
                elif _is_setattr(a) or _is_setitem(a):
                    bases.add(a.args[0].id)
        return sorted(
            n
            for n in bases
            if n in self.local_names[-1]
            and n not in live_out
            and n not in cells
            and n not in declared
            and n not in self.globals_declared
        )

    def visit_Try(self, node):
        if not definitions.is_converted_try(node):  # (a try/finally, a try/except*: as written)
            for field in ("body", "orelse", "finalbody"):
                setattr(node, field, self._block(getattr(node, field)))
            for h in node.handlers:
                h.body = self._block(h.body)
            return node
        state = self._state(node)
        clauses = [s for h in node.handlers for s in h.body]
        unread = self._unread_after(node, node.body + clauses)
        outputs = self.ctx.ordered(state.outputs)
        params = outputs + self.ctx.ordered(state.inputs - state.outputs)
        merged_cells = self.ctx.ordered(state.merged_cells)  # (written through their cells)
        unsettled, writes_early = try_state.analyze(
            node,
            outputs + merged_cells,
            params + merged_cells,
            self.local_names[-1],
            self._jump_live(),
        )
        errors = [
            h.name if h.name and h.name not in params else self.ctx.namer.new("error_")
            for h in node.handlers
        ]
        for h, error in zip(node.handlers, errors):
            h.body = [_ReRaise(error).visit(s) for s in h.body]
            if h.name and h.name != error:  # `except E as x:` of a name the state holds
                h.body = (
                    templates.replace("x = error", h, x=h.name, error=error)
                    + h.body
                    + templates.replace(  # (Python deletes it at the clause's end)
                        "x = ag__.Undefined(label)",
                        h,
                        x=h.name,
                        label=ast.Constant(value=h.name, kind=None),
                    )
                )
        containers = self._containers(node.body + [s for h in node.handlers for s in h.body])
        node.body = self._block(node.body)
        for h in node.handlers:
            h.body = self._block(h.body)
        cells = self.ctx.ordered(state.merged_cells)
        out = self._undefined(node, params + self.ctx.ordered(state.cells))
        (body_name,) = self.ctx.namer.new_group(("try_body",))
        out.append(self._function(body_name, params, node.body, outputs, state, node))
        handlers = []
        for h, error in zip(node.handlers, errors):
            name = self.ctx.namer.new("except_")
            out.append(self._function(name, [error, *params], h.body, outputs, state, h))
            types = h.type or templates.name("BaseException", lineno=h.lineno)
            handlers.append(
                ast.Tuple(
                    elts=[ast.Lambda(args=_lambda_args([]), body=types), templates.name(name)],
                    ctx=ast.Load(),
                )
            )
        cell_defs, cell_fns = self._cell_functions(node, cells)
        out.extend(cell_defs)
        call = self._call(
            "ag__.try_stmt(try_body, handlers)",
            node,
            params,
            outputs,
            state,
            cells,
            cell_fns,
            try_body=body_name,
            handlers=ast.Tuple(elts=handlers, ctx=ast.Load()),
            containers=containers,
        )
        if unsettled:
            names = [n for n in params + merged_cells if n in unsettled]
            call.value.keywords.append(
                ast.keyword(arg="unsettled", value=templates.str_tuple(names))
            )
        if writes_early:
            call.value.keywords.append(
                ast.keyword(arg="writes_early", value=ast.Constant(value=True, kind=None))
            )
        self._path_keywords(call, outputs, unread)
        out.append(call)
        return out

    def _jump_live(self) -> dict:
        """What is live where a lowered jump goes: the head of the innermost enclosing loop
        (`continue`), after it (`break`); nothing but the return value after a `return`."""
        live = {"return": frozenset()}
        if self.loops[-1]:
            loop = self.loops[-1][-1]
            head = anno.getanno(loop, anno.Static.LIVE_IN, None)
            if head is not None:  # (see statement_state: what the user's code reads there)
                live["continue"] = head - anno.getanno(
                    loop, anno.Static.SOURCE_DEAD_AT_HEAD, frozenset()
                )
            live["break"] = anno.getanno(loop, anno.Static.LIVE_OUT, None)
        return {k: v for k, v in live.items() if v is not None}

    def visit_While(self, node):
        (body_name,) = self.ctx.namer.new_group(("loop_body",))
        state = self._state(node)
        arrays = _written_in_place(node.body, state, self.ctx, self.written[-1])
        containers = self._containers(node.body)
        self.loop_depths[-1] += 1
        self.loops[-1].append(node)
        node.body = self._block(node.body)
        self.loops[-1].pop()
        self.loop_depths[-1] -= 1
        loop_vars = self.ctx.ordered(state.outputs)
        cells = self.ctx.ordered(state.merged_cells)
        out = self._undefined(node, loop_vars + self.ctx.ordered(state.cells))
        out.append(self._function(body_name, loop_vars, node.body, loop_vars, state, node))
        test = ast.Lambda(args=_lambda_args(loop_vars), body=node.test)
        cell_defs, cell_fns = self._cell_functions(node, cells)
        out.extend(cell_defs)
        out.append(
            self._call(
                "ag__.while_stmt(test, loop_body)",
                node,
                loop_vars,
                loop_vars,
                state,
                cells,
                cell_fns,
                arrays,
                test=test,
                loop_body=body_name,
                containers=containers,
            )
        )
        return out

    def visit_For(self, node):
        (body_name,) = self.ctx.namer.new_group(("loop_body",))
        state = self._state(node)
        arrays = _written_in_place(node.body, state, self.ctx, self.written[-1])
        containers = self._containers(node.body)
        self.loop_depths[-1] += 1
        self.loops[-1].append(node)
        node.body = self._block(node.body)
        self.loops[-1].pop()
        self.loop_depths[-1] -= 1
        loop_vars = self.ctx.ordered(state.outputs)
        cells = self.ctx.ordered(state.merged_cells)
        out = self._undefined(node, loop_vars + self.ctx.ordered(state.cells))
        if isinstance(node.target, ast.Name) and node.target.id not in set(loop_vars) | state.cells:
            item = node.target.id
            body = node.body
        else:
            item = self.ctx.namer.new("itr")
            assign = ast.Assign(
                targets=[node.target], value=templates.name(item), type_comment=None
            )
            assign.lineno = node.lineno
            body = [assign] + node.body
        out.append(self._function(body_name, [item] + loop_vars, body, loop_vars, state, node))
        extra = anno.getanno(node, anno.Basic.EXTRA_TEST, None)
        extra_test = (
            ast.Lambda(args=_lambda_args(loop_vars), body=extra)
            if extra is not None
            else ast.Constant(value=None, kind=None)
        )
        cell_defs, cell_fns = self._cell_functions(node, cells)
        out.extend(cell_defs)
        out.append(
            self._call(
                "ag__.for_stmt(iterable, extra_test, loop_body)",
                node,
                loop_vars,
                loop_vars,
                state,
                cells,
                cell_fns,
                arrays,
                iterable=node.iter,
                extra_test=extra_test,
                loop_body=body_name,
                containers=containers,
            )
        )
        return out


def _written_in_place(stmts, state, ctx, written) -> list[str]:
    """The names whose objects `stmts` (a branch or loop body, functions nested in it included)
    write items of (`out[i] = v`, `out[i] += v`), or take views from for such writes (`row =
    out[i]`; `written`: the function's names written through), other than the names the body
    functions take as arguments: a NumPy array made while tracing held by one becomes a staged
    value when the statement is staged (see autograph.operators.control_flow.if_stmt)."""
    found = item_writes.written_items(stmts) | item_writes.viewed_bases(stmts, written)
    return ctx.ordered(found - state.inputs)


def _returned_values(stmts) -> tuple:  # noqa: C901
    """[(node, names surely assigned before it)] for the user's `return` statements of one
    function scope and the assignments lowered returns became (their values are what the
    function returns); and [(Name, names surely assigned before it)] for every read of a name
    in the scope."""
    found, loads = [], []

    def block(body, assigned):
        for n in body:
            assigned = stmt(n, assigned)
        return assigned

    def stmt(n, assigned):  # noqa: C901
        for name in _name_loads(n):
            loads.append((name, frozenset(assigned)))
        lowered = anno.getanno(n, anno.Basic.LOWERED_RETURN, False)
        if (isinstance(n, ast.Return) and n.value is not None and not lowered) or (
            isinstance(n, ast.Assign) and lowered
        ):
            found.append((n, frozenset(assigned)))
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return assigned | {n.name}  # another scope
        if isinstance(n, ast.If):
            return assigned | (block(n.body, assigned) & block(n.orelse, assigned))
        if isinstance(n, (ast.While, ast.For)):
            targets = activity.modified(n.target) if isinstance(n, ast.For) else set()
            block(n.body, assigned | targets)  # may run zero times
            return assigned
        if isinstance(n, (ast.With, ast.AsyncWith)):
            return block(n.body, assigned | activity.modified(n.items))
        fields = transformer.statement_fields(n.__class__)
        if fields:
            for field in fields:
                for part in getattr(n, field, None) or []:
                    if isinstance(part, (ast.excepthandler, ast.match_case)):
                        block(part.body, assigned)
                    else:
                        stmt(part, assigned)
            return assigned
        return assigned | activity.modified(n)

    block(stmts, frozenset())
    return found, loads


_SCOPES = (
    ast.Lambda,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _name_loads(n) -> list:
    """The names a statement reads before anything in it runs: all of a simple statement's, the
    test of an if or while, the iterable of a for, the context managers of a with (not inside
    nested scopes: lambdas, comprehensions, definitions)."""
    if isinstance(n, (ast.If, ast.While)):
        parts = [n.test]
    elif isinstance(n, (ast.For, ast.AsyncFor)):
        parts = [n.iter]
    elif isinstance(n, (ast.With, ast.AsyncWith)):
        parts = [item.context_expr for item in n.items]
    elif isinstance(n, _SCOPES) or transformer.statement_fields(n.__class__):
        return []
    else:
        parts = [n]
    found, stack = [], list(parts)
    while stack:
        e = stack.pop()
        if isinstance(e, ast.Name) and isinstance(e.ctx, ast.Load):
            found.append(e)
        elif not isinstance(e, _SCOPES):
            if (
                isinstance(e, ast.Attribute)
                and isinstance(e.ctx, ast.Load)
                and isinstance(e.value, ast.Name)
            ):
                found.append(e)
            stack.extend(transformer.children(e))
    return found


def _attributes_written_in_blocks(stmts) -> set:
    """'obj.attr' for the attributes of a name set inside an if, while or for of the scope (a
    staged one may set them on some paths only: their reads go through ag__.ld too)."""
    found = set()
    for a in _inside_blocks(stmts):
        if isinstance(a, ast.Attribute) and isinstance(a.ctx, ast.Store):
            if isinstance(a.value, ast.Name):
                found.add(f"{a.value.id}.{a.attr}")
        elif _is_setattr(a):  # `o.b = v` as the composite-assignment converter wrote it
            found.add(f"{a.args[0].id}.{a.args[1].value}")
    return found


def _inside_blocks(stmts):
    """The nodes of `stmts` inside the body or else block of an if, while or for (each once)."""
    stack = [(n, False) for n in stmts]
    while stack:
        n, inside = stack.pop()
        if inside:
            yield n
        if isinstance(n, (ast.If, ast.While, ast.For)) and not inside:
            blocks = {id(s) for s in n.body + n.orelse}
            stack.extend((c, id(c) in blocks) for c in transformer.children(n))
        else:
            stack.extend((c, inside) for c in transformer.children(n))


def _parameters(function) -> set:
    args = function.args
    return {
        a.arg
        for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
        if a is not None
    }


_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _own_stores(function) -> set:
    """The names a function assigns itself (not those its nested functions or classes assign)."""
    return {
        n.id
        for statement in function.body
        for n in transformer.walk(statement, _NESTED)
        if n.__class__ is ast.Name and n.ctx.__class__ is ast.Store
    }


def _is_setitem(n) -> bool:
    f = getattr(n, "func", None)
    return (
        isinstance(n, ast.Call)
        and isinstance(f, ast.Attribute)
        and f.attr == "setitem"
        and isinstance(f.value, ast.Name)
        and f.value.id == "ag__"
        and len(n.args) == 3
        and isinstance(n.args[0], ast.Name)
    )


def _is_setattr(n) -> bool:
    f = getattr(n, "func", None)
    return (
        isinstance(n, ast.Call)
        and isinstance(f, ast.Attribute)
        and f.attr == "setattr"
        and isinstance(f.value, ast.Name)
        and f.value.id == "ag__"
        and len(n.args) == 3
        and isinstance(n.args[0], ast.Name)
        and isinstance(n.args[1], ast.Constant)
        and isinstance(n.args[1].value, str)
    )


class _ReRaise(ast.NodeTransformer):
    """A bare `raise` in an `except` clause that becomes a function re-raises the exception the
    clause caught, `raise ag__.raise_value(error)` (not inside nested functions, nor inside the
    clauses of a `try` nested in it, which re-raise their own)."""

    def __init__(self, error: str):
        self.error = error

    def visit_Raise(self, node):
        if node.exc is None:
            node.exc = templates.replace_as_expression(
                "ag__.raise_value(error)", node, error=self.error
            )
        return node

    def visit_ExceptHandler(self, node):
        return node

    def _scope(self, node):
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = _scope


class _CheckedLoads(ast.NodeTransformer):
    """Reads of a name that may still hold the Undefined marker become `ag__.ld(name)`, which
    raises at that line when it is unbound, as Python would (a staged `if` that assigned it on
    some paths: when the graph runs); so do reads of an attribute set inside an if or loop
    (`ag__.ld(o.b)`: a staged `if` may have set it on some paths only)."""

    def __init__(self, unbound):
        self.unbound = unbound

    def visit_Name(self, node):
        if id(node) in self.unbound:
            return templates.replace_as_expression("ag__.ld(name)", node, name=node.id)
        return node

    def visit_Attribute(self, node):
        if id(node) in self.unbound:
            call = ast.Call(
                func=ast.Attribute(
                    value=ast.Name(id="ag__", ctx=ast.Load()), attr="ld", ctx=ast.Load()
                ),
                args=[node],
                keywords=[],
            )
            return ast.copy_location(call, node)
        return self.generic_visit(node)

    def visit_Call(self, node):
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "ld"
            and isinstance(func.value, ast.Name)
            and func.value.id == "ag__"
        ):
            return node  # already checked (a returned value)
        return self.generic_visit(node)


def _checked(value, names):
    """A returned value in which a name that may still hold the Undefined marker is read
    through `ag__.ld(name)`, which raises at that line, as Python would."""
    if isinstance(value, ast.Name) and value.id in names:
        return templates.replace_as_expression("ag__.ld(name)", value, name=value.id)
    if isinstance(value, (ast.Tuple, ast.List)):
        value.elts = [_checked(e, names) for e in value.elts]
    return value


def _lambda_args(names):
    return ast.arguments(
        args=[ast.arg(arg=n) for n in names],
        posonlyargs=[],
        vararg=None,
        kwonlyargs=[],
        kw_defaults=[],
        kwarg=None,
        defaults=[],
    )


def _globals_declared(node):
    names = set()
    for n in transformer.walk(node):
        if n.__class__ is ast.Global:
            names.update(n.names)
    return names


def transform(node, ctx):
    if isinstance(node, ast.Lambda):
        return node
    globals_declared = _globals_declared(node) if ast.Global in ctx.features else set()
    return _ControlFlow(ctx, globals_declared).visit(node)
