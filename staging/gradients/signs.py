"""Fewer negations in a gradient's backward pass: the VJPs of `-` and of a product by a number
leave chains like `acc + -((-g) * c)`, which become `acc - g * -c`.

Two rewrites, on the float nodes the backward pass recorded (never on the forward ones, whose
values the caller may see):

- `(-g) * c` with `c` a Python number becomes `g * (-c)`;
- `a + (-u)` becomes `a - u`.

Each gives the same number for every operand but NaN, whose sign bit may come out flipped:
IEEE 754 defines `a - u` as `a + (-u)`, and a product's sign is the exclusive or of its
operands'. The sign of a NaN in a gradient is not a value eager code has to agree with (eager
NumPy has no gradient), and the backward pass's NaNs stay NaNs. A negation left unread is
dropped.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from runtime.analysis import node_uses
from runtime.graph import Graph, Node, Value
from runtime.registry import all_ops, get_op
from runtime.types import TensorType


def rewrite(graph: Graph, start: int) -> None:
    """Rewrites the nodes of `graph` from position `start` on (the backward pass's), and the
    subgraphs of those nodes, then drops the negations nothing reads any more."""
    for node in graph.nodes[start:]:
        for sub in node.subgraphs.values():
            rewrite(sub, 0)
    uses = _use_counts(graph)
    producers = {id(v): n for n in graph.nodes for v in n.outputs}
    for node in graph.nodes[start:]:
        _fold_negated_factor(node, producers, uses) or _subtract_negation(node, producers, uses)
    dead = {
        id(n)
        for n in graph.nodes[start:]
        if _ufunc(n) is np.negative and not n.stateful and uses.get(id(n.outputs[0]), 0) == 0
    }
    if dead:
        graph.nodes[:] = [n for n in graph.nodes if id(n) not in dead]


def _use_counts(graph: Graph) -> dict[int, int]:
    """id(value) -> how many times the nodes of `graph` (their subgraphs too) and its outputs
    read it."""
    counts: dict[int, int] = {}
    for node in graph.nodes:
        for v in node_uses(node):
            if isinstance(v, Value):
                counts[id(v)] = counts.get(id(v), 0) + 1
    for v in graph.outputs:
        if isinstance(v, Value):
            counts[id(v)] = counts.get(id(v), 0) + 1
    return counts


def _ufunc(node: Node):
    return get_op(node.op).out_ufunc


def _plain_float(node: Node) -> bool:
    """A node the rewrites may change: one output, a real float array or NumPy scalar of one
    kind, no error-state scope, nothing it must keep."""
    t = node.outputs[0].type if len(node.outputs) == 1 else None
    return (
        type(t) is TensorType
        and not t.weak
        and t.dtype.kind == "f"
        and node.scope is None
        and not node.stateful
        and not node.subgraphs
    )


def _negation_read_once(item, producers: dict, uses: dict) -> Node | None:
    """The negation node giving `item`, when this is its only reader."""
    if not isinstance(item, Value) or uses.get(id(item), 0) != 1:
        return None
    node = producers.get(id(item))
    if node is None or _ufunc(node) is not np.negative or not _plain_float(node):
        return None
    return node


def _fold_negated_factor(node: Node, producers: dict, uses: dict) -> bool:
    """`(-g) * c` -> `g * (-c)` for a Python number `c`."""
    if _ufunc(node) is not np.multiply or not _plain_float(node) or len(node.inputs) != 2:
        return False
    for k, other in ((0, 1), (1, 0)):
        c = node.inputs[other]
        negation = _negation_read_once(node.inputs[k], producers, uses)
        if negation is None or type(c) is not float:
            continue
        if negation.inputs[0].type != node.inputs[k].type:
            continue
        inputs = list(node.inputs)
        inputs[k], inputs[other] = negation.inputs[0], -c
        _reread(node, inputs, uses)
        return True
    return False


def _subtract_negation(node: Node, producers: dict, uses: dict) -> bool:
    """`a + (-u)` (or `(-u) + a`) -> `a - u`."""
    if _ufunc(node) is not np.add or not _plain_float(node) or len(node.inputs) != 2:
        return False
    for k, other in ((1, 0), (0, 1)):
        negation = _negation_read_once(node.inputs[k], producers, uses)
        if negation is None or negation.inputs[0].type != node.inputs[k].type:
            continue
        node.op = _subtract_name()
        _reread(node, [node.inputs[other], negation.inputs[0]], uses)
        return True
    return False


def _reread(node: Node, inputs: list, uses: dict) -> None:
    """`node` reads `inputs` now: the use counts follow."""
    for v in node.inputs:
        if isinstance(v, Value):
            uses[id(v)] -= 1
    for v in inputs:
        if isinstance(v, Value):
            uses[id(v)] = uses.get(id(v), 0) + 1
    node.inputs = inputs


@functools.cache
def _subtract_name() -> str:
    """The op of NumPy's subtraction (Python's `-` on arrays)."""
    return next(
        name
        for name, op in all_ops().items()
        if op.out_ufunc is np.subtract and op.python_operator is operator.sub
    )
