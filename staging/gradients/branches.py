"""Gradients through staged branches (`cond`): the backward pass is a cond on the same
predicate whose branches run the branch that ran forward again (staging.gradients.recompute
says what is left out) and differentiate it; the branch not taken never runs."""

from __future__ import annotations

from runtime import Node
from staging import errors
from staging.control_flow import cond as staged_cond
from staging.gradients import lists
from staging.gradients.rules import where_of
from staging.gradients.values import as_gradient, differentiable, variable_gradients, zeros


def vjp(rev, node: Node, out_cts: list, wanted: list) -> tuple:
    """The cotangents of a cond node's inputs (None for the predicate), given its outputs'."""
    pred, *operands = rev.inputs_of(node)
    outs = [rev.env[v] for v in node.outputs]
    seeds = [
        ct if ct is not None or not differentiable(v.type) else zeros(v, out)
        for ct, v, out in zip(out_cts, node.outputs, outs)
    ]
    positions = [i for i, w in enumerate(wanted[1:]) if w]
    if any(lists.is_list(_type_of(node.inputs[i + 1])) for i in positions):
        raise errors.GradientError(
            f"{where_of(node)}a staged list changed in a staged branch that is "
            f"differentiated: not differentiated yet; build an array instead"
        )
    read = rev.tracked[id(node)]

    def branch(label: str):
        def run():
            graph = node.subgraphs[label]
            active = {graph.inputs[i] for i in positions}
            inner = rev.nested(graph, operands, active, read, rev.run.again())
            found = inner.backward(dict(zip(graph.outputs, seeds)))
            grads = tuple(as_gradient(found.get(graph.inputs[i]), operands[i]) for i in positions)
            return grads, variable_gradients(inner.var_cts, read)

        return run

    grads, var_grads = staged_cond(pred, branch("then"), branch("else"))
    rev.gather(node, {id(var): g for var, g in zip(read, var_grads)})
    result: list = [None] * len(node.inputs)
    for i, g in zip(positions, grads):
        result[i + 1] = g
    return tuple(result)


def _type_of(v):
    return v.type if hasattr(v, "type") else v
