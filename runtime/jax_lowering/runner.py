"""Runs a graph's nodes on JAX values (inside jax.jit) and calls the compiled result."""

from __future__ import annotations

import threading

import jax
import numpy as np

from .._compat import add_note
from ..executor import failure_note
from ..graph import Graph, ListType, Value
from ..registry import get_op
from ..types import TensorType, UnionType
from .catalog import lowering_for
from .errors import LoweringError, cannot_lower
from .lists import Stacked
from .table import UNLOWERABLE
from .values import called_graphs, conform, is_static, to_host

_STACK_USERS = ("call",)  # ops a Stacked value may enter (a returned one reaches the host)


class Lowerer:
    """State while one graph is traced by JAX: the current value of each Variable."""

    def __init__(self, runner: "JaxGraph", variables: list):
        self.runner = runner
        self.variables = variables
        self.state: dict[int, object] = {}

    def state_values(self) -> tuple:
        return tuple(self.state[id(v)] for v in self.variables)

    def set_state(self, values) -> None:
        self.state = {id(v): x for v, x in zip(self.variables, values)}

    def run(self, graph: Graph, args) -> list:
        env = {id(v): a for v, a in zip(graph.inputs, args)}
        for node in graph.nodes:
            inputs = [env[id(v)] if isinstance(v, Value) else v for v in node.inputs]
            if node.op not in _STACK_USERS and any(isinstance(x, Stacked) for x in inputs):
                raise cannot_lower(
                    node,
                    "it uses the stack of a list grown in a staged loop, whose length is "
                    "known only when the graph runs",
                    "Return the stacked list and use it outside the staged function, or "
                    "preallocate a NumPy array (np.zeros(n)) and write x[i] = v",
                )
            if any(type(v.type) is UnionType for v in node.outputs):
                raise cannot_lower(
                    node,
                    f"its result is {' or '.join(str(v.type) for v in node.outputs)} depending on "
                    f"the path taken (a Python number on some paths, a NumPy value on others), "
                    f"which XLA cannot represent",
                    "Give the value one type on every path (convert it where it is set), or keep "
                    "the interpreter (jit_compile=False)",
                )
            lower = lowering_for(node.op)
            if lower is None:
                why = UNLOWERABLE.get(node.op, "the JAX backend has no lowering for it")
                raise cannot_lower(node, why)
            try:
                outs = lower(self, node, *inputs, **node.attrs)
            except LoweringError:
                raise
            except Exception as error:
                same = self._interpreter_error(node, inputs, error)
                if same is not None:
                    raise same from None
                raise cannot_lower(
                    node,
                    f"{type(error).__name__}: {error}",
                    "Static sizes and indices known when tracing make it lowerable; "
                    "or keep the interpreter (jit_compile=False)",
                ) from error
            if node.opdef.num_outputs == 1:
                outs = (outs,)
            for v, out in zip(node.outputs, outs):
                env[id(v)] = conform(out, v.type)
        return [env[id(v)] if isinstance(v, Value) else v for v in graph.outputs]

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


class JaxGraph:
    """A graph lowered to JAX and compiled with jax.jit (on its first call).

    `run(*inputs)` gives the outputs as `runtime.executor.CompiledGraph.run` does (the one
    output itself with single=True); `__call__` always a tuple. keep_on_device=True returns
    jax.Arrays instead of NumPy values. Variables the graph reads are passed in, and those it
    assigns are written back after the call, in one step. A staged assert that fails, or a
    py_function that raises, makes the call raise that error (with a note naming the user's
    line) and skips the write-back; later prints and Python calls of that run do nothing.
    """

    def __init__(self, graph: Graph, single: bool = False, keep_on_device: bool = False):
        self.graph = graph
        self.single = single
        self.keep_on_device = keep_on_device
        self._lock = threading.RLock()
        self.failed: BaseException | None = None  # what a callback of the current call raised
        nodes = [n for g in called_graphs(graph) for n in g.walk()]
        seen, self.variables, self.assigned = set(), [], []
        for node in nodes:
            var = node.attrs.get("var")
            if var is not None and id(var) not in seen:
                seen.add(id(var))
                self.variables.append(var)
        written = {id(n.attrs["var"]) for n in nodes if n.op == "assign_variable"}
        self.assigned = [i for i, v in enumerate(self.variables) if id(v) in written]
        # ops whose lowering may raise through a host callback (lists: run-time index checks)
        self.has_callbacks = any(
            n.op in ("assert", "py_function", "list_write", "list_read", "list_pop") for n in nodes
        )
        self.output_types = [
            v.type if isinstance(v, Value) else TensorType.of(v) for v in graph.outputs
        ]
        self._jitted = jax.jit(self._traced)
        self._checked = False
        self._simple = not (self.variables or self.has_callbacks)
        self._host = [
            _device_converter(t) if keep_on_device else _host_converter(t)
            for t in self.output_types
        ]
        if self._simple:  # `run` is what ConcreteFunction calls: the cheapest call for this graph
            self.run = self._fast_run()

    def _check(self) -> None:
        """Before the first call: every op has a lowering, every input is an array."""
        for graph in called_graphs(self.graph):
            for node in graph.walk():
                if node.scope is not None:
                    raise cannot_lower(
                        node,
                        "it runs in a `with np.errstate(...)` scope, which XLA's arithmetic "
                        "does not follow (no warnings, no FloatingPointError)",
                    )
                if lowering_for(node.op) is None:
                    raise cannot_lower(
                        node, UNLOWERABLE.get(node.op, "the JAX backend has no lowering for it")
                    )
        for name, v in zip(self.graph.input_names, self.graph.inputs):
            if not isinstance(v.type, TensorType):
                raise LoweringError(
                    f"staged graph {self.graph.name!r}: its input {name or '?'} is a {v.type}, not "
                    f"an array, and only arrays can enter a function compiled with jit_compile=True"
                )

    @property
    def source(self) -> str:
        """What runs on a call: the jaxpr JAX traced (after the first call), else the graph."""
        return f"# compiled with jax.jit (jit_compile=True) from:\n{self.graph}"

    def _traced(self, *args):
        """The graph on JAX values: the inputs, then the Variables' values in; the outputs, then
        the assigned Variables' new values out (one flat tuple each way: the cheapest call)."""
        n = len(self.graph.inputs)
        ctx = Lowerer(self, self.variables)
        ctx.set_state(args[n:])
        outs = ctx.run(self.graph, args[:n])
        outs = [
            conform(o, t, strong=True) if not isinstance(t, ListType) else o
            for o, t in zip(outs, self.output_types)
        ]
        final = ctx.state_values()
        return tuple(outs) + tuple(final[i] for i in self.assigned)

    def _first_call(self, inputs):
        self._check()
        self._checked = True

    def _fast_run(self):
        """`run` of a graph without Variables or callbacks: no state to read, no failure slot, no
        lock; the jitted function is called with the inputs under 64-bit mode for this thread,
        set and restored directly (cheaper than entering jax.enable_x64's context manager), and
        its outputs converted by converters chosen once."""
        jitted, host, swap, restore = self._jitted, self._host, _X64_SWAP, _X64_RESTORE
        first = [True]

        def run(*inputs):
            if first[0]:
                self._first_call(inputs)
                first[0] = False
            previous = swap(True)
            try:
                outs = jitted(*inputs)
            finally:
                restore(previous)
            return tuple([convert(o) for convert, o in zip(host, outs)])

        if self.single and len(host) == 1:
            convert = host[0]

            def run(*inputs):  # noqa: F811 - the same for the one output itself
                if first[0]:
                    self._first_call(inputs)
                    first[0] = False
                previous = swap(True)
                try:
                    outs = jitted(*inputs)
                finally:
                    restore(previous)
                return convert(outs[0])

        return run

    def __call__(self, *inputs):
        if not self._checked:
            self._first_call(inputs)
        if self._simple:  # no Variables, no callbacks: no state to read, no failure slot, no lock
            previous = _X64_SWAP(True)
            try:
                outs = self._jitted(*inputs)
            finally:
                _X64_RESTORE(previous)
            return tuple([convert(o) for convert, o in zip(self._host, outs)])
        with self._lock:  # the failure slot belongs to one call at a time; state read to write-back
            self.failed = None
            state = tuple(v._value for v in self.variables)
            previous = _X64_SWAP(True)
            try:
                results = self._jitted(*inputs, *state)
            finally:
                _X64_RESTORE(previous)
            if self.has_callbacks:
                jax.block_until_ready(results)
                jax.effects_barrier()
            failed, self.failed = self.failed, None
            if failed is not None:
                raise failed
            n = len(self.output_types)
            outs, written = results[:n], results[n:]
            for i, value in zip(self.assigned, written):
                var = self.variables[i]
                stored = np.array(value)
                with var._lock:
                    var._value = stored[()] if stored.ndim == 0 else stored
        return tuple([convert(o) for convert, o in zip(self._host, outs)])

    def run(self, *inputs):
        outs = self(*inputs)
        return outs[0] if self.single else outs


def _on_device(value):
    return value.data[: int(value.length)] if isinstance(value, Stacked) else value


def _device_converter(type_):
    """How one output of this type reaches the caller with keep_on_device=True (a stacked list
    has an unknown length: its type is a ListType or has a None dimension)."""
    if isinstance(type_, TensorType) and None not in type_.shape:
        return _same
    return _on_device


def _same(value):
    return value


def _host_converter(type_):
    """How one output of this type reaches the caller (values.to_host, specialised once)."""
    if isinstance(type_, TensorType) and not type_.weak and type_.shape == ():
        return _scalar_to_host
    if isinstance(type_, TensorType) and not type_.weak and None not in type_.shape:
        return np.array  # a copy: the caller owns its result
    return lambda o: to_host(o, type_)


def _scalar_to_host(value):
    return np.asarray(value)[()] if type(value) is not Stacked else to_host(value, None)


def _x64_swap_by_context(value):
    context = jax.enable_x64(value)
    context.__enter__()
    return context


def _x64_restore_by_context(context):
    context.__exit__(None, None, None)


# 64-bit mode for the current thread around a call: jax.enable_x64's swap_local / set_local where
# this jax has them (what its context manager does, without the manager), else the manager.
if hasattr(jax.enable_x64, "swap_local") and hasattr(jax.enable_x64, "set_local"):
    _X64_SWAP, _X64_RESTORE = jax.enable_x64.swap_local, jax.enable_x64.set_local
else:  # pragma: no cover - older jax
    _X64_SWAP, _X64_RESTORE = _x64_swap_by_context, _x64_restore_by_context
