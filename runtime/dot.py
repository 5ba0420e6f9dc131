"""Graphs as pictures: the DOT language (Graphviz) form of a graph, and SVG through Graphviz's
`dot` program when it is installed.

Every node is a box labelled with its op (and short attributes), the types of its outputs and
the user's file:line that created it; edges follow the values. The subgraphs of a structured
node (`cond`: then/else, `while_loop`: cond/body) are drawn as clusters nested in a cluster of
their node, so nested control flow reads as nested boxes. The text is deterministic.
"""

from __future__ import annotations

import html
import os
import shutil
import subprocess

from .graph import Graph, Node, Value, constant_of, format_attr

MAX_ATTRS = 48  # characters of attributes shown in a node's label


class GraphvizNotFoundError(RuntimeError):
    """Rendering needs Graphviz's `dot` program, which is not on PATH."""


def _quote(text: str) -> str:
    """A DOT double-quoted string; newlines become DOT's centred line breaks."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\n", "\\n") + '"'


def _types(values) -> str:
    return ", ".join(str(v.type) for v in values) if values else "()"


def _location(node: Node) -> str:
    if not node.location:
        return ""
    return f"{os.path.basename(node.location[0])}:{node.location[1]}"


def _op_text(node: Node) -> str:
    constant = constant_of(node)
    if constant is not None:  # a constant: its value
        attrs = format_attr(constant(node))
    else:
        attrs = " ".join(f"{k}={format_attr(v)}" for k, v in sorted(node.attrs.items()))
    literals = [format_attr(v) for v in node.inputs if not isinstance(v, Value)]
    if literals:
        attrs = " ".join(["(" + ", ".join(literals) + ")"] + ([attrs] if attrs else []))
    if len(attrs) > MAX_ATTRS:
        attrs = attrs[: MAX_ATTRS - 3] + "..."
    return f"{node.op} {attrs}" if attrs else node.op


class _Writer:
    def __init__(self):
        self.lines: list[str] = []
        self.ids: dict[int, str] = {}  # id(Value) -> the DOT node drawing it (input or producer)
        self.count = 0

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def emit(self, indent: str, text: str) -> None:
        self.lines.append(indent + text)

    def edge(self, indent: str, value, target: str) -> None:
        source = self.ids.get(id(value)) if isinstance(value, Value) else None
        if source is not None:
            self.emit(indent, f"{source} -> {target};")

    def body(self, graph: Graph, indent: str, role: str) -> None:
        """Inputs, nodes (clusters for subgraphs) and outputs of `graph`."""
        for i, value in enumerate(graph.inputs):
            name = graph.input_names[i] if i < len(graph.input_names) else ""
            if not name or name.startswith("_"):  # a position path such as _0_1: no better name
                name = f"{role} input {i}"
            dot_id = self.fresh("in")
            self.ids[id(value)] = dot_id
            self.emit(
                indent,
                f'{dot_id} [shape=ellipse, style=filled, fillcolor="#e8f0fe", '
                f"label={_quote(f'{name}: {value.type}')}];",
            )
        for node in graph.nodes:
            self.node(node, indent)
        for i, value in enumerate(graph.outputs):
            dot_id = self.fresh("out")
            text = f"{value.type}" if isinstance(value, Value) else format_attr(value)
            self.emit(
                indent,
                f'{dot_id} [shape=ellipse, style=filled, fillcolor="#e6f4ea", '
                f"label={_quote(f'{role} output {i}: {text}')}];",
            )
            self.edge(indent, value, dot_id)

    def node(self, node: Node, indent: str) -> None:
        dot_id = self.fresh("n")
        parts = [_op_text(node), _types(node.outputs)]
        if _location(node):
            parts.append(_location(node))
        for value in node.outputs:
            self.ids[id(value)] = dot_id
        if not node.subgraphs:
            self.emit(indent, f"{dot_id} [label={_quote(chr(10).join(parts))}];")
            for value in node.inputs:
                self.edge(indent, value, dot_id)
            return
        cluster = self.fresh("cluster_")
        self.emit(indent, f"subgraph {cluster} {{")
        inner = indent + "  "
        self.emit(
            inner,
            f"label={_quote(node.op + (' at ' + _location(node) if _location(node) else ''))};",
        )
        self.emit(inner, 'style=rounded; color="#5f6368";')
        self.emit(inner, f"{dot_id} [shape=box3d, label={_quote(chr(10).join(parts))}];")
        for label, sub in node.subgraphs.items():
            self.emit(inner, f"subgraph {self.fresh('cluster_')} {{")
            self.emit(inner + "  ", f"label={_quote(label)}; style=dashed;")
            self.body(sub, inner + "  ", label)
            self.emit(inner, "}")
        self.emit(indent, "}")
        for value in node.inputs:
            self.edge(indent, value, dot_id)


def to_dot(graph: Graph) -> str:
    """The DOT text of `graph`: nodes labelled with op, output types and user line; subgraphs
    as nested clusters."""
    writer = _Writer()
    writer.emit("", f"digraph {_quote(graph.name)} {{")
    writer.emit("  ", f"label={_quote(graph.name)}; labelloc=t; fontname=Helvetica;")
    writer.emit("  ", "node [shape=box, style=rounded, fontname=Helvetica, fontsize=10];")
    writer.emit("  ", "edge [fontname=Helvetica, fontsize=9];")
    writer.body(graph, "  ", "graph")
    writer.emit("", "}")
    return "\n".join(writer.lines) + "\n"


def graphviz_available() -> bool:
    """Whether Graphviz's `dot` program is on PATH."""
    return shutil.which("dot") is not None


def to_svg(graph: Graph, timeout: float = 60.0) -> str:
    """`graph` rendered as SVG by Graphviz's `dot`; GraphvizNotFoundError when it is missing."""
    program = shutil.which("dot")
    if program is None:
        raise GraphvizNotFoundError(
            "rendering a graph as SVG needs Graphviz's `dot` program, which is not on PATH: install "
            "Graphviz (apt install graphviz, brew install graphviz, conda install graphviz), or "
            "write the DOT text (--format dot, Graph.to_dot()) and render it elsewhere"
        )
    result = subprocess.run(
        [program, "-Tsvg"],
        input=to_dot(graph),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"Graphviz's dot failed (status {result.returncode}): {result.stderr.strip()}"
        )
    return result.stdout


# -- Graph's pictures (installed here: the graph module does not know about DOT) ----------


def _graph_to_dot(self) -> str:
    """The graph in Graphviz's DOT language (runtime.dot): subgraphs as nested clusters."""
    return to_dot(self)


def _repr_svg_(self):
    """Notebooks show the graph as a picture when Graphviz's `dot` is installed (else None)."""
    return to_svg(self) if graphviz_available() else None


def _repr_html_(self):
    """Notebooks: the SVG picture, or the text form when Graphviz is not installed."""
    svg = _repr_svg_(self)
    return svg if svg is not None else f"<pre>{html.escape(str(self))}</pre>"


Graph.to_dot = _graph_to_dot
Graph._repr_svg_ = _repr_svg_
Graph._repr_html_ = _repr_html_
