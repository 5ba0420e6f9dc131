"""Gradients through staged lists (a list a staged loop appends to, then stacks or reads).

A list's cotangent is an array of its elements' cotangents, one row per element of the list
as it is at the end: a staged list is one Python list that writes change in place, so every
version of it (before and after each append) has cotangents of that one shape, rows past the
version's length being zero. `np.array(lst)` / `np.stack(lst)` gives its cotangent as it is;
`lst[i]` adds a row; an append `lst.append(v)` gives `v` its row and clears it.

A loop that appends to a list saves, each iteration, the list's length (not the list, which
the later iterations change). When the backward pass runs an iteration's body again, the list
there is a `Recorded` list: the list at the end, seen at that length. Its length and reads of
its earlier elements are what they were; an append is left out (it was done). Lists a loop
body uses otherwise (in a nested branch or loop, popped, written at another index) are
refused in a differentiated loop.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from runtime import Node, Value
from runtime.graph import Graph
from runtime.registry import get_op
from runtime.types import ListType, TensorType
from staging import errors
from staging.core.recording import record
from staging.gradients.rules import where_of

_ROW = ("?",)  # the index attribute of x[i] / x[i] = v with i an input


@dataclass(frozen=True)
class Recorded:
    """A staged list as it was at an earlier iteration: the list at the end (`final`), seen at
    `length` elements."""

    final: object
    length: object


def is_list(t) -> bool:
    return isinstance(t, ListType)


def differentiable_list(t) -> bool:
    element = t.element
    return (
        isinstance(element, TensorType)
        and element.dtype.kind in "fc"
        or (isinstance(element, TensorType) and element.weak and element.python_type is float)
    )


def saved_form(value, t):
    """What a loop saves of a loop variable each iteration: a list's length."""
    return record("list_size", [value]) if is_list(t) else value


def check_appends_only(node: Node, body: Graph, position: int) -> None:
    """Refuses a differentiated loop whose body uses its list loop variable `position` other
    than by its length, reads, and appends passed on as the same loop variable."""
    lst = body.inputs[position]
    current = {lst}
    for n in body.nodes:
        uses = [v for v in n.inputs if isinstance(v, Value) and v in current]
        if not uses:
            continue
        form = get_op(n.op).gradient
        if form in ("list_size", "list_read") and n.inputs[0] in current:
            continue
        if form == "list_write" and _is_append(n, current):
            current.add(n.outputs[0])
            continue
        raise _refusal(n)
    if body.outputs[position] not in current:
        raise _refusal(node)


def _is_append(node: Node, current: set) -> bool:
    size = node.inputs[1].producer if isinstance(node.inputs[1], Value) else None
    return (
        node.inputs[0] in current
        and size is not None
        and get_op(size.op).gradient == "list_size"
        and size.inputs[0] is node.inputs[0]
    )


def _refusal(node: Node) -> errors.GradientError:
    return errors.GradientError(
        f"{where_of(node)}a staged list in a differentiated loop is used otherwise than read, "
        f"appended to and stacked ({node.op}): not differentiated yet. Build an array instead "
        f"(`out = np.zeros(n)`, `out[i] = v`)"
    )


# -- running a body again with a Recorded list ---------------------------------------------


def replay(node: Node, inputs: list):
    """The outputs of a list op of a body run again, its list a Recorded one."""
    form = get_op(node.op).gradient
    recorded = inputs[0]
    if form == "list_size":
        return [recorded.length]
    if form == "list_write":  # an append, done already: the list one element longer
        return [Recorded(recorded.final, recorded.length + 1)]
    if form == "list_read":
        return [record("list_read", [recorded.final, inputs[1]])]
    raise _refusal(node)


# -- backward ------------------------------------------------------------------------------


def final_list(value):
    return value.final if isinstance(value, Recorded) else value


def zeros(value, t: ListType):
    """A cotangent of zeros for a list (of type `t`): one row per element at the end."""
    element = t.element
    stacked = record(
        "list_stack",
        [final_list(value)],
        {"dtype": element.strong().dtype, "element_shape": element.shape},
    )
    return np.zeros_like(stacked, dtype=_float(element))


def _float(element) -> np.dtype:
    dtype = element.strong().dtype
    return dtype if dtype.kind == "f" else np.dtype(np.float64)


def stack_vjp(ct):
    """np.stack(lst): the list's cotangent is the stacked array's."""
    return (ct,)


def read_vjp(ct, lst, t: ListType, index):
    """lst[i]: a row `i` of the element's cotangent."""
    return (record("setitem", [zeros(lst, t), ct, index], {"index": _ROW}), None)


def write_vjp(ct, index):
    """An append: the value gets row `index`; the list before it, the rest."""
    value = record("getitem", [ct, index], {"index": _ROW})
    before = record("setitem", [ct, 0.0, index], {"index": _ROW})
    return (before, None, value)
