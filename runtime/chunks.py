"""Long graphs: the executor emits a top-level graph of more than LONG_GRAPH nodes as a `run`
function calling chunk functions of about CHUNK_LINES lines each, and compiles each function on
its own. compile() of one huge function costs kilobytes per line at once (its symbol table, its
code) and its time grows with it; chunks keep each compile() small, free their source once
compiled, and each gets its own table of the user's lines (runtime/user_lines.py).

    def run(v0):
        try:
            _live = [v0]
            _live = _chunk0(_live)
            ...
            v9, = _live
            return v9
        except Exception as exc: ...
    def _chunk0(_live):
        v0, = _live
        _live.clear()
        ...
        return [v4, v7]

A chunk takes the list of the values live where it starts and returns those live where it ends
(read later, or outputs of the graph); it empties the list it unpacks, so each array is held by
one frame only and dies where it would die in one function. Ordinary graphs are untouched.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from typing import Callable

from ._compat import renamed_code
from .analysis import last_uses
from .graph import Graph, Node
from .user_lines import compile_at_user_lines

LONG_GRAPH = 4096  # top-level nodes beyond which a graph is emitted in chunks
CHUNK_LINES = 2048  # lines from which a chunk ends (before the next top-level node)


_gc_lock = threading.Lock()
_gc_pauses = [0, False]  # pauses under way, whether the first one disabled the collector


def pause_gc() -> None:
    """Pauses the cyclic garbage collector (until as many resume_gc() calls) while a long graph
    is built, optimised and compiled: its nodes are hundreds of thousands of live objects
    that each collection of the older generations would walk again, and none of them is
    garbage. A collector the program disabled stays disabled."""
    with _gc_lock:
        if _gc_pauses[0] == 0 and gc.isenabled():
            gc.disable()
            _gc_pauses[1] = True
        _gc_pauses[0] += 1


def resume_gc() -> None:
    with _gc_lock:
        _gc_pauses[0] -= 1
        if _gc_pauses[0] == 0 and _gc_pauses[1]:
            _gc_pauses[1] = False
            gc.enable()


@contextlib.contextmanager
def gc_paused(active: bool = True):
    """pause_gc() while the block runs, when `active`."""
    if not active:
        yield
        return
    pause_gc()
    try:
        yield
    finally:
        resume_gc()


class ChunkedEmission:
    """The part of the executor's emitter that cuts a long graph into chunks. `units` is None
    for an ordinary graph; for a long one, the compile units: (source, {line: node}, names of
    the functions it defines), the chunks, then `run`."""

    units: list | None = None
    # what the emitter mixing this in has (runtime.executor._Emitter)
    graph: Graph
    names: dict[int, str]
    count: int
    lines: list[str]
    line_nodes: dict[int, Node]
    helpers: list
    _depth: dict[int, int]
    emit: Callable[..., None]
    body: Callable[..., None]

    def chunked(self, params: list[str]) -> list[str]:
        """The lines of `run` for a long graph: each chunk function takes the list of the values
        live where it starts and returns those live where it ends (the graph's outputs after the
        last one). The list is emptied by the chunk that unpacks it, so each array is held by
        one frame only and dies where it would die in one function."""
        graph = self.graph
        self.units = []
        self._last = last_uses(graph)
        self._live = [v for v in graph.inputs if id(v) in self._last]
        self._defined = 0  # top-level nodes whose outputs are in _live or dead
        self._calls: list[tuple[str, Node | None]] = []
        self._start_chunk()
        self.body(graph, 1, top_level=True)
        self._end_chunk(len(graph.nodes))
        lines = [
            f"def run({', '.join(params)}):",
            "    try:",
            f"        _live = [{', '.join(params[k] for k, v in enumerate(graph.inputs) if id(v) in self._last)}]",
        ]
        line_nodes = {}
        for call, node in self._calls:
            lines.append(f"        _live = {call}(_live)")
            if node is not None:
                line_nodes[len(lines)] = node
        outs = [self.names[id(v)] for v in self._live]
        if outs:
            lines.append(f"        {', '.join(outs)}, = _live")
        self.lines, self.line_nodes = lines, line_nodes
        return lines

    def _start_chunk(self):
        """Starts the function of the next chunk: it unpacks the values live here."""
        assert self.units is not None  # (a long graph's)
        self.lines, self.line_nodes = [], {}
        name = f"_chunk{len(self.units)}"
        self.emit(0, f"def {name}(_live):")
        if self._live:
            self.emit(1, f"{', '.join(self.names[id(v)] for v in self._live)}, = _live")
        self.emit(1, "_live.clear()")
        self._chunk_name = name

    def next_chunk(self, position: int):
        """Ends the current chunk before top-level node `position` and starts the next one."""
        self._end_chunk(position)
        self._start_chunk()

    def _end_chunk(self, position: int):
        """Ends the current chunk before top-level node `position`: it returns the values read
        at or after `position` (or graph outputs). A value written into the line that reads it
        (an inlined scalar operator) is computed here and gets a name of its own."""
        last, nodes = self._last, self.graph.nodes
        live = [v for v in self._live if last[id(v)] >= position]
        for node in nodes[self._defined : position]:
            live.extend(v for v in node.outputs if last.get(id(v), -1) >= position)
        self._defined = position
        refs = [self.names[id(v)] for v in live]
        self.emit(1, f"return [{', '.join(refs)}]")
        for v, ref in zip(live, refs):
            if not ref.isidentifier():
                self.names[id(v)] = f"v{self.count}"
                self.count += 1
                self._depth.pop(id(v), None)
        self._live = live
        lines, line_nodes, names = self.lines, self.line_nodes, [self._chunk_name]
        for helper, nodes_of in self.helpers:  # subgraph bodies this chunk calls
            line_nodes.update((len(lines) + k, node) for k, node in nodes_of.items())
            lines.extend(helper)
            names.append(helper[0][4 : helper[0].index("(")])
        self.helpers = []
        assert self.units is not None  # (a long graph's)
        self.units.append(("\n".join(lines) + "\n", line_nodes, names))
        first = next(iter(line_nodes.values()), None)
        self._calls.append((self._chunk_name, first))

    def source_of_units(self, source: str, name: str) -> str:
        """`source` (the source of `run`), and for a long graph those of its chunks after it."""
        if self.units is None:
            return source
        self.units.append((source, self.line_nodes, [name]))
        return "".join(text for text, _, _ in self.units[-1:] + self.units[:-1])


def compile_units(units: list, namespace: dict, fallback: str, label: str):
    """Compiles and runs each unit (source, {line: node}, names of its functions or None for
    `run` and its helpers) into `namespace`, at the user's lines; returns ({code object of each
    generated function: its {line: node}}, the file name `run` was compiled at). Functions
    compiled at the user's file are named `label` (a traceback reads `File "user.py", line 3,
    in <staged f>`)."""
    codes: dict = {}
    filename = fallback
    while units:
        source, line_nodes, names = units.pop(0)
        code, filename = compile_at_user_lines(source, line_nodes, fallback)
        del source  # (a long graph's chunks: freed one by one)
        exec(code, namespace)
        if names is None:
            names = [
                name
                for name, f in namespace.items()
                if name == "run" or (name.startswith("_body") and callable(f))
            ]
        for name in names:
            f = namespace[name]
            if filename != fallback and (name == "run" or name.startswith("_chunk")):
                f.__code__ = renamed_code(f.__code__, label)
            codes[f.__code__] = line_nodes
    return codes, filename
