"""A graph as the source of one nopython function, from its ops' descriptions (OpDef).

Values are numba values: a 0-d value of dtype int64, float64 or bool (a NumPy scalar or a
Python number: NEP 50 makes both compute alike) is a number, an array is an array. A value that
is a Python number on some paths and a NumPy scalar of the same dtype on others (`int | i64[]`,
an accumulator starting at 0) is a number and a flag: True where it is the NumPy scalar (the
flag of an operation's result is true when an operand's is, as NumPy's promotion makes it).

The code computes what NumPy and Python compute on every value where neither warns nor raises;
on the others it raises `helpers.Rerun`: an integer result outside int64 (NumPy wraps and
warns, Python's int grows), a zero divisor, a non-finite float result (NumPy warned, or Python
raised), an index out of bounds, an empty reduction, an int compared with or divided as a float
beyond 2**53 (Python is exact there). The runner then calls the interpreter.

Which ops are written how is read from their OpDef: `numba_lower` hooks (structured ops,
indexing), `numba_expr` (reductions), the unboxed forms and `python_expr` of Python's operators
(scalars), and the NumPy ufunc of the correctly rounded and comparison ops (arrays).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import operator
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import inplace
from ..graph import Graph, Node, Value
from ..registry import get_op
from ..types import ListType, TensorType, UnionType
from . import arrays
from .errors import Unsupported
from .numpy_forms import array_expr, cast, float64_expr, int64_expr, scalar_expr

# the dtypes numba computes as NumPy does (float16 and complex values stay on the interpreter)
DTYPES = frozenset(
    np.dtype(t)
    for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32)
    + (np.uint64, np.float32, np.float64)
)
# the dtypes of Python's numbers as the code holds them (an int within int64)
PYTHON_DTYPES = frozenset(np.dtype(t) for t in (np.int64, np.float64, np.bool_))
_INT64 = (-(2**63), 2**63 - 1)
_BOOL, _INT, _FLOAT = np.dtype(np.bool_), np.dtype(np.int64), np.dtype(np.float64)


@dataclass(frozen=True)
class Form:
    """How a value is held: its dtype (a Python number's: int64, float64 or bool); ndim (0: a
    number); weak: a Python number (True), a NumPy value (False) or either (None: a union, with
    a flag); is_list: a list whose elements are held so (numbers of one kind)."""

    dtype: np.dtype
    ndim: int = 0
    weak: bool | None = False
    is_list: bool = False  # a list of values of this form (a numba list, written in place)

    @property
    def kind(self) -> str:
        """The dtype's kind: 'b', 'i', 'u' or 'f'."""
        return self.dtype.kind


@dataclass
class Slot:
    """A value in the generated code: its expression, form, and flag expression ('True' where it
    is a NumPy value)."""

    expr: str
    form: Form
    flag: str


def form_of(t) -> Form | None:
    """The Form of values of type `t`, or None when the backend does not take them."""
    if type(t) is ListType:
        element = form_of(t.element) if t.element is not None else None
        if element is None or element.weak is None or element.ndim or element.is_list:
            return None  # (lists of numbers of one kind only)
        return dataclasses.replace(element, is_list=True)
    if type(t) is TensorType:
        if t.dtype not in (PYTHON_DTYPES if t.weak else DTYPES):
            return None
        return Form(t.dtype, len(t.shape), t.weak)
    if type(t) is UnionType and len(t.alternatives) == 2:
        python, numpy = t.alternatives
        if (
            type(python) is TensorType
            and type(numpy) is TensorType
            and python.weak
            and not numpy.weak
            and numpy.shape == ()
            and python.dtype == numpy.dtype
            and numpy.dtype in PYTHON_DTYPES
        ):
            return Form(numpy.dtype, 0, None)
    return None


def _non_finite(item: float) -> str:
    """NaN or an infinity as numba reads it (NumPy's constants; it has no `float("nan")`),
    the sign bit kept."""
    text = "np.nan" if math.isnan(item) else "np.inf"
    return f"(-{text})" if math.copysign(1.0, item) < 0 else text


def _literal_slot(item) -> Slot | None:
    if type(item) is bool:
        return Slot(repr(item), Form(_BOOL, 0, True), "False")
    if type(item) is int and _INT64[0] <= item <= _INT64[1]:
        return Slot(repr(item), Form(_INT, 0, True), "False")
    if type(item) is float:
        text = repr(item) if math.isfinite(item) else _non_finite(item)
        return Slot(text, Form(_FLOAT, 0, True), "False")
    return None


def _scalar_literal(value) -> Slot | None:
    """A constant's value: a Python number, or a NumPy scalar of a dtype the backend takes."""
    if isinstance(value, np.generic) and value.dtype in DTYPES and value.ndim == 0:
        slot = _literal_slot(value.item())
        if slot is not None:
            return Slot(f"np.{value.dtype.name}({slot.expr})", Form(value.dtype), "True")
        return None
    return _literal_slot(value)


@dataclass(frozen=True)
class Fact:
    """What the code knows of an int value: lo <= it <= hi; `below`: the name of an int it is
    less than; `dim`: it is the length of axis dim[1] of array dim[0] (names in the code)."""

    lo: int
    hi: int
    below: str | None = None
    dim: tuple[str, int] | None = None


# the helpers the code calls, by their source's hash: numba's cache of a graph holds their
# machine code, so the source (and its cache file's name) changes with them
_HELPERS_VERSION = (
    "# helpers "
    + hashlib.sha256(Path(__file__).with_name("helpers.py").read_bytes()).hexdigest()[:16]
)
_INT_TEXT = re.compile(r"-?[0-9]+")
_DIM_MAX = 2**62  # (an array's length: far below, on any machine)


def _flag_union(flags: list[str]) -> str:
    if "True" in flags:
        return "True"
    flags = [f for f in flags if f != "False"]
    return " or ".join(dict.fromkeys(flags)) if flags else "False"


class Lowering:
    """Writes one graph as `def graph_fn(...)` (see the module docstring); `Unsupported` names the
    first node or value it cannot write."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.lines: list[str] = []
        self.slots: dict[int, Slot] = {}
        self._count = 0
        self.floats = False  # the code computes floats (the runner then minds np.errstate)
        self.indent = 1
        self.facts: dict[str, Fact] = {}  # what is known of an int variable, by its name
        self.readers: dict[int, list] = {}  # the nodes reading a value (None: its graph's output)
        self._skipped: set[int] = set()  # nodes whose results only a `raise` reads
        self._block: dict[int, int] = {}  # id(node) -> its position in the block being written
        self._block_nodes: list[Node] = []
        self.writes = inplace.plan(graph)  # the writes into a buffer instead of a copy

    # -- the context the ops' numba_lower hooks use ---------------------------------------
    def unsupported(self, node: Node | None, reason: str):
        location = node.location if node is not None else None
        where = f" at {':'.join(str(part) for part in location)}" if location else ""
        op = f"op {node.op!r}{where}: " if node is not None else ""
        raise Unsupported(f"{op}{reason}")

    def new_name(self, prefix: str = "v") -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def slot(self, item) -> Slot:
        if isinstance(item, Value):
            return self.slots[id(item)]
        slot = _literal_slot(item)
        if slot is None:
            raise Unsupported(f"the literal {item!r} is no int64, float64 or bool")
        return slot

    def range_of(self, item) -> tuple[int, int] | None:
        """(lo, hi) of an int value (a literal, or a variable with a known range), or None."""
        if type(item) is int:
            return (item, item)
        if isinstance(item, bool) or not isinstance(item, (Value, int)):
            return None
        slot = self.slot(item)
        if slot.form.kind != "i" or slot.form.ndim:
            return None
        if _INT_TEXT.fullmatch(slot.expr):
            return (int(slot.expr), int(slot.expr))
        fact = self.facts.get(slot.expr)
        return (fact.lo, fact.hi) if fact is not None else None

    def in_bounds(self, item, array, axis: int) -> bool:
        """Whether int value `item` is known to index axis `axis` of `array` (0 <= it < length)."""
        fact = self.facts.get(self.ref(item)) if isinstance(item, Value) else None
        if fact is None or fact.lo < 0 or fact.below is None:
            return False
        bound = self.facts.get(fact.below)
        if bound is not None and bound.dim == (self.ref(array), axis):
            return True
        length = array.type.shape[axis] if isinstance(array, Value) else None
        return (
            _INT_TEXT.fullmatch(fact.below) is not None
            and length is not None
            and (int(fact.below) <= length)
        )

    def ref(self, item) -> str:
        return self.slot(item).expr

    def cast(self, node: Node, item, dtype: np.dtype) -> str:
        """Operand `item` as a value of `dtype`, converted as NumPy converts it where it meets a
        value of that dtype (a Python int must fit: NEP 50)."""
        return cast(self, node, item, dtype)

    def form(self, node: Node, value, lists: bool = False) -> Form:
        """How `value` (an input or output of `node`) is held; a list only where the caller
        (`lists`) writes list code."""
        form = form_of(value.type) if isinstance(value, Value) else self.slot(value).form
        if form is None and _new_list(value) and id(value) in self.slots:
            form = self.slots[id(value)].form  # (its elements' form as its writes found it)
        if form is None:
            self.unsupported(node, f"it gives or takes a value of type {value.type}")
        assert form is not None
        if form.is_list and not lists:
            self.unsupported(node, "it takes a list (only list operations and control flow do)")
        if form.kind == "f":
            self.floats = True
        return form

    def define(self, node: Node, value: Value, expr: str, flag: str = "False") -> Slot:
        """Names `expr` as the value `value` of `node` (a new variable)."""
        form = self.form(node, value, lists=True)
        name = self.new_name()
        self.emit(f"{name} = {expr}")
        if form.weak is None:
            flag_name = self.new_name("k")
            self.emit(f"{flag_name} = {flag}")
            flag = flag_name
        elif flag not in ("True", "False") or (flag == "True") == form.weak:
            self.unsupported(
                node, f"its result may be a Python number or a NumPy value ({value.type})"
            )
        slot = (
            Slot(name, form, "False" if form.weak else "True")
            if form.weak is not None
            else Slot(name, form, flag)
        )
        self.slots[id(value)] = slot
        return slot

    def writes_in_place(self, node: Node) -> bool:
        """Whether `node` writes into its first input's buffer, not a copy (runtime.inplace)."""
        return self.writes.in_place(node)

    def same_as(self, value: Value, other: Value) -> None:
        """`value` is held where `other` is (a write into its buffer gave it)."""
        self.slots[id(value)] = self.slots[id(other)]

    # -- the graph ------------------------------------------------------------------------
    def function(self) -> str:
        params = []
        for k, v in enumerate(self.graph.inputs):
            form = form_of(v.type)
            if form is None or form.weak is None or form.is_list:
                raise Unsupported(f"its input {self.graph.input_names[k] or k} is a {v.type}")
            self.floats |= form.kind == "f"
            name = f"a{k}"
            params.append(name)
            self.slots[id(v)] = Slot(name, form, "False" if form.weak else "True")
        self.block(self.graph)
        outs = []
        inputs = {id(v) for v in self.graph.inputs}
        for v in self.graph.outputs:  # (a flag only for a value of either kind)
            if isinstance(v, Value) and id(v) not in inputs:
                slot = self.slot(v)
                if slot.form.is_list:
                    raise Unsupported(f"it returns a list ({v.type})")
                outs += [slot.expr] + ([slot.flag] if slot.form.weak is None else [])
        if len(outs) == 1:
            self.emit(f"return {outs[0]}")
        else:
            self.emit(f"return ({', '.join(outs)}{',' if outs else ''})")
        header = f"def graph_fn({', '.join(params)}):"
        return "\n".join([_HELPERS_VERSION, header, *self.lines])

    def block(self, graph: Graph) -> None:
        for node in graph.nodes:
            for v in node.inputs:
                if isinstance(v, Value):
                    self.readers.setdefault(id(v), []).append(node)
        for v in graph.outputs:  # (read by what runs the graph: never a chain's link)
            if isinstance(v, Value):
                self.readers.setdefault(id(v), []).append(None)
        outer = self._block, self._block_nodes
        self._block = {id(node): k for k, node in enumerate(graph.nodes)}
        self._block_nodes = graph.nodes
        for node in graph.nodes:
            self.node(node)
        self._block, self._block_nodes = outer

    def subgraph(self, graph: Graph, bound: list[Slot]) -> list[Slot]:
        """The code of `graph` with its inputs bound to `bound`, at the current indent: the
        slots of its outputs."""
        for v, slot in zip(graph.inputs, bound):
            self.slots[id(v)] = slot
        self.block(graph)
        return [self.slot(v) for v in graph.outputs]

    def node(self, node: Node) -> None:
        op = get_op(node.op)
        if self._feeds_only_raises(node):
            self._skipped.add(id(node))  # (what it computes is read on the interpreter's rerun)
            return
        if node.scope is not None:
            self.unsupported(node, "it runs in a `with np.errstate(...)` scope")
        if op.numba_lower is not None:
            op.numba_lower(self, node)
        elif op.constant is not None and not node.inputs:
            self._constant(node, op.constant(node))
        elif op.dimension is not None:
            self._dimension(node, *op.dimension(node))
        elif op.numba_expr is not None:
            self._reduction(node, op)
        elif all(self.form(node, v).ndim == 0 for v in [*node.inputs, *node.outputs]):
            self._scalar(node, op)
        else:
            self._elementwise(node, op)

    def _feeds_only_raises(self, node: Node) -> bool:
        """Whether every result of `node` (which has no effect) is read only by a `raise` (a
        message, f-string and all) or by nodes read only so: the compiled code raises
        helpers.Rerun there, and the interpreter, running the call again, makes the message."""
        if node.stateful or not node.outputs:
            return False
        for v in node.outputs:
            readers = self.readers.get(id(v), [])
            if not readers or any(
                r is None or not (get_op(r.op).user_error or id(r) in self._skipped)
                for r in readers
            ):
                return False
        return True

    def _constant(self, node: Node, value) -> None:
        if isinstance(value, np.ndarray) and value.ndim:
            arrays.constant(self, node, value)
            return
        slot = _scalar_literal(value)
        if slot is None:
            self.unsupported(node, f"its value {value!r} is no int64, float64 or bool number")
        assert slot is not None
        self.form(node, node.outputs[0])
        self.slots[id(node.outputs[0])] = slot

    def _dimension(self, node: Node, array, axis: int) -> None:
        form = self.form(node, array)
        if not 0 <= axis < form.ndim:
            self.unsupported(node, f"it takes axis {axis} of a {form.ndim}-d array")
        slot = self.define(node, node.outputs[0], f"{self.ref(array)}.shape[{axis}]")
        self.facts[slot.expr] = Fact(0, _DIM_MAX, dim=(self.ref(array), axis))

    def _reduction(self, node: Node, op) -> None:
        x = node.inputs[0]
        form = self.form(node, x)
        # (by identity: `axis=0` equals False, and is an axis)
        if any(v is not None and v is not False for v in node.attrs.values()):
            self.unsupported(node, "only whole-array reductions have a nopython form")
        if len(node.inputs) != 1:
            self.unsupported(node, "only whole-array reductions have a nopython form")
        if form.kind not in op.numba_kinds or form.ndim == 0:
            self.unsupported(
                node, f"its nopython form is NumPy's only on {op.numba_kinds!r} arrays"
            )
        expr = op.numba_expr.format(f"_h.nonempty({self.ref(x)})")
        if self.form(node, node.outputs[0]).kind == "f":
            expr = f"_h.finite_nonzero({expr})"
        self.define(node, node.outputs[0], expr, "True")

    # -- operations on numbers ------------------------------------------------------------
    def _scalar(self, node: Node, op) -> None:
        if len(node.outputs) != 1 or node.attrs:
            self.unsupported(node, "it has no nopython form yet")
        slots = [self.slot(v) for v in node.inputs]
        out = self.form(node, node.outputs[0])
        if out.weak is False and op.logical is None and op.out_ufunc is not None:
            # a NumPy scalar of a ufunc: NumPy's loop
            self.define(node, node.outputs[0], scalar_expr(self, node, op, out), "True")
            return
        if any(s.form.dtype not in PYTHON_DTYPES for s in slots):
            self.unsupported(node, "it mixes Python numbers with NumPy values of another dtype")
        expr = _scalar_expr(self, node, op, slots)
        # (a result of one kind is that kind whatever the operands' kinds: its type says so)
        flag = _flag_union([s.flag for s in slots]) if out.weak is None else str(not out.weak)
        self.define(node, node.outputs[0], expr, flag)

    def _elementwise(self, node: Node, op) -> None:
        if op.out_ufunc is None or node.attrs or len(node.outputs) != 1:
            self.unsupported(node, "it has no nopython form yet")
        out = self.form(node, node.outputs[0])
        link = self._chain_link(node)
        expr = array_expr(self, node, op, out, checked=not link)
        if link and self._inlined(node):
            # (written where it is read: numba fuses a nested expression of ufuncs into one loop)
            self.slots[id(node.outputs[0])] = Slot(expr, out, "True")
            return
        self.define(node, node.outputs[0], expr, "True")

    def _chain_link(self, node: Node) -> bool:
        """Whether the float array result of `node` is read only by ops that give a non-finite
        result for a non-finite operand (OpDef.nan_propagating), whose results hold every
        element of it (of its shape, or of an array and numbers) and are checked: its own
        finiteness check is theirs."""
        readers = self.readers.get(id(node.outputs[0]), [])
        return bool(readers) and all(
            r is not None
            and get_op(r.op).nan_propagating
            and not r.subgraphs
            and _keeps_every_element(node.outputs[0], r)
            for r in readers
        )

    def _inlined(self, node: Node) -> bool:
        """Whether `node`'s result may be written into its one reader's expression: read once,
        later in the same block, with only elementwise ops and constants between (nothing that
        writes an array in place)."""
        readers = self.readers.get(id(node.outputs[0]), [])
        if len(readers) != 1 or readers[0] is None:
            return False
        block = self._block
        start, stop = block.get(id(node)), block.get(id(readers[0]))
        if start is None or stop is None:
            return False
        return all(
            get_op(n.op).out_ufunc is not None or get_op(n.op).constant is not None
            for n in self._block_nodes[start + 1 : stop]
        )

    # -- structured ops (called by their numba_lower hooks) -------------------------------
    def branches(self, node: Node) -> None:
        """A branch op: its first subgraph where the predicate is true, its second elsewhere."""
        op = get_op(node.op)
        assert op.predicate is not None and op.bind_subgraph is not None  # (a branch op's)
        pred = self.slot(node.inputs[op.predicate])
        outs = [self._variable(node, v) for v in node.outputs]
        for k, label in enumerate(op.subgraphs):
            self.emit("if " + pred.expr + ":" if k == 0 else "else:")
            self.indent += 1
            bound = [self.slot(v) for v in op.bind_subgraph(node, label)]
            results = self.subgraph(node.subgraphs[label], bound)
            for target, result in zip(outs, results):
                self._assign(node, target, result)
            self.emit("pass")
            self.indent -= 1
        for v, slot in zip(node.outputs, outs):
            self.slots[id(v)] = slot

    def loop(self, node: Node, num_loop_vars: int, cond: str, body: str) -> None:
        """A while loop: loop variables (the first num_loop_vars inputs: their first values)
        carried through subgraph `body` while subgraph `cond` gives true; captures after."""
        variables = [self._variable(node, v) for v in node.outputs[:num_loop_vars]]
        for target, first in zip(variables, node.inputs[:num_loop_vars]):
            self._assign(node, target, self.slot(first))
        self._copy_at_entry(node, variables)
        captures = [self.slot(v) for v in node.inputs[num_loop_vars:]]
        self.emit("while True:")
        self.indent += 1
        (go,) = self.subgraph(node.subgraphs[cond], variables + captures)
        self.emit(f"if not {go.expr}:")
        self.emit("    break")
        counters = self._counters(node, num_loop_vars, cond, body, variables)
        self.facts.update(counters)
        results = self.subgraph(node.subgraphs[body], variables + captures)
        for name in counters:  # (true in the body only: the loop's outputs are past the bound)
            del self.facts[name]
        temps = [Slot(self.new_name("n"), r.form, self.new_name("m")) for r in results]
        for temp, result in zip(temps, results):  # (all read before any is written)
            self.emit(f"{temp.expr} = {result.expr}")
            self.emit(f"{temp.flag} = {result.flag}")
        for target, temp in zip(variables, temps):
            self._assign(node, target, temp)
        self.indent -= 1
        for v, slot in zip(node.outputs, variables):
            self.slots[id(v)] = slot

    def _copy_at_entry(self, node: Node, variables: list[Slot]) -> None:
        """The loop variables whose first value the loop's body would write into but that are
        not the loop's to write (runtime.inplace): a copy of it."""
        for k in sorted(self.writes.copies_at_entry(node)):
            self.emit(f"{variables[k].expr} = {variables[k].expr}.copy()")

    def _counters(self, node: Node, num: int, cond: str, body: str, variables) -> dict:
        """Facts of the loop's counters in its body: a loop variable `i` from a known start,
        stepped by `i + c` (a literal c > 0) and tested `i < bound` lies in [start, bound)."""
        cond_graph, body_graph = node.subgraphs[cond], node.subgraphs[body]
        test = _producer(cond_graph, cond_graph.outputs[0])
        if test is None or get_op(test.op).python_operator is not operator.lt:
            return {}
        var, bound = test.inputs
        positions = [k for k, v in enumerate(cond_graph.inputs[:num]) if v is var]
        bound_range = self.range_of(bound)
        if not positions or bound_range is None or variables[positions[0]].form.kind != "i":
            return {}
        k = positions[0]
        step = _producer(body_graph, body_graph.outputs[k])
        start = self.range_of(node.inputs[k])
        if step is None or start is None or not _is_increment(step, body_graph.inputs[k]):
            return {}
        if bound_range[1] - 1 + max(i for i in step.inputs if type(i) is int) > _INT64[1]:
            return {}
        below = self.ref(bound)
        return {variables[k].expr: Fact(start[0], max(start[0], bound_range[1] - 1), below)}

    # -- lists (called by the list ops' numba_lower hooks) ------------------------------------
    def list_element(self, node: Node, value: Value) -> Form:
        """The form of the elements of list `value`: its type's, or (a new list, `list[?]`) the
        type of what it becomes where a write or a subgraph first reads it."""
        if value.type.element is not None:
            return self.form(node, value, lists=True)
        for reader in self.readers.get(id(value), []):
            found = _written_form(reader, value)
            if found is not None:
                return found
        self.unsupported(node, "the type of the list's elements is not known")
        raise AssertionError  # (unsupported raises)

    def new_list(self, node: Node, value: Value, form: Form) -> None:
        """An empty list of elements of `form` as `value`."""
        zero = form.dtype.type(0)  # (the elements' type: a Python number's, or the NumPy scalar)
        proto = _literal_slot(zero.item()) if form.weak else _scalar_literal(zero)
        assert proto is not None
        name = self.new_name("l")
        self.emit(f"{name} = _h.empty_list({proto.expr})")
        self.slots[id(value)] = Slot(name, form, "False")

    def inline(self, node: Node, label: str) -> None:
        """The node's results are those of its subgraph `label`, written in place (a `try`
        on the path without an error: an error reruns the call on the interpreter, which runs
        the `except` or `finally` clauses)."""
        op = get_op(node.op)
        assert op.bind_subgraph is not None  # (a structured op's)
        outs = [self._variable(node, v) for v in node.outputs]
        bound = [self.slot(v) for v in op.bind_subgraph(node, label)]
        results = self.subgraph(node.subgraphs[label], bound)
        for target, result in zip(outs, results):
            self._assign(node, target, result)
        for v, slot in zip(node.outputs, outs):
            self.slots[id(v)] = slot

    def _variable(self, node: Node, value: Value) -> Slot:
        form = self.form(node, value, lists=True)
        flag = self.new_name("k") if form.weak is None else ("False" if form.weak else "True")
        return Slot(self.new_name("w"), form, flag)

    def _assign(self, node: Node, target: Slot, source: Slot) -> None:
        if (source.form.kind, source.form.ndim, source.form.is_list) != (
            target.form.kind,
            target.form.ndim,
            target.form.is_list,
        ):
            self.unsupported(node, "a value changes its dtype or rank between paths")
        self.emit(f"{target.expr} = {source.expr}")
        if target.form.weak is None:
            self.emit(f"{target.flag} = {source.flag}")


def _scalar_expr(ctx: Lowering, node: Node, op, slots: list[Slot]) -> str:
    """The checked expression of a scalar op (see the module docstring)."""
    kinds = [s.form.kind for s in slots]
    refs = [s.expr for s in slots]
    if op.logical is not None:
        truths = [f"bool({r})" for r in refs]
        forms = {
            "not": "(not {0})",
            "and": "({0} and {1})",
            "or": "({0} or {1})",
            "xor": "({0} != {1})",
        }
        return forms[op.logical].format(*truths)
    if op.unboxed is None or "b" in kinds and op.unboxed != "compare":
        ctx.unsupported(node, "it has no nopython form yet")
    if op.unboxed == "compare":
        if "f" in kinds:  # (an int compared with a float: exact in Python, rounded in NumPy)
            refs = [f"_h.exact_int({r})" if k == "i" else r for r, k in zip(refs, kinds)]
        return op.python_expr.format(*refs)
    if "f" not in kinds:
        return int64_expr(ctx, node, op, refs)
    return float64_expr(ctx, node, op, refs, slots[0].form.kind)


def _new_list(value) -> bool:
    """Whether `value` is a list of elements of a type not known yet (`list[?]`)."""
    return type(value.type) is ListType and value.type.element is None


def _written_form(reader: Node | None, value: Value) -> Form | None:
    """The list form `value` (a list of unknown elements) has as `reader` takes it: the list
    a write gives, the output of a loop it starts, or the subgraph input it is bound to."""
    if reader is None:
        return None
    op = get_op(reader.op)
    if op.writes_list and reader.inputs and reader.inputs[0] is value:
        return form_of(reader.outputs[0].type)
    if op.output_sources is not None:  # (a loop variable's first value: the loop's output)
        for k, out in enumerate(reader.outputs):
            if type(out.type) is ListType and any(
                label is None and source is value for label, source in op.output_sources(reader, k)
            ):
                return form_of(out.type)
    if op.bind_subgraph is None:
        return None
    for label, graph in reader.subgraphs.items():
        for inner, bound in zip(graph.inputs, op.bind_subgraph(reader, label)):
            if bound is value and type(inner.type) is ListType and inner.type.element is not None:
                return form_of(inner.type)
    return None


def _keeps_every_element(value: Value, reader: Node) -> bool:
    """Whether `reader`'s result holds an element computed from each element of array `value`
    (its other operands numbers, or arrays of one static shape with it: no broadcast against
    an empty axis drops them)."""
    shape = value.type.shape
    known = None not in shape
    for other in reader.inputs:
        if other is value or not isinstance(other, Value):
            continue
        other_shape = getattr(other.type, "shape", None)
        if other_shape is None or (other_shape and (not known or other_shape != shape)):
            return False
    return True


def _producer(graph: Graph, value) -> Node | None:
    """The node of `graph` that gives `value`, or None."""
    for node in graph.nodes:
        if any(out is value for out in node.outputs):
            return node
    return None


def _is_increment(node: Node, var) -> bool:
    """`var + c` or `c + var` for a literal int c > 0."""
    if get_op(node.op).python_operator is not operator.add or len(node.inputs) != 2:
        return False
    a, b = node.inputs
    other = b if a is var else a if b is var else None
    return type(other) is int and other > 0
