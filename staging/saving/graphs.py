"""Graphs <-> JSON: nodes, their inputs, attributes, output types, subgraphs and locations.

A graph is `{"name", "inputs": [{"type", "name"}], "nodes": [...], "outputs": [REF, ...]}`.
Values are numbered in definition order across the whole graph, subgraphs included (graph
inputs, then each node's outputs, a subgraph's inputs when the subgraph starts); a REF is that
number, or `{"literal": VALUE}` (a Python number known when tracing, in the value encoding).
A node is `{"op", "inputs": [REF], "attrs": {name: VALUE}, "outputs": [TYPE],
"subgraphs": [[label, GRAPH], ...], "location": [file name, line] | null}` (the name without directories).

Decoding checks the JSON shape of every part; the loader then checks the graph itself with
runtime.verify (registered ops, SSA, scoping, each node's types against its op's rule).
"""

from __future__ import annotations

import os

from runtime import Graph, Node, Value
from runtime.graph import node_text
from runtime.registry import get_op, has_op
from staging.saving.attrs import check as check_attributes
from staging.saving.attrs import problem as attribute_problem
from staging.saving.values import (
    Decoder,
    Encoder,
    FormatError,
    Refusal,
    decode_type,
    encode_type,
    expect,
    expect_dict,
    expect_int,
    expect_list,
    expect_str,
)

MAX_NESTING = 256  # subgraphs inside subgraphs
MAX_NODES = 1 << 20  # nodes in one file


class SaveRefusal(Exception):
    """A node the format cannot hold: `node` names it."""

    def __init__(self, message: str, node: Node | None = None):
        super().__init__(message)
        self.node = node


def where(node: Node | None) -> str:
    if node is not None and node.location:
        return f"{node.location[0]}:{node.location[1]}: "
    return ""


class GraphEncoder:
    def __init__(self, encoder: Encoder):
        self.encoder = encoder
        self.numbers: dict[int, int] = {}

    def _define(self, value: Value) -> None:
        self.numbers[id(value)] = len(self.numbers)

    def _ref(self, item, node):
        if isinstance(item, Value):
            return self.numbers[id(item)]
        try:
            return {"literal": self.encoder.value(item)}
        except Refusal as exc:
            raise SaveRefusal(
                f"{where(node)}cannot save `{node_text(node)}`: its input {exc}", node
            ) from None

    def graph(self, g: Graph) -> dict:
        inputs = []
        for v, name in zip(g.inputs, g.input_names):
            self._define(v)
            inputs.append({"type": self._type(v.type, None), "name": name})
        nodes = [self.node(n) for n in g.nodes]
        return {
            "name": g.name,
            "inputs": inputs,
            "nodes": nodes,
            "outputs": [self._ref(v, None) for v in g.outputs],
        }

    def _type(self, t, node):
        try:
            return encode_type(t)
        except Refusal as exc:
            raise SaveRefusal(f"{where(node)}cannot save {exc}", node) from None

    def node(self, n: Node) -> dict:
        unsaveable = get_op(n.op).unsaveable  # (its attributes hold Python code or objects)
        if unsaveable is not None:
            raise SaveRefusal(f"{where(n)}cannot save `{node_text(n)}`: {unsaveable}", n)
        attrs = {}
        for key, value in sorted(n.attrs.items()):
            try:
                attrs[key] = self.encoder.value(value)
            except Refusal as exc:
                raise SaveRefusal(
                    f"{where(n)}cannot save `{node_text(n)}`: its attribute {key!r} is {exc}, "
                    f"which the saved format cannot hold",
                    n,
                ) from None
        wrong = attribute_problem(n.op, n.attrs, len(n.inputs))
        if wrong is not None:
            raise SaveRefusal(f"{where(n)}cannot save `{node_text(n)}`: {wrong}", n)
        if n.scope is not None:
            raise SaveRefusal(
                f"{where(n)}cannot save `{node_text(n)}`: it runs in a `with np.errstate(...)` "
                f"scope, which the saved format cannot hold",
                n,
            )
        inputs = [self._ref(v, n) for v in n.inputs]
        subgraphs = [[label, self.graph(sub)] for label, sub in n.subgraphs.items()]  # in order
        outputs = [self._type(v.type, n) for v in n.outputs]
        for v in n.outputs:
            self._define(v)
        # the file's name without its directories: a shipped file does not carry the author's paths
        location = (
            [os.path.basename(str(n.location[0])), int(n.location[1])] if n.location else None
        )
        return {
            "op": n.op,
            "inputs": inputs,
            "attrs": attrs,
            "outputs": outputs,
            "subgraphs": subgraphs,
            "location": location,
        }


class GraphDecoder:
    """Builds runtime Graphs from their JSON form, checking its shape as it goes."""

    def __init__(self, decoder: Decoder):
        self.decoder = decoder
        self.values: list[Value] = []
        self.node_count = 0

    def graph(self, obj, depth: int = 0, where_: str = "graph") -> Graph:
        expect(depth <= MAX_NESTING, f"subgraphs nested more than {MAX_NESTING} levels deep")
        expect_dict(obj, where_, {"name", "inputs", "nodes", "outputs"})
        g = Graph(expect_str(obj["name"], f"the name of {where_}"))
        for i, inp in enumerate(expect_list(obj["inputs"], f"the inputs of {where_}")):
            expect_dict(inp, f"input {i} of {where_}", {"type", "name"})
            self.values.append(
                g.add_input(decode_type(inp["type"]), expect_str(inp["name"], "an input name"))
            )
        for k, node in enumerate(expect_list(obj["nodes"], f"the nodes of {where_}")):
            g.add_node(self.node(node, depth, f"node {k} of {where_}"))
        g.outputs = [
            self._ref(r, f"output {i} of {where_}")
            for i, r in enumerate(expect_list(obj["outputs"], f"the outputs of {where_}"))
        ]
        return g

    def _ref(self, ref, what: str):
        if type(ref) is int:
            expect(
                0 <= ref < len(self.values),
                f"{what} refers to value {ref}, which is not defined before it",
            )
            return self.values[ref]
        expect_dict(ref, what, {"literal"})
        literal = self.decoder.value(ref["literal"])
        expect(
            type(literal) in (bool, int, float, complex),
            f"{what} must be a value number or a Python number, got {type(literal).__name__}",
        )
        return literal

    def node(self, obj, depth: int, what: str) -> Node:
        self.node_count += 1
        expect(self.node_count <= MAX_NODES, f"more than {MAX_NODES} nodes")
        expect_dict(obj, what, {"op", "inputs", "attrs", "outputs", "subgraphs", "location"})
        op = expect_str(obj["op"], f"the op of {what}")
        expect(has_op(op), f"{what}: no op named {op!r:.60} is registered")
        unsaveable = get_op(op).unsaveable
        expect(unsaveable is None, f"{what}: op {op!r} cannot be loaded ({unsaveable})")
        what = f"{what} ({op})"
        inputs = [
            self._ref(r, f"input {i} of {what}")
            for i, r in enumerate(expect_list(obj["inputs"], "inputs"))
        ]
        attrs_obj = obj["attrs"]
        expect(
            type(attrs_obj) is dict and len(attrs_obj) <= 64,
            f"the attrs of {what} must be an object",
        )
        attrs = {}
        for key, value in attrs_obj.items():
            expect(key.isidentifier(), f"attribute name {key!r:.40} of {what} is not an identifier")
            attrs[key] = self.decoder.value(value)
        check_attributes(op, attrs, len(inputs), what)
        subgraphs = {}
        for pair in expect_list(obj["subgraphs"], f"the subgraphs of {what}", 16):
            expect(
                type(pair) is list and len(pair) == 2,
                f"a subgraph of {what} must be a [label, graph] pair",
            )
            label = expect_str(pair[0], "a subgraph label")
            expect(label not in subgraphs, f"{what} has two subgraphs {label!r:.40}")
            subgraphs[label] = self.graph(pair[1], depth + 1, f"subgraph {label!r:.40} of {what}")
        types = [
            decode_type(t) for t in expect_list(obj["outputs"], f"the outputs of {what}", 1 << 16)
        ]
        location = obj["location"]
        if location is not None:
            expect(
                type(location) is list and len(location) == 2,
                f"the location of {what} must be [file, line]",
            )
            location = (
                expect_str(location[0], "a location's file"),
                expect_int(location[1], "a location's line"),
            )
        node = Node(op, inputs, attrs, types, location=location, subgraphs=subgraphs)
        self.values.extend(node.outputs)
        return node


__all__ = ["FormatError", "GraphDecoder", "GraphEncoder", "SaveRefusal"]
