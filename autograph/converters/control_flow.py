"""`if`, `while` and `for` become calls of `ag__.if_stmt` / `while_stmt` / `for_stmt`.

Branch and loop bodies become small functions that take the statement's state
(the names the body modifies and later code reads) and return it:

    def if_true(y):
        y = y + 1
        return (y,)
    (y,) = ag__.if_stmt(x > 0, if_true, None, (y,), ('y',))
"""

from __future__ import annotations

import ast

from autograph.pyct import anno, templates, transformer
from autograph.pyct.static_analysis import activity, definitions, liveness


class _ControlFlow(transformer.Transformer):
    statements_only = True

    def __init__(self, ctx, globals_declared):
        self.ctx = ctx
        self.globals_declared = globals_declared  # names declared `global` anywhere in the function
        self.declared = [set()]  # per function scope: its `global` / `nonlocal` names

    # Scopes

    def visit_FunctionDef(self, node):
        liveness.analyze(node)
        definitions.analyze(node)
        self.declared.append(activity.declared_outer(node))
        node.body = self._block(node.body)
        self.declared.pop()
        return node

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_ClassDef = transformer.Transformer.methods_only

    def _block(self, stmts):
        out = []
        for s in stmts:
            r = self.visit(s)
            out.extend(r if isinstance(r, list) else [r])
        return out

    # Helpers

    def _state(self, modified, live):
        declared = self.declared[-1]
        return self.ctx.ordered((modified & live) - declared), self.ctx.ordered(modified & declared)

    def _undefined(self, node, state):
        out = []
        defined = anno.getanno(node, anno.Static.DEFINED_IN)
        for n in state:
            if n not in defined:
                out.extend(templates.replace("name = ag__.Undefined(label)", node, name=n,
                                             label=ast.Constant(value=n, kind=None)))
        return out

    def _function(self, name, params, body, state, outer, node):
        stmts = []
        if outer:
            stmts.append(ast.Global(names=list(outer)) if self._is_global(outer)
                         else ast.Nonlocal(names=list(outer)))
            stmts[0].lineno = node.lineno
        stmts.extend(body)
        if state:
            stmts.extend(templates.replace("return state", node,
                                           state=templates.name_tuple(state)))
        if not stmts:
            stmts = [ast.Pass()]
        fn, = templates.replace("def fn(params):\n    body", node, fn=name, params=list(params),
                                body=stmts)
        return fn

    def _is_global(self, names):
        return all(n in self.globals_declared for n in names)

    def _call(self, template, node, state, outer, **subs):
        call = templates.replace_as_expression(template, node, **subs)
        call.args.append(templates.name_tuple(state))
        call.args.append(templates.str_tuple(state))
        if outer:
            call.keywords.append(ast.keyword(arg="outer_writes", value=templates.str_tuple(outer)))
        opts = anno.getanno(node, anno.Basic.LOOP_OPTIONS, None)
        if opts:
            call.keywords.append(ast.keyword(arg="opts", value=ast.Call(
                func=templates.name("dict"), args=[], keywords=opts)))
        if not state:
            stmt = ast.Expr(value=call)
        else:
            stmt = ast.Assign(targets=[templates.name_tuple(state, ast.Store())], value=call,
                               type_comment=None)
        stmt.lineno = node.lineno
        return stmt

    # Statements

    def visit_If(self, node):
        true_name, false_name = self.ctx.namer.new_group(("if_true", "if_false"))
        modified = activity.modified(node.body + node.orelse)
        node.body = self._block(node.body)
        node.orelse = self._block(node.orelse)
        state, outer = self._state(modified, _live(node))
        out = self._undefined(node, state)
        out.append(self._function(true_name, state, node.body, state, outer, node))
        if node.orelse:
            out.append(self._function(false_name, state, node.orelse, state, outer, node))
        else:
            false_name = ast.Constant(value=None, kind=None)
        out.append(self._call("ag__.if_stmt(test, if_true, if_false)", node, state, outer,
                              test=node.test, if_true=true_name, if_false=false_name))
        return out

    def visit_While(self, node):
        body_name, = self.ctx.namer.new_group(("loop_body",))
        modified = activity.modified(node.body)
        node.body = self._block(node.body)
        state, outer = self._state(modified, _live(node))
        out = self._undefined(node, state)
        out.append(self._function(body_name, state, node.body, state, outer, node))
        test = ast.Lambda(args=_lambda_args(state), body=node.test)
        out.append(self._call("ag__.while_stmt(test, loop_body)", node, state, outer,
                              test=test, loop_body=body_name))
        return out

    def visit_For(self, node):
        body_name, = self.ctx.namer.new_group(("loop_body",))
        targets = activity.modified(node.target)
        modified = activity.modified(node.body) | targets
        node.body = self._block(node.body)
        state, outer = self._state(modified, _live(node))
        out = self._undefined(node, state)
        if isinstance(node.target, ast.Name) and node.target.id not in state:
            item = node.target.id
            body = node.body
        else:
            item = self.ctx.namer.new("itr")
            assign = ast.Assign(targets=[node.target], value=templates.name(item), type_comment=None)
            assign.lineno = node.lineno
            body = [assign] + node.body
        out.append(self._function(body_name, [item] + state, body, state, outer, node))
        extra = anno.getanno(node, anno.Basic.EXTRA_TEST, None)
        extra_test = (ast.Lambda(args=_lambda_args(state), body=extra) if extra is not None
                      else ast.Constant(value=None, kind=None))
        out.append(self._call("ag__.for_stmt(iterable, extra_test, loop_body)", node, state, outer,
                              iterable=node.iter, extra_test=extra_test, loop_body=body_name))
        return out


def _live(node):
    return anno.getanno(node, anno.Static.LIVE_IN) | anno.getanno(node, anno.Static.LIVE_OUT)


def _lambda_args(names):
    return ast.arguments(
        args=[ast.arg(arg=n) for n in names],
        posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


def _globals_declared(node):
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Global):
            names.update(n.names)
    return names


def transform(node, ctx):
    if isinstance(node, ast.Lambda):
        return node
    globals_declared = _globals_declared(node) if ast.Global in ctx.features else set()
    return _ControlFlow(ctx, globals_declared).visit(node)
