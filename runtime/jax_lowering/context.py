"""The JAX backend's side of a lowering: the `Lowerer` that each op's lowering (OpDef.lower) is
called with, as `ctx`. It runs graphs on JAX values and gives the lowerings the jax modules and
what they share: host callbacks in program order, run-time checks, list buffers, errors."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .._compat import add_note
from ..executor import failure_note
from ..graph import Graph, ListType, Value
from ..registry import get_op
from ..types import TensorType, UnionType, may_be_none
from . import lists, suspects
from .catalog import lowering_for
from .errors import LoweringError, cannot_lower
from .kinds import lower_by_kinds, splits, stand_in
from .values import (
    called_graphs,
    conform,
    ir_type,
    is_static,
    item_type,
    one_dtype_and_shape,
    retag,
    to_host,
    untag,
)


class Lowerer:
    """State while one graph is traced by JAX: the current value of each Variable.

    For the lowerings: `jax`, `jnp` (the modules), `lists` (runtime.jax_lowering.lists: Buffer,
    Stacked ...), `cannot_lower(node, why, fix)`, `is_static(x)`, `conform(value, type)`,
    `run(graph, args)`, `state` (id(Variable) -> its value), and the methods below.

    A value of several kinds (a UnionType sharing one dtype and shape, `float | f64[]`) is a
    `values.Tagged`: its array and a kind tag. A node with tagged inputs is lowered once per
    combination of their kinds (kinds.py), so its lowering sees single-kind values, except
    nodes that carry tags themselves (subgraphs, a called graph, lists): theirs use `untag(x)`
    (the array), `retag(x, from_type, to_type)` (a value as one of another type, tagged with
    its kind there) and `item_type(item)` (a node input's or graph output's type)."""

    jax = jax
    jnp = jnp
    lists = lists
    cannot_lower = staticmethod(cannot_lower)
    is_static = staticmethod(is_static)
    conform = staticmethod(conform)
    untag = staticmethod(untag)
    retag = staticmethod(retag)
    item_type = staticmethod(item_type)

    def __init__(self, runner, variables: list):
        self.runner = runner
        self.variables = variables
        self.state: dict[int, object] = {}
        # whether the values met so far are ones on which eager NumPy raises (suspects.py): a
        # JAX bool, threaded through control flow with the Variables; None when no node of the
        # graph may raise it
        self.suspect = jnp.asarray(False) if runner.flag_output else None

    def state_values(self) -> tuple:
        """What control flow threads through its branches and iterations: the Variables'
        values, then the suspects' flag (when the graph has one)."""
        values = tuple(self.state[id(v)] for v in self.variables)
        return values if self.suspect is None else (*values, self.suspect)

    def set_state(self, values) -> None:
        """The state `state_values` gave (or the Variables' values alone, on entry)."""
        self.state = {id(v): x for v, x in zip(self.variables, values)}
        if self.suspect is not None and len(values) > len(self.variables):
            self.suspect = values[-1]

    def variable_values(self) -> tuple:
        return tuple(self.state[id(v)] for v in self.variables)

    def run(self, graph: Graph, args) -> list:
        """`graph`'s outputs on JAX values `args`."""
        env = {id(v): a for v, a in zip(graph.inputs, args)}
        for node in graph.nodes:
            inputs = [env[id(v)] if isinstance(v, Value) else v for v in node.inputs]
            _refuse(node, inputs)
            if splits(node, inputs):  # tagged inputs: once per combination of their kinds
                outs = lower_by_kinds(self, node, inputs)
            else:
                outs = self.lower_node(node, inputs)
            self._note_suspect(node, inputs, outs)
            for v, out in zip(node.outputs, outs):
                env[id(v)] = conform(out, v.type)
        return [env[id(v)] if isinstance(v, Value) else v for v in graph.outputs]

    def _note_suspect(self, node, inputs, outs) -> None:
        """The node's suspects (values on which eager NumPy warns or raises, suspects.py),
        OR-ed into the flag `self.suspect`: an output of the compiled function, and of each
        branch and loop body on the way there (the state control flow threads)."""
        if self.suspect is None or not self.runner.checks(node):  # (literals only, counters)
            return
        flag = suspects.suspect(node, inputs, outs)
        if flag is not None:
            self.suspect = self.suspect | jnp.any(flag)

    def may_raise_flag(self, graph: Graph) -> bool:
        """Whether running `graph` (its subgraphs and the graphs it calls too) may change the
        suspects' flag."""
        return self.suspect is not None and any(
            self.runner.checks(n) for g in called_graphs(graph) for n in g.walk()
        )

    def flag_args(self) -> tuple:
        """The arguments a host callback takes first: the suspects' flag as it stands at that
        point of the program (the callback does nothing when it holds), or none."""
        return () if self.suspect is None else (self.suspect,)

    def lower_node(self, node, inputs) -> tuple:
        """The outputs of `node` on JAX values `inputs`, by its lowering (OpDef.lower); an error
        it raises becomes the interpreter's (the same for every value) or a LoweringError naming
        it."""
        op = get_op(node.op)
        lower = lowering_for(op)
        if lower is None:
            raise cannot_lower(node, op.unlowerable or "the JAX backend has no lowering for it")
        try:
            outs = lower(self, node, *inputs, **node.attrs)
        except LoweringError:
            raise
        except Exception as error:
            same = self._interpreter_error(node, inputs, error)
            if same is not None and self.suspect is not None and self.runner.checks(node):
                # (its message may name values, `x[i]` of an empty x: every call runs on the
                # interpreter, which raises it with them)
                self.suspect = self.suspect | True
                return tuple(stand_in(v.type) for v in node.outputs)
            if same is not None:
                raise same from None
            raise cannot_lower(
                node,
                f"{type(error).__name__}: {error}",
                "Static sizes and indices known when tracing make it lowerable; "
                "or keep the interpreter (jit_compile=False)",
            ) from error
        return (outs,) if op.num_outputs == 1 else outs

    def _interpreter_error(self, node, inputs, error):
        """The error the interpreter raises for `node` on inputs of these (static) shapes, when
        it is of the type JAX's lowering raised (a broadcast of f64[4] to (3,) fails in both for
        every value): the call raises it as the interpreter would, with the same note. None when
        the op is stateful or the NumPy kernel runs (a lowering gap, not the user's error)."""
        if node.opdef.stateful or node.subgraphs:
            return None
        values = []
        for item, x in zip(node.inputs, inputs):
            type_ = item.type if isinstance(item, Value) else None
            x = untag(x)
            if is_static(x):
                values.append(x)
            elif isinstance(type_, TensorType) and type_.weak:
                values.append(type_.python_type(1))
            elif isinstance(type_, TensorType):
                values.append(np.ones(np.shape(x), dtype=type_.dtype))
            else:  # a list: no comparison
                return None
        try:
            with np.errstate(all="ignore"):
                get_op(node.op).kernel(node.attrs)(*values)
        except Exception as found:  # noqa: BLE001 - compared with JAX's error below
            if type(found) is type(error):
                add_note(found, failure_note(node, self.runner.graph.name))
                return found
        return None

    # -- host callbacks and run-time checks ----------------------------------------------------

    def _recording(self, node, kernel):
        """`kernel` as a callback taking the flag_args first: skipped once the call has failed
        or met suspect values (the call then runs again on the interpreter, which does what it
        does); an exception it raises is kept (with the note the interpreter adds) for the call
        to raise when the computation is done."""
        runner = self.runner
        effect = node.opdef.host_effect
        flagged = self.suspect is not None

        def call(*host_args):
            if flagged:
                held, host_args = host_args[0], host_args[1:]
                if held:
                    return None
            if runner.failed is not None:
                return None
            if effect:
                runner.effects_ran = True
            try:
                return kernel(*host_args)
            except BaseException as error:  # noqa: BLE001 - re-raised by the caller of the graph
                add_note(error, failure_note(node, runner.graph.name))
                runner.failed = error
                return None

        return call

    def host_call(self, node, kernel, inputs, results=None):
        """Calls `kernel` on the host with the values of `inputs` (the node's inputs as JAX
        values or numbers known now), in program order, when the computation runs; each value
        takes the form the interpreter gives it. An exception it raises is raised by the call
        (OpDef.lower_calls_back). `results`: the TensorTypes it returns (fully known shapes),
        given as JAX values; None: it returns nothing."""
        dynamic: list = []  # the inputs known only when the computation runs
        types: list = []
        slots: list[tuple[str, Any]] = []  # ("static", value) or ("dynamic", position)
        for item, value in zip(node.inputs, inputs):
            if is_static(value):
                slots.append(("static", value))
            else:
                slots.append(("dynamic", len(dynamic)))
                dynamic.append(value)
                types.append(ir_type(item))

        def rebuild(host_values):
            host = [to_host(v, t) for v, t in zip(host_values, types)]
            return [host[x] if kind == "dynamic" else x for kind, x in slots]

        run = self._recording(node, kernel)
        flag = self.flag_args()
        n = len(flag)
        dynamic = [*flag, *dynamic]
        if results is None:
            jax.debug.callback(
                lambda *values: run(*values[:n], *rebuild(values[n:])), *dynamic, ordered=True
            )
            return None
        zeros = tuple(np.zeros(t.shape, t.dtype) for t in results)

        def call(*values):
            result = run(*values[:n], *rebuild(values[n:]))
            return (
                zeros
                if result is None
                else tuple(np.asarray(r, dtype=t.dtype) for r, t in zip(result, results))
            )

        shapes = tuple(jax.ShapeDtypeStruct(t.shape, t.dtype) for t in results)
        return tuple(jax.experimental.io_callback(call, shapes, *dynamic, ordered=True))

    def fail_if(self, node, bad, make_error) -> None:
        """The call raises `make_error()` (with the user's line) when `bad` holds when the graph
        runs: a new exception on each failing call (one raised again would gather a note per
        call)."""

        def fail():
            raise make_error()

        run = self._recording(node, fail)
        flag = self.flag_args()
        jax.lax.cond(
            jnp.asarray(bad, dtype=bool),
            lambda: jax.debug.callback(run, *flag, ordered=True),
            lambda: None,
        )

    def known_int(self, node, position: int, x):
        """Input `position` of `node` as an int when it is known while lowering (a literal, a
        constant of the graph), else None."""
        if (
            is_static(x)
            or isinstance(x, (np.integer, np.ndarray))
            or (isinstance(x, jax.Array) and not isinstance(x, jax.core.Tracer))
        ):
            return int(x)
        producer = getattr(node.inputs[position], "producer", None)
        constant = get_op(producer.op).constant if producer is not None else None
        if constant is not None:
            return int(constant(producer))
        return None

    # -- lists in staged control flow -----------------------------------------------------------

    def branch_lists(self, node, operands) -> list:
        """Lists a staged branch may write, as Buffers with room for the writes of either branch."""
        outs = [
            v.type for v in node.outputs if isinstance(v, Value) and isinstance(v.type, ListType)
        ]
        if not outs or not any(isinstance(x, list) for x in operands):
            return list(operands)
        for out in outs:
            if type(out.element) is UnionType:  # (a buffer holds one dtype, no tags)
                raise cannot_lower(
                    node, f"{lists.elements(out)} is written in a staged branch", lists.ELEMENT_FIX
                )
        writes = max(_list_writes(g) for g in node.subgraphs.values())
        bound = node.opdef.bind_subgraph(node, node.opdef.subgraphs[0])
        converted = []
        for x, item in zip(operands, bound):
            if isinstance(x, list):
                element = lists.element_type(item.type) or (
                    lists.element_type(outs[0]) if len(outs) == 1 else None
                )
                if element is None:
                    raise cannot_lower(
                        node,
                        f"{lists.elements(item.type)} is written in a staged branch",
                        lists.ELEMENT_FIX,
                    )
                x = lists.to_buffer(x, element, writes)
            converted.append(x)
        return converted

    def loop_lists(self, node, inits, captures, body: Graph, bound: int | None):
        """A loop's lists (loop variables and captured ones) as Buffers with room for every write
        the loop can make: its bound (maximum_iterations) times the writes in one iteration of
        `body`."""
        if not any(isinstance(x, list) for x in list(inits) + captures) and not any(
            isinstance(x, lists.Buffer) for x in inits
        ):
            return list(inits), captures
        writes = _list_writes(body)
        out_inits = [
            _loop_variable_buffer(node, i, value, out, writes, bound)
            for i, (value, out) in enumerate(zip(inits, node.outputs))
        ]
        out_captures = []
        for value, item in zip(captures, node.inputs[len(inits) :]):
            if isinstance(value, list):
                element = lists.element_type(item.type)
                if element is None:
                    raise cannot_lower(
                        node, f"{lists.elements(item.type)} is read in the loop", lists.ELEMENT_FIX
                    )
                value = lists.to_buffer(value, element, 0)
            out_captures.append(value)
        return out_inits, out_captures


def _refuse(node, inputs) -> None:
    """Nodes the backend cannot lower whatever their lowering: a use of a stacked list of
    run-time length, and results of kinds that are not one dtype and shape (`int | i8[]`)."""
    if get_op(node.op).called_graph is None and any(isinstance(x, lists.Stacked) for x in inputs):
        raise cannot_lower(  # (a call may take one: a returned one reaches the host)
            node,
            "it uses the stack of a list grown in a staged loop, whose length is "
            "known only when the graph runs",
            "Return the stacked list and use it outside the staged function, or "
            "preallocate a NumPy array (np.zeros(n)) and write x[i] = v",
        )
    for i, v in enumerate(node.outputs):
        t = v.type.element if isinstance(v.type, ListType) else v.type
        what = "its result" if len(node.outputs) == 1 else f"its result {i}"
        if t is not v.type:
            what += "'s elements"
        if may_be_none(t):
            raise cannot_lower(
                node,
                f"{what} {'is' if t is v.type else 'are'} None on some paths ({t}), which XLA "
                f"has no value for",
                "Give the value a number or an array on every path (start from np.nan or -1 "
                "rather than None), or keep the interpreter (jit_compile=False)",
            )
        if type(t) is UnionType and not one_dtype_and_shape(t):
            by_value = get_op(node.op).kinds_by_value
            why = f" ({by_value})" if by_value else " depending on the path taken"
            raise cannot_lower(
                node,
                f"{what} {'is' if t is v.type else 'are'} {t}{why}, kinds of different dtypes "
                f"or shapes, and one XLA value has one dtype and shape (values of several "
                f"kinds lower when they share one: `float | f64[]`)",
                "Give the value one dtype on every path (convert it where it is set: "
                "np.float64(...), float(...)), or keep the interpreter (jit_compile=False)",
            )


def _list_writes(graph: Graph) -> int:
    """The nodes of `graph` (subgraphs too) that write a list element (OpDef.writes_list)."""
    return sum(1 for n in graph.walk() if get_op(n.op).writes_list)


def _loop_variable_buffer(node, i: int, value, out, writes: int, bound):
    if isinstance(value, lists.Buffer) and writes:
        raise cannot_lower(
            node,
            f"its loop variable {i}, a list, is grown in nested staged loops",
            "Grow it in one loop with a bound, or preallocate a NumPy array (np.zeros(n)) and "
            "write x[i] = v; or keep the interpreter (jit_compile=False)",
        )
    if not isinstance(value, list):
        return value
    element = lists.element_type(out.type)
    if element is None:
        raise cannot_lower(
            node, f"its loop variable {i} is {lists.elements(out.type)}", lists.ELEMENT_FIX
        )
    if bound is None and writes:
        raise cannot_lower(
            node,
            f"its loop variable {i} is a list grown in a staged loop with no bound known when "
            f"compiling",
            lists.UNBOUNDED_FIX,
        )
    return lists.to_buffer(value, element, (bound or 0) * writes)


__all__ = ["Lowerer"]
