"""Graph clean-up after tracing: dead-code elimination (stateful nodes always stay)."""

from __future__ import annotations

from runtime import Graph, Value


def optimize(graph: Graph) -> Graph:
    eliminate_dead_code(graph)
    return graph


def eliminate_dead_code(graph: Graph) -> None:
    """Removes nodes whose outputs nothing uses, in this graph and its subgraphs."""
    live: set[int] = {id(v) for v in graph.outputs if isinstance(v, Value)}
    kept = []
    for node in reversed(graph.nodes):
        if node.stateful or any(id(v) in live for v in node.outputs):
            for sub in node.subgraphs.values():
                eliminate_dead_code(sub)
            kept.append(node)
            for v in node.inputs:
                if isinstance(v, Value):
                    live.add(id(v))
    kept.reverse()
    graph.nodes = kept
