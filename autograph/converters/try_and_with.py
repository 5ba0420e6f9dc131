"""`with` items and the bodies of `try` statements with `except` clauses get guards.

With them staged code inside keeps Python's meaning or is refused while tracing.

    with np.errstate(divide='raise'):      with ag__.context(np.errstate(divide='raise')):
        ...                                    ...

    try:                                   try:
        ...                                    with ag__.catches(ValueError):
    except ValueError:                             ...
        ...                                except ValueError:
                                               ag__.caught()
                                               ...

A context manager is entered and left while tracing (as in TensorFlow); `ag__.context`
makes an np.errstate a scope of the graph (the operations staged inside run under it), and
refuses the other run-time contexts (warnings.catch_warnings, ...) around staged operations,
which they would not affect (np.printoptions is applied by the prints and strings staged
inside). `ag__.catches` refuses a `try` whose clauses would catch an error that
staged code inside it can raise only when the graph runs, and `ag__.caught()` keeps a
clause from swallowing such a refusal, or any error saying the function cannot be staged
(see operators/contexts.py).
"""

from __future__ import annotations

import ast

from autograph.pyct import templates, transformer


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

    def visit_With(self, node):
        self.generic_visit(node)
        for item in node.items:
            item.context_expr = templates.replace_as_expression(
                "ag__.context(cm)", item.context_expr, cm=item.context_expr
            )
        return node

    def visit_Try(self, node):
        self.generic_visit(node)
        if not node.handlers:
            return node
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

    visit_TryStar = visit_Try
    visit_ClassDef = transformer.Transformer.methods_only


def transform(node, ctx):
    return _TryWith().visit(node)
