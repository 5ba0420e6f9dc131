"""Reverse mode over a traced graph: replay its nodes into the trace being made, then add the
nodes of its vector-Jacobian product.

`Reverse(graph, inputs, active)` puts the nodes of `graph` (a staged function's graph, or the
subgraph of a cond or loop) into the current trace, reading `inputs`, and keeps the symbolic
value of every node output. `backward(cotangents)` then adds, node by node in reverse order,
each node's rule (OpDef.vjp) applied to its output cotangents, and returns the cotangents of
the inputs that are `active` (differentiated).

Control flow and state, each in its own module: branches (cond), loops (while_loop: the
iterations saved forward, replayed in reverse), lists (staged lists appended to in loops),
variable_values (Variables in program order), recompute (what a replay for the backward pass
leaves out or refuses). A `call` of another staged function is replayed and differentiated in
place, or by its own custom_gradient.
Only nodes on a path from an active input to an output with a cotangent are differentiated;
an op there without a rule raises GradientError naming the op and the user's line.
"""

from __future__ import annotations

import contextlib

from runtime import Node, TensorType, Value
from runtime.graph import Graph
from runtime.registry import get_op
from staging import errors
from staging.core.recording import current_graph, record
from staging.core.source_map import is_user_file
from staging.core.tensor import Tensor, symbolic
from staging.gradients import branches, lists, loops
from staging.gradients.recompute import Run, assigned_in
from staging.gradients.rules import RuleContext, sum_to, where_of
from staging.gradients.values import add, as_gradient, differentiable, fitted, zeros, zeros_of
from staging.gradients.variable_values import VariableValues


def _type(v):
    return v.type if isinstance(v, Value) else v


def _lookup(env: dict, v):
    return env[v] if isinstance(v, Value) else v


class Reverse:
    """One graph replayed into the current trace, ready to be differentiated."""

    def __init__(
        self, graph: Graph, inputs: list, active: set, variables: tuple = (), run: Run | None = None
    ):
        self.graph = graph
        # once forward, or again for the backward pass (staging.gradients.recompute)
        self.run = run if run is not None else Run(assigned_in(graph))
        self.env: dict = dict(zip(graph.inputs, inputs))
        self.active: set = {v for v in graph.inputs if v in active and differentiable(v.type)}
        # the Variables differentiated (a GradientTape's sources, or read inside a node whose
        # reads carry a gradient): what each holds, node after node
        self.vars = VariableValues(graph, variables)
        self.tracked: dict = {}  # id(node) -> the Variables whose reads in it carry a gradient
        self.var_cts: dict = {}  # id(Variable) -> the cotangent of its value on entry
        self.differentiated: set = set()  # ids of the nodes a value differentiated reaches
        self.loops: dict = {}  # id(while node) -> (trip count, TensorArrays of its state)
        self.calls: dict = {}  # id(call node) -> the Reverse of the called graph
        for node in graph.nodes:
            self._forward(node)

    @property
    def outputs(self) -> list:
        return [_lookup(self.env, v) for v in self.graph.outputs]

    # -- forward -------------------------------------------------------------------
    def _is_active(self, node: Node) -> bool:
        return bool(self.tracked.get(id(node))) or any(
            isinstance(v, Value) and v in self.active for v in node.inputs
        )

    def _forward(self, node: Node) -> None:
        opdef = get_op(node.op)
        if any(isinstance(x, lists.Recorded) for x in self.inputs_of(node)):
            active = self._is_active(node)
            self._set_outputs(node, lists.replay(node, self.inputs_of(node)), active)
            return
        self.run.check(node)
        if self.run.leaves_out(node):
            if opdef.writes_variable:
                self.vars.assigned(node)
            return
        if opdef.gradient == "variable_read":
            held = self.vars.read(node)
            self._set_outputs(node, self._copy(node), self.vars.is_active(held, self.active))
            return
        if opdef.writes_variable and not node.subgraphs:
            self.vars.assigned(node)
            self._set_outputs(node, self._copy(node), False)
            return
        if node.subgraphs or opdef.called_graph is not None:
            self.tracked[id(node)] = self.vars.tracked_in(node, self.active)
        active = self._is_active(node)
        outs = self._forward_node(node, opdef, active)
        if node.subgraphs or opdef.called_graph is not None:
            self.vars.after(node, active, self.active)
        self._set_outputs(node, outs, active)

    def _forward_node(self, node: Node, opdef, active: bool) -> list:
        if active and custom_vjp(node) is not None:
            return self._copy(node)
        if active and opdef.called_graph is not None:
            return self._forward_call(node, opdef.called_graph(node))
        if active and opdef.gradient == "loop":
            with placed_at(node):
                return loops.run_forward(self, node)
        return self._copy(node)

    def _set_outputs(self, node: Node, outs: list, active: bool) -> None:
        if active:
            self.differentiated.add(id(node))
        inner = self.calls.get(id(node))
        for i, (v, out) in enumerate(zip(node.outputs, outs)):
            self.env[v] = out
            reached = active if inner is None else inner.reaches(i)
            if reached and differentiable(v.type):
                self.active.add(v)

    def reaches(self, index: int) -> bool:
        """Whether output `index` of the graph depends on an active input (or Variable)."""
        values = [v for v in self.graph.outputs if isinstance(v, Value)]
        return index < len(values) and values[index] in self.active

    def _copy(self, node: Node) -> list:
        """The node again, reading this trace's values. A value recomputed from a loop's saved
        state may be of another kind than forward (a Python int saved as an int64): a plain
        node then gets its types from its rule, a structured one its operands converted."""
        fg = current_graph()
        inputs = [fg.value_of(x) if isinstance(x, Tensor) else x for x in self.inputs_of(node)]
        same = all(_type(a) == _type(b) for a, b in zip(inputs, node.inputs))
        if not same and not node.subgraphs:
            return self._recorded(node, inputs)
        if not same:
            inputs = [_as_kind(fg, x, _type(v)) for x, v in zip(inputs, node.inputs)]
        subgraphs = {label: self.run.copy(g) for label, g in node.subgraphs.items()}
        copy = node.copied(inputs, subgraphs)
        fg.graph.add_node(copy)
        return [symbolic(fg, v) for v in copy.outputs]

    def _recorded(self, node: Node, inputs: list) -> list:
        fg = current_graph()
        made = record(
            node.op,
            [symbolic(fg, x) if isinstance(x, Value) else x for x in inputs],
            dict(node.attrs),
        )
        outs = list(made) if isinstance(made, tuple) else [made]
        copy = fg.graph.nodes[-1]
        copy.location = node.location
        if node.scope is not None:
            copy.set_scope(node.scope)
        return outs

    def inputs_of(self, node: Node) -> list:
        """The values standing for `node`'s inputs in the trace being made."""
        return [_lookup(self.env, v) for v in node.inputs]

    def nested(self, graph: Graph, inputs: list, active: set, variables: tuple, run: Run):
        """A graph inside this one (a branch, a loop's condition or body), run as `run` says."""
        return Reverse(graph, inputs, active, variables, run)

    def gather(self, node: Node, var_cts: dict) -> None:
        """The cotangents of Variables read inside `node`: to what each held when it ran."""
        for key, ct in var_cts.items():
            if ct is not None:
                self._route(self.vars.node_held[id(node)][key], ct)

    def _forward_call(self, node: Node, graph: Graph) -> list:
        active = {g for g, v in zip(graph.inputs, node.inputs) if v in self.active}
        inner = Reverse(graph, self.inputs_of(node), active, self.tracked[id(node)], self.run)
        self.calls[id(node)] = inner
        return inner.outputs

    # -- backward ------------------------------------------------------------------
    def backward(self, cotangents: dict) -> dict:
        """{input Value: cotangent} for the active inputs, given {output Value: cotangent}."""
        cts: dict = {}
        self._cts = cts
        for v, ct in cotangents.items():
            if isinstance(v, Value) and ct is not None:
                cts[v] = add(cts.get(v), ct)
        for node in reversed(self.graph.nodes):
            out_cts = [cts.pop(v, None) for v in node.outputs]
            if all(ct is None for ct in out_cts) or id(node) not in self.differentiated:
                continue
            wanted = [isinstance(v, Value) and v in self.active for v in node.inputs]
            with placed_at(node):
                in_cts = self._node_vjp(node, out_cts, wanted)
            for v, ct in zip(node.inputs, in_cts):
                if ct is not None and isinstance(v, Value) and v in self.active:
                    cts[v] = add(cts.get(v), ct)
        return {v: cts.get(v) for v in self.graph.inputs if v in self.active}

    def _route(self, held, ct) -> None:
        self.vars.route(held, ct, self._cts, self.var_cts, self._gradient_of_value)

    def _gradient_of_value(self, ct, value: Value):
        """A cotangent of a Variable's read, as the gradient of the value assigned to it."""
        x = self.env[value]
        return as_gradient(sum_to(ct, x), x)

    def _node_vjp(self, node: Node, out_cts: list, wanted: list) -> tuple:
        form = get_op(node.op).gradient
        custom = custom_vjp(node)
        if custom is not None:
            return self._custom_vjp(node, custom, out_cts)
        if id(node) in self.calls:
            inner = self.calls[id(node)]
            found = inner.backward(dict(zip(inner.graph.outputs, out_cts)))
            self.gather(node, inner.var_cts)
            return tuple(found.get(v) for v in inner.graph.inputs)
        if form == "variable_read":
            self._route(self.vars.read_held[node.outputs[0]], out_cts[0])
            return ()
        if form in ("list_stack", "list_read", "list_write"):
            return self._list_vjp(node, form, out_cts)
        if form == "branches":
            return branches.vjp(self, node, out_cts, wanted)
        if form == "loop":
            return loops.vjp(self, node, out_cts, wanted)
        rule = get_op(node.op).vjp
        if rule is None:
            raise errors.GradientError(
                f"{where_of(node)}{node.op} has no gradient rule, and a value differentiated "
                f"flows through it; compute it another way, or mark it with "
                f"staging.stop_gradient(...) if no gradient should flow through it"
            )
        inputs = self.inputs_of(node)
        outs = [self.env[v] for v in node.outputs]
        filled = [
            ct if ct is not None else zeros(v, out)
            for ct, v, out in zip(out_cts, node.outputs, outs)
        ]
        ctx = RuleContext(node, wanted)
        single = get_op(node.op).num_outputs == 1
        result = rule(
            ctx,
            filled[0] if single else tuple(out_cts),
            outs[0] if single else tuple(outs),
            *inputs,
            **node.attrs,
        )
        return tuple(fitted(ct, x) for ct, x in zip(result, inputs))

    def _list_vjp(self, node: Node, form: str, out_cts: list) -> tuple:
        """A staged list's op: its cotangent is an array, a row per element (lists module)."""
        ct = out_cts[0]
        inputs = self.inputs_of(node)
        if form == "list_stack":
            return lists.stack_vjp(ct)
        if form == "list_read":
            return lists.read_vjp(ct, inputs[0], node.inputs[0].type, inputs[1])
        before, _, value = lists.write_vjp(ct, inputs[1])
        return (before, None, as_gradient(sum_to(value, inputs[2]), inputs[2]))

    def _custom_vjp(self, node: Node, vjp, out_cts: list) -> tuple:
        """A function's own vector-Jacobian product (staging.custom_gradient): called with the
        call's inputs and its outputs' cotangents; one cotangent per input back."""
        inputs = self.inputs_of(node)
        outs = [self.env[v] for v in node.outputs]
        cts = [ct if ct is not None else zeros_of(out) for ct, out in zip(out_cts, outs)]
        found = vjp(tuple(inputs), tuple(cts))
        found = found if isinstance(found, (tuple, list)) else (found,)
        if len(found) != len(inputs):
            raise errors.GradientError(
                f"{where_of(node)}the gradient function of {node.attrs['fn'].name!r} returned "
                f"{len(found)} gradient(s) for its {len(inputs)} array argument(s)"
            )
        return tuple(fitted(ct, x) for ct, x in zip(found, inputs))


def custom_vjp(node: Node):
    """The vector-Jacobian product a call's function gives itself (staging.custom_gradient)."""
    fn = node.attrs.get("fn") if get_op(node.op).called_graph is not None else None
    return getattr(getattr(fn, "_python_function", None), "__custom_vjp__", None)


def calling_graph(cf) -> Graph:
    """A graph of one call of the concrete function `cf` (what is differentiated at the top, so
    that a function's own gradient, if it has one, is used there too)."""
    graph = Graph(cf.name)
    for v in cf.graph.inputs:
        graph.add_input(v.type)
    node = Node("call", list(graph.inputs), {"fn": cf}, list(cf.output_types))
    graph.add_node(node)
    values = iter(node.outputs)
    graph.outputs = [next(values) if isinstance(v, Value) else v for v in cf.graph.outputs]
    return graph


@contextlib.contextmanager
def placed_at(node: Node):
    """The nodes recorded inside (the gradient of `node`, a loop standing for it) are placed at
    the user's line of `node`: errors and graph dumps name it, not this module."""
    graph = current_graph().graph
    before = len(graph.nodes)
    try:
        yield
    finally:
        for made in graph.nodes[before:]:
            _place(made, node.location)


def _place(node: Node, location) -> None:
    if node.location is None or not is_user_file(node.location[0]):
        node.location = location
    for sub in node.subgraphs.values():
        for inner in sub.nodes:
            _place(inner, location)


def _as_kind(fg, value, expected):
    """`value` (a Value of `fg`) as a Python number where `expected` is one and it is not."""
    if (
        isinstance(value, Value)
        and isinstance(expected, TensorType)
        and expected.weak
        and not (isinstance(value.type, TensorType) and value.type.weak)
    ):
        return record("python_number", [symbolic(fg, value)], {"kind": expected.python_type})._value
    return value
