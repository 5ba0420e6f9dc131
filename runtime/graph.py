"""The graph IR: typed inputs, an ordered list of nodes, outputs; and its text form."""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Callable, ClassVar

import numpy as np

from .registry import get_op, has_op
from .types import ListType, TensorType  # noqa: F401  (ListType: graph values' types)


class Value:
    """One SSA value: a graph input or one output of a node."""

    __slots__ = ("type", "producer", "index", "__weakref__")

    def __init__(self, type_, producer=None, index=0):
        self.type = type_
        self.producer = producer
        self.index = index

    def __repr__(self):
        return f"<Value {self.type}>"


# the attrs and subgraphs of the many nodes that have none
_EMPTY: Mapping[str, Any] = MappingProxyType({})
# Equal TensorTypes (immutable) are shared by the nodes' outputs: one object per type in use,
# not one per value, in a long graph. Bounded: emptied when full.
_TYPES: dict = {}
_MAX_TYPES = 4096


def _shared(type_):
    if type(type_) is not TensorType:
        return type_
    known = _TYPES.get(type_)
    if known is None:
        if len(_TYPES) >= _MAX_TYPES:
            _TYPES.clear()
        known = _TYPES.setdefault(type_, type_)
    return known


class Node:
    """One op application.

    inputs: Values, or Python scalars (weak literals, printed inline).
    attrs: static attributes, passed to the op's kernel as keywords.
    subgraphs: for control flow (`cond`: then/else, `while_loop`: cond/body).
    location: (file, line) of the user code that created the node, or None.
    scope: the NumPy error state it runs under (a tuple of np.errstate keyword pairs, from a
      `with np.errstate(...)` in the user's code), or None. Such a node is stateful for the
      passes: none folds, merges or drops it, so it runs where and as the user wrote it.
    """

    __slots__ = ("op", "inputs", "attrs", "outputs", "subgraphs", "location", "_stateful", "scope")

    def __init__(self, op: str, inputs, attrs, output_types, location=None, subgraphs=None):
        self.op = op
        self.inputs = list(inputs)
        self.attrs: Mapping[str, Any] = dict(attrs) if attrs else _EMPTY  # (read-only: shared)
        if type(output_types) is list and len(output_types) == 1:  # (most nodes)
            self.outputs = [Value(_shared(output_types[0]), self, 0)]
        else:
            self.outputs = [Value(_shared(t), self, i) for i, t in enumerate(output_types)]
        self.subgraphs: Mapping[str, Graph] = dict(subgraphs) if subgraphs else _EMPTY
        self.location: tuple[str, int] | None = location
        self._stateful: bool | None = None
        self.scope: tuple | None = None

    def set_scope(self, scope: tuple) -> None:
        """Runs the node under np.errstate(**dict(scope)) (see the class docstring)."""
        self.scope = scope
        self._stateful = True

    def keep_in_place(self) -> None:
        """The node may raise an error that a staged `try` around it catches: stateful for the
        passes, which then keep it where it is, even when nothing reads its result (the error is
        what the `try` reads)."""
        self._stateful = True

    def copied(self, inputs, subgraphs) -> Node:
        """A node of the same op, attributes, output types, line and scope, reading `inputs`,
        with `subgraphs` (copies of this node's); stateful where this one is."""
        copy = Node(
            self.op, inputs, self.attrs, [v.type for v in self.outputs], self.location, subgraphs
        )
        if self.scope is not None:
            copy.set_scope(self.scope)
        if self._stateful:  # (also a node kept in place for a staged `try` around it)
            copy.keep_in_place()
        return copy

    @property
    def opdef(self):
        return get_op(self.op)

    @property
    def stateful(self) -> bool:
        """The op is stateful, or a node of a subgraph is. Asked once per node, then kept: the
        passes never remove, fold or merge stateful nodes, so the answer cannot change."""
        if self._stateful is None:
            self._stateful = get_op(self.op).stateful or any(
                n.stateful for g in self.subgraphs.values() for n in g.nodes
            )
        return self._stateful

    def __repr__(self):
        return f"<Node {self.op}>"


class Graph:
    """A function body: inputs, nodes in program order, outputs.

    Outputs are Values or Python scalars. Subgraphs of control-flow nodes are
    Graphs whose inputs are bound by the node (see OpDef.bind_subgraph).
    runtime.dot adds `to_dot()` and the notebook displays (`_repr_svg_`, `_repr_html_`).
    """

    # (methods runtime.dot sets on the class)
    to_dot: ClassVar[Callable[[Graph], str]]
    _repr_svg_: ClassVar[Callable[[Graph], str | None]]
    _repr_html_: ClassVar[Callable[[Graph], str]]

    def __init__(self, name: str = "graph"):
        self.name = name
        self.inputs: list[Value] = []
        self.input_names: list[str] = []
        self.nodes: list[Node] = []
        self.outputs: list = []

    def add_input(self, type_, name: str = "") -> Value:
        v = Value(type_)
        self.inputs.append(v)
        self.input_names.append(name)
        return v

    def add_node(self, node: Node) -> Node:
        self.nodes.append(node)
        return node

    def walk(self):
        """Every node, depth first, including those of subgraphs."""
        for node in self.nodes:
            yield node
            for sub in node.subgraphs.values():
                yield from sub.walk()

    def __str__(self):
        return format_graph(self)

    def __repr__(self):
        ins = ", ".join(str(v.type) for v in self.inputs)
        outs = ", ".join(
            str(v.type) if isinstance(v, Value) else format_attr(v) for v in self.outputs
        )
        inner = sum(1 for _ in self.walk()) - len(self.nodes)
        nested = f", {inner} more in subgraphs" if inner else ""
        return f"<runtime.Graph {self.name}({ins}) -> ({outs}): {len(self.nodes)} nodes{nested}>"

    def format(self, locations: bool = False) -> str:
        """The text form (str(graph)); with `locations`, each node ends with `# file:line`."""
        return format_graph(self, locations=locations)


# ----------------------------------------------------------------------------
# Text form


def _letters(n: int) -> str:
    """0 -> a, 25 -> z, 26 -> ba, ... (like jaxpr)."""
    out = ""
    while True:
        out = chr(ord("a") + n % 26) + out
        n //= 26
        if n == 0:
            return out


def format_attr(value) -> str:
    if hasattr(value, "__graph_repr__"):
        return value.__graph_repr__()
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, type) and issubclass(value, np.generic):
        return np.dtype(value).name
    if isinstance(value, np.generic):
        return repr(value.item())
    if isinstance(value, np.ndarray):
        body = np.array2string(value, separator=",", threshold=8, edgeitems=2)
        return "".join(body.split())  # one line, no alignment padding
    if isinstance(value, (tuple, list)):
        inner = ",".join(format_attr(v) for v in value)
        if isinstance(value, tuple) and len(value) == 1:
            inner += ","
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    if isinstance(value, slice):
        parts = ["" if p is None else format_attr(p) for p in (value.start, value.stop, value.step)]
        return ":".join(parts[:2] if value.step is None else parts)
    if callable(value):
        return getattr(value, "__qualname__", getattr(value, "__name__", type(value).__name__))
    return repr(value)


class _Namer:
    def __init__(self):
        self.names: dict[int, str] = {}
        self.count = 0

    def define(self, value: Value) -> str:
        name = _letters(self.count)
        self.count += 1
        self.names[id(value)] = name
        return name

    def ref(self, value) -> str:
        if isinstance(value, Value):
            try:
                return self.names[id(value)]
            except KeyError:
                return "<undefined>"
        return format_attr(value)


def format_graph(graph: Graph, locations: bool = False) -> str:
    namer = _Namer()
    lines: list[str] = []
    params = ", ".join(f"{namer.define(v)}:{v.type}" for v in graph.inputs)
    lines.append(f"{graph.name}({params}) {{")
    _format_body(graph, namer, lines, "  ", locations)
    lines.append("}")
    return "\n".join(lines)


def _node_line(node: Node, namer: _Namer) -> str:
    outs = ", ".join(f"{namer.define(v)}:{v.type}" for v in node.outputs)
    args = " ".join(namer.ref(v) for v in node.inputs)
    constant = constant_of(node)
    if constant is not None:  # a constant: its value
        attrs = format_attr(constant(node))
    else:
        attrs = " ".join(f"{k}={format_attr(v)}" for k, v in sorted(node.attrs.items()))
    text = " ".join(p for p in (node.op, args, attrs) if p)
    return f"{outs} = {text}" if outs else text


def _format_body(graph: Graph, namer: _Namer, lines: list, indent: str, locations: bool):
    for node in graph.nodes:
        line = indent + _node_line(node, namer)
        if locations and node.location:
            line += f"  # {os.path.basename(node.location[0])}:{node.location[1]}"
        lines.append(line)
        for label, sub in node.subgraphs.items():
            params = ", ".join(f"{namer.define(v)}:{v.type}" for v in sub.inputs)
            lines.append(f"{indent}  {label}({params}) {{")
            _format_body(sub, namer, lines, indent + "    ", locations)
            lines.append(f"{indent}  }}")
    rets = ", ".join(namer.ref(v) for v in graph.outputs)
    lines.append(f"{indent}return ({rets}{',' if len(graph.outputs) == 1 else ''})")


def constant_of(node: Node):
    """The `constant` hook of the node's op (OpDef.constant), or None (also for an op that is not
    registered: a graph being verified may hold one)."""
    return get_op(node.op).constant if has_op(node.op) else None


def node_text(node: Node) -> str:
    """One node on one line, without its subgraphs (for error messages)."""
    namer = _Namer()
    for v in node.inputs:
        if isinstance(v, Value):
            namer.define(v)
    return _node_line(node, namer)
