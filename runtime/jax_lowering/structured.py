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
    outs, state = jax.lax.cond(jnp.asarray(pred, dtype=bool), branch("then"), branch("else"))
    ctx.set_state(state)
    return tuple(outs)


@lowers("while_loop")
def _while_loop(ctx, node, *inputs, num_loop_vars):
    _refuse_lists(node)
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
