"""Calls written in place: the executor lowers a call of a small staged graph as that graph's
nodes, reading the call's inputs, instead of a Python call of the graph's own function.

A chain of staged functions, each calling the next, then runs as a few functions rather than
one Python call (and a frame) per level. The called graph is taken as its own CompiledGraph
lowered it (OpDef.lowered_call): with its own small calls already in place, so no walk goes
down the chain. Only a call of at most INLINE_NODES nodes is written in place (a big graph
called many times would multiply the code); a call in an `np.errstate` scope stays a call.
The graph the executor lowers is a copy: the traced graph keeps its `call` nodes.
"""

from __future__ import annotations

from .graph import Graph, Node, Value
from .registry import get_op

# The most nodes (its subgraphs' included) a called graph, with its own calls in place, may have
# for a call of it to be written in place.
INLINE_NODES = 64


def node_count(graph: Graph) -> int:
    """The nodes of `graph` and of its subgraphs."""
    return sum(1 for _ in graph.walk())


def inline_calls(graph: Graph) -> tuple[Graph, dict]:
    """(`graph` with each call of a small graph replaced by that graph's nodes, {id(node): the
    name of the graph it comes from} for the nodes written in place), or (`graph`, {}) when no
    call is replaced. The result shares no node or value with `graph`."""
    if not any(_lowered_callee(node) is not None for node in graph.walk()):
        return graph, {}
    origins: dict = {}
    copy = _Copier(origins).graph(graph, None, None, True)
    return copy, origins


def _lowered_callee(node: Node):
    """The CompiledGraph of what `node` calls, when the call is to be written in place."""
    lowered_call = get_op(node.op).lowered_call
    if lowered_call is None or node.scope is not None:
        return None
    compiled = lowered_call(node)
    if compiled is None or compiled.emitted_size > INLINE_NODES:
        return None
    return compiled


class _Copier:
    """Copies graphs, writing small calls in place; `mapping` takes each value of the original
    (and of the called graphs) to the value or literal standing for it in the copy."""

    def __init__(self, origins: dict):
        self.origins = origins
        self.mapping: dict = {}

    def ref(self, v):
        return self.mapping.get(v, v) if isinstance(v, Value) else v

    def graph(self, g: Graph, origin: str | None, inner_origins, inline: bool) -> Graph:
        copy = Graph(g.name)
        for v, name in zip(g.inputs, g.input_names):
            self.mapping[v] = copy.add_input(v.type, name)
        copy.nodes = self.nodes(g.nodes, origin, inner_origins, inline)
        copy.outputs = [self.ref(v) for v in g.outputs]
        return copy

    def nodes(self, nodes, origin: str | None, inner_origins, inline: bool) -> list:
        """Copies of `nodes` (from the graph named `origin`, None for the one lowered; their own
        origins in `inner_origins`), with small calls in place when `inline`."""
        out: list = []
        for node in nodes:
            callee = _lowered_callee(node) if inline else None
            if callee is None:
                out.append(self.node(node, origin, inner_origins, inline))
                continue
            called = callee.emitted
            for v, x in zip(called.inputs, node.inputs):
                self.mapping[v] = self.ref(x)
            # (as its CompiledGraph lowered it: what it calls stays as it is, no walk down a chain)
            out.extend(self.nodes(called.nodes, called.name, callee.origins, False))
            for v, x in zip(node.outputs, called.outputs):
                self.mapping[v] = self.ref(x)
        return out

    def node(self, node: Node, origin: str | None, inner_origins, inline: bool) -> Node:
        subgraphs = {
            label: self.graph(sub, origin, inner_origins, inline)
            for label, sub in node.subgraphs.items()
        }
        copy = node.copied([self.ref(v) for v in node.inputs], subgraphs)
        self.mapping.update(zip(node.outputs, copy.outputs))
        if origin is not None:
            self.origins[id(copy)] = (inner_origins or {}).get(id(node), origin)
        return copy


__all__ = ["INLINE_NODES", "copy_graph", "inline_calls", "node_count"]


def copy_graph(graph: Graph) -> Graph:
    """A copy of `graph` sharing no node or value with it (calls stay calls)."""
    return _Copier({}).graph(graph, None, None, False)
