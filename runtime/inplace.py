"""Which writes (`out[i] = v`: setitem) may go into their input's buffer instead of a copy of it.

A graph's setitem is functional (a copy of x with x[index] = value); writing into x itself gives
the same result when nothing can see the difference. The analysis here says where (one home for
the interpreter and the numba backend). A node N = setitem(x, ...) writes in place when:

- x's buffer is exclusively this graph's: made by the graph (an op with OpDef.fresh_result, an
  elementwise ufunc's result, a setitem's result), or a subgraph input whose outer value was
  handed over whole (below). Never a graph input of the top-level graph (the caller's array),
  never a constant's value (shared by every call), never a view.
- x dies at N: no later node (nor a subgraph of one) reads it, it is no output of its graph,
  and N reads it once (not as its value or an index too).
- no other value that may share x's buffer is alive at N or read by N: the values made from x
  by nodes that may keep a reference to it (a view, a list holding it, a structured node's
  results), followed transitively. A reader that keeps it beyond the graph's values (a node with
  effects: a list write, a Variable's assignment, a call, a print) pins x: never written.

A structured node hands an operand over to its subgraphs when the operand qualifies as x would
(exclusive, dies at the node, read once by it, no live alias): a branch op (`cond`, whose one
branch runs once) binds it to its branches' inputs. A loop (`while_loop`) carries a loop
variable's buffer from one iteration to the next: a loop variable is exclusive in the body when
its initial value is handed over (or copied once at the loop's entry: `entry_copies`, when its
initial value is a constant, an argument or still read later) and the body's result for it is
exclusive at the body's end (made fresh, or this buffer written in place, and shared by no other
result of the body). That is a fixed point: loop variables whose results are not exclusive are
dropped until none is. A copy at entry is made only where the body writes into the buffer the
loop variable's initial value flows into.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .analysis import last_uses, node_uses
from .graph import Graph, Node, Value
from .registry import get_op
from .types import TensorType


@dataclass
class Plan:
    """What the analysis decided for a graph and its subgraphs."""

    writes: set[int] = field(default_factory=set)  # id(setitem node) writing in place
    entry_copies: dict[int, frozenset[int]] = field(default_factory=dict)  # id(loop) -> positions

    def in_place(self, node: Node) -> bool:
        return id(node) in self.writes

    def copies_at_entry(self, node: Node) -> frozenset[int]:
        """The loop variables (positions) of loop `node` copied once before it runs."""
        return self.entry_copies.get(id(node), frozenset())


def plan(graph: Graph) -> Plan:
    """The in-place writes of `graph` (a top-level graph: its inputs are the caller's arrays)."""
    if not any(get_op(n.op).in_place_form is not None for n in graph.walk()):
        return Plan()  # (no write to place: the analysis would find none)
    summary = _analyse(graph, frozenset())
    return Plan(set(summary.writes), dict(summary.copies))


@dataclass
class _Summary:
    """One analysis of a graph given which of its inputs were handed over (`donated`)."""

    exclusive_outputs: set[int]  # positions of outputs holding a buffer no other value holds
    origins: list[frozenset[int]]  # per output: ids of donated inputs whose buffer it may hold
    written: set[int]  # ids of donated inputs whose buffer some node writes in place
    writes: set[int]  # id(node) of the setitem nodes writing in place (at any depth)
    copies: dict[int, frozenset[int]]  # id(loop node) -> loop variables copied at its entry


def _array(value) -> bool:
    """A value of one kind that is an array of at least one dimension."""
    t = getattr(value, "type", None)
    return type(t) is TensorType and not t.weak and t.ndim > 0


def _fresh_op(op) -> bool:
    """The op's result is a new buffer, and the node keeps no reference to its inputs."""
    return op.fresh_result or op.out_ufunc is not None


def _reading(reader: Node, value: Value) -> str:
    """What node `reader` makes of its input `value`'s buffer: "pins" (it may keep it beyond the
    graph's values: a list, a Variable, a call, a print), "new" (its results share nothing with
    it) or "shares" (a result may be a view of it, or hold it)."""
    op = get_op(reader.op)
    if reader.stateful and not op.user_error:
        return "pins"
    if reader.subgraphs:
        return "shares"
    if _fresh_op(op) or op.in_place_form is not None or _scalar_results(reader, op):
        return "new"  # (a new buffer or numbers; a setitem copies it, or takes it as it dies)
    if op.views_input is not None and reader.inputs[0] is value and not op.views_input(reader):
        return "new"  # (one element, or a copy: an integer array, a mask)
    return "shares"


def _scalar_results(node: Node, op) -> bool:
    """The node gives numbers (0-d values of one kind), keeps nothing and views nothing."""
    return (
        not node.subgraphs
        and not node.stateful
        and not op.may_alias_input
        and all(
            type(v.type) is TensorType and (v.type.weak or v.type.ndim == 0) for v in node.outputs
        )
    )


def _analyse(graph: Graph, donated: frozenset[int]) -> _Summary:
    return _Pass(graph, donated).run()


class _Pass:
    """The analysis of one graph, its nodes in order."""

    def __init__(self, graph: Graph, donated: frozenset[int]):
        self.graph = graph
        self.last = last_uses(graph)
        self.outputs = {id(v) for v in graph.outputs if isinstance(v, Value)}
        self.defined: dict[int, int] = {}  # id(value) -> position of its node (-1: an input)
        self.readers: dict[int, list[int]] = {}  # id(value) -> positions of the nodes reading it
        for v in graph.inputs:
            self.defined[id(v)] = -1
        for position, node in enumerate(graph.nodes):
            for v in node.outputs:
                self.defined[id(v)] = position
            for v in node_uses(node):
                if isinstance(v, Value):
                    self.readers.setdefault(id(v), []).append(position)
        self.exclusive: set[int] = set(donated)
        self.origin: dict[int, frozenset[int]] = {k: frozenset((k,)) for k in donated}
        self.written: set[int] = set()
        self.writes: set[int] = set()
        self.copies: dict[int, frozenset[int]] = {}

    def run(self) -> _Summary:
        for position, node in enumerate(self.graph.nodes):
            op = get_op(node.op)
            if op.in_place_form is not None:
                self.write(node, position)
            elif node.subgraphs:
                self.structured(node, position)
            elif _fresh_op(op) and len(node.outputs) == 1:
                self.exclusive.add(id(node.outputs[0]))
        outs = self.graph.outputs
        return _Summary(
            {i for i, v in enumerate(outs) if self.exclusive_at_end(v, i)},
            [
                self.origin.get(id(v), frozenset()) if isinstance(v, Value) else frozenset()
                for v in outs
            ],
            self.written,
            self.writes,
            self.copies,
        )

    # -- aliases -----------------------------------------------------------------------------
    def aliases(self, value: Value, before: int | None = None) -> list[Value] | None:
        """The values that may share `value`'s buffer, made from it by this graph's nodes
        (itself first; with `before`, by the nodes before that position); None when a node may
        keep it beyond the graph's values."""
        found, stack, seen = [value], [value], {id(value)}
        while stack:
            current = stack.pop()
            for position in self.readers.get(id(current), ()):
                if before is not None and position >= before:
                    continue
                reader = self.graph.nodes[position]
                effect = _reading(reader, current)
                if effect == "pins":
                    return None
                if effect == "new":
                    continue
                for v in reader.outputs:
                    if id(v) not in seen:
                        seen.add(id(v))
                        found.append(v)
                        stack.append(v)
        return found

    def free_at(self, value: Value, position: int) -> bool:
        """Whether `value` may be handed over at node `position`: exclusive, read there last and
        once, no output of the graph, and no other value sharing its buffer alive there."""
        if id(value) not in self.exclusive or not _array(value) or id(value) in self.outputs:
            return False
        if self.last.get(id(value)) != position:
            return False
        node = self.graph.nodes[position]
        if sum(v is value for v in node_uses(node)) != 1:
            return False
        found = self.aliases(value, position)
        if found is None:
            return False
        return all(
            id(a) not in self.outputs and self.last.get(id(a), self.defined[id(a)]) < position
            for a in found[1:]
        )

    def exclusive_at_end(self, value, index: int) -> bool:
        """Whether output `index` of the graph holds a buffer no other value holds."""
        if not isinstance(value, Value) or id(value) not in self.exclusive or not _array(value):
            return False
        if sum(v is value for v in self.graph.outputs) != 1:
            return False
        found = self.aliases(value)
        return found is not None and not any(id(a) in self.outputs for a in found[1:])

    # -- nodes -------------------------------------------------------------------------------
    def write(self, node: Node, position: int) -> None:
        """A setitem: its result is a new buffer, or x's written in place."""
        out = node.outputs[0]
        self.exclusive.add(id(out))
        x = node.inputs[0]
        if node.scope is None and isinstance(x, Value) and self.free_at(x, position):
            self.writes.add(id(node))
            origin = self.origin.get(id(x), frozenset())
            self.written.update(origin)
            if origin:
                self.origin[id(out)] = origin

    def structured(self, node: Node, position: int) -> None:
        op = get_op(node.op)
        if op.bind_subgraph is None or op.output_sources is None:
            self.closed(node)
        elif op.predicate is not None:
            self.branches(node, position)
        elif any(
            b is o
            for label in node.subgraphs
            for b in op.bind_subgraph(node, label)
            for o in node.outputs
        ):
            self.loop(node, position)
        else:
            self.closed(node)

    def closed(self, node: Node) -> None:
        """A structured node handed nothing over: its subgraphs' own buffers only."""
        for sub in node.subgraphs.values():
            self.merge(_analyse(sub, frozenset()))

    def merge(self, summary: _Summary) -> None:
        self.writes.update(summary.writes)
        self.copies.update(summary.copies)

    def handed_over(self, node: Node, position: int) -> set[int]:
        """Ids of the node's inputs it may take over (see free_at)."""
        return {id(v) for v in node.inputs if isinstance(v, Value) and self.free_at(v, position)}

    def branches(self, node: Node, position: int) -> None:
        """A branch op: each branch takes the handed-over operands bound to its inputs."""
        op = get_op(node.op)
        assert op.bind_subgraph is not None and op.output_sources is not None  # (structured)
        given = self.handed_over(node, position)
        summaries: dict[str, tuple[_Summary, list]] = {}
        for label, sub in node.subgraphs.items():
            bound = op.bind_subgraph(node, label)
            donated = frozenset(
                id(inner)
                for inner, outer in zip(sub.inputs, bound)
                if isinstance(outer, Value) and id(outer) in given
            )
            summary = _analyse(sub, donated)
            self.merge(summary)
            summaries[label] = (summary, bound)
            for inner, outer in zip(sub.inputs, bound):
                if id(inner) in summary.written:
                    self.written.update(self.origin.get(id(outer), frozenset()))
        for i, out in enumerate(node.outputs):
            sources = op.output_sources(node, i)
            if all(
                label is not None and i in summaries[label][0].exclusive_outputs
                for label, _ in sources
            ):
                self.exclusive.add(id(out))
                self.origin[id(out)] = self.mapped(node, summaries, i)

    def mapped(self, node: Node, summaries: dict, i: int) -> frozenset[int]:
        """The donated inputs of this graph whose buffer output i of a branch op may hold."""
        found: set[int] = set()
        for label, (summary, bound) in summaries.items():
            inputs = {id(inner): outer for inner, outer in zip(node.subgraphs[label].inputs, bound)}
            for k in summary.origins[i]:
                found.update(self.origin.get(id(inputs[k]), frozenset()))
        return frozenset(found)

    def loop(self, node: Node, position: int) -> None:
        form = _LoopShape(node)
        given = self.handed_over(node, position)
        donated = {m for m, init in form.inits.items() if id(init) in given}
        chosen = {m for m in form.inits if _array(node.outputs[m])}
        while True:
            chosen, summaries = form.fixed_point(chosen)
            flows, written = form.flows(summaries)
            unneeded = {m for m in chosen - donated if not (_reach(m, flows) & written)}
            if not unneeded:
                break
            chosen -= unneeded
        for summary in summaries.values():
            self.merge(summary)
        copies = frozenset(chosen - donated)
        if copies:
            self.copies[id(node)] = copies
        for m in chosen:
            self.exclusive.add(id(node.outputs[m]))
            origin: set[int] = set()
            for k in donated & chosen:
                if m in _reach(k, flows):
                    origin.update(self.origin.get(id(form.inits[k]), frozenset()))
            self.origin[id(node.outputs[m])] = frozenset(origin)
        for m in donated & chosen:
            if _reach(m, flows) & written:
                self.written.update(self.origin.get(id(form.inits[m]), frozenset()))


def _reach(start: int, flows: dict[int, set[int]]) -> set[int]:
    """The loop variables whose buffer may become the one loop variable `start` holds now."""
    seen, stack = {start}, [start]
    while stack:
        for nxt in flows.get(stack.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


class _LoopShape:
    """A loop node through its hooks: which subgraph inputs are loop variables (bound to the
    node's outputs), their initial values, the subgraphs giving their next values."""

    def __init__(self, node: Node):
        op = get_op(node.op)
        self.node = node
        position = {id(o): m for m, o in enumerate(node.outputs)}
        assert op.bind_subgraph is not None and op.output_sources is not None  # (a loop's)
        self.variables: dict[str, dict[int, Value]] = {}  # label -> {output m: subgraph input}
        for label, sub in node.subgraphs.items():
            bound = op.bind_subgraph(node, label)
            self.variables[label] = {
                position[id(b)]: inner
                for inner, b in zip(sub.inputs, bound)
                if isinstance(b, Value) and id(b) in position
            }
        self.inits: dict[int, Value] = {}
        self.results: dict[str, dict[int, int]] = {}  # label -> {output m: its output index}
        for m in range(len(node.outputs)):
            sources = op.output_sources(node, m)
            starts = [v for label, v in sources if label is None]
            if len(starts) == 1 and isinstance(starts[0], Value):
                self.inits[m] = starts[0]
            for label, _ in sources:
                if label is not None:
                    self.results.setdefault(label, {})[m] = m

    def fixed_point(self, chosen: set[int]) -> tuple[set[int], dict[str, _Summary]]:
        """The loop variables exclusive in the loop, from `chosen` down, and the subgraphs'
        analyses given them."""
        node = self.node
        while True:
            summaries = {}
            for label, sub in node.subgraphs.items():
                writes_here = label in self.results
                donated = frozenset(
                    id(inner)
                    for m, inner in self.variables[label].items()
                    if m in chosen and writes_here
                )
                summaries[label] = _analyse(sub, donated)
            kept = {m for m in chosen if self.keeps(m, summaries)}
            if kept == chosen:
                return chosen, summaries
            chosen = kept

    def keeps(self, m: int, summaries: dict[str, _Summary]) -> bool:
        """Loop variable m stays exclusive: each subgraph giving its next value gives a buffer
        no other value holds, and no subgraph keeps its buffer beyond its values."""
        node = self.node
        for label, sub in node.subgraphs.items():
            inner = self.variables[label].get(m)
            if label in self.results:
                if m not in self.results[label] or m not in summaries[label].exclusive_outputs:
                    return False
            elif inner is not None and _Pass(sub, frozenset()).aliases(inner) is None:
                return False
        return m in self.inits and all(m in self.variables[label] for label in self.results)

    def flows(self, summaries: dict[str, _Summary]) -> tuple[dict[int, set[int]], set[int]]:
        """({k: loop variables whose next value may hold k's buffer}, loop variables whose buffer
        some subgraph writes in place)."""
        flows: dict[int, set[int]] = {}
        written: set[int] = set()
        for label, results in self.results.items():
            summary = summaries[label]
            ids = {id(inner): m for m, inner in self.variables[label].items()}
            for m, index in results.items():
                for k in summary.origins[index]:
                    if k in ids:
                        flows.setdefault(ids[k], set()).add(m)
            written.update(ids[k] for k in summary.written if k in ids)
        return flows, written


__all__ = ["Plan", "plan"]
