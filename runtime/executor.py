"""The executor: lowers a graph once to straight-line Python source and runs it.

Each node becomes one line calling its kernel (or an inlined expression for
operators), `cond` becomes an `if`, `while_loop` a `while`, so a call pays no
per-node dispatch. Intermediates that are arrays are deleted after their last
use. A failure is re-raised naming the node and the user's file:line.
"""

from __future__ import annotations

import itertools
import math
import threading

import numpy as np

from . import fusion
from .fusion import UFUNCS as _UFUNCS
from .fusion import all_inputs as _all_inputs
from .graph import Graph, Node, Value, node_text
from .options import get_options
from .registry import get_op

_counter = itertools.count()
_counter_lock = threading.Lock()


class GraphExecutionError(Exception):
    """Raised when a node fails at run time. Carries the node and its location."""

    def __init__(self, message, node=None, location=None):
        super().__init__(message)
        self.node = node
        self.location = location


_error_classes: dict = {}


def _error_class_for(original: type, base: type) -> type:
    """A class that is both `base` and the original exception type, so that
    `except AssertionError` (or ValueError, ...) still catches staged failures."""
    key = (original, base)
    cls = _error_classes.get(key)
    if cls is None:
        if issubclass(original, base):
            cls = original
        else:
            try:
                cls = type(original.__name__, (base, original), {"__module__": base.__module__})
            except TypeError:  # incompatible layouts (e.g. OSError): fall back to the base type
                cls = base
        _error_classes[key] = cls
    return cls




def _as_dtype(number, dtype):
    """`number` as a 0-d array of `dtype` when NumPy's weak-scalar rule casts it exactly so."""
    if dtype.kind not in "iuf" or (isinstance(number, float) and dtype.kind != "f"):
        return None
    if np.result_type(dtype, number) != dtype:
        return None
    try:
        with np.errstate(all="raise"):
            converted = np.array(number, dtype=dtype)
    except (OverflowError, FloatingPointError, ValueError):
        return None
    if dtype.kind in "iu" and int(converted) != number:
        return None
    if dtype.kind == "f" and not np.isfinite(converted):
        return None
    return converted


def _to_scalar(value):
    if type(value) is np.ndarray and value.ndim == 0:
        return value[()]
    return value


class _Emitter:
    """Generates the source of one graph (subgraphs inline)."""

    def __init__(self, graph: Graph, options: dict):
        self.graph = graph
        self.options = options
        self.tags = 0
        self.namespace: dict = {"_to_scalar": _to_scalar, "_TRUE": np.True_}
        self.lines: list[str] = []
        self.line_nodes: dict[int, Node] = {}
        self.names: dict[int, str] = {}
        self.count = 0
        self.owned: set[int] = set()  # values holding a fresh buffer this graph allocated
        self.reused: set[int] = set()  # values whose buffer an in-place node took over
        self.maybe_viewed: set[int] = set()  # values some non-ufunc node reads (it may keep a view)

    # -- names -----------------------------------------------------------
    def new_tag(self) -> int:
        self.tags += 1
        return self.tags

    def fresh(self, value: Value) -> str:
        """The value's name, made up on first use (a fused run names its outputs before the
        op-by-op fallback defines them again)."""
        known = self.names.get(id(value))
        if known is not None:
            return known
        name = f"v{self.count}"
        self.count += 1
        self.names[id(value)] = name
        return name

    def ref(self, item) -> str:
        if isinstance(item, Value):
            return self.names[id(item)]
        return self.literal(item)

    def literal(self, item) -> str:
        if isinstance(item, bool) or item is None:
            return repr(item)
        if isinstance(item, int):
            return repr(item)
        if isinstance(item, float) and math.isfinite(item):
            return repr(item)
        name = f"c{len(self.namespace)}"
        self.namespace[name] = item
        return name

    def bind(self, obj, prefix="k") -> str:
        name = f"{prefix}{len(self.namespace)}"
        self.namespace[name] = obj
        return name

    def emit(self, indent: int, text: str, node: Node | None = None):
        self.lines.append("    " * indent + text)
        if node is not None:
            self.line_nodes[len(self.lines)] = node

    # -- bodies ----------------------------------------------------------
    def body(self, graph: Graph, indent: int, top_level: bool):
        last_use = _last_uses(graph) if top_level else {}
        if top_level:
            self.maybe_viewed = _maybe_viewed(graph)
        runs = fusion.plan(graph, self.options)
        position = 0
        while position < len(graph.nodes):
            run = runs.get(position)
            if run is not None:
                self.fused(run, indent, last_use, top_level)
                position = run.stop
                continue
            node = graph.nodes[position]
            if node.op == "cond":
                self.cond(node, indent)
            elif node.op == "while_loop":
                self.while_loop(node, indent)
            elif not self.in_place(node, indent, last_use.get(position, ())):
                self.simple(node, indent)
            if top_level:
                self.free(indent, last_use.get(position, ()))
            position += 1

    def free(self, indent: int, values):
        dead = [self.names[id(v)] for v in values if id(v) not in self.reused]
        if dead:
            self.emit(indent, f"del {', '.join(dead)}")

    def fused(self, run: fusion.Run, indent: int, last_use: dict, top_level: bool):
        """A run of elementwise nodes: chunked when the guard holds, else op by op."""
        produced = {id(v) for n in run.nodes for v in n.outputs}
        dying_outer = [v for p in range(run.start, run.stop) for v in last_use.get(p, ())
                       if id(v) not in produced]

        def op_by_op(inner: int):
            for p in range(run.start, run.stop):
                node = run.nodes[p - run.start]
                if not self.in_place(node, inner, last_use.get(p, ())):
                    self.simple(node, inner)
                if top_level:
                    self.free(inner, [v for v in last_use.get(p, ()) if id(v) in produced])

        fusion.emit_run(self, run, indent, {id(v) for v in dying_outer}, top_level, op_by_op)
        if dying_outer:
            self.emit(indent, f"del {', '.join(self.names[id(v)] for v in dying_outer)}")

    def in_place(self, node: Node, indent: int, dying) -> bool:
        """Emits an elementwise ufunc node writing into the buffer of an input that dies here
        (`np.multiply(a, 2.0, out=a)`): same ufunc loop, same result, no new allocation.
        Only buffers this graph allocated itself (ufunc results) are reused, never inputs,
        constants or views."""
        ufunc = _UFUNCS.get(node.op)
        if ufunc is None or node.attrs or len(node.outputs) != 1 or not self.options["buffer_reuse"]:
            return False
        out_type = node.outputs[0].type
        if out_type.ndim == 0:
            return False
        target = None
        for v in node.inputs:
            if (isinstance(v, Value) and v in dying and id(v) in self.owned and v.type == out_type
                    and id(v) not in self.maybe_viewed):
                target = v
                break
        if target is None:
            return False
        for v in node.inputs:
            if isinstance(v, Value) and v is not target and v.type.ndim != 0 and (
                    not out_type.is_fully_defined
                    or fusion.broadcasts_into(v.type.shape, out_type.shape) is None):
                return False  # it might broadcast the result beyond the reused buffer
        args = self.operand_refs(node)
        name = self.names[id(target)]
        out = self.fresh(node.outputs[0])
        # `out` passed positionally: cheaper than the keyword for small arrays
        self.emit(indent, f"{out} = {self.bind(ufunc)}({', '.join(args)}, {fusion.out_arg(node.op, name)})", node)
        self.owned.add(id(node.outputs[0]))
        self.reused.add(id(target))  # its buffer lives on as the output: nothing to free
        return True

    def operand_refs(self, node: Node, ref=None) -> list[str]:
        """Input references; in a ufunc over arrays, a Python number that NumPy would cast to the
        array's dtype (NEP 50) is bound once as a 0-d array of that dtype: the ufunc then skips
        converting it on every call (over 2x faster on small arrays), with identical results.
        `ref` names Value inputs (default: their variables)."""
        ref = ref or self.ref
        arrays = [v for v in node.inputs if isinstance(v, Value) and getattr(v.type, "ndim", 0) > 0]
        if node.op not in _UFUNCS or not arrays or len(node.inputs) == len(arrays):
            return [ref(v) for v in node.inputs]
        dtype = arrays[0].type.dtype
        if any(v.type.dtype != dtype for v in arrays):
            return [ref(v) for v in node.inputs]
        refs = []
        for v in node.inputs:
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                exact = _as_dtype(v, dtype)
                refs.append(self.bind(exact, "c") if exact is not None else self.literal(v))
            else:
                refs.append(ref(v))
        return refs

    def simple(self, node: Node, indent: int):
        op = get_op(node.op)
        args = self.operand_refs(node)
        outs = [self.fresh(v) for v in node.outputs]
        expr = op.expr if not node.attrs else None
        if op.make_expr is not None:
            types = [v.type if isinstance(v, Value) else v for v in node.inputs]
            expr = op.make_expr(*types, **node.attrs) or expr
        if expr is not None:
            call = "(" + expr.format(*args) + ")"
        elif node.op == "const":
            call = self.bind(node.attrs["value"], "c")
        else:
            call = f"{self.bind(op.kernel(node.attrs))}({', '.join(args)})"
        if node.op in _UFUNCS and len(outs) == 1:
            self.owned.add(id(node.outputs[0]))
        if not outs:
            self.emit(indent, call, node)
        elif len(outs) == 1 and op.num_outputs == 1:
            self.emit(indent, f"{outs[0]} = {call}", node)
        else:
            self.emit(indent, f"{', '.join(outs)}, = {call}", node)

    def assign(self, indent: int, targets: list[str], sources: list[str], node: Node):
        if targets:
            self.emit(indent, f"{', '.join(targets)} = {', '.join(sources)}", node)

    def cond(self, node: Node, indent: int):
        pred, *operands = node.inputs
        outs = [self.fresh(v) for v in node.outputs]
        self.emit(indent, f"if {self.ref(pred)}:", node)
        for label, keyword in (("then", None), ("else", "else:")):
            if keyword:
                self.emit(indent, keyword, node)
            sub = node.subgraphs[label]
            for inner, outer in zip(sub.inputs, operands):
                self.names[id(inner)] = self.ref(outer)
            self.body(sub, indent + 1, top_level=False)
            self.assign(indent + 1, outs, [self.ref(v) for v in sub.outputs], node)
            if not outs and not sub.nodes:
                self.emit(indent + 1, "pass")

    def while_loop(self, node: Node, indent: int):
        nvars = node.attrs["num_loop_vars"]
        inits, captures = node.inputs[:nvars], node.inputs[nvars:]
        outs = [self.fresh(v) for v in node.outputs]
        counters = _python_int_counters(node)
        self.assign(indent, outs, [f"int({self.ref(v)})" if i in counters else self.ref(v)
                                   for i, v in enumerate(inits)], node)
        self.emit(indent, "while True:", node)
        for label in ("cond", "body"):
            sub = node.subgraphs[label]
            for inner, name in zip(sub.inputs, outs):
                self.names[id(inner)] = name
            for inner, outer in zip(sub.inputs[nvars:], captures):
                self.names[id(inner)] = self.ref(outer)
            self.body(sub, indent + 1, top_level=False)
            if label == "cond":
                self.emit(indent + 1, f"if not {self.ref(sub.outputs[0])}:", node)
                self.emit(indent + 2, "break")
            else:
                self.assign(indent + 1, outs, [self.ref(v) for v in sub.outputs], node)
        for i in sorted(counters):  # back to the declared dtype for whatever reads the result
            self.emit(indent, f"{outs[i]} = {self.bind(node.outputs[i].type.dtype.type, 'k')}({outs[i]})", node)

    def function(self, name: str) -> str:
        params = [self.fresh(v) for v in self.graph.inputs]
        self.emit(0, f"def {name}({', '.join(params)}):")
        self.body(self.graph, 1, top_level=True)
        rets = []
        produced = {id(v) for n in self.graph.nodes for v in n.outputs}
        const_outputs = {id(v) for n in self.graph.nodes if n.op == "const" for v in n.outputs}
        for v in self.graph.outputs:
            ref = self.ref(v)
            ndim = getattr(v.type, "ndim", None) if isinstance(v, Value) else None
            if ndim and id(v) in const_outputs:
                ref = f"{ref}.copy()"  # callers may mutate outputs; constants must stay intact
            elif ndim == 0 and id(v) in produced:
                ref = f"_to_scalar({ref})"
            rets.append(ref)
        self.emit(1, f"return ({', '.join(rets)}{',' if len(rets) == 1 else ''})")
        return "\n".join(self.lines) + "\n"


def _last_uses(graph: Graph) -> dict[int, list[Value]]:
    """Node position -> array values (ndim > 0 or list) whose last top-level use it is."""
    last: dict[int, int] = {}
    values: dict[int, Value] = {}
    for position, node in enumerate(graph.nodes):
        for v in _all_inputs(node):
            if isinstance(v, Value):
                last[id(v)] = position
                values[id(v)] = v
        for v in node.outputs:
            last.setdefault(id(v), position)
            values[id(v)] = v
    keep = {id(v) for v in graph.outputs if isinstance(v, Value)}
    keep.update(id(v) for v in graph.inputs)  # the caller holds those anyway
    out: dict[int, list[Value]] = {}
    for vid, position in last.items():
        v = values[vid]
        if vid in keep or getattr(v.type, "ndim", 1) == 0:
            continue
        out.setdefault(position, []).append(v)
    return out


_COMPARISONS = frozenset(("less", "less_equal", "greater", "greater_equal", "equal", "not_equal"))


def _python_int_counters(node: Node) -> set[int]:
    """Loop variables of a while_loop that may run as Python ints: integer scalars that are
    only compared, used as an index, and stepped by an int literal (`i = i + 1`), like the
    index of a staged `for`. Python int arithmetic is several times faster than NumPy
    scalar arithmetic and gives the same values (a counter never nears 2**63)."""
    nvars = node.attrs["num_loop_vars"]
    cond, body = node.subgraphs["cond"], node.subgraphs["body"]
    found = set()
    for j in range(nvars):
        t = node.outputs[j].type
        if not hasattr(t, "dtype") or t.dtype.kind not in "iu" or t.shape != ():
            continue
        step = body.outputs[j]
        stepper = step.producer if isinstance(step, Value) else None
        if (stepper is None or stepper.op not in ("add", "subtract") or stepper.subgraphs
                or stepper.inputs[0] is not body.inputs[j]
                or not (type(stepper.inputs[1]) is int)):
            continue
        if all(_counter_uses_ok(g, g.inputs[j], stepper) for g in (cond, body)):
            found.add(j)
    return found


def _counter_uses_ok(graph: Graph, counter: Value, stepper: Node) -> bool:
    for n in graph.nodes:
        if n is stepper:
            continue
        for position, v in enumerate(n.inputs):
            if v is not counter:
                continue
            if n.op in _COMPARISONS and not n.subgraphs:
                continue
            if n.op == "getitem" and position > 0:
                continue
            return False
    outputs = [v for v in graph.outputs]
    uses_as_output = [i for i, v in enumerate(outputs) if v is counter]
    return not uses_as_output


def _maybe_viewed(graph: Graph) -> set[int]:
    """Values read by anything but an elementwise ufunc (indexing, reshape, control flow, calls...):
    such a node may return a view sharing the value's buffer, so the buffer is never reused."""
    out: set[int] = set()
    for node in graph.nodes:
        if node.op in _UFUNCS and not node.subgraphs:
            continue
        out.update(id(v) for v in _all_inputs(node) if isinstance(v, Value))
    out.update(id(v) for v in graph.outputs if isinstance(v, Value))
    return out


class CompiledGraph:
    """A graph lowered to a Python function. Call it with NumPy inputs; get a tuple of outputs."""

    def __init__(self, graph: Graph, error_base: type = GraphExecutionError, options: dict | None = None):
        self.graph = graph
        self.options = get_options() if options is None else options
        self.error_base = error_base
        with _counter_lock:
            serial = next(_counter)
        self.filename = f"<staged graph {graph.name} #{serial}>"
        emitter = _Emitter(graph, self.options)
        self.source = emitter.function("run")
        self._line_nodes = emitter.line_nodes
        code = compile(self.source, self.filename, "exec")
        namespace = emitter.namespace
        exec(code, namespace)
        self.run = namespace["run"]

    def __call__(self, *args):
        try:
            return self.run(*args)
        except GraphExecutionError:
            raise
        except Exception as exc:
            raise self.wrap_error(exc, self.error_base) from exc

    def node_at_failure(self, tb) -> Node | None:
        node = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                node = self._line_nodes.get(tb.tb_lineno, node)
            tb = tb.tb_next
        return node

    def wrap_error(self, exc: BaseException, base: type = GraphExecutionError) -> BaseException:
        node = self.node_at_failure(exc.__traceback__)
        if node is None:
            return exc
        where = ""
        if node.location:
            where = f"{node.location[0]}:{node.location[1]}: "
        message = f"{where}{exc}\n  while executing `{node_text(node)}` in staged graph {self.graph.name!r}"
        cls = _error_class_for(type(exc), base)
        try:
            err = cls(message)
        except Exception:
            err = base(message)
        if isinstance(err, GraphExecutionError) or hasattr(err, "node"):
            err.node = node
            err.location = node.location
        return err


def execute(graph: Graph, *args):
    """Runs `graph` once (compiles it first; callers that run a graph often keep a CompiledGraph)."""
    return CompiledGraph(graph)(*args)


__all__ = ["CompiledGraph", "GraphExecutionError", "execute"]
