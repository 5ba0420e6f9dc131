"""Lowerings of the structured ops: `cond` -> lax.cond, `while_loop` -> lax.while_loop, `call`
inline; Variables are threaded through them as extra operands and results."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..graph import ListType, Value
from .errors import cannot_lower
from .effects import _LIST_FIX
from .values import conform, is_static
from .table import lowers


def _refuse_lists(node):
    for v in list(node.inputs) + list(node.outputs):
        if isinstance(v, Value) and isinstance(v.type, ListType):
            raise cannot_lower(node, "a list is carried through staged control flow", _LIST_FIX)


_SHAPE_FIX = ("Give the value one shape on every path (pad or preallocate it at its largest size, "
              "np.zeros(n)), or keep the interpreter (jit_compile=False)")


@lowers("cond")
def _cond(ctx, node, pred, *operands):
    _refuse_lists(node)
    if is_static(pred):  # known while lowering: only that branch
        return tuple(ctx.run(node.subgraphs["then" if pred else "else"], operands))
    before = ctx.state_values()

    def branch(label):
        def run():
            ctx.set_state(before)
            outs = ctx.run(node.subgraphs[label], operands)
            return ([conform(o, v.type, strong=True) for o, v in zip(outs, node.outputs)],
                    ctx.state_values())
        return run
    try:
        outs, state = jax.lax.cond(jnp.asarray(pred, dtype=bool), branch("then"), branch("else"))
    except TypeError:  # the branches' results differ in shape (only then traced once more)
        then_shapes, else_shapes = (jax.eval_shape(branch(label))[0] for label in ("then", "else"))
        for i, (a, b) in enumerate(zip(then_shapes, else_shapes)):
            if a.shape != b.shape:
                raise cannot_lower(node, f"its result {i} has shape {a.shape} in one branch and {b.shape} in "
                                         f"the other, and XLA needs one shape", _SHAPE_FIX) from None
        raise
    ctx.set_state(state)
    return tuple(outs)


@lowers("while_loop")
def _while_loop(ctx, node, *inputs, num_loop_vars):
    _refuse_lists(node)
    for i, (start, end) in enumerate(zip(node.inputs[:num_loop_vars], node.outputs)):
        if isinstance(start, Value) and start.type.shape != end.type.shape:
            raise cannot_lower(node, f"its loop variable {i} starts as {start.type} and changes shape between "
                                     f"iterations ({end.type} after the loop), and XLA needs one shape", _SHAPE_FIX)
    inits, captures = inputs[:num_loop_vars], list(inputs[num_loop_vars:])
    cond_graph, body_graph = node.subgraphs["cond"], node.subgraphs["body"]

    def strong(values):
        return [conform(o, v.type, strong=True) for o, v in zip(values, node.outputs)]

    def cond(carry):
        values, state = carry
        ctx.set_state(state)
        return jnp.asarray(ctx.run(cond_graph, list(values) + captures)[0], dtype=bool)

    def body(carry):
        values, state = carry
        ctx.set_state(state)
        outs = ctx.run(body_graph, list(values) + captures)
        return strong(outs), ctx.state_values()

    values, state = jax.lax.while_loop(cond, body, (strong(inits), ctx.state_values()))
    ctx.set_state(state)
    return tuple(values)


@lowers("call")
def _call(ctx, node, *inputs, fn):
    return tuple(ctx.run(fn.graph, inputs))
