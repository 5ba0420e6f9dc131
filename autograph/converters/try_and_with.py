"""`with` items get guards; `try` statements are put in the form the control-flow converter stages.

    with np.errstate(divide='raise'):      with ag__.context(np.errstate(divide='raise')):
        ...                                    ...

A context manager is entered and left while tracing (as in TensorFlow); `ag__.context` makes an
np.errstate a scope of the graph (the operations staged inside run under it), and refuses
NumPy's other run-time contexts (np.printoptions, ...) around staged operations, which they
would not affect (see operators/contexts.py).

A context manager is entered and left while tracing (as in TensorFlow); `ag__.context`
makes an np.errstate a scope of the graph (the operations staged inside run under it), and
refuses the other run-time contexts (warnings.catch_warnings, ...) around staged operations,
which they would not affect (np.printoptions is applied by the prints and strings staged
inside). `ag__.catches` refuses a `try` whose clauses would catch an error that
staged code inside it can raise only when the graph runs, and `ag__.caught()` keeps a
clause from swallowing such a refusal, or any error saying the function cannot be staged
(see operators/contexts.py).
A `try` with `except` clauses keeps only them: its `else:` block runs after it, when the body
ran to its end (a flag the body sets last), and a `finally:` block is that of a `try` around
it, guarded (`ag__.finally_guard`: a `finally` whose staged effects Python would run on an
error raised when the graph runs, before it propagates, runs them on that error too):

    try:                                   no_error = False
        x = solve(a, b)                    guard_ = ag__.finally_guard()
    except LinAlgError:                    try:
        x = fallback                           try:
    else:                                          x = solve(a, b)
        note = 'direct'                            no_error = True
    finally:                                   except LinAlgError:
        n += 1                                     x = fallback
                                               if no_error:
                                                   note = 'direct'
                                           finally:
                                               with guard_:
                                                   n += 1

The control-flow converter then makes the body and each clause a function and the `try` a call
of `ag__.try_stmt`, which catches at run time what the graph raises. Runs before the jumps are
lowered: a `return`, `break` or `continue` in the body keeps the flag unset, as Python skips
`else:` then. A `try`/`except*` is caught while tracing, its clauses kept from swallowing a
refusal (`ag__.catches`, `ag__.caught`).
"""

from __future__ import annotations

import ast

from autograph.pyct import anno, templates, transformer


def _handler_types(handlers):
    """The exception types the clauses catch, as call arguments (`except:` catches anything)."""
    types = []
    for h in handlers:
        types.append(
            h.type if h.type is not None else templates.name("BaseException", lineno=h.lineno)
        )
    return types


class _TryWith(transformer.Transformer):
    statements_only = True

    def __init__(self, ctx):
        self.ctx = ctx

    def visit_With(self, node):
        self.generic_visit(node)
        for item in node.items:
            item.context_expr = templates.replace_as_expression(
                "ag__.context(cm)", item.context_expr, cm=item.context_expr
            )
        return node

    def visit_Try(self, node):
        self.generic_visit(node)
        out = []
        if node.finalbody and node.handlers:
            inner = ast.Try(
                body=node.body, handlers=node.handlers, orelse=node.orelse, finalbody=[]
            )
            ast.copy_location(inner, node)
            node.body, node.handlers, node.orelse = self._without_else(inner, out), [], []
        elif node.orelse:
            rest = self._without_else(node, out)
            return out + rest  # the flag's `no_error = False` first
        if node.finalbody:
            guard = self.ctx.namer.new("guard_")
            out.extend(templates.replace("guard_ = ag__.finally_guard()", node, guard_=guard))
            (block,) = templates.replace(
                "with guard_:\n    body", node.finalbody[0], guard_=guard, body=node.finalbody
            )
            node.finalbody = [block]
        return out + [node]

    def _without_else(self, node, out):
        """The `try` without its `else:` block, which runs after it under a flag the body sets
        last (`out` gets the flag's first assignment)."""
        if not node.orelse:
            return [node]
        flag = self.ctx.namer.new("no_error")
        out.extend(templates.replace("flag = False", node, flag=flag))
        node.body = node.body + templates.replace("flag = True", node.body[-1], flag=flag)
        after = templates.replace("if flag:\n    body", node.orelse[0], flag=flag, body=node.orelse)
        anno.setanno(after[0], anno.Basic.TRY_ELSE, node)
        node.orelse = []
        return [node, *after]

    def visit_TryStar(self, node):
        self.generic_visit(node)
        call = templates.replace_as_expression("ag__.catches()", node)
        call.args.extend(_handler_types(node.handlers))
        guard = ast.With(
            items=[ast.withitem(context_expr=call, optional_vars=None)],
            body=node.body,
            type_comment=None,
        )
        guard.lineno = node.lineno
        node.body = [guard]
        for h in node.handlers:
            h.body = templates.replace("ag__.caught()", h.body[0] if h.body else h) + h.body
        return node

    visit_ClassDef = transformer.Transformer.methods_only


def transform(node, ctx):
    return _TryWith(ctx).visit(node)
