"""`raise` statements: the exception is made by an `ag__` call that knows its class and arguments.

    raise InvalidRate(f'rate {r}', r)   ->  raise ag__.new_error(InvalidRate, (f'rate {r}', r), {})
    raise err from cause                ->  raise ag__.raise_value(err, cause)

Eagerly these raise what Python raises. While tracing, a staged branch or loop that raises the
exception records how to make it (staging.control_flow.raising), and the graph makes it from
the values of the run that takes the path: the caller catches eager's exception, with eager's
class, arguments and attributes. (A bare `raise` in an `except` clause of a converted `try` is
the control-flow converter's: it re-raises the exception that clause caught.)
"""

from __future__ import annotations

import ast

from autograph.pyct import templates, transformer


def _arguments(call: ast.Call):
    """(tuple of the positional arguments, dict of the keyword ones) of `call`, as expressions:
    `*rest` stays in the tuple, `**named` in the dict."""
    args = ast.Tuple(elts=list(call.args), ctx=ast.Load())
    kwargs = ast.Dict(keys=[k.arg and ast.Constant(k.arg) for k in call.keywords], values=[])
    kwargs.values = [k.value for k in call.keywords]
    return args, kwargs


class _Raises(transformer.Transformer):
    statements_only = True

    def visit_Raise(self, node):
        if node.exc is None:
            return node
        if isinstance(node.exc, ast.Call):
            args, kwargs = _arguments(node.exc)
            made = templates.replace_as_expression(
                "ag__.new_error(func, args, kwargs)",
                node,
                func=node.exc.func,
                args=args,
                kwargs=kwargs,
            )
        else:
            made = templates.replace_as_expression("ag__.raise_value(exc)", node, exc=node.exc)
        if node.cause is not None:
            made.args.append(node.cause)
            node.cause = None
        node.exc = made
        return node

    visit_ClassDef = transformer.Transformer.methods_only


def transform(node, ctx):
    return _Raises().visit(node)
