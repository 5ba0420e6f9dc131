"""Whole-graph facts shared by the passes, the executor and fusion: uses, last uses, values that
may be viewed, use replacement, and outputs that may share program state."""

from __future__ import annotations

from collections.abc import Mapping

from .graph import Graph, Node, Value
from .registry import get_op
from .types import kinds


def node_uses(node: Node) -> list:
    """What `node` reads: its inputs (Values and literals), then the outer Values its subgraphs
    (at any depth) refer to."""
    uses = list(node.inputs)
    if not node.subgraphs:
        return uses
    defined: set[int] = set()
    inner: list[Value] = []

    def scan(graph: Graph):
        defined.update(id(v) for v in graph.inputs)
        for n in graph.nodes:
            inner.extend(v for v in n.inputs if isinstance(v, Value))
            defined.update(id(v) for v in n.outputs)
            for sub in n.subgraphs.values():
                scan(sub)
        inner.extend(v for v in graph.outputs if isinstance(v, Value))

    for sub in node.subgraphs.values():
        scan(sub)
    uses.extend(v for v in inner if id(v) not in defined)
    return uses


def free_values(graph: Graph) -> list[Value]:
    """The Values the nodes of `graph` (at any depth) read that it does not define: its own
    inputs, and values of the graphs enclosing it. (Its outputs are read by its node's code.)"""
    defined: set[int] = set()
    read: dict[int, Value] = {}

    def scan(g: Graph, top: bool):
        if not top:
            defined.update(id(v) for v in g.inputs)
        for n in g.nodes:
            read.update((id(v), v) for v in n.inputs if isinstance(v, Value))
            defined.update(id(v) for v in n.outputs)
            for sub in n.subgraphs.values():
                scan(sub, False)
        if not top:
            read.update((id(v), v) for v in g.outputs if isinstance(v, Value))

    scan(graph, True)
    return [v for k, v in read.items() if k not in defined]


def last_uses(graph: Graph) -> dict[int, int]:
    """id(value) -> position of the last node of `graph` that reads it (node_uses), or
    len(graph.nodes) for an output of the graph. Values nothing reads are absent."""
    last: dict[int, int] = {}
    for position, node in enumerate(graph.nodes):
        for v in node_uses(node):
            if isinstance(v, Value):
                last[id(v)] = position
    for v in graph.outputs:
        if isinstance(v, Value):
            last[id(v)] = len(graph.nodes)
    return last


def dead_after(graph: Graph) -> dict[int, list[Value]]:
    """Node position -> the arrays (ndim > 0, or lists) that die there: their last use, or their
    producer when nothing reads them. Inputs and outputs of the graph never die (the caller
    holds them). In the order the values are defined."""
    last = last_uses(graph)
    keep = {id(v) for v in graph.outputs if isinstance(v, Value)}
    out: dict[int, list[Value]] = {}
    for position, node in enumerate(graph.nodes):
        for v in node.outputs:
            if id(v) not in keep and _may_be_array(v.type):
                out.setdefault(last.get(id(v), position), []).append(v)
    return out


def _may_be_array(t) -> bool:
    """Whether a value of type `t` is an array (ndim > 0) or a list on every path: what
    dead_after frees. (A value of several kinds: all of them; a scalar on some path is not
    freed, as a scalar's name may be read inline in a later line.)"""
    return all(getattr(k, "ndim", 1) != 0 for k in kinds(t))


def maybe_viewed(graph: Graph) -> set[int]:
    """Ids of the values of `graph` that some node may keep a view of: those read by any node
    but an elementwise ufunc (OpDef.out_ufunc: it only reads its inputs element by element), or
    read inside a subgraph, and the graph's outputs. Their buffers must never be written."""
    out: set[int] = set()
    for node in graph.nodes:
        if not node.subgraphs and get_op(node.op).out_ufunc is not None:
            continue
        out.update(id(v) for v in node_uses(node) if isinstance(v, Value))
    out.update(id(v) for v in graph.outputs if isinstance(v, Value))
    return out


def replace_uses(graph: Graph, mapping: Mapping[Value, object]) -> None:
    """Every use of a Value `v` in `mapping` (node inputs, graph outputs, in `graph` and its
    subgraphs) becomes a use of mapping[v]."""
    if not mapping:
        return
    graph.outputs = [mapping.get(v, v) if isinstance(v, Value) else v for v in graph.outputs]
    for node in graph.nodes:
        node.inputs = [mapping.get(v, v) if isinstance(v, Value) else v for v in node.inputs]
        for sub in node.subgraphs.values():
            replace_uses(sub, mapping)


def outputs_sharing_state(graph: Graph) -> tuple:
    """Indices of graph outputs (arrays) that may be program state (a Variable's buffer) or a
    view of it: a caller must get copies of those."""
    return tuple(
        i
        for i, v in enumerate(graph.outputs)
        if isinstance(v, Value) and getattr(v.type, "ndim", 0) > 0 and _shares_state(v, {}, set())
    )


def _shares_state(value, outer: dict, seen: set) -> bool:
    """`outer` maps id(subgraph input) -> the Value it stands for in the enclosing graph; `seen`
    holds the values already followed (a loop variable leads back to itself)."""
    while isinstance(value, Value):
        if id(value) in seen:
            return False
        seen.add(id(value))
        node = value.producer
        if node is None:
            value = outer.get(id(value))
            continue
        op = get_op(node.op)
        if op.may_alias_state:
            return True
        if op.output_sources is not None:
            for label, source in op.output_sources(node, value.index):
                inner = outer
                if label is not None:
                    assert op.bind_subgraph is not None  # (an op with subgraphs binds them)
                    inner = dict(outer)
                    inner.update(
                        (id(a), b)
                        for a, b in zip(node.subgraphs[label].inputs, op.bind_subgraph(node, label))
                    )
                if _shares_state(source, inner, seen):
                    return True
            return False
        if not op.may_alias_input or not node.inputs:
            return False
        value = node.inputs[0]
    return False


class BufferPlan:
    """Which arrays of the top-level graph may have their buffer written over by a later node
    (buffer reuse): those the graph allocated itself (ufunc results, never inputs, constants or
    views) that no node may keep a view of (analysis.maybe_viewed)."""

    def __init__(self, maybe_viewed: set[int]):
        self._maybe_viewed = maybe_viewed
        self._owned: set[int] = set()  # values holding a fresh buffer this graph allocated
        self._taken: set[int] = set()  # values whose buffer a later node took over

    def own(self, value: Value) -> None:
        """`value` holds a fresh buffer the graph allocated."""
        self._owned.add(id(value))

    def reusable(self, value: Value) -> bool:
        """Whether `value`'s buffer may be written over once `value` is dead."""
        return id(value) in self._owned and id(value) not in self._maybe_viewed

    def take(self, value: Value) -> None:
        """A node writes its result into `value`'s buffer: it lives on, nothing to free."""
        self._taken.add(id(value))

    def taken(self, value: Value) -> bool:
        return id(value) in self._taken


__all__ = [
    "BufferPlan",
    "dead_after",
    "free_values",
    "last_uses",
    "maybe_viewed",
    "node_uses",
    "outputs_sharing_state",
    "replace_uses",
]


# -- errors when the graph runs ---------------------------------------------------------------

# What a NumPy function may raise when the graph runs (OpDef.run_time_errors): these, or one of
# NumPy's subclasses of them (np.linalg.LinAlgError is a ValueError, AxisError an IndexError).
NUMPY_ERRORS = tuple(
    ("numpy", cls)
    for cls in (ValueError, TypeError, IndexError, OverflowError, FloatingPointError, MemoryError)
)


# What an operator that cannot fail on its values (`+ - *`: OpDef.raises "never") may still raise:
# an overflow under np.errstate(over="raise"), a Python int that does not fit the array's dtype.
_ARITHMETIC_ERRORS = (("numpy", FloatingPointError), ("numpy", OverflowError))


def run_time_errors(node: Node, memo: dict | None = None) -> tuple:
    """What `node` may raise when the graph runs, as (kind, class) pairs (OpDef.run_time_errors):
    the op's own hook, or for a structured op what its subgraphs' nodes may raise."""
    memo = {} if memo is None else memo
    known = memo.get(id(node))
    if known is not None:
        return known
    op = get_op(node.op)
    if op.run_time_errors is not None:
        found = tuple(op.run_time_errors(node))
    elif node.subgraphs:
        found = tuple(
            dict.fromkeys(
                e
                for g in node.subgraphs.values()
                for n in g.nodes
                for e in run_time_errors(n, memo)
            )
        )
    elif op.constant is not None or op.comparison or op.logical:
        found = ()  # (NumPy's comparisons and logical operations raise no floating point error)
    else:
        found = NUMPY_ERRORS if op.raises != "never" else _ARITHMETIC_ERRORS
        if op.python_errors and any(
            isinstance(v, Value) and any(getattr(k, "weak", False) for k in kinds(v.type))
            for v in node.inputs
        ):
            found = found + tuple(("exactly", cls) for cls in op.python_errors)
    memo[id(node)] = found
    return found


def graph_errors(graph: Graph, memo: dict | None = None) -> tuple:
    """What the nodes of `graph` may raise when it runs (see run_time_errors)."""
    memo = {} if memo is None else memo
    return tuple(dict.fromkeys(e for n in graph.nodes for e in run_time_errors(n, memo)))


def may_catch(error, handler) -> bool:
    """Whether an `except handler` clause (a class) may catch `error`, a (kind, class) pair."""
    kind, cls = error
    if issubclass(cls, handler):
        return True
    if not issubclass(handler, cls):
        return False
    if kind == "any":
        return True
    return kind == "numpy" and (handler.__module__ or "").split(".")[0] == "numpy"


def surely_caught(error, handlers) -> bool:
    """Whether one of the classes `handlers` catches every exception `error` stands for."""
    return any(issubclass(error[1], h) for h in handlers)
