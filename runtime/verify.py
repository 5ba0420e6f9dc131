"""The graph verifier: the invariants every pass keeps (registered ops, SSA, scoping, types)."""

from __future__ import annotations

from .graph import Graph, Node, Value, node_text
from .registry import UnknownOpError, get_op, infer_kinds
from .types import accepts


class InvalidGraphError(Exception):
    """A graph breaks an invariant of the IR. Carries the node (None for the graph's own inputs
    and outputs) and its location."""

    def __init__(self, message, node=None, location=None):
        super().__init__(message)
        self.node = node
        self.location = location


def verify(graph: Graph) -> None:
    """Checks that every node's op is registered; that each Value is defined once, by its
    producer at its index (or as a graph input); that every use refers to a Value defined
    before it in the same graph or in an enclosing one (before the node owning the subgraph);
    that a node's output types are what its op's rule infers from its inputs, or less specific
    (a folded constant keeps the type its node had: `f64[?]` holding 3 values); and that a
    structured node's subgraphs are those its op declares, with the arities and types its
    check hook wants. Raises InvalidGraphError naming the first offending node."""
    _Verifier(graph).graph(graph, [], graph.name)


class _Verifier:
    def __init__(self, top: Graph):
        self.top = top
        self.defined: set[int] = set()  # every Value defined so far, in any graph

    def fail(self, problem: str, node: Node | None, where: str):
        at = ""
        if node is not None and node.location:
            at = f"{node.location[0]}:{node.location[1]}: "
        subject = f"`{node_text(node)}`" if node is not None else "the graph"
        raise InvalidGraphError(
            f"{at}invalid graph {self.top.name!r}: {subject} in {where}: {problem}",
            node,
            node.location if node is not None else None,
        )

    def define(self, value, scope: set[int], node: Node | None, where: str, what: str):
        if not isinstance(value, Value):
            self.fail(f"{what} is {value!r}, not a Value", node, where)
        if id(value) in self.defined:
            self.fail(f"{what} is defined twice (SSA)", node, where)
        self.defined.add(id(value))
        scope.add(id(value))

    def use(self, value, scopes: list[set[int]], node: Node | None, where: str, what: str):
        if isinstance(value, Value) and not any(id(value) in s for s in scopes):
            self.fail(f"{what} is not defined before its use here", node, where)

    def graph(self, g: Graph, outer: list[set[int]], where: str):
        scope: set[int] = set()
        scopes = [*outer, scope]
        for i, v in enumerate(g.inputs):
            self.define(v, scope, None, where, f"input {i}")
            if v.producer is not None:
                self.fail(f"input {i} has a producer ({v.producer.op})", None, where)
        for node in g.nodes:
            self.node(node, scopes, where)
            for k, v in enumerate(node.outputs):
                self.define(v, scope, node, where, f"output {k}")
                if v.producer is not node or v.index != k:
                    self.fail(
                        f"output {k} names another producer or index ({v.index})", node, where
                    )
        for i, v in enumerate(g.outputs):
            self.use(v, scopes, None, where, f"output {i} of the graph")

    def node(self, node: Node, scopes: list[set[int]], where: str):
        try:
            op = get_op(node.op)
        except UnknownOpError as exc:
            self.fail(str(exc), node, where)
        for k, v in enumerate(node.inputs):
            self.use(v, scopes, node, where, f"input {k}")
        if set(node.subgraphs) != set(op.subgraphs):
            self.fail(
                f"has subgraphs {sorted(node.subgraphs)}, op {node.op!r} takes "
                f"{sorted(op.subgraphs)}",
                node,
                where,
            )
        if op.subgraphs:
            problem = op.check(node) if op.check is not None else None
            if problem:
                self.fail(problem, node, where)
            for label in op.subgraphs:
                self.graph(node.subgraphs[label], scopes, f"{where} > {node.op} {label}")
            return
        types = [v.type if isinstance(v, Value) else v for v in node.inputs]
        try:
            inferred, _ = infer_kinds(op, types, node.attrs)  # (each kind of a union)
        except Exception as exc:  # noqa: BLE001  (any failure of the rule is the finding)
            self.fail(
                f"its op's type rule rejects the inputs ({type(exc).__name__}: {exc})", node, where
            )
        recorded = tuple(v.type for v in node.outputs)
        if len(inferred) != len(recorded) or not all(map(accepts, recorded, inferred)):
            self.fail(
                f"output types {_types(recorded)} do not match the op's rule: {_types(inferred)}",
                node,
                where,
            )


def _types(types) -> str:
    return "(" + ", ".join(str(t) for t in types) + ")"


__all__ = ["InvalidGraphError", "verify"]
