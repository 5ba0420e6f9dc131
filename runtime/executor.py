"""The executor: lowers a graph once to straight-line Python source and runs it.

Each node becomes one line calling its kernel (or an inlined expression for
operators); a structured op writes its own code through its OpDef.emit hook (`cond`
an `if`, `while_loop` a `while`), so a call pays no per-node dispatch. Intermediates
that are arrays are deleted after their last use. A failure is re-raised naming the
node and the user's file:line. A very long graph becomes several functions (runtime/chunks.py).
"""

from __future__ import annotations

import itertools
import keyword
import math
import threading

import numpy as np

from . import chunks, fusion, inplace, scalar_loops
from ._compat import add_note
from .analysis import BufferPlan, dead_after, free_values, maybe_viewed, outputs_sharing_state
from .call_inlining import inline_calls, node_count
from .core_ops import VARIABLE_LOCK
from .graph import Graph, Node, Value, node_text
from .headroom import frames_for_graph, more_frames
from .ops.elementwise import as_dtype
from .options import get_options
from .registry import get_op
from .types import TensorType
from .user_lines import generated_line
from .verify import verify

_counter = itertools.count()
_counter_lock = threading.Lock()


# Subgraph bodies nested deeper than this many indentation levels are emitted as functions
# (Python refuses more than 100 levels; a fused run adds a few inside a body).
_MAX_INDENT = 40
_noted = threading.local()  # the exception a graph has last placed, per thread
_lowering_lock = threading.RLock()  # a lazy CompiledGraph is lowered once


_MAX_INLINED_DEPTH = 8


def _ipow(a, b):
    """Python's `a ** b` on Python numbers, for a power traced as int ** int: a negative
    exponent would make it a float, a type the graph was not built for."""
    result = a**b
    if type(result) is float and type(a) is int and type(b) is int:
        raise ValueError(
            f"{a} ** {b} is a float in Python, but this power was traced as an int (its "
            f"exponent was not known to be non-negative); write float({a}) ** {b} to get "
            f"a float"
        )
    return result


class _Emitter(chunks.ChunkedEmission):
    """Generates the source of one graph (subgraphs inline; a long one in chunks, see chunks).

    A structured op's emit hook writes its code with: fresh(value) (a new variable),
    ref(item), bind(obj), name_as(value, ref) (a subgraph input is another name), emit(indent,
    text, node), assign(indent, targets, sources, node) and body(subgraph, indent, False)."""

    def __init__(self, graph: Graph, options: dict, single: bool = False):
        self.graph = graph
        self.options = options
        self.single = single  # return the one output itself, not a 1-tuple
        self.tags = 0
        self.namespace: dict = {"_TRUE": np.True_, "_ipow": _ipow}
        self.lines: list[str] = []
        self.line_nodes: dict[int, Node] = {}
        self.names: dict[int, str] = {}
        self.count = 0
        self.buffers = BufferPlan(maybe_viewed(graph))
        self.helpers: list = []  # (lines, {line: node}) of subgraph bodies emitted as functions
        self.holds_variable_lock = False  # the call holds VARIABLE_LOCK (see function)
        self._uses: dict | None = None
        self._unread: dict | None = None  # id(value) -> reads of it the emitted code leaves out
        self._dropped: set[int] = set()  # values named but never computed: nothing reads them
        self._depth: dict[int, int] = {}  # id(value) -> nesting of the expression standing for it
        self._in_helper = 0  # > 0 while a body is emitted as a helper function
        self._named: list = []  # the values fresh() named
        self._exact: dict = {}  # (type, number, dtype) -> as_dtype(number, dtype), numbers seen
        self._bound: dict = {}  # (id(object), prefix) -> its name, for a long graph (see bind)
        # decided on the graph before any code is written (plan()): what structured ops' emit
        # hooks decided (OpDef.plan_emit), the nodes computed on Python numbers in unboxed
        # scalar loops (runtime.scalar_loops), the fused runs of subgraphs (runtime.fusion)
        self._plans: dict[int, object] = {}
        self._python_numbers: dict[int, tuple] = {}
        self._runs: dict[int, dict] = {}
        self._hoisted: dict[tuple, str] = {}  # (id(value), n) -> the name of a hoisted size test
        self.numpy_forms: dict[int, str] = {}  # id(value) -> its expression on NumPy scalars
        self.writes = inplace.Plan()  # the writes into a buffer instead of a copy (plan())

    # -- decisions made on the graph -------------------------------------
    def plan(self) -> None:
        """What the emit hooks of the graph's structured nodes decide (OpDef.plan_emit), and
        which writes go into their input's buffer (runtime.inplace)."""
        if self.options["buffer_reuse"]:
            self.writes = inplace.plan(self.graph)
        for node in self.graph.walk():
            decide = get_op(node.op).plan_emit
            if decide is not None:
                decided = self._plans[id(node)] = decide(node, self.options)
                self._python_numbers.update(getattr(decided, "python_numbers", ()))

    def plan_of(self, node: Node):
        """What OpDef.plan_emit decided for `node` (None for an op without the hook)."""
        return self._plans.get(id(node))

    def python_number(self, node: Node) -> tuple | None:
        """(kind, dtype) when `node` computes on Python numbers (an unboxed scalar loop)."""
        return self._python_numbers.get(id(node))

    def fused_runs(self, graph: Graph) -> dict:
        """fusion.plan of a subgraph (computed once)."""
        runs = self._runs.get(id(graph))
        if runs is None:
            runs = self._runs[id(graph)] = fusion.plan(graph, self.options)
        return runs

    def hoisted(self, key: tuple) -> str | None:
        """The name of the size test `key` hoisted before an enclosing loop (fusion)."""
        return self._hoisted.get(key)

    def hoist(self, key: tuple, name: str) -> None:
        self._hoisted[key] = name

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
        self._named.append(value)  # (kept: another value made later must not get its id, its name)
        return name

    def name_as(self, value: Value, ref: str) -> None:
        """`value` (a subgraph input) is read as `ref`, the name or literal it is bound to."""
        self.names[id(value)] = ref

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
        key = (id(obj), prefix)  # a long graph: one name per object (fewer names to compile)
        if self.units is not None and key in self._bound:
            return self._bound[key]
        name = self._bound[key] = (
            f"{prefix}{len(self.namespace)}"  # (obj held: its id stays its own)
        )
        self.namespace[name] = obj
        return name

    def emit(self, indent: int, text: str, node: Node | None = None):
        self.lines.append("    " * indent + text)
        if node is not None:
            self.line_nodes[len(self.lines)] = node

    def position(self) -> int:
        """Where the code written so far ends (for pass_if_empty)."""
        return len(self.lines)

    def pass_if_empty(self, since: int, indent: int) -> None:
        """A block that nothing was written into since `position()` was `since` gets `pass`."""
        if len(self.lines) == since:
            self.emit(indent, "pass")

    # -- bodies ----------------------------------------------------------
    def body(self, graph: Graph, indent: int, top_level: bool):
        if not top_level and indent > _MAX_INDENT:
            self._body_in_helper(graph, indent)
            return
        last_use = dead_after(graph) if top_level else {}
        chunked = top_level and self.units is not None  # (a fused run is emitted whole, in one
        # chunk: in a long graph, none is longer than a quarter of a chunk)
        if chunked:
            runs = fusion.plan(graph, self.options, chunks.CHUNK_LINES // 4, self._last)
        else:
            runs = self.fused_runs(graph)
        position = 0
        nodes = graph.nodes
        while position < len(nodes):
            if chunked and len(self.lines) >= chunks.CHUNK_LINES:
                self.next_chunk(position)
            run = runs.get(position) if runs else None
            if run is not None:
                self.fused(run, indent, last_use, top_level)
                position = run.stop
                continue
            dying = last_use.get(position, ())
            self.node(graph, position, indent, dying, runs, top_level)
            if top_level and dying:
                self.free(indent, dying)
            position += 1

    def node(self, graph: Graph, position: int, indent: int, dying, runs, top_level: bool) -> None:
        """Node `position` of `graph` (not in a fused run; `dying`: the arrays that die there)."""
        chunked = top_level and self.units is not None
        nodes = graph.nodes
        node = nodes[position]
        emit = get_op(node.op).emit
        if node.scope is not None:
            self.scoped(node, indent, emit)
        elif emit is not None:
            emit(self, node, indent)
        elif self.writes.in_place(node):
            self.write_in_place(node, indent)
        elif not self.in_place(node, indent, dying, chunked):
            following: Node | Graph | None
            if position + 1 < len(nodes):
                following = None if runs.get(position + 1) else nodes[position + 1]
            else:  # the last node: what reads its result next is the op writing the outputs
                following = graph if not top_level and not self._in_helper else None
            self.simple(node, indent, following)

    def scoped(self, node: Node, indent: int, emit) -> None:
        """A node of the user's `with np.errstate(...)`: its code runs in a `with` of that state."""
        assert node.scope is not None
        self.emit(
            indent,
            f"with {self.bind(np.errstate, 'errstate')}({', '.join(f'{k}={v!r}' for k, v in node.scope)}):",
        )
        (emit or _Emitter.simple)(self, node, indent + 1)

    def _body_in_helper(self, graph: Graph, indent: int):
        """Emits a subgraph's body as a module-level function and, here, its call: Python refuses
        code nested more than 100 blocks deep (a 100-case elif chain is 100 nested conds). The
        function takes the values the body reads from outside it (analysis.free_values) and
        returns those of the subgraph's outputs its nodes make, so the caller's code after the
        body reads them as if it were inline."""
        outer = self.lines, self.line_nodes, self._hoisted
        self.lines, self.line_nodes = [], {}
        self._hoisted = {}  # (a test hoisted before an enclosing loop: not in this function)
        self._in_helper += 1
        try:
            self.body(graph, 1, top_level=False)
        finally:
            self._in_helper -= 1
            lines, nodes = self.lines, self.line_nodes
            self.lines, self.line_nodes, self._hoisted = outer
        params = sorted(
            {
                ref
                for v in free_values(graph)
                if id(v) not in self._dropped and self._is_variable(ref := self.ref(v))
            }
        )
        made = {id(v) for n in graph.nodes for v in n.outputs}
        results = list(
            dict.fromkeys(
                self.ref(v) for v in graph.outputs if isinstance(v, Value) and id(v) in made
            )
        )
        name = f"_body{self.new_tag()}"
        header = f"def {name}({', '.join(params)}):"
        footer = f"    return ({', '.join(results)}{',' if len(results) == 1 else ''})"
        self.helpers.append(([header, *lines, footer], {k + 1: node for k, node in nodes.items()}))
        call = f"{name}({', '.join(params)})"
        self.emit(indent, f"{', '.join(results)}, = {call}" if results else call)

    def _is_variable(self, ref: str) -> bool:
        """Whether the reference `ref` of a value is a variable of the generated code (not a
        literal, nor a name of the namespace)."""
        return ref.isidentifier() and not keyword.iskeyword(ref) and ref not in self.namespace

    def free(self, indent: int, values):
        dead = [
            self.names[id(v)]
            for v in values
            if not self.buffers.taken(v) and id(v) not in self._dropped
        ]
        if dead:
            self.emit(indent, f"del {', '.join(dead)}")

    def fused(self, run: fusion.Run, indent: int, last_use: dict, top_level: bool):
        """A run of elementwise nodes: chunked when the guard holds, else op by op."""
        produced = {id(v) for n in run.all_nodes for v in n.outputs}
        dying_outer = [
            v
            for p in range(run.start, run.stop)
            for v in last_use.get(p, ())
            if id(v) not in produced
        ]
        for node in run.consts:  # (before the run: both paths read them)
            self.simple(node, indent)

        def op_by_op(inner: int):
            consts = {id(n) for n in run.consts}
            for p in range(run.start, run.stop):
                node = run.all_nodes[p - run.start]
                if id(node) in consts:
                    continue
                if not self.in_place(node, inner, last_use.get(p, ())):
                    self.simple(node, inner)
                if top_level:
                    self.free(inner, [v for v in last_use.get(p, ()) if id(v) in produced])

        fusion.emit_run(self, run, indent, {id(v) for v in dying_outer}, top_level, op_by_op)
        if dying_outer:
            self.emit(indent, f"del {', '.join(self.names[id(v)] for v in dying_outer)}")

    def in_place(self, node: Node, indent: int, dying, same_name: bool = False) -> bool:
        """Emits an elementwise ufunc node writing into the buffer of an input that dies here
        (`np.multiply(a, 2.0, out=a)`): same ufunc loop, same result, no new allocation.
        Only buffers this graph allocated itself (ufunc results) are reused, never inputs,
        constants or views. With `same_name` (a long graph's chunk, not in a fused run), an
        unnamed result takes that input's name: `v1 = k4(v1, c3, v1)` (fewer names compile faster)."""
        op = get_op(node.op)
        ufunc = op.out_ufunc
        if (
            ufunc is None
            or not dying
            or node.attrs
            or len(node.outputs) != 1
            or not self.options["buffer_reuse"]
            or type(node.outputs[0].type) is not TensorType  # (one kind: runtime.types)
            or not fusion.in_place_exact(node, op)
        ):
            return False  # (the reused buffer is one of `dying`)
        result = node.outputs[0]
        out_type = result.type
        if type(out_type) is not TensorType or out_type.ndim == 0:  # (one kind: runtime.types)
            return False
        buffers = self.buffers
        target = None
        inputs = node.inputs
        for v in inputs:
            if (
                isinstance(v, Value)
                and v in dying
                and (v.type is out_type or v.type == out_type)
                and buffers.reusable(v)
            ):
                target = v
                break
        if target is None:
            return False
        for v in inputs:
            if v is not target and isinstance(v, Value) and type(v.type) is not TensorType:
                return False  # several kinds (runtime.types): some may broadcast
            if (
                v is not target
                and isinstance(v, Value)
                and v.type.ndim != 0
                and (
                    not out_type.is_fully_defined
                    or fusion.broadcasts_into(v.type.shape, out_type.shape) is None
                )
            ):
                return False  # it might broadcast the result beyond the reused buffer
        args = self.operand_refs(node, op)
        name = self.names[id(target)]
        if same_name and id(result) not in self.names and name.isidentifier():
            self.names[id(result)] = out = name
            self._named.append(result)
        else:
            out = self.fresh(result)
        # `out` passed positionally: cheaper than the keyword for small arrays
        self.emit(
            indent,
            f"{out} = {self.bind(ufunc)}({', '.join(args)}, {fusion.out_arg(op, name)})",
            node,
        )
        buffers.own(result)
        buffers.take(target)
        return True

    def write_in_place(self, node: Node, indent: int) -> None:
        """A node runtime.inplace lets write into its first input's buffer (`v5[v4] = v7`,
        OpDef.in_place_form): its result is that buffer, under the input's name."""
        op = get_op(node.op)
        assert op.in_place_form is not None  # (runtime.inplace plans only such nodes)
        target, result = node.inputs[0], node.outputs[0]
        args = self.operand_refs(node, op)
        self.emit(indent, op.in_place_form(node).format(*args), node)
        name = self.names[id(target)]
        if id(result) in self.names:  # (named before: a fused run, a loop's coalesced result)
            self.assign(indent, [self.names[id(result)]], [name], node)
        else:
            self.names[id(result)] = name
            self._named.append(result)
        self.buffers.take(target)  # (lives on as the result: not deleted under its name)

    def entry_copy(self, loop: Node, k: int, ref: str) -> str:
        """The initial value `ref` of loop variable k of `loop`: a copy of it where the loop's
        body writes into the loop variable's buffer and the value is not the loop's to write
        (runtime.inplace: a constant, an argument, a value read after the loop)."""
        if k in self.writes.copies_at_entry(loop):
            return f"{self.bind(_copy, 'copy')}({ref})"
        return ref

    def operand_refs(self, node: Node, op=None, ref=None) -> list[str]:
        """Input references; in a ufunc over arrays, a Python number that NumPy would cast to the
        array's dtype (NEP 50) is bound once as a 0-d array of that dtype: the ufunc then skips
        converting it on every call (over 2x faster on small arrays), with identical results.
        `op`: the node's OpDef, when the caller has it; `ref` names Value inputs (default: their
        variables)."""
        ref = ref or self.ref
        inputs = node.inputs
        op = op or get_op(node.op)
        arrays = (
            [v for v in inputs if isinstance(v, Value) and getattr(v.type, "ndim", 0) > 0]
            if op.out_ufunc is not None
            else ()
        )
        if (
            not arrays
            or len(inputs) == len(arrays)
            or any(v.type.dtype != arrays[0].type.dtype for v in arrays)
        ):
            return [ref(v) for v in inputs]
        dtype = arrays[0].type.dtype
        refs = []
        for v in inputs:
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                if v or type(v) is int:  # (a float zero may be -0.0, equal to 0.0 as a key)
                    key = (type(v), v, dtype)
                    exact = self._exact.get(key, False)
                    if exact is False:
                        exact = self._exact[key] = as_dtype(v, dtype)
                else:
                    exact = as_dtype(v, dtype)
                refs.append(self.bind(exact, "c") if exact is not None else self.literal(v))
            elif (
                dtype == np.float64
                and op.int_as_float
                and isinstance(v, Value)
                and getattr(v.type, "python_type", None) is int
            ):
                refs.append(f"float({ref(v)})")  # the conversion NumPy makes, without its slow path
            else:
                refs.append(ref(v))
        return refs

    def simple(self, node: Node, indent: int, following: Node | Graph | None = None):
        """One node: a line assigning its result (an inlined operator, a literal, a kernel call),
        or, for a scalar operator read once by `following`, nothing but an expression its reader
        writes in place of a name."""
        op = get_op(node.op)
        if self._unread_only(node, op):
            for v in node.outputs:  # (named: the code that leaves its reads out may ask)
                self.fresh(v)
                self._dropped.add(id(v))
            return
        args = self.operand_refs(node, op)
        expr = op.expr if not node.attrs else None
        if op.make_expr is not None:
            types = [v.type if isinstance(v, Value) else v for v in node.inputs]
            expr = op.make_expr(*types, **node.attrs) or expr
        depth = 0
        if expr is not None and following is not None and self.inlined(node, op, following):
            depth = 1 + max(
                (self._depth.get(id(v), 0) for v in node.inputs if isinstance(v, Value)), default=0
            )
            if depth > _MAX_INLINED_DEPTH:  # (Python refuses very deeply nested expressions)
                depth = 0
        number = self._python_numbers.get(id(node))
        if number is not None:  # on Python numbers in an unboxed scalar loop (not a template)
            if depth and not scalar_loops.may_inline(self, node, following):
                depth = 0
            kind, dtype = number
            expr = scalar_loops.expression(self, node, kind, dtype, bool(depth), following)
            expr = expr.replace("{", "{{").replace("}", "}}")
        if depth:
            assert expr is not None  # (only an expression is inlined)
            self._depth[id(node.outputs[0])] = depth
            self.names[id(node.outputs[0])] = "(" + expr.format(*args) + ")"
            return
        self._assign_result(node, op, indent, self._call_text(node, op, expr, args))

    def _call_text(self, node: Node, op, expr: str | None, args: list[str]) -> str:
        if expr is not None:
            return "(" + expr.format(*args) + ")"
        if op.constant is not None:
            value = op.constant(node)
            return (
                self.literal(value) if type(value) in (bool, int, float) else self.bind(value, "c")
            )
        return f"{self.bind(op.kernel(node.attrs))}({', '.join(args)})"

    def _assign_result(self, node: Node, op, indent: int, call: str) -> None:
        outs = [self.fresh(v) for v in node.outputs]
        if op.out_ufunc is not None and len(outs) == 1:
            self.buffers.own(node.outputs[0])
        if not outs:
            self.emit(indent, call, node)
        elif len(outs) == 1 and op.num_outputs == 1:
            self.emit(indent, f"{outs[0]} = {call}", node)
        else:
            self.emit(indent, f"{', '.join(outs)}, = {call}", node)

    def inlined(self, node: Node, op, following: Node | Graph) -> bool:
        """Whether `node` (of OpDef `op`), an operator on scalars, is written into the line of the
        node after it (`if (v2 % 2) == 0:`) instead of a line and a variable of its own: its one
        result is read once, by that node (a plain node, or a branch op as its predicate), so it
        is evaluated at the same point; and it cannot raise (its failure would name the reading
        node)."""
        if (
            len(node.outputs) != 1
            or node.scope is not None
            or getattr(following, "scope", None) is not None
        ):
            return False  # (a node in an np.errstate scope keeps a line of its own, in its `with`)
        out = node.outputs[0]
        if getattr(out.type, "shape", None) != () or self.use_counts().get(id(out)) != 1:
            return False
        if isinstance(following, Graph):  # a subgraph's last node: read once, as its output
            if not any(v is out for v in following.outputs):
                return False
        else:
            reader = get_op(following.op)
            if reader.emit is not None:  # a structured op: only into the predicate it reads first
                if reader.predicate is None or following.inputs[reader.predicate] is not out:
                    return False
            elif not any(v is out for v in following.inputs):
                return False
        if op.raises == "never":
            return True
        return op.raises == "on_python_numbers" and all(
            getattr(v.type, "weak", True) is False for v in node.inputs if isinstance(v, Value)
        )

    def _unread_only(self, node: Node, op) -> bool:
        """Whether `node` is a constant or an array's dimension (computing it has no effect and
        cannot fail) whose every read is one the emitted code leaves out (OpDef.unread_inputs:
        an array walk does not read its counter's first value). Not in a long graph, whose
        chunks pass their values on by name."""
        if (op.constant is None and op.dimension is None) or node.scope is not None:
            return False
        if self.units is not None:
            return False
        if self._unread is None:
            self._unread = {}
            for n in self.graph.walk():
                skips = get_op(n.op).unread_inputs
                for position in skips(n) if skips is not None else ():
                    v = n.inputs[position]
                    if isinstance(v, Value):
                        self._unread[id(v)] = self._unread.get(id(v), 0) + 1
        uses = self.use_counts()
        return all(uses.get(id(v), 0) == self._unread.get(id(v), 0) for v in node.outputs)

    def use_counts(self) -> dict[int, int]:
        """id(value) -> how many times nodes and graph outputs read it, in the whole graph."""
        if self._uses is None:
            counts: dict[int, int] = {}

            def count(g: Graph):
                for n in g.nodes:
                    for v in n.inputs:
                        if isinstance(v, Value):
                            counts[id(v)] = counts.get(id(v), 0) + 1
                    for sub in n.subgraphs.values():
                        count(sub)
                for v in g.outputs:
                    if isinstance(v, Value):
                        counts[id(v)] = counts.get(id(v), 0) + 1

            count(self.graph)
            self._uses = counts
        return self._uses

    def assign(self, indent: int, targets: list[str], sources: list[str], node: Node):
        """`targets = sources`, leaving out pairs that are one name already (`v4 = v4`)."""
        pairs = [(t, src) for t, src in zip(targets, sources) if t != src]
        if pairs:
            self.emit(
                indent,
                f"{', '.join(t for t, _ in pairs)} = {', '.join(src for _, src in pairs)}",
                node,
            )

    def function(self, name: str) -> str:
        self.plan()
        params = [self.fresh(v) for v in self.graph.inputs]
        if len(self.graph.nodes) > chunks.LONG_GRAPH:
            self.chunked(params)
        else:
            self.emit(0, f"def {name}({', '.join(params)}):")
            # A graph that writes Variables holds their lock for the whole call: its reads and
            # writes of them are inline (runtime.core_ops.VARIABLE_LOCK).
            self.holds_variable_lock = _writes_variables(self.graph)
            if self.holds_variable_lock:
                self.emit(1, f"{self.bind(VARIABLE_LOCK, 'lock')}.acquire()")
            # A failure is re-raised with the failing node's context (CompiledGraph.failure); the
            # try costs nothing while nothing fails.
            self.emit(1, "try:")
            self.body(self.graph, 2, top_level=True)
        rets = []
        # constants that are arrays (0-d ones too: NumPy scalars are immutable, 0-d arrays not)
        const_outputs: set[int] = set()
        for n in self.graph.nodes:
            constant = get_op(n.op).constant
            if constant is not None and isinstance(constant(n), np.ndarray):
                const_outputs.update(id(v) for v in n.outputs)
        sharing_state = set(outputs_sharing_state(self.graph))
        for i, v in enumerate(self.graph.outputs):
            ref = self.ref(v)
            ndim = getattr(v.type, "ndim", None) if isinstance(v, Value) else None
            if id(v) in const_outputs or (ndim and i in sharing_state):
                # the caller owns its results: constants and Variables' buffers must stay intact
                ref = f"{ref}.copy()"
            rets.append(ref)
        if self.single:
            self.emit(2, f"return {rets[0]}")
        else:
            self.emit(2, f"return ({', '.join(rets)}{',' if len(rets) == 1 else ''})")
        self.emit(1, "except Exception as exc:")
        self.emit(2, "_failure(exc)")
        self.emit(2, "raise")
        if self.holds_variable_lock:
            self.emit(1, "finally:")
            self.emit(2, f"{self.bind(VARIABLE_LOCK, 'lock')}.release()")
        for lines, nodes in self.helpers:  # (defined after `run`: called only when it runs)
            self.line_nodes.update((len(self.lines) + k, node) for k, node in nodes.items())
            self.lines.extend(lines)
        return self.source_of_units("\n".join(self.lines) + "\n", name)


def _copy(x):
    """A copy of an array in its own memory layout (what setitem's copy makes)."""
    return np.array(x, copy=True)


def _writes_variables(graph: Graph) -> bool:
    """Whether a node of `graph` or of its subgraphs writes a Variable."""
    return any(get_op(n.op).writes_variable for n in graph.walk())


class CompiledGraph:
    """A graph lowered to a Python function. Call it with NumPy inputs; get a tuple of outputs.

    When a node fails, the exception reaches the caller as itself (its type, its attributes),
    with a note (PEP 678) naming the failing node and the user's file:line that created it.

    With single=True (a graph of one output), `run` returns that output itself rather than a
    1-tuple: a staged function returning one value calls it directly, with nothing to unpack.
    """

    def __init__(
        self, graph: Graph, options: dict | None = None, single: bool = False, lazy: bool = False
    ):
        """`lazy`: the source is written and compiled on the first call (or when `source` is
        read): a graph traced inside another's trace is usually only written in place there."""
        if single and len(graph.outputs) != 1:
            raise ValueError(
                f"single=True needs a graph of one output, {graph.name!r} has {len(graph.outputs)}"
            )
        self.graph = graph
        self.options = get_options() if options is None else options
        with _counter_lock:
            serial = next(_counter)
        self.filename = f"<staged graph {graph.name} #{serial}>"
        self.single = single
        # What is lowered: the graph with calls of small graphs in place (runtime.call_inlining);
        # `origins` names the graph each node written in place comes from, for failure notes.
        emitted, self.origins = (
            inline_calls(graph) if self.options.get("inline_calls", True) else (graph, {})
        )
        if emitted is not graph and self.options.get("verify_graphs"):
            verify(emitted)
        # (what the graphs calling this one write in place when it is small)
        self.emitted, self.emitted_size = emitted, node_count(emitted)
        self._source: str | None = None
        self._codes: dict = {}
        # Calling it runs the graph (a failure is placed: see failure()).
        self.run = self._lower_and_run if lazy else self._lower()

    def _lower(self):
        """Writes and compiles the source of `run`; returns it."""
        emitted = self.emitted
        with (
            chunks.gc_paused(len(emitted.nodes) > chunks.LONG_GRAPH),
            more_frames(frames_for_graph(emitted)),  # (subgraphs are lowered recursively)
        ):
            emitter = _Emitter(emitted, self.options, self.single)
            source = emitter.function("run")
            namespace = emitter.namespace
            namespace["_failure"] = self.failure
            units = emitter.units or [(source, emitter.line_nodes, None)]
            # code object of each generated function -> {its line: node}; the file of `run`
            self._codes, self.code_filename = chunks.compile_units(
                units, namespace, self.filename, f"<staged {self.graph.name}>"
            )
        self.run = namespace["run"]
        self._source = source  # (last: a thread seeing it set finds `run` lowered)
        return self.run

    def _lower_and_run(self, *args):
        return self._lowered()(*args)

    def _lowered(self):
        """`run`, lowered now if it was not yet (once, whatever the threads calling it)."""
        if self._source is None:
            with _lowering_lock:
                if self._source is None:
                    self._lower()
        return self.run

    @property
    def source(self) -> str:
        """The Python source of `run`."""
        self._lowered()
        assert self._source is not None  # (set by _lower)
        return self._source

    def __call__(self, *args):
        """The graph's outputs, as a tuple (whatever `single` says)."""
        if self.single:
            return (self.run(*args),)
        return self.run(*args)

    def failure(self, exc: BaseException) -> None:
        """Called by the generated code with the exception escaping it: adds a note naming the
        failing node and the user's line that created it (once: a graph that called the failing
        graph leaves the note of the node that failed)."""
        if getattr(_noted, "exc", None) is exc:
            return
        node = self.node_at_failure(exc.__traceback__)
        if node is None:
            return
        _noted.exc = exc
        add_note(exc, failure_note(node, self.origins.get(id(node), self.graph.name)))

    def node_at_failure(self, tb) -> Node | None:
        node = None
        while tb is not None:
            code = tb.tb_frame.f_code
            line_nodes = self._codes.get(code)
            if line_nodes is not None:
                node = line_nodes.get(generated_line(code, tb.tb_lasti, tb.tb_lineno), node)
            tb = tb.tb_next
        return node


def failure_note(node: Node, graph_name: str) -> str:
    """`file:line: while running `node` in staged graph 'name'` (the note a failure gets)."""
    where = f"{node.location[0]}:{node.location[1]}: " if node.location else ""
    return f"{where}raised while running `{node_text(node)}` in staged graph {graph_name!r}"


def execute(graph: Graph, *args):
    """Runs `graph` once (compiles it first; callers that run a graph often keep a CompiledGraph)."""
    return CompiledGraph(graph)(*args)


__all__ = ["CompiledGraph", "execute", "failure_note"]
