"""Reverse mode over a traced graph: replay its nodes into the trace being made, then add the
nodes of its vector-Jacobian product.

`Reverse(graph, inputs, active)` puts the nodes of `graph` (a staged function's graph, or the
subgraph of a cond or loop) into the current trace, reading `inputs`, and keeps the symbolic
value of every node output. `backward(cotangents)` then adds, node by node in reverse order,
each node's rule (OpDef.vjp) applied to its output cotangents, and returns the cotangents of
the inputs that are `active` (differentiated).

Control flow:
- `cond`: the backward pass is a cond on the same predicate whose branches replay the branch
  that ran and differentiate it (its values are recomputed, not kept).
- `while_loop`: while the loop runs forward, each iteration's loop variables are appended to
  staged lists (memory: iterations x loop state). The backward pass is a loop counting the
  iterations down, which reads the state an iteration began with, replays that iteration's
  body and applies its vector-Jacobian product. Loops whose trip count depends on the data,
  `break` and early `return` (loop variables like any other) need nothing more.
- `call` of another staged function: its graph is replayed and differentiated in place.
Only nodes on a path from an active input to an output with a cotangent are differentiated;
an op there without a rule raises GradientError naming the op and the user's line.
"""

from __future__ import annotations

import contextlib

import numpy as np

from runtime import Node, TensorType, Value
from runtime.call_inlining import copy_graph
from runtime.graph import Graph
from runtime.registry import get_op
from runtime.types import ListType, kinds
from staging import errors
from staging.control_flow import cond as staged_cond
from staging.control_flow import while_loop as staged_while
from staging.core.recording import current_graph
from staging.core.source_map import is_user_file
from staging.core.tensor import Tensor, symbolic
from staging.gradients.rules import RuleContext, float_dtype, where_of
from staging.state.tensor_array import TensorArray


def differentiable(t) -> bool:
    """A value of type `t` has a gradient: a float (or complex) on some path."""
    if isinstance(t, (bool, int)):
        return False
    if isinstance(t, float):
        return True
    return any(
        isinstance(k, TensorType) and (k.dtype.kind in "fc" or (k.weak and k.python_type is float))
        for k in kinds(t)
    )


def _type(v):
    return v.type if isinstance(v, Value) else v


def _lookup(env: dict, v):
    return env[v] if isinstance(v, Value) else v


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


class Reverse:
    """One graph replayed into the current trace, ready to be differentiated."""

    def __init__(self, graph: Graph, inputs: list, active: set, variables: tuple = ()):
        self.graph = graph
        self.env: dict = dict(zip(graph.inputs, inputs))
        self.active: set = {v for v in graph.inputs if v in active and differentiable(v.type)}
        # the Variables differentiated (a GradientTape's sources): their reads are sources too
        self.variables = variables
        self.reads = VariableReads(variables)
        self.var_cts: dict = {}  # id(Variable) -> its cotangent, after backward()
        self.loops: dict = {}  # id(while node) -> (trip count, TensorArrays of its state)
        self.calls: dict = {}  # id(call node) -> the Reverse of the called graph
        for node in graph.nodes:
            self._forward(node)

    @property
    def outputs(self) -> list:
        return [_lookup(self.env, v) for v in self.graph.outputs]

    # -- forward -------------------------------------------------------------------
    def _is_active(self, node: Node) -> bool:
        return self.reads.reads(node) or any(
            isinstance(v, Value) and v in self.active for v in node.inputs
        )

    def _forward(self, node: Node) -> None:
        active = self._is_active(node)
        opdef = get_op(node.op)
        if active and custom_vjp(node) is not None:
            outs = self._copy(node)
        elif active and opdef.called_graph is not None:
            outs = self._forward_call(node, opdef.called_graph(node))
        elif active and opdef.gradient == "loop":
            with placed_at(node):
                outs = self._forward_loop(node)
        else:
            outs = self._copy(node)
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
        fg = current_graph()
        inputs = [fg.value_of(x) if isinstance(x, Tensor) else x for x in self._inputs(node)]
        subgraphs = {label: copy_graph(g) for label, g in node.subgraphs.items()}
        copy = node.copied(inputs, subgraphs)
        fg.graph.add_node(copy)
        return [symbolic(fg, v) for v in copy.outputs]

    def _inputs(self, node: Node) -> list:
        return [_lookup(self.env, v) for v in node.inputs]

    def _forward_call(self, node: Node, graph: Graph) -> list:
        active = {g for g, v in zip(graph.inputs, node.inputs) if v in self.active}
        inner = Reverse(graph, self._inputs(node), active, self.variables)
        self.calls[id(node)] = inner
        return inner.outputs

    def _forward_loop(self, node: Node) -> list:
        """The loop, run with each iteration's loop variables appended to staged lists."""
        nvars = node.attrs["num_loop_vars"]
        inputs = self._inputs(node)
        inits, captures = inputs[:nvars], inputs[nvars:]
        test, body = node.subgraphs["cond"], node.subgraphs["body"]
        for v in node.outputs:
            if any(isinstance(k, ListType) for k in kinds(v.type)):
                raise errors.GradientError(
                    f"{where_of(node)}no gradient through a loop that changes a staged list "
                    f"(not supported yet); build an array instead"
                )
        stacks = tuple(_stack_for(v.type) for v in node.outputs)

        def go_on(count, saved, *values):
            return Reverse(test, list(values) + captures, set()).outputs[0]

        def step(count, saved, *values):
            saved = tuple(s.write(count, x) for s, x in zip(saved, values))
            after = Reverse(body, list(values) + captures, set()).outputs
            return (count + 1, saved, *after)

        count, saved, *finals = staged_while(go_on, step, (np.int64(0), stacks, *inits))
        self.loops[id(node)] = (count, saved)
        return finals

    # -- backward ------------------------------------------------------------------
    def backward(self, cotangents: dict) -> dict:
        """{input Value: cotangent} for the active inputs, given {output Value: cotangent}."""
        cts: dict = {}
        for v, ct in cotangents.items():
            if isinstance(v, Value) and ct is not None:
                cts[v] = _add(cts.get(v), ct)
        for node in reversed(self.graph.nodes):
            out_cts = [cts.pop(v, None) for v in node.outputs]
            if all(ct is None for ct in out_cts) or not self._is_active(node):
                continue
            wanted = [isinstance(v, Value) and v in self.active for v in node.inputs]
            with placed_at(node):
                in_cts = self._node_vjp(node, out_cts, wanted)
            for v, ct in zip(node.inputs, in_cts):
                if ct is not None and isinstance(v, Value) and v in self.active:
                    cts[v] = _add(cts.get(v), ct)
        return {v: cts.get(v) for v in self.graph.inputs if v in self.active}

    def _gather(self, var_cts: dict) -> None:
        for key, ct in var_cts.items():
            self.var_cts[key] = _add(self.var_cts.get(key), ct)

    def _node_vjp(self, node: Node, out_cts: list, wanted: list) -> tuple:
        form = get_op(node.op).gradient
        custom = custom_vjp(node)
        if custom is not None:
            return self._custom_vjp(node, custom, out_cts)
        if id(node) in self.calls:
            inner = self.calls[id(node)]
            found = inner.backward(dict(zip(inner.graph.outputs, out_cts)))
            self._gather(inner.var_cts)
            return tuple(found.get(v) for v in inner.graph.inputs)
        if form == "variable_read":
            self._gather({id(node.attrs["var"]): out_cts[0]})
            return ()
        if form == "branches":
            return self._cond_vjp(node, out_cts, wanted)
        if form == "loop":
            return self._loop_vjp(node, out_cts, wanted)
        rule = get_op(node.op).vjp
        if rule is None:
            raise errors.GradientError(
                f"{where_of(node)}{node.op} has no gradient rule, and a value differentiated "
                f"flows through it; compute it another way, or mark it with "
                f"staging.stop_gradient(...) if no gradient should flow through it"
            )
        inputs = self._inputs(node)
        outs = [self.env[v] for v in node.outputs]
        filled = [
            ct if ct is not None else _zeros(v, out)
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
        return tuple(result)

    def _custom_vjp(self, node: Node, vjp, out_cts: list) -> tuple:
        """A function's own vector-Jacobian product (staging.custom_gradient): called with the
        call's inputs and its outputs' cotangents; one cotangent per input back."""
        inputs = self._inputs(node)
        outs = [self.env[v] for v in node.outputs]
        cts = [ct if ct is not None else _zeros_of(out) for ct, out in zip(out_cts, outs)]
        found = vjp(tuple(inputs), tuple(cts))
        found = found if isinstance(found, (tuple, list)) else (found,)
        if len(found) != len(inputs):
            raise errors.GradientError(
                f"{where_of(node)}the gradient function of {node.attrs['fn'].name!r} returned "
                f"{len(found)} gradient(s) for its {len(inputs)} array argument(s)"
            )
        return tuple(found)

    def _cond_vjp(self, node: Node, out_cts: list, wanted: list) -> tuple:
        pred, *operands = self._inputs(node)
        outs = [self.env[v] for v in node.outputs]
        seeds = [
            ct if ct is not None or not differentiable(v.type) else _zeros(v, out)
            for ct, v, out in zip(out_cts, node.outputs, outs)
        ]
        positions = [i for i, w in enumerate(wanted[1:]) if w]
        read = self.reads.read_in(node)

        def branch(label: str):
            def run():
                graph = node.subgraphs[label]
                active = {graph.inputs[i] for i in positions}
                inner = Reverse(graph, operands, active, self.variables)
                found = inner.backward(dict(zip(graph.outputs, seeds)))
                grads = tuple(
                    _as_gradient(found.get(graph.inputs[i]), operands[i]) for i in positions
                )
                return grads, _variable_gradients(inner.var_cts, read)

            return run

        grads, var_grads = staged_cond(pred, branch("then"), branch("else"))
        self._gather({id(var): g for var, g in zip(read, var_grads)})
        result: list = [None] * len(node.inputs)
        for i, g in zip(positions, grads):
            result[i + 1] = g
        return tuple(result)

    def _loop_vjp(self, node: Node, out_cts: list, wanted: list) -> tuple:
        nvars = node.attrs["num_loop_vars"]
        inputs = self._inputs(node)
        captures = inputs[nvars:]
        body = node.subgraphs["body"]
        count, saved = self.loops[id(node)]
        outs = [self.env[v] for v in node.outputs]
        variables = [i for i in range(nvars) if differentiable(node.outputs[i].type)]
        caps = [j for j in range(len(captures)) if wanted[nvars + j]]
        seeds = tuple(
            _as_gradient(out_cts[i], outs[i]) if out_cts[i] is not None else _zeros_of(outs[i])
            for i in variables
        )
        cap_zeros = tuple(_zeros_of(captures[j]) for j in caps)
        read = self.reads.read_in(node)
        read_zeros = tuple(_variable_zeros(var) for var in read)

        def go_on(k, var_cts, cap_cts, read_cts):
            return k > 0

        def step(k, var_cts, cap_cts, read_cts):
            k = k - 1
            values = [s.read(k) for s in saved]
            active = {body.inputs[i] for i in variables} | {body.inputs[nvars + j] for j in caps}
            inner = Reverse(body, values + captures, active, self.variables)
            found = inner.backward(dict(zip([body.outputs[i] for i in variables], var_cts)))
            new_vars = tuple(
                _as_gradient(found.get(body.inputs[i]), outs[i], zero_of=values[i])
                for i in variables
            )
            new_caps = tuple(
                _add(c, _as_gradient(found.get(body.inputs[nvars + j]), captures[j], skip=True))
                for c, j in zip(cap_cts, caps)
            )
            new_reads = tuple(
                _add(c, g) for c, g in zip(read_cts, _variable_gradients(inner.var_cts, read))
            )
            return k, new_vars, new_caps, new_reads

        _, var_cts, cap_cts, read_cts = staged_while(
            go_on, step, (count, seeds, cap_zeros, read_zeros)
        )
        self._gather({id(var): g for var, g in zip(read, read_cts)})
        result: list = [None] * len(node.inputs)
        for i, g in zip(variables, var_cts):
            if wanted[i]:
                result[i] = g
        for j, g in zip(caps, cap_cts):
            result[nvars + j] = g
        return tuple(result)


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


class VariableReads:
    """Which nodes read the Variables differentiated (directly, in their subgraphs or in the
    graphs they call). A Variable differentiated that a graph also assigns is refused: its
    reads after the write would have to differentiate through the assignment."""

    def __init__(self, variables: tuple):
        self.variables = {id(v): v for v in variables}
        self._known: dict = {}  # id(node) -> the Variables differentiated it reads, in order

    def reads(self, node: Node) -> bool:
        return bool(self.variables) and bool(self.read_in(node))

    def read_in(self, node: Node) -> tuple:
        if not self.variables:
            return ()
        known = self._known.get(id(node))
        if known is None:
            found: dict = {}
            for n in _nodes_of(node):
                var = n.attrs.get("var")
                if var is None or id(var) not in self.variables:
                    continue
                if get_op(n.op).writes_variable:
                    raise errors.GradientError(
                        f"{where_of(n)}the Variable {var.name!r} is differentiated and also "
                        f"assigned here; compute the loss and update the Variable in separate "
                        f"staged functions"
                    )
                if get_op(n.op).gradient == "variable_read":
                    found[id(var)] = var
            known = self._known[id(node)] = tuple(found.values())
        return known


def _nodes_of(node: Node):
    """`node`, the nodes of its subgraphs and of the graphs it calls, depth first."""
    yield node
    for sub in node.subgraphs.values():
        for inner in sub.nodes:
            yield from _nodes_of(inner)
    called = get_op(node.op).called_graph
    if called is not None:
        for inner in called(node).nodes:
            yield from _nodes_of(inner)


def _variable_gradients(var_cts: dict, read: tuple) -> tuple:
    """The cotangents of the Variables `read`, zeros for those none reached."""
    return tuple(
        var_cts[id(var)] if var_cts.get(id(var)) is not None else _variable_zeros(var)
        for var in read
    )


def _variable_zeros(var):
    dtype = np.dtype(var.dtype)
    return np.zeros(var.shape, dtype if dtype.kind == "f" else np.float64)


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


def _stack_for(t) -> TensorArray:
    """An empty staged list for the values of a loop variable of type `t`."""
    array_kinds = [k for k in kinds(t) if isinstance(k, TensorType)]
    dtype = np.result_type(*[k.strong().dtype for k in array_kinds]) if array_kinds else None
    return TensorArray(dtype=dtype, size=0, dynamic_size=True)


def _zeros(v: Value, out):
    return _zeros_of(out) if differentiable(v.type) else None


def _zeros_of(x):
    return np.zeros_like(x, dtype=float_dtype(x))


def _as_gradient(g, x, zero_of=None, skip=False):
    """g as the gradient of x: x's float dtype and shape; zeros where none flowed (None with
    `skip`)."""
    if g is None:
        return None if skip else _zeros_of(zero_of if zero_of is not None else x)
    dtype = float_dtype(x)
    if np.result_type(g) != dtype:
        g = np.asarray(g).astype(dtype) if not isinstance(g, Tensor) else g.astype(dtype)
    return g
