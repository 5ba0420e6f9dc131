"""Lowerings of the structured ops: `cond` -> lax.cond, `while_loop` -> lax.while_loop, `call`
inline; Variables are threaded through them as extra operands and results."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..graph import ListType, Value
from ..types import TensorType
from .errors import cannot_lower
from .lists import UNBOUNDED_FIX, Buffer, element_type, to_buffer, trip_bound
from .table import lowers
from .values import conform, is_static


def _branch_buffers(node, operands) -> list:
    """Lists a staged branch may write, as Buffers with room for the writes of either branch."""
    outs = [v.type for v in node.outputs if isinstance(v, Value) and isinstance(v.type, ListType)]
    if not outs or not any(isinstance(x, list) for x in operands):
        return list(operands)
    writes = max(sum(1 for n in g.walk() if n.op == "list_write") for g in node.subgraphs.values())
    converted = []
    for x, item in zip(operands, node.inputs[1:]):
        if isinstance(x, list):
            element = element_type(item.type) or (element_type(outs[0]) if len(outs) == 1 else None)
            if element is None:
                raise cannot_lower(
                    node,
                    f"a list whose elements' shape is not known ({item.type}) is written "
                    f"in a staged branch",
                    "Write elements of one fully known shape",
                )
            x = to_buffer(x, element, writes)
        converted.append(x)
    return converted


def _list_buffers(node, inits, captures):
    """The loop's lists (loop variables and captured ones) as Buffers with room for every write
    the loop can make: its maximum_iterations times the writes in one iteration."""
    body = node.subgraphs["body"]
    if not any(isinstance(x, list) for x in list(inits) + captures) and not any(
        isinstance(x, Buffer) for x in inits
    ):
        return list(inits), captures
    writes = sum(1 for n in body.walk() if n.op == "list_write")
    bound = trip_bound(node)
    out_inits = []
    for i, (value, out) in enumerate(zip(inits, node.outputs)):
        if isinstance(value, Buffer) and writes:
            raise cannot_lower(
                node,
                f"its loop variable {i}, a list, is grown in nested staged loops",
                "Grow it in one loop with a bound, or preallocate a NumPy array (np.zeros(n)) and "
                "write x[i] = v; or keep the interpreter (jit_compile=False)",
            )
        if isinstance(value, list):
            element = element_type(out.type)
            if element is None:
                raise cannot_lower(
                    node,
                    f"its loop variable {i} is a list whose elements' shape is not known "
                    f"({out.type})",
                    "Write elements of one fully known shape",
                )
            if bound is None and writes:
                raise cannot_lower(
                    node,
                    f"its loop variable {i} is a list grown in a staged loop with no "
                    f"bound known when compiling",
                    UNBOUNDED_FIX,
                )
            value = to_buffer(value, element, (bound or 0) * writes)
        out_inits.append(value)
    out_captures = []
    for value, item in zip(captures, node.inputs[len(inits) :]):
        if isinstance(value, list):
            element = element_type(item.type)
            if element is None:
                raise cannot_lower(
                    node,
                    f"a list whose elements' shape is not known ({item.type}) is read in the loop",
                    "Write elements of one fully known shape",
                )
            value = to_buffer(value, element, 0)
        out_captures.append(value)
    return out_inits, out_captures


_SHAPE_FIX = (
    "Give the value one shape on every path (pad or preallocate it at its largest size, "
    "np.zeros(n)), or keep the interpreter (jit_compile=False)"
)


@lowers("cond")
def _cond(ctx, node, pred, *operands):
    if is_static(pred):  # known while lowering: only that branch
        return tuple(ctx.run(node.subgraphs["then" if pred else "else"], operands))
    operands = _branch_buffers(node, operands)
    before = ctx.state_values()

    def branch(label):
        def run():
            ctx.set_state(before)
            outs = ctx.run(node.subgraphs[label], operands)
            return (
                [conform(o, v.type, strong=True) for o, v in zip(outs, node.outputs)],
                ctx.state_values(),
            )

        return run

    try:
        outs, state = jax.lax.cond(jnp.asarray(pred, dtype=bool), branch("then"), branch("else"))
    except TypeError:  # the branches' results differ in shape (only then traced once more)
        then_shapes, else_shapes = (jax.eval_shape(branch(label))[0] for label in ("then", "else"))
        for i, (a, b) in enumerate(zip(then_shapes, else_shapes)):
            if a.shape != b.shape:
                raise cannot_lower(
                    node,
                    f"its result {i} has shape {a.shape} in one branch and {b.shape} in "
                    f"the other, and XLA needs one shape",
                    _SHAPE_FIX,
                ) from None
        raise
    ctx.set_state(state)
    return tuple(outs)


@lowers("while_loop")
def _while_loop(ctx, node, *inputs, num_loop_vars):
    for i, (start, end) in enumerate(zip(node.inputs[:num_loop_vars], node.outputs)):
        if (
            isinstance(start, Value)
            and isinstance(start.type, TensorType)
            and start.type.shape != end.type.shape
        ):
            raise cannot_lower(
                node,
                f"its loop variable {i} starts as {start.type} and changes shape between "
                f"iterations ({end.type} after the loop), and XLA needs one shape",
                _SHAPE_FIX,
            )
    inits, captures = _list_buffers(node, inputs[:num_loop_vars], list(inputs[num_loop_vars:]))
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
