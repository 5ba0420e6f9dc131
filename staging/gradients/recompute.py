"""How a graph runs inside a gradient: once forward, or again for the backward pass.

The backward pass of a staged branch runs the branch taken again, and that of a loop runs each
iteration's body again, to recompute the values the rules need. Run again, a node acting
outside the graph's values would act twice or give another value. So, when recomputing:
printed text and Variable assignments are left out (they were done, once, forward); a random
draw, a clock, a Python call (py_function), or a read of a Variable the differentiated code
assigns (it may hold another value by then) is refused with its line, since its value cannot be
had again.
"""

from __future__ import annotations

from runtime import Node
from runtime.call_inlining import copy_graph
from runtime.graph import Graph
from runtime.registry import get_op
from staging import errors
from staging.gradients.rules import where_of
from staging.gradients.variable_values import nodes_in


def assigned_in(graph: Graph) -> frozenset:
    """The ids of the Variables assigned anywhere in `graph` (its subgraphs and calls too)."""
    found = set()
    for node in graph.nodes:
        for n in (node, *nodes_in(node)):
            if get_op(n.op).writes_variable:
                found.add(id(n.attrs["var"]))
    return frozenset(found)


class Run:
    """How the graphs of one gradient run: `recomputing` for the backward pass's replays;
    `assigned`: the Variables the differentiated code assigns."""

    def __init__(self, assigned: frozenset, recomputing: bool = False):
        self.assigned = assigned
        self.recomputing = recomputing

    def again(self) -> Run:
        return Run(self.assigned, recomputing=True)

    def leaves_out(self, node: Node) -> bool:
        """A node done once forward and left out when recomputing (print, an assignment)."""
        opdef = get_op(node.op)
        return self.recomputing and (
            opdef.writes_variable or (opdef.host_effect and not node.outputs)
        )

    def check(self, node: Node) -> None:
        """Refuses, when recomputing, a node (or a node inside it) whose value cannot be had
        again."""
        if not self.recomputing:
            return
        for n in (node, *nodes_in(node)):
            opdef = get_op(n.op)
            if opdef.varies or (opdef.host_effect and n.outputs):
                raise errors.GradientError(
                    f"{where_of(n)}{n.op} in a staged branch or loop that is differentiated: its "
                    f"gradient runs the branch or loop body again and would not get the same "
                    f"values. Make the draws (or calls) before the branch or loop and index them "
                    f"there, or mark the value with staging.stop_gradient outside it"
                )
            if opdef.gradient == "variable_read" and id(n.attrs["var"]) in self.assigned:
                var = n.attrs["var"]
                raise errors.GradientError(
                    f"{where_of(n)}the Variable {var.name!r} is read in a staged branch or loop "
                    f"that is differentiated, and the differentiated code assigns it: the "
                    f"gradient runs the branch or loop body again when it may hold another value"
                )

    def copy(self, graph: Graph) -> Graph:
        """A copy of a subgraph to run: when recomputing, without what is left out."""
        copy = copy_graph(graph)
        if self.recomputing:
            _leave_out(copy, self)
        return copy


def _leave_out(graph: Graph, run: Run) -> None:
    graph.nodes = [n for n in graph.nodes if not run.leaves_out(n)]
    for node in graph.nodes:
        for sub in node.subgraphs.values():
            _leave_out(sub, run)
