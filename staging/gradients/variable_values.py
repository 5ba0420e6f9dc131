"""What a staging.Variable holds at each point of a graph being differentiated, in program order.

A read of a Variable is, for the gradient, what the Variable holds there: its value on entry (a
source when a GradientTape differentiates the Variable), or what an assignment before the read
put there: `v.assign(x * 2)` then `v * 3` differentiates through `x * 2`, and `v.assign_add(d)`
adds `d` to what `v` held. Each graph (a function's, a branch's, a loop body's, a called
function's) follows the assignments made at its own level.

An assignment made inside a node of the graph (in a staged branch, a loop or a called function)
is followed there; what the Variable holds after the node would depend on the path, or on the
iteration. So the graph refuses it when the Variable is read after the node, or, for a loop,
inside the loop (a later iteration reads what an earlier one wrote), unless no value
differentiated reaches the node: then the Variable holds a constant after it.
"""

from __future__ import annotations

from dataclasses import dataclass

from runtime import Node, Value
from runtime.graph import Graph
from runtime.registry import get_op
from staging import errors
from staging.gradients.rules import where_of


@dataclass(frozen=True)
class Held:
    """What a Variable holds for the gradient: its value on entry (`entry`), or a value an
    assignment wrote (`value`; None: a literal or a constant), plus, for `assign_add` /
    `assign_sub` (`sign` +1 / -1), what it held before (`previous`)."""

    var: object
    entry: bool = True
    value: Value | None = None
    previous: Held | None = None
    sign: int = 0


def nodes_in(node: Node):
    """The nodes inside `node`: of its subgraphs and of the graphs it calls, depth first."""
    for sub in node.subgraphs.values():
        for inner in sub.nodes:
            yield inner
            yield from nodes_in(inner)
    called = get_op(node.op).called_graph
    if called is not None:
        for inner in called(node).nodes:
            yield inner
            yield from nodes_in(inner)


def _is_read(node: Node) -> bool:
    return get_op(node.op).gradient == "variable_read"


def reads_of(node: Node) -> dict:
    """{id(Variable): Variable} read by `node` or inside it."""
    return {id(n.attrs["var"]): n.attrs["var"] for n in (node, *nodes_in(node)) if _is_read(n)}


def _is_constant(value) -> bool:
    """A literal, or the output of a constant node: no gradient reaches it."""
    if not isinstance(value, Value):
        return True
    producer = value.producer
    return producer is not None and get_op(producer.op).constant is not None


def _written_in(node: Node) -> list:
    """The assignments inside `node` (not `node` itself)."""
    return [n for n in nodes_in(node) if get_op(n.op).writes_variable]


class VariableValues:
    """The Variables of one graph being differentiated: which are sources, what each holds as
    the graph's nodes run, and where a cotangent of a read goes (`route`)."""

    def __init__(self, graph: Graph, sources: tuple):
        self.sources = {id(v): v for v in sources}
        self.held: dict = {}  # id(Variable) -> Held, after an assignment at this level
        self.read_held: dict = {}  # a read node's output Value -> the Held it reads
        self.node_held: dict = {}  # id(node) -> {id(Variable): Held} read in it when it ran
        # read_after[i]: the Variables read by graph.nodes[i + 1:]
        self.read_after: dict = {}
        later: set = set()
        for node in reversed(graph.nodes):
            self.read_after[id(node)] = frozenset(later)
            later |= set(reads_of(node))

    # -- forward ---------------------------------------------------------------------------
    def assigned(self, node: Node) -> None:
        """An assignment at this graph's level (`v.assign(x)`, `assign_add`, `assign_sub`)."""
        var, mode = node.attrs["var"], node.attrs["mode"]
        value = node.inputs[0] if isinstance(node.inputs[0], Value) else None
        if mode == "set":
            self.held[id(var)] = Held(var, entry=False, value=value)
        else:
            previous = self.held.get(id(var), Held(var))
            sign = 1 if mode == "add" else -1
            self.held[id(var)] = Held(var, False, value, previous, sign)

    def read(self, node: Node) -> Held:
        """A read at this graph's level: what the Variable holds there."""
        var = node.attrs["var"]
        held = self.held.get(id(var), Held(var))
        self.read_held[node.outputs[0]] = held
        return held

    def is_active(self, held: Held, active: set) -> bool:
        """Whether what a Variable holds depends on a value differentiated."""
        while held is not None:
            if held.entry and id(held.var) in self.sources:
                return True
            if held.value is not None and held.value in active:
                return True
            held = held.previous
        return False

    def tracked_in(self, node: Node, active: set) -> tuple:
        """The Variables read inside `node` (a structured node or a call) whose reads carry a
        gradient; remembers what each held when the node ran."""
        held_now = {}
        for key, var in reads_of(node).items():
            held = self.held.get(key, Held(var))
            if self.is_active(held, active):
                held_now[key] = held
        self.node_held[id(node)] = held_now
        return tuple(held.var for held in held_now.values())

    def after(self, node: Node, reached: bool, active: set) -> None:
        """The assignments inside `node`, once it ran. `assign_add`/`assign_sub` of a value no
        gradient reaches keep what the Variable held, for the gradient (its derivative is 1);
        `assign` of such a value makes it hold a constant. One of a value a gradient may reach
        (the node is `reached`), read after the node or in a later iteration of the loop, is
        refused: what the Variable holds would depend on the path."""
        read_inside = set(reads_of(node)) if get_op(node.op).gradient == "loop" else set()
        for n in _written_in(node):
            var = n.attrs["var"]
            key = id(var)
            may_carry = reached and not _is_constant(n.inputs[0])
            before = self.held.get(key, Held(var))
            if n.attrs["mode"] == "set":
                refused = (may_carry and key in self.read_after[id(node)]) or (
                    key in read_inside and (may_carry or self.is_active(before, active))
                )
            else:
                refused = may_carry and (key in self.read_after[id(node)] or key in read_inside)
            if refused:
                raise errors.GradientError(
                    f"{where_of(n)}the Variable {var.name!r} is assigned inside a staged "
                    f"branch, loop or called function, and read after it by the code "
                    f"differentiated: what it holds would depend on the path. Assign it outside "
                    f"the branch or loop, or update it in a separate staged function"
                )
            if n.attrs["mode"] == "set":
                self.held[key] = Held(var, entry=False)

    # -- backward --------------------------------------------------------------------------
    def route(self, held: Held, ct, into: dict, at_entry: dict, as_gradient) -> None:
        """Adds cotangent `ct` of a read of `held` where it goes: to the values assignments
        wrote (`into`, by Value, each shaped by `as_gradient(ct, value)`), and to a source
        Variable's value on entry (`at_entry`, by id)."""
        while held is not None:  # (new = previous + sign * value: previous gets ct itself)
            if held.value is not None:
                part = -ct if held.sign < 0 else ct
                into[held.value] = _add(into.get(held.value), as_gradient(part, held.value))
            if held.entry and id(held.var) in self.sources:
                key = id(held.var)
                at_entry[key] = _add(at_entry.get(key), ct)
            held = held.previous


def _add(a, b):
    if a is None:
        return b
    return a if b is None else a + b
