"""Gradients through staged loops (`while_loop`, loops whose trip count depends on the data,
`break` and early `return` included).

Forward, the loop runs with each iteration's loop variables appended to staged lists (a
staged list's length, not the list: staging.gradients.lists); memory: iterations x loop state.
The backward pass is a loop counting the iterations down: it reads the state an iteration
began with, runs that iteration's body again (staging.gradients.recompute says what is left
out) and applies its vector-Jacobian product, carrying the cotangents of the loop variables,
of the values the body captures and of the Variables it reads.
"""

from __future__ import annotations

import numpy as np

from runtime import Node, TensorType
from runtime.types import kinds
from staging import errors
from staging.control_flow import while_loop as staged_while
from staging.core.recording import record
from staging.gradients import lists
from staging.gradients.rules import where_of
from staging.gradients.values import (
    add,
    as_gradient,
    differentiable,
    variable_gradients,
    variable_zeros,
    zeros_for,
)
from staging.state.tensor_array import TensorArray


def run_forward(rev, node: Node) -> list:
    """The loop, run with each iteration's loop variables appended to staged lists."""
    nvars = node.attrs["num_loop_vars"]
    inputs = rev.inputs_of(node)
    inits, captures = inputs[:nvars], inputs[nvars:]
    test, body = node.subgraphs["cond"], node.subgraphs["body"]
    for i, v in enumerate(node.outputs):
        _check_savable(node, v.type)
        if lists.is_list(v.type):
            lists.check_appends_only(node, body, i)
    stacks = tuple(_stack_for(v.type) for v in node.outputs)

    def go_on(count, saved, *values):
        return rev.nested(test, list(values) + captures, set(), (), rev.run).outputs[0]

    def step(count, saved, *values):
        saved = tuple(
            s.write(count, lists.saved_form(x, v.type))
            for s, x, v in zip(saved, values, node.outputs)
        )
        after = rev.nested(body, list(values) + captures, set(), (), rev.run).outputs
        return (count + 1, saved, *after)

    count, saved, *finals = staged_while(go_on, step, (np.int64(0), stacks, *inits))
    rev.loops[id(node)] = (count, saved)
    return finals


def vjp(rev, node: Node, out_cts: list, wanted: list) -> tuple:
    """The cotangents of a while_loop node's inputs (its loop variables' initial values and
    its captures), given its outputs': the iterations replayed in reverse."""
    nvars = node.attrs["num_loop_vars"]
    inputs = rev.inputs_of(node)
    captures = inputs[nvars:]
    body = node.subgraphs["body"]
    count, saved = rev.loops[id(node)]
    outs = [rev.env[v] for v in node.outputs]
    variables = [i for i in range(nvars) if differentiable(node.outputs[i].type)]
    caps = [j for j in range(len(captures)) if wanted[nvars + j]]
    seeds = tuple(
        as_gradient(out_cts[i], outs[i])
        if out_cts[i] is not None
        else zeros_for(outs[i], node.outputs[i].type)
        for i in variables
    )
    cap_zeros = tuple(zeros_for(captures[j], _type_of(node.inputs[nvars + j])) for j in caps)
    read = rev.tracked[id(node)]
    read_zeros = tuple(variable_zeros(var) for var in read)

    def go_on(k, var_cts, cap_cts, read_cts):
        return k > 0

    def step(k, var_cts, cap_cts, read_cts):
        k = k - 1
        values = [
            lists.Recorded(outs[i], s.read(k))
            if lists.is_list(v.type)
            else _restored(s.read(k), v.type)
            for i, (s, v) in enumerate(zip(saved, node.outputs))
        ]
        active = {body.inputs[i] for i in variables} | {body.inputs[nvars + j] for j in caps}
        inner = rev.nested(body, values + captures, active, read, rev.run.again())
        found = inner.backward(dict(zip([body.outputs[i] for i in variables], var_cts)))
        new_vars = tuple(
            as_gradient(found.get(body.inputs[i]), outs[i])
            if found.get(body.inputs[i]) is not None
            else zeros_for(values[i], node.outputs[i].type)
            for i in variables
        )
        new_caps = tuple(
            add(c, as_gradient(found.get(body.inputs[nvars + j]), captures[j], skip=True))
            for c, j in zip(cap_cts, caps)
        )
        new_reads = tuple(
            add(c, g) for c, g in zip(read_cts, variable_gradients(inner.var_cts, read))
        )
        return k, new_vars, new_caps, new_reads

    _, var_cts, cap_cts, read_cts = staged_while(go_on, step, (count, seeds, cap_zeros, read_zeros))
    rev.gather(node, {id(var): g for var, g in zip(read, read_cts)})
    result: list = [None] * len(node.inputs)
    for i, g in zip(variables, var_cts):
        if wanted[i]:
            result[i] = g
    for j, g in zip(caps, cap_cts):
        result[nvars + j] = g
    return tuple(result)


def _check_savable(node: Node, t) -> None:
    """A loop variable the forward loop can save each iteration of: numbers and arrays."""
    if lists.is_list(t):
        return
    if not all(isinstance(k, TensorType) for k in kinds(t)):
        raise errors.GradientError(
            f"{where_of(node)}no gradient through a loop with a loop variable that is {t} (None "
            f"or a string on some path: not supported yet); give it a number or an array "
            f"before the loop"
        )


def _restored(value, t):
    """A loop variable's value read back from its staged list: a Python number again where the
    loop variable is one (the list holds it as a NumPy value)."""
    if isinstance(t, TensorType) and t.weak:
        return record("python_number", [value], {"kind": t.python_type})
    return value


def _stack_for(t) -> TensorArray:
    """An empty staged list for what a loop saves of a loop variable of type `t` each
    iteration (a list's length, staging.gradients.lists)."""
    if lists.is_list(t):
        return TensorArray(dtype=np.int64, size=0, dynamic_size=True)
    array_kinds = [k for k in kinds(t) if isinstance(k, TensorType)]
    dtype = np.result_type(*[k.strong().dtype for k in array_kinds]) if array_kinds else None
    return TensorArray(dtype=dtype, size=0, dynamic_size=True)


def _type_of(v):
    return v.type if hasattr(v, "type") else v
