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
from runtime.graph import Graph
from runtime.registry import get_op
from runtime.types import kinds
from staging import errors
from staging.control_flow import cond as staged_cond
from staging.control_flow import while_loop as staged_while
from staging.core.recording import current_graph, record
from staging.core.source_map import is_user_file
from staging.core.tensor import Tensor, symbolic
from staging.gradients import lists
from staging.gradients.recompute import Run, assigned_in
from staging.gradients.rules import RuleContext, float_dtype, sum_to, where_of
from staging.gradients.variable_values import VariableValues
from staging.state.tensor_array import TensorArray


def differentiable(t) -> bool:
    """A value of type `t` has a gradient: a float (or complex) on some path, or a staged list
    of such values."""
    if isinstance(t, (bool, int)):
        return False
    if lists.is_list(t):
        return lists.differentiable_list(t)
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
        if any(isinstance(x, lists.Recorded) for x in self._inputs(node)):
            active = self._is_active(node)
            self._set_outputs(node, lists.replay(node, self._inputs(node)), active)
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
                return self._forward_loop(node)
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
        inputs = [fg.value_of(x) if isinstance(x, Tensor) else x for x in self._inputs(node)]
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

    def _inputs(self, node: Node) -> list:
        return [_lookup(self.env, v) for v in node.inputs]

    def _forward_call(self, node: Node, graph: Graph) -> list:
        active = {g for g, v in zip(graph.inputs, node.inputs) if v in self.active}
        inner = Reverse(graph, self._inputs(node), active, self.tracked[id(node)], self.run)
        self.calls[id(node)] = inner
        return inner.outputs

    def _forward_loop(self, node: Node) -> list:
        """The loop, run with each iteration's loop variables appended to staged lists."""
        nvars = node.attrs["num_loop_vars"]
        inputs = self._inputs(node)
        inits, captures = inputs[:nvars], inputs[nvars:]
        test, body = node.subgraphs["cond"], node.subgraphs["body"]
        for i, v in enumerate(node.outputs):
            _check_savable(node, v.type)
            if lists.is_list(v.type):
                lists.check_appends_only(node, body, i)
        stacks = tuple(_stack_for(v.type) for v in node.outputs)

        def go_on(count, saved, *values):
            return Reverse(test, list(values) + captures, set(), (), self.run).outputs[0]

        def step(count, saved, *values):
            saved = tuple(
                s.write(count, lists.saved_form(x, v.type))
                for s, x, v in zip(saved, values, node.outputs)
            )
            after = Reverse(body, list(values) + captures, set(), (), self.run).outputs
            return (count + 1, saved, *after)

        count, saved, *finals = staged_while(go_on, step, (np.int64(0), stacks, *inits))
        self.loops[id(node)] = (count, saved)
        return finals

    # -- backward ------------------------------------------------------------------
    def backward(self, cotangents: dict) -> dict:
        """{input Value: cotangent} for the active inputs, given {output Value: cotangent}."""
        cts: dict = {}
        self._cts = cts
        for v, ct in cotangents.items():
            if isinstance(v, Value) and ct is not None:
                cts[v] = _add(cts.get(v), ct)
        for node in reversed(self.graph.nodes):
            out_cts = [cts.pop(v, None) for v in node.outputs]
            if all(ct is None for ct in out_cts) or id(node) not in self.differentiated:
                continue
            wanted = [isinstance(v, Value) and v in self.active for v in node.inputs]
            with placed_at(node):
                in_cts = self._node_vjp(node, out_cts, wanted)
            for v, ct in zip(node.inputs, in_cts):
                if ct is not None and isinstance(v, Value) and v in self.active:
                    cts[v] = _add(cts.get(v), ct)
        return {v: cts.get(v) for v in self.graph.inputs if v in self.active}

    def _gather(self, node: Node, var_cts: dict) -> None:
        """The cotangents of Variables read inside `node`: to what each held when it ran."""
        for key, ct in var_cts.items():
            if ct is not None:
                self._route(self.vars.node_held[id(node)][key], ct)

    def _route(self, held, ct) -> None:
        self.vars.route(held, ct, self._cts, self.var_cts, self._gradient_of_value)

    def _gradient_of_value(self, ct, value: Value):
        """A cotangent of a Variable's read, as the gradient of the value assigned to it."""
        x = self.env[value]
        return _as_gradient(sum_to(ct, x), x)

    def _node_vjp(self, node: Node, out_cts: list, wanted: list) -> tuple:
        form = get_op(node.op).gradient
        custom = custom_vjp(node)
        if custom is not None:
            return self._custom_vjp(node, custom, out_cts)
        if id(node) in self.calls:
            inner = self.calls[id(node)]
            found = inner.backward(dict(zip(inner.graph.outputs, out_cts)))
            self._gather(node, inner.var_cts)
            return tuple(found.get(v) for v in inner.graph.inputs)
        if form == "variable_read":
            self._route(self.vars.read_held[node.outputs[0]], out_cts[0])
            return ()
        if form in ("list_stack", "list_read", "list_write"):
            return self._list_vjp(node, form, out_cts)
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

    def _list_vjp(self, node: Node, form: str, out_cts: list) -> tuple:
        """A staged list's op: its cotangent is an array, a row per element (lists module)."""
        ct = out_cts[0]
        inputs = self._inputs(node)
        if form == "list_stack":
            return lists.stack_vjp(ct)
        if form == "list_read":
            return lists.read_vjp(ct, inputs[0], node.inputs[0].type, inputs[1])
        before, _, value = lists.write_vjp(ct, inputs[1])
        return (before, None, _as_gradient(sum_to(value, inputs[2]), inputs[2]))

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
        if any(lists.is_list(_type(node.inputs[i + 1])) for i in positions):
            raise errors.GradientError(
                f"{where_of(node)}a staged list changed in a staged branch that is "
                f"differentiated: not differentiated yet; build an array instead"
            )
        read = self.tracked[id(node)]

        def branch(label: str):
            def run():
                graph = node.subgraphs[label]
                active = {graph.inputs[i] for i in positions}
                inner = Reverse(graph, operands, active, read, self.run.again())
                found = inner.backward(dict(zip(graph.outputs, seeds)))
                grads = tuple(
                    _as_gradient(found.get(graph.inputs[i]), operands[i]) for i in positions
                )
                return grads, _variable_gradients(inner.var_cts, read)

            return run

        grads, var_grads = staged_cond(pred, branch("then"), branch("else"))
        self._gather(node, {id(var): g for var, g in zip(read, var_grads)})
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
            _as_gradient(out_cts[i], outs[i])
            if out_cts[i] is not None
            else _zeros_for(outs[i], node.outputs[i].type)
            for i in variables
        )
        cap_zeros = tuple(_zeros_for(captures[j], _type(node.inputs[nvars + j])) for j in caps)
        read = self.tracked[id(node)]
        read_zeros = tuple(_variable_zeros(var) for var in read)

        def go_on(k, var_cts, cap_cts, read_cts):
            return k > 0

        def step(k, var_cts, cap_cts, read_cts):
            k = k - 1
            values = [
                lists.Recorded(outs[i], s.read(k))
                if lists.is_list(v.type)
                else _restored(s.read(k), v.type)
                for i, (s, v) in enumerate(zip(saved, node.outputs))
            ]
            active = {body.inputs[i] for i in variables} | {body.inputs[nvars + j] for j in caps}
            inner = Reverse(body, values + captures, active, read, self.run.again())
            found = inner.backward(dict(zip([body.outputs[i] for i in variables], var_cts)))
            new_vars = tuple(
                _as_gradient(found.get(body.inputs[i]), outs[i])
                if found.get(body.inputs[i]) is not None
                else _zeros_for(values[i], node.outputs[i].type)
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
        self._gather(node, {id(var): g for var, g in zip(read, read_cts)})
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


def _check_savable(node: Node, t) -> None:
    """A loop variable the forward loop can save each iteration of: numbers and arrays."""
    if lists.is_list(t):
        return
    if not all(isinstance(k, TensorType) for k in kinds(t)):
        raise errors.GradientError(
            f"{where_of(node)}no gradient through a loop with a loop variable that is {t} (None "
            f"or a string on some path: not supported yet); give it a number or an array "
            f"before the loop"
        )


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


def _restored(value, t):
    """A loop variable's value read back from its staged list: a Python number again where the
    loop variable is one (the list holds it as a NumPy value)."""
    if isinstance(t, TensorType) and t.weak:
        return record("python_number", [value], {"kind": t.python_type})
    return value


def _zeros_for(x, t):
    """A cotangent of zeros for a value `x` of type `t` (a list's: a row per element)."""
    return lists.zeros(x, t) if lists.is_list(t) else _zeros_of(x)


def _stack_for(t) -> TensorArray:
    """An empty staged list for what a loop saves of a loop variable of type `t` each
    iteration (a list's length, staging.gradients.lists)."""
    if lists.is_list(t):
        return TensorArray(dtype=np.int64, size=0, dynamic_size=True)
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
    if isinstance(x, lists.Recorded) or lists.is_list(
        getattr(getattr(x, "_value", None), "type", None)
    ):
        return g  # (a list's cotangent: an array of the elements' float dtype already)
    dtype = float_dtype(x)
    if np.result_type(g) != dtype:
        g = np.asarray(g).astype(dtype) if not isinstance(g, Tensor) else g.astype(dtype)
    return g
