"""Elementwise fusion: a run of elementwise ufunc nodes over arrays of one shape, executed chunk
by chunk.

Op by op, a chain of k ufuncs over an N-element array makes k passes over N elements and, once
the arrays outgrow the CPU caches, every pass goes to main memory. A fused run instead walks the
arrays in chunks and applies all k ufuncs to one chunk before moving to the next: intermediates
live in a few chunk-sized scratch buffers (`fusion_chunk_bytes` in all) that stay in cache, and
only the values that outlive the run (the "escaping" values) get full-size arrays.

When every array operand has the run's shape, chunks are ranges of the flattened arrays. When
some operand broadcasts (a bias vector added to every row), chunks are ranges of rows: operands
that vary along axis 0 are sliced with the rows, the others are passed whole to every chunk and
NumPy broadcasts them inside it, exactly as it would over the whole array.

Each ufunc still runs as NumPy's own loop on each chunk, so every element goes through the same
computation as op by op. By default only ops whose result is exactly defined per element are
fused (IEEE-754 correctly rounded arithmetic, comparisons, integer and boolean work): chunking
then cannot change a single bit. `elementwise_fusion="all"` also fuses the transcendental ufuncs
(exp, sin, ...): NumPy evaluates those with SIMD kernels whose last bit may in principle depend
on alignment, so there the promise is NumPy's documented accuracy rather than bit equality.

With `threads` > 1, a run big enough (`parallel_min_bytes`) is split across threads, each
walking its own part of the arrays chunk by chunk (runtime.parallel). Scalar constants recorded
between the ufuncs (`x * np.float32(2)`) do not end a run: they are made before it.

A fused run is emitted next to the op-by-op code, behind a run-time guard: the fused path is
taken when every input of the run's shape is a C-contiguous ndarray (and, for shapes unknown at
trace time, when those inputs agree in shape and are big enough); otherwise the op-by-op code
runs. Runs with operands that broadcast need shapes known at trace time.
"""

from __future__ import annotations

import math

import numpy as np

from . import native
from .analysis import last_uses
from .graph import Graph, Node, Value
from .parallel import run_parts, split_bounds
from .registry import get_op
from .types import TensorType


def in_place_exact(node: Node, op=None) -> bool:
    """Whether writing `node`'s result into one of its operands' buffers gives the same bits
    (`op`: its OpDef, when the caller has it)."""
    op = op or get_op(node.op)
    return op.in_place_complex or node.outputs[0].type.dtype.kind != "c"


def out_arg(op, target: str) -> str:
    """`target` as the output argument of the ufunc of OpDef `op` (a keyword where the ufunc
    deprecates a positional one)."""
    return f"out={target}" if op.out_by_keyword else target


def is_constant(node: Node) -> bool:
    return get_op(node.op).constant is not None


_REAL_KINDS = frozenset("biuf")
_INTEGER_KINDS = frozenset("biu")


class Run:
    """A fusable run: graph.nodes[start:stop], all producing arrays of `shape`."""

    def __init__(self, graph: Graph, start: int, stop: int, shape: tuple, last_use: dict[int, int]):
        """last_use: value id -> position of the last node of `graph` reading it (graph outputs:
        len(graph.nodes))."""
        self.start, self.stop, self.shape = start, stop, shape
        self.all_nodes = graph.nodes[start:stop]
        # constants made between the ufuncs (`x * np.float32(2.0)` records one per call): made
        # before the run, read whole by every chunk
        self.consts = [n for n in self.all_nodes if is_constant(n)]
        self.nodes = [n for n in self.all_nodes if not is_constant(n)]  # the ufuncs
        produced = {id(v) for n in self.all_nodes for v in n.outputs}
        self.inputs: list[Value] = []  # outer arrays of the run's shape, in order of first use
        self.sliced: list[Value] = []  # outer arrays that broadcast but vary along axis 0
        self.broadcast: list[Value] = []  # outer arrays that broadcast along axis 0: read whole
        seen: set[int] = set()
        for n in self.nodes:
            for v in n.inputs:
                if (
                    isinstance(v, Value)
                    and id(v) not in produced
                    and v.type.ndim
                    and id(v) not in seen
                ):
                    seen.add(id(v))
                    kind = broadcasts_into(v.type.shape, shape)
                    (
                        self.inputs
                        if kind == "full"
                        else self.sliced
                        if kind == "rows"
                        else self.broadcast
                    ).append(v)
        # "flat": every array operand has the run's shape, chunks are ranges of the flattened
        # arrays; "rows": some operand broadcasts, chunks are ranges of rows (axis 0)
        self.mode = "flat" if not (self.sliced or self.broadcast) else "rows"
        self.escaping = [
            n.outputs[0] for n in self.nodes if last_use.get(id(n.outputs[0]), -1) >= stop
        ]
        # position (within the run) of each value's last read inside the run
        self.last_read: dict[int, int] = {}
        for i, n in enumerate(self.nodes):
            for v in n.inputs:
                if isinstance(v, Value):
                    self.last_read[id(v)] = i
        self.itemsize = max(
            v.type.dtype.itemsize
            for n in self.nodes
            for v in [*n.outputs, *n.inputs]
            if isinstance(v, Value)
        )
        self.live_bytes = self._peak_live_bytes()
        self.native = False  # set by plan() when the run may become a native kernel

    def _peak_live_bytes(self) -> int:
        """Bytes per element of the arrays live at once when the run executes op by op: outer
        inputs until their last read, intermediates until theirs, escaping values to the end."""
        escaping = {id(v) for v in self.escaping}
        change = [0] * (len(self.nodes) + 1)  # live bytes gained at position i (lost: negative)
        change[0] = sum(v.type.dtype.itemsize for v in self.inputs)
        for v in self.inputs:  # (operands that broadcast are small next to the run's arrays)
            change[self.last_read[id(v)] + 1] -= v.type.dtype.itemsize
        for i, node in enumerate(self.nodes):
            y = node.outputs[0]
            change[i] += y.type.dtype.itemsize
            if id(y) not in escaping:
                change[self.last_read.get(id(y), i) + 1] -= y.type.dtype.itemsize
        live = peak = 0
        for delta in change:
            live += delta
            peak = max(peak, live)
        return peak

    def min_elements(self, options: dict) -> int:
        """The size from which fusing pays (see the `fusion_min_bytes` option), or from which
        splitting the run across threads does (`threads`, `parallel_min_bytes`), or from which a
        compiled kernel does (runtime.native)."""
        fused = max(1, -(-options["fusion_min_bytes"] // self.live_bytes))
        if self.native:
            fused = min(fused, -(-options["native_min_work"] // len(self.nodes)))
        if options["threads"] < 2:
            return fused
        return min(fused, self.parallel_min_elements(options))

    def parallel_min_elements(self, options: dict) -> int:
        """Elements of the run's shape from which each extra thread pays its hand-off."""
        return max(1, -(-options["parallel_min_bytes"] // (self.itemsize * len(self.nodes))))

    @property
    def size(self) -> int | None:
        return math.prod(self.shape) if None not in self.shape else None


def broadcasts_into(shape: tuple, out: tuple) -> str | None:
    """How an array operand of `shape` enters a run producing `out`: "full" (the same shape),
    "rows" (broadcasts, but varies along axis 0: sliced by rows), "whole" (constant along axis 0:
    read whole by every chunk), or None when it cannot join (unknown dims, or it broadcasts the
    result beyond `out`)."""
    if shape == out:
        return "full"
    if None in shape or None in out or len(shape) > len(out):
        return None
    for a, b in zip(reversed(shape), reversed(out)):
        if a != b and a != 1:
            return None
    if len(shape) == len(out) and shape[0] == out[0] and out[0] != 1:
        return "rows"
    return "whole"


def _member_shape(node: Node, mode) -> tuple | None:
    """The output shape when `node` may join a fused run, else None."""
    op = get_op(node.op)
    if (
        op.out_ufunc is None
        or op.out_ufunc.signature is not None  # (matmul, vecdot: not element by element)
        or node.attrs
        or node.subgraphs
        or len(node.outputs) != 1
        or node.scope
    ):
        return None
    out = node.outputs[0].type
    if not isinstance(out, TensorType) or out.ndim == 0:
        return None
    kinds = {out.dtype.kind}
    for v in node.inputs:
        if isinstance(v, Value):
            t = v.type
            if not isinstance(t, TensorType) or (
                t.ndim and broadcasts_into(t.shape, out.shape) is None
            ):
                return None  # not an array, or broadcasts the result / has unknown dims
            kinds.add(t.dtype.kind)
        elif isinstance(v, complex):
            kinds.add("c")
        elif not isinstance(v, (bool, int, float)):
            return None
    if not kinds <= _REAL_KINDS:
        return None
    if mode != "all" and not op.exact and not kinds <= _INTEGER_KINDS:
        return None
    return out.shape


def _scalar_const(node: Node) -> bool:
    t = node.outputs[0].type if len(node.outputs) == 1 and is_constant(node) else None
    return isinstance(t, TensorType) and t.ndim == 0


_MAX_ITEMSIZE = 32  # bytes of an element of any dtype a run may hold


def plan(  # noqa: C901, PLR0912
    graph: Graph, options: dict, max_length: int | None = None, last_use: dict | None = None
) -> dict[int, Run]:
    """Start position -> Run, for the runs of `graph` (not its subgraphs) worth fusing; none
    longer than `max_length` nodes when given (a longer one is cut into pieces). `last_use`:
    analysis.last_uses(graph) when the caller has it."""
    mode = options["elementwise_fusion"]
    if not mode:
        return {}
    runs: dict[int, Run] = {}
    start, shape = 0, None
    bounds = []
    for position, node in enumerate(graph.nodes):
        if shape is not None and _scalar_const(node):
            continue  # a run goes on past a constant it may read
        member = _member_shape(node, mode)
        if member is None or member != shape:
            if shape is not None:
                bounds.append((start, position, shape))
            start, shape = position, member
    if shape is not None:
        bounds.append((start, len(graph.nodes), shape))
    if max_length is not None:
        bounds = [
            (begin, min(begin + max_length, stop), shape)
            for start, stop, shape in bounds
            for begin in range(start, stop, max_length)
        ]
    bounds = [
        b for b in bounds if sum(not is_constant(graph.nodes[p]) for p in range(b[0], b[1])) >= 2
    ]
    if not bounds:
        return {}
    min_bytes = options["fusion_min_bytes"]
    if options["threads"] > 1:
        min_bytes = min(min_bytes, options["parallel_min_bytes"])
    for start, stop, shape in bounds:
        size = math.prod(shape) if None not in shape else None
        ops = sum(not is_constant(graph.nodes[p]) for p in range(start, stop))
        if (
            size is not None
            and size * _MAX_ITEMSIZE * sum(len(n.inputs) + 1 for n in graph.nodes[start:stop])
            < min_bytes
            and (size * ops < options["native_min_work"] or not options["native_kernels"])
        ):
            continue  # too small whatever its live bytes (Run.live_bytes is at most that sum)
        if last_use is None:
            last_use = last_uses(graph)
        run = Run(graph, start, stop, shape, last_use)
        run.native = native.eligible(run, options)
        if run.size is not None and run.size < run.min_elements(options):
            continue
        runs[start] = run
    return runs


def _size_test(em, ref: str, min_elements: int) -> str:
    """The guard's first test: an ndarray big enough to be worth fusing."""
    return f"type({ref}) is {em.bind(np.ndarray, 'k')} and {ref}.size >= {min_elements}"


def hoist_size_tests(em, graphs, captures, indent: int, node: Node) -> None:
    """Before a staged loop's header: the size test of each fused run of `graphs` (the loop's
    body and what it nests) with unknown dims that reads one of the loop's `captures` (values
    fixed while it runs), once; the run's guard then reads its name (em.hoisted)."""
    fixed = {id(v) for v in captures}
    for graph in graphs:
        for run in em.fused_runs(graph).values():
            if run.size is not None:
                continue
            value = next((v for v in run.inputs if id(v) in fixed), None)
            if value is None:
                continue
            key = (id(value), run.min_elements(em.options))
            if em.hoisted(key) is None:
                name = f"f{em.new_tag()}_big"
                em.emit(indent, f"{name} = {_size_test(em, em.ref(value), key[1])}", node)
                em.hoist(key, name)


def _emit_chunk_loop(  # noqa: PLR0913
    em, indent, tag, bounds, temps, temp_shape, chunk, partial, lines, first
) -> None:
    """The scratch buffers of a fused run, then its loop over the chunks `bounds` (an expression)."""
    empty = em.bind(np.empty, "k")
    for name, dtype in temps:
        em.emit(indent, f"{name} = {empty}({temp_shape}, {em.bind(dtype, 'k')})", first)
    em.emit(indent, f"for {tag}_s, {tag}_e in {bounds}:", first)
    if temps and partial:
        em.emit(indent + 1, f"if {tag}_e - {tag}_s != {chunk}:", first)
        for name, _ in temps:
            em.emit(indent + 2, f"{name} = {name}[:{tag}_e - {tag}_s]", first)
    for text, node in lines:
        em.emit(indent + 1, text, node)


def chunk_bounds(n: int, chunk: int) -> tuple:
    return tuple((s, min(s + chunk, n)) for s in range(0, n, chunk))


def emit_run(em, run: Run, indent: int, dying: set[int], top_level: bool, emit_op_by_op) -> None:  # noqa: C901, PLR0912, PLR0915
    """Emits `if <guard>: <fused loop> else: <op by op>` for `run`.

    em: the executor's emitter; its buffer plan (em.buffers) says which buffers may be written
    over. dying: ids of outer values whose last use is in the run (top level only; their
    buffers may be reused). emit_op_by_op(indent): emits the fallback."""
    options = em.options
    tag = f"f{em.new_tag()}"
    first = run.nodes[0]
    flat_mode = run.mode == "flat"
    empty = em.bind(np.empty, "k")
    in_refs = [em.ref(v) for v in run.inputs]
    guard = [f"type({r}) is {em.bind(np.ndarray, 'k')} and {r}.flags.c_contiguous" for r in in_refs]
    size = run.size
    if size is None:  # flat mode: all operands have the run's shape, some dims unknown
        # the size test first: it fails at once for the small arrays that are not worth fusing;
        # an operand fixed while a loop runs has its size tested once, before the loop
        # (hoist_size_tests): the others must have its shape, hence its size
        minimum = run.min_elements(options)
        hoisted = [em.hoisted((id(v), minimum)) for v in run.inputs]
        pivot = next((k for k, name in enumerate(hoisted) if name is not None), 0)
        size_test = hoisted[pivot] or _size_test(em, in_refs[pivot], minimum)
        guard = (
            [size_test]
            + guard
            + [f"{in_refs[pivot]}.shape == {r}.shape" for k, r in enumerate(in_refs) if k != pivot]
        )
    body = indent
    if guard:
        em.emit(indent, f"if {' and '.join(guard)}:", first)
        body = indent + 1
    # chunks are ranges of `units`: elements of the flattened arrays, or rows
    row_elems = 1 if flat_mode else math.prod(run.shape[1:])
    if size is not None:
        units = str(size if flat_mode else run.shape[0])
    else:
        units = f"{tag}_n"
        em.emit(body, f"{tag}_n = {in_refs[0]}.size", first)
    locals_: list[str] = []
    base: dict[int, str] = {}  # value id -> the array a chunk of it is sliced from

    def chunked(ref: str, local: str) -> str:
        """What chunks of array `ref` are sliced from: in flat mode a flattened view of it
        (bound to `local`), in rows mode the array itself."""
        if not flat_mode:
            return ref
        em.emit(body, f"{local} = {ref}.reshape(-1)", first)
        locals_.append(local)
        return local

    for k, (v, r) in enumerate(zip(run.inputs, in_refs)):
        base[id(v)] = chunked(r, f"{tag}_i{k}")
    for v in run.sliced:
        base[id(v)] = em.ref(v)

    # full-size arrays for the escaping values; a dying buffer of the same type is reused when no
    # later node of the run reads it (each chunk is read before the same chunk is written)
    position = {id(n.outputs[0]): i for i, n in enumerate(run.nodes)}
    taken: set[int] = set()
    made = native.kernel(run, options) if run.native else None  # (no donor: the ufuncs may redo it)
    out_names: dict[int, str] = {}
    shape_ref = em.literal(run.shape) if size is not None else f"{in_refs[0]}.shape"
    for k, y in enumerate(run.escaping):
        name = em.fresh(y)
        donor = None
        out_names[id(y)] = name
        if top_level and options["buffer_reuse"] and made is None:
            for v in run.inputs:
                if (
                    id(v) in dying
                    and id(v) not in taken
                    and em.buffers.reusable(v)
                    and v.type == y.type
                    and run.last_read.get(id(v), -1) <= position[id(y)]
                ):
                    donor = v
                    break
        if donor is not None:
            taken.add(id(donor))
            em.emit(body, f"{name} = {em.ref(donor)}", first)
            base[id(y)] = base[id(donor)]
        else:
            em.emit(body, f"{name} = {empty}({shape_ref}, {em.bind(y.type.dtype, 'k')})", first)
            base[id(y)] = chunked(name, f"{tag}_o{k}")
        em.buffers.own(y)

    # scratch buffers for the values that live only inside the run, reused as soon as free
    temps: list[tuple[str, np.dtype]] = []
    free: list[int] = []
    slot_of: dict[int, int] = {}
    lines: list[tuple[str, Node]] = []
    escaping = {id(v) for v in run.escaping}

    def chunk_ref(v) -> str:
        if not isinstance(v, Value):
            return em.literal(v)
        if id(v) in slot_of:
            return temps[slot_of[id(v)]][0]
        if id(v) in base:
            return f"{base[id(v)]}[{tag}_s:{tag}_e]"
        return em.ref(v)  # a 0-d value, or an array that broadcasts along axis 0: read whole

    for i, node in enumerate(run.nodes):
        y = node.outputs[0]
        op = get_op(node.op)
        args = em.operand_refs(node, op, ref=chunk_ref)
        if id(y) in escaping:
            target = chunk_ref(y)
        else:
            slot = None
            for v in node.inputs:  # in place over an operand that dies here
                if (
                    isinstance(v, Value)
                    and id(v) in slot_of
                    and run.last_read[id(v)] == i
                    and temps[slot_of[id(v)]][1] == y.type.dtype
                    and in_place_exact(node, op)
                ):
                    slot = slot_of.pop(id(v))
                    break
            if slot is None:
                for j, s in enumerate(free):
                    if temps[s][1] == y.type.dtype:
                        slot = free.pop(j)
                        break
            if slot is None:
                temps.append((f"{tag}_t{len(temps)}", y.type.dtype))
                slot = len(temps) - 1
            slot_of[id(y)] = slot
            target = temps[slot][0]
        lines.append(
            (
                f"{em.bind(op.out_ufunc, 'k')}({', '.join(args)}, {out_arg(op, target)})",
                node,
            )
        )
        for v in node.inputs:
            if isinstance(v, Value) and id(v) in slot_of and run.last_read[id(v)] == i:
                free.append(slot_of.pop(id(v)))
        if id(y) in slot_of and id(y) not in run.last_read:  # never read: free at once
            free.append(slot_of.pop(id(y)))

    # the scratch buffers of one chunk share the budget (they stay in cache across the ufuncs);
    # inputs and outputs are only streamed through
    scratch = (sum(dtype.itemsize for _, dtype in temps) or run.itemsize) * row_elems
    chunk = max(1, options["fusion_chunk_bytes"] // scratch)
    temp_shape = em.literal((chunk,) + tuple(run.shape[1:])) if not flat_mode else str(chunk)
    threads, parts = options["threads"], None
    loop, inner = body, locals_
    if made is not None:  # the kernel, and NumPy's loops only when it says a flag needs them
        kernel, operands = made
        refs = [out_names.get(id(v)) or em.ref(v) for v in operands]
        em.emit(body, f"if not {em.bind(kernel, 'k')}({units}, {', '.join(refs)}):", first)
        loop, inner = body + 1, []
    if threads > 1:  # each thread walks its own part of the arrays, with its own scratch buffers
        min_units = -(-run.parallel_min_elements(options) // row_elems)
        if size is None:
            parts, partial = (
                f"{em.bind(split_bounds, 'k')}({units}, {chunk}, {threads}, {min_units})",
                True,
            )
        else:
            split = split_bounds(int(units), chunk, threads, min_units)
            if len(split) > 1:
                partial = any((e - s) % chunk for part in split for s, e in part)
                parts = em.bind(split, "c")
    if parts is not None:
        em.emit(loop, f"def {tag}_work({tag}_bounds):", first)
        _emit_chunk_loop(
            em, loop + 1, tag, f"{tag}_bounds", temps, temp_shape, chunk, partial, lines, first
        )
        em.emit(loop, f"{em.bind(run_parts, 'k')}({tag}_work, {parts})", first)
        inner.append(f"{tag}_work")
    else:
        if size is not None:
            n_units = int(units)
            bounds = em.bind(chunk_bounds(n_units, chunk), "c")
            partial = n_units % chunk
        else:
            bounds = f"{em.bind(chunk_bounds, 'k')}({units}, {chunk})"
            partial = True
        _emit_chunk_loop(em, loop, tag, bounds, temps, temp_shape, chunk, partial, lines, first)
        inner += [name for name, _ in temps] + [f"{tag}_s", f"{tag}_e"]
    # drop the views and scratch buffers: they would keep dead inputs alive
    if inner is not locals_:
        em.emit(loop, f"del {', '.join(inner)}", first)
    if locals_:
        em.emit(body, f"del {', '.join(locals_)}", first)
    if guard:
        em.emit(indent, "else:", first)
        emit_op_by_op(indent + 1)


__all__ = [
    "Run",
    "broadcasts_into",
    "chunk_bounds",
    "emit_run",
    "hoist_size_tests",
    "in_place_exact",
    "out_arg",
    "plan",
]
