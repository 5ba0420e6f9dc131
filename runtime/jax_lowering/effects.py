"""Lowerings of the ops with effects: staged print and assert and py_function as host
callbacks in program order, Variables as threaded state, lists as Python lists while tracing."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .._compat import add_note
from ..core_ops import _list_stack_kernel, _list_write
from ..executor import failure_note
from ..registry import get_op
from .errors import cannot_lower
from .lists import UNBOUNDED_FIX, Buffer, Stacked
from .ops import _loop_dtypes, ir_type
from .table import lowers
from .values import is_static, to_host


def _split(node, inputs):
    """(dynamic values, rebuild): callbacks get the JAX values; numbers known while lowering
    are put back in place on the host, and each value takes the form the interpreter gives it."""
    dynamic, types, slots = [], [], []
    for item, value in zip(node.inputs, inputs):
        if is_static(value):
            slots.append(("static", value))
        else:
            slots.append(("dynamic", len(dynamic)))
            dynamic.append(value)
            types.append(ir_type(item))

    def rebuild(host_values):
        host = [to_host(v, t) for v, t in zip(host_values, types)]
        return [host[x] if kind == "dynamic" else x for kind, x in slots]

    return dynamic, rebuild


def _recording(ctx, node, kernel):
    """`kernel` as a callback: skipped once the call has failed; an exception it raises is kept
    (with the note the interpreter adds) for the call to raise when the computation is done."""
    runner = ctx.runner

    def call(*host_args):
        if runner.failed is not None:
            return None
        try:
            return kernel(*host_args)
        except BaseException as error:  # noqa: BLE001 - re-raised by the caller of the graph
            add_note(error, failure_note(node, runner.graph.name))
            runner.failed = error
            return None

    return call


@lowers("print")
def _print(ctx, node, *inputs, parts, sep, end):
    dynamic, rebuild = _split(node, inputs)
    run = _recording(ctx, node, get_op("print").kernel(node.attrs))
    jax.debug.callback(lambda *values: run(*rebuild(values)), *dynamic, ordered=True)
    return ()


@lowers("assert")
def _assert(ctx, node, condition, *inputs, **attrs):
    dynamic, rebuild = _split(node, (condition, *inputs))
    run = _recording(ctx, node, get_op("assert").kernel(node.attrs))
    if is_static(condition):
        if not condition:
            jax.debug.callback(lambda *values: run(*rebuild(values)), *dynamic, ordered=True)
        return ()
    if jnp.ndim(condition) != 0:  # the interpreter's `not array` raises: the callback does too
        jax.debug.callback(lambda *values: run(*rebuild(values)), *dynamic, ordered=True)
        return ()
    jax.lax.cond(
        jnp.asarray(condition, dtype=bool),
        lambda: None,
        lambda: jax.debug.callback(lambda *values: run(*rebuild(values)), *dynamic, ordered=True),
    )
    return ()


@lowers("py_function")
def _py_function(ctx, node, *inputs, func, out_types):
    types = out_types if isinstance(out_types, tuple) else (out_types,)
    if not all(t.is_fully_defined for t in types):
        raise cannot_lower(
            node,
            f"its Tout {', '.join(map(str, types))} has unknown dims, and XLA needs the "
            f"shape of what the Python function returns",
            "Give Tout a fully known shape",
        )
    dynamic, rebuild = _split(node, inputs)
    run = _recording(ctx, node, get_op("py_function").kernel(node.attrs))
    zeros = tuple(np.zeros(t.shape, t.dtype) for t in types)

    def call(*values):
        result = run(*rebuild(values))
        return (
            zeros
            if result is None
            else tuple(np.asarray(r, dtype=t.dtype) for r, t in zip(result, types))
        )

    shapes = tuple(jax.ShapeDtypeStruct(t.shape, t.dtype) for t in types)
    return tuple(jax.experimental.io_callback(call, shapes, *dynamic, ordered=True))


# -- variables ---------------------------------------------------------------------------


@lowers("read_variable")
def _read_variable(ctx, node, *, var):
    return ctx.state[id(var)]


@lowers("assign_variable")
def _assign_variable(ctx, node, value, *, var, mode):
    if mode == "set":
        new = jnp.asarray(value).astype(var.dtype)
    else:
        ufunc = np.add if mode == "add" else np.subtract
        loop = _loop_dtypes(ufunc, [_var_type(var), ir_type(node.inputs[0])])
        old = jnp.asarray(ctx.state[id(var)], dtype=loop[0])
        step = jnp.asarray(value, dtype=loop[1])
        new = (old + step if mode == "add" else old - step).astype(var.dtype)
    ctx.state[id(var)] = (
        jnp.broadcast_to(new, var.shape) if tuple(var.shape) != jnp.shape(new) else new
    )
    return ()


def _var_type(var):
    from ..types import TensorType

    return TensorType(var.dtype, var.shape)


# -- lists: Python lists of JAX values while tracing, Buffers in staged loops (lists.py) ----


def _known(x) -> bool:
    """Whether `x` is a number known while lowering (not a value of the running graph)."""
    return (
        is_static(x)
        or isinstance(x, (np.integer, np.ndarray))
        or (isinstance(x, jax.Array) and not isinstance(x, jax.core.Tracer))
    )


def _known_int(node, position: int, x):
    """Input `position` of `node` as an int when it is known while lowering (a literal, a
    constant of the graph), else None."""
    if _known(x):
        return int(x)
    item = node.inputs[position]
    producer = getattr(item, "producer", None)
    if producer is not None and producer.op == "const":
        return int(producer.attrs["value"])
    return None


def _static_index(node, index) -> int:
    known = _known_int(node, 1, index)
    if known is not None:
        return known
    raise cannot_lower(
        node,
        "the list index is known only when the graph runs, outside a staged loop with a bound",
        UNBOUNDED_FIX,
    )


def _check(ctx, node, bad, error: BaseException) -> None:
    """The call raises `error` (with the user's line) when `bad` holds when the graph runs."""

    def fail():
        raise error

    run = _recording(ctx, node, fail)
    jax.lax.cond(
        jnp.asarray(bad, dtype=bool), lambda: jax.debug.callback(run, ordered=True), lambda: None
    )


@lowers("list_new")
def _list_new(ctx, node, *size, element):
    n = _known_int(node, 0, size[0]) if size else 0
    if n is None:
        raise cannot_lower(node, "the list's size is known only when the graph runs", UNBOUNDED_FIX)
    return [None] * n


@lowers("list_write")
def _list_write_lowered(ctx, node, lst, index, value, *, dynamic_size):
    if isinstance(lst, Buffer):
        index = jnp.asarray(index, dtype=np.int64)
        bad = (index >= lst.capacity) | (index < 0)
        if not dynamic_size:
            bad = bad | (index >= lst.length)
        _check(
            ctx,
            node,
            bad,
            IndexError(
                f"TensorArray index out of range: the list holds at most {lst.capacity} elements "
                f"in this loop (its maximum_iterations)"
            ),
        )
        row = jnp.asarray(value, dtype=lst.element.dtype).reshape((1, *lst.element.shape))
        data = jax.lax.dynamic_update_slice(lst.data, row, (index,) + (0,) * len(lst.element.shape))
        return Buffer(data, jnp.maximum(lst.length, index + 1), lst.element)
    return _list_write(lst, _static_index(node, index), value, dynamic_size=dynamic_size)


@lowers("list_read")
def _list_read(ctx, node, lst, index):
    if isinstance(lst, Buffer):
        index = jnp.asarray(index, dtype=np.int64)
        _check(
            ctx,
            node,
            (index >= lst.length) | (index < 0),
            IndexError("TensorArray index out of range, or element read before it was written"),
        )
        return jax.lax.dynamic_index_in_dim(lst.data, index, keepdims=False)
    value = lst[_static_index(node, index)]
    if value is None:  # the interpreter's error, when (and if) the graph runs this read
        _check(ctx, node, True, ValueError("TensorArray element was read before it was written"))
        out = node.outputs[0].type
        return jnp.zeros(out.shape, out.dtype)
    return value


@lowers("list_size")
def _list_size(ctx, node, lst):
    if isinstance(lst, Buffer):
        return lst.length
    return len(lst)


@lowers("list_pop")
def _list_pop(ctx, node, lst):
    if isinstance(lst, Buffer):
        _check(ctx, node, lst.length <= 0, IndexError("pop from empty list"))
        last = jnp.maximum(lst.length - 1, 0)
        return Buffer(lst.data, last, lst.element), jax.lax.dynamic_index_in_dim(
            lst.data, last, keepdims=False
        )
    if not lst:
        raise IndexError("pop from empty list")
    return lst, lst.pop()


@lowers("list_stack")
def _list_stack(ctx, node, lst, *, dtype, element_shape, empty="zeros"):
    if isinstance(lst, Buffer):
        return Stacked(lst.data.astype(dtype), lst.length)
    if not lst:
        return jnp.asarray(_list_stack_kernel(dtype, element_shape, empty)([]))
    if any(v is None for v in lst):
        raise ValueError("TensorArray.stack(): some elements were never written")
    return jnp.stack([jnp.asarray(v) for v in lst]).astype(dtype)
