"""Runs a graph's nodes on JAX values (inside jax.jit) and calls the compiled result."""

from __future__ import annotations

import threading

import jax
import jax.numpy as jnp
import numpy as np

from ..executor import CompiledGraph
from ..graph import Graph, ListType, Value
from ..registry import get_op
from ..types import TensorType, UnionType
from . import suspects
from .catalog import lowering_for
from .context import Lowerer
from .errors import LoweringError, cannot_lower
from .kinds import raises_on_some_path
from .lists import Stacked
from .values import Tagged, called_graphs, conform, to_host


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
        ops = [get_op(n.op) for n in nodes]
        written = {id(n.attrs["var"]) for n, op in zip(nodes, ops) if op.writes_variable}
        self.assigned = [i for i, v in enumerate(self.variables) if id(v) in written]
        # ops whose lowering may raise through a host callback (lists: run-time index checks),
        # nodes that raise on some combinations of their inputs' kinds (kinds.py), and prints
        # and Python calls (a call that has run one cannot be run again)
        self.has_callbacks = (
            any(op.lower_calls_back for op in ops)
            or any(raises_on_some_path(n) for n in nodes)
            or any(op.host_effect for op in ops)
        )
        # the nodes that may meet values on which eager NumPy raises (suspects.py), subgraphs
        # and called graphs included: their flag is one more output of the compiled function
        # (less those whose flag cannot hold in a feasible run: OpDef.lower_unchecked)
        self.unchecked = {
            id(m) for n, op in zip(nodes, ops) if op.lower_unchecked for m in op.lower_unchecked(n)
        }
        self.suspect_nodes = [n for n in nodes if self.checks(n)]
        self.flag_output = bool(self.suspect_nodes)
        # under an error state that raises, XLA's floats would not: the interpreter runs it
        self.floats = suspects.computes_floats(graph)
        self.effects_ran = False  # a print or py_function of the current call has run
        self._interpreter: CompiledGraph | None = None  # for reruns (made on the first)
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
            # (an instance's own `run`, in place of the method: the cheapest call there is)
            self.run = self._fast_run()  # type: ignore[method-assign]

    def checks(self, node) -> bool:
        """Whether `node`'s flag (OpDef.lower_suspect) is computed: it may hold."""
        return id(node) not in self.unchecked and suspects.may_be_suspect(node)

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
                op = get_op(node.op)
                if lowering_for(op) is None:
                    raise cannot_lower(
                        node, op.unlowerable or "the JAX backend has no lowering for it"
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
        final = ctx.variable_values()
        flag = () if ctx.suspect is None else (jnp.asarray(ctx.suspect, dtype=bool),)
        return tuple(outs) + tuple(final[i] for i in self.assigned) + flag

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
        if self.flag_output or self.floats:  # (suspects.py: when to run the interpreter)
            return self._fast_run_checked()

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

    def _fast_run_checked(self):
        """`run` of a graph without Variables or callbacks that computes floats (under an error
        state that raises, the interpreter runs it) or whose last output is its suspects' flag
        (when it holds, the call runs again on the interpreter)."""
        jitted, host, swap, restore = self._jitted, self._host, _X64_SWAP, _X64_RESTORE
        single = self.single and len(host) == 1
        floats, flag_output, errors_raise = self.floats, self.flag_output, suspects.errors_raise

        def run(*inputs):
            if not self._checked:
                self._first_call(inputs)
            if floats and errors_raise():
                results = self._rerun(inputs)
                return results[0] if single else results
            previous = swap(True)
            try:
                outs = jitted(*inputs)
            finally:
                restore(previous)
            if flag_output and outs[-1]:
                results = self._rerun(inputs)
            else:
                results = tuple([convert(o) for convert, o in zip(host, outs)])
            return results[0] if single else results

        return run

    def _rerun(self, inputs) -> tuple:
        """The call's outputs as the interpreter gives them (with eager's warnings and errors):
        the compiled call met values on which eager NumPy warns or raises (suspects.py)."""
        if self.effects_ran:
            raise suspects.refused(self.suspect_nodes, self.graph.name)
        if self._interpreter is None:
            self._interpreter = CompiledGraph(self.graph)
        outs = self._interpreter(*inputs)
        if self.keep_on_device:
            outs = tuple(_on_device(o) for o in outs)
        return outs

    def __call__(self, *inputs):
        if not self._checked:
            self._first_call(inputs)
        if self.floats and suspects.errors_raise():  # (XLA raises no FloatingPointError)
            self.effects_ran = False
            return self._rerun(inputs)
        if self._simple:  # no Variables, no callbacks: no state to read, no failure slot, no lock
            previous = _X64_SWAP(True)
            try:
                outs = self._jitted(*inputs)
            finally:
                _X64_RESTORE(previous)
            if self.flag_output and outs[-1]:
                return self._rerun(inputs)
            return tuple([convert(o) for convert, o in zip(self._host, outs)])
        with self._lock:  # the failure slot belongs to one call at a time; state read to write-back
            self.failed = None
            self.effects_ran = False
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
            if failed is not None:  # (before any suspect values: later callbacks do nothing)
                raise failed
            n = len(self.output_types)
            if self.flag_output and results[-1]:
                return self._rerun(inputs)
            outs, written = results[:n], results[n : n + len(self.assigned)]
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
    if type(value) is Tagged:  # a value of several kinds: its jax.Array, whatever the kind
        return value.value
    return value.data[: int(value.length)] if isinstance(value, Stacked) else value


def _device_converter(type_):
    """How one output of this type reaches the caller with keep_on_device=True (a stacked list
    has an unknown length: its type is a ListType or has a None dimension; a UnionType's value
    is tagged)."""
    if isinstance(type_, TensorType) and None not in type_.shape:
        return _same
    return _on_device


def _same(value):
    return value


def _host_converter(type_):
    """How one output of this type reaches the caller (values.to_host, specialised once)."""
    if type(type_) is UnionType:
        return _tagged_to_host(type_)
    if isinstance(type_, TensorType) and not type_.weak and type_.shape == ():
        return _scalar_to_host
    if isinstance(type_, TensorType) and not type_.weak and None not in type_.shape:
        return np.array  # a copy: the caller owns its result
    return lambda o: to_host(o, type_)


def _tagged_to_host(type_):
    """A value of several kinds as the kind its tag names: a Python number, a NumPy scalar."""
    converters = [
        _python_number(k.python_type) if k.weak else _host_converter(k) for k in type_.alternatives
    ]

    def convert(value):
        return converters[int(np.asarray(value.tag))](value.value)

    return convert


def _python_number(python_type):
    def convert(value):
        return python_type(np.asarray(value).item())

    return convert


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
