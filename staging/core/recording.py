"""The graph under construction while tracing, and `record`, which adds one node to it."""

from __future__ import annotations

import math
import sys
import threading

import numpy as np

from runtime import Graph, Node, TensorType, Value
from runtime._compat import add_note
from runtime.chunks import LONG_GRAPH, pause_gc, resume_gc
from runtime.headroom import more_frames
from runtime.ops.random import GeneratorType
from runtime.registry import (
    TooManyKindsError,
    UnknownOpError,
    UnstagedNoneError,
    get_op,
    infer_kinds,
    infer_types,
)
from runtime.types import (
    NONE,
    STR,
    TupleType,
    TypeJoinError,
    UnionType,
    kinds,
    may_be_none,
    optional_tuple_kind,
    union_of,
)
from staging import errors
from staging.core import source_map
from staging.core.generators import SymbolicGenerator
from staging.core.source_map import where
from staging.core.tensor import Tensor, has_staged_value, leaked_error, symbolic

_state = threading.local()


class FuncGraph:
    """A Graph being built by a trace, with captures of tensors from enclosing graphs.

    `outer` is the graph this one is nested in (a cond branch or loop body is
    nested in the graph that records the cond/while node); a tensor of an
    enclosing graph used here becomes a captured input.
    """

    def __init__(self, name: str, outer: "FuncGraph | None" = None):
        self.graph = Graph(name)
        self.outer = outer
        self.captures: dict[
            int, tuple[Value, Value]
        ] = {}  # id(outer value) -> (outer value, inner input)
        self.closed = False
        self.scope = (
            None  # the np.errstate settings the nodes recorded now run under (runtime.graph.Node)
        )
        self.function_name = name
        # Facts about the whole trace (this graph and the graphs nested in it), shared by them:
        # once an in-place write happened, "check_use" (staging.state.aliasing) vets every use.
        self.trace_state: dict = outer.trace_state if outer is not None else {}
        # the NumPy print options when the trace began (staging.core.strings.printoptions_delta)
        self.printoptions = outer.printoptions if outer is not None else np.get_printoptions()
        # Values known not to be None in this graph and the graphs nested in it (a branch of
        # `if x is not None`), by id of their root (see root): a capture of one is seen without
        # its None kind, through a `not_none` node
        self.not_none: dict[int, Value] = {}
        self._narrowed: dict[int, Value] = {}  # id(outer value) -> its not_none capture
        self._outer_of: dict[int, Value] = {}  # id(capture or not_none) -> the outer value
        # how many branches or loop bodies this graph is nested in (0: a function's own graph)
        self.depth: int = outer.depth + 1 if outer is not None else 0

    @property
    def name(self):
        return self.graph.name

    def add_input(self, type_, name: str = ""):
        value = self.graph.add_input(type_, name)
        return (
            SymbolicGenerator(self, value)
            if isinstance(type_, GeneratorType)
            else symbolic(self, value)
        )

    def value_of(self, tensor) -> Value:
        """The Value standing for `tensor` in this graph, capturing it from an enclosing graph if needed."""
        if self.trace_state and tensor._graph.trace_state is self.trace_state:
            check = self.trace_state.get("check_use")
            if check is not None:
                check(tensor)  # stale aliases of written arrays raise
        owner = tensor._graph
        if owner is self:
            return tensor._value
        if owner.closed:
            raise leaked_error(tensor)
        if self.outer is None or not self._encloses(owner):
            raise errors.LeakedTensorError(
                f"{where()}symbolic tensor {tensor._describe()} belongs to another trace "
                f"({owner.function_name!r}) and cannot be used in {self.function_name!r}; pass it as "
                f"an argument instead of closing over it"
            )
        outer_value = self.outer.value_of(tensor)
        inner = self.capture_value(outer_value)
        if self.not_none and may_be_none(inner.type) and self.knows_not_none(tensor):
            return self._without_none(outer_value, inner)
        return inner

    def _without_none(self, outer_value: Value, inner: Value) -> Value:
        """The capture `inner` of a value this graph knows is not None, seen without its None
        kind (one `not_none` node per value)."""
        narrowed = self._narrowed.get(id(outer_value))
        if narrowed is None:
            with building(self):
                narrowed = record("not_none", [symbolic(self, inner)])._value
            self._narrowed[id(outer_value)] = narrowed
            self._outer_of[id(narrowed)] = outer_value
        return narrowed

    def root(self, value: Value) -> Value:
        """The value `value` (of this graph) stands for in the outermost graph: what a capture
        or a not_none node of it was made from, and so on outwards."""
        graph = self
        while graph is not None:
            outer_value = graph._outer_of.get(id(value))
            if outer_value is None:
                return value
            value, graph = outer_value, graph.outer
        return value

    def knows_not_none(self, tensor) -> bool:
        """Whether `tensor`'s value is known not to be None here (this graph or an enclosing one
        is a branch that runs only when it is not)."""
        key = id(tensor._graph.root(tensor._value))
        graph = self
        while graph is not None:
            if key in graph.not_none:
                return True
            graph = graph.outer
        return False

    def exclude_none(self, value: Value) -> None:
        """Makes `value` (of the enclosing graph) known not to be None in this graph."""
        root = self.outer.root(value)
        self.not_none[id(root)] = root

    def capture_value(self, outer_value: Value) -> Value:
        hit = self.captures.get(id(outer_value))
        if hit is not None:
            return hit[1]
        inner = self.graph.add_input(outer_value.type, "capture")
        self.captures[id(outer_value)] = (outer_value, inner)
        self._outer_of[id(inner)] = outer_value
        return inner

    def _encloses(self, other: "FuncGraph") -> bool:
        g = self.outer
        while g is not None:
            if g is other:
                return True
            g = g.outer
        return False


def seen_type(tensor):
    """`tensor`'s type as the code being traced sees it: without the None kind in a branch that
    runs only when it is not None (`if x is not None: x.shape`)."""
    t = tensor.type
    graph = current_graph()
    if graph is None or not may_be_none(t) or not graph.knows_not_none(tensor):
        return t
    return union_of(k for k in kinds(t) if k is not NONE)


def _stack() -> list:
    stack = getattr(_state, "stack", None)
    if stack is None:
        stack = _state.stack = []
    return stack


def current_graph() -> FuncGraph | None:
    stack = getattr(_state, "stack", None)
    return stack[-1] if stack else None


# Frames granted to each graph built inside another (runtime.headroom): what tracing adds per
# nested graph (about 6: a branch or body traced inside the one around it, as an `elif` chain on
# symbolic conditions nests), with room to spare; the code traced inside has the room it has
# eagerly. Refused (the stack would run out, or the graph passes): branches and loop bodies
# nested in one function deeper than MAX_NESTED_CONTROL_FLOW, and graphs built one inside
# another (those and staged functions, each traced inside the one calling it) deeper than
# MAX_NESTED_GRAPHS.
NESTED_GRAPH_FRAMES = 10
MAX_NESTED_CONTROL_FLOW = 1000
MAX_NESTED_GRAPHS = 2500


class building:
    """Context manager making `graph` the current graph (thread-local). A graph built inside
    another is granted the frames its trace adds (refused when nested too deeply)."""

    __slots__ = ("graph", "grant")

    def __init__(self, graph: FuncGraph):
        self.graph = graph
        self.grant = None

    def __enter__(self):
        stack = _stack()
        if stack:
            _check_nesting(self.graph, len(stack) + 1)
            self.grant = more_frames(NESTED_GRAPH_FRAMES)
            self.grant.__enter__()
        stack.append(self.graph)
        return self.graph

    def __exit__(self, *exc):
        stack = _stack()
        stack.pop()
        if self.grant is not None:
            self.grant.__exit__(*exc)
            self.grant = None
        if not stack and getattr(_state, "gc_paused", False):
            _state.gc_paused = False
            resume_gc()
        return False


def _check_nesting(graph: FuncGraph, graphs: int) -> None:
    """Refuses building `graph`, the `graphs`-th graph built one inside another, when nested
    too deeply (naming the user's line)."""
    if graph.depth > MAX_NESTED_CONTROL_FLOW:
        root = graph
        while root.outer is not None:
            root = root.outer
        what = (
            f"{graph.depth} branches or loop bodies, each inside the one before, in "
            f"{root.function_name!r}; the limit is {MAX_NESTED_CONTROL_FLOW}"
        )
    elif graphs > MAX_NESTED_GRAPHS:
        what = (
            f"{graphs} graphs, each a branch, loop body or staged function traced inside the "
            f"one around it; the limit is {MAX_NESTED_GRAPHS}"
        )
    else:
        return
    raise errors.NestingTooDeepError(
        f"{where()}staged code is nested too deeply here ({what}). Write a long chain of cases "
        f"on symbolic conditions as a lookup (np.select, indexing into an array of results) or "
        f"a loop, and call staged functions one after another rather than each from the next"
    )


def _pause_gc_for_long_trace() -> None:
    """A trace that has recorded LONG_GRAPH nodes in one graph pauses the garbage collector
    until its outermost `building` ends (runtime.chunks.pause_gc: the collector would walk
    the growing graph again and again)."""
    if getattr(_state, "stack", None) and not getattr(_state, "gc_paused", False):
        _state.gc_paused = True
        pause_gc()


def node_count() -> int:
    """How many nodes the current graph has (0 outside a trace): a mark for drop_effects_since."""
    fg = current_graph()
    return len(fg.graph.nodes) if fg is not None else 0


def drop_effects_since(mark: int) -> None:
    """Drops the stateful nodes (draws, prints, py_functions, ...) recorded in the current graph
    after its first `mark` nodes, and the nodes that use their results. For code traced twice
    whose first trace only told whether it is symbolic (the test of a `while` loop that turns out
    to be staged, traced again as the loop's condition): it must not run once more."""
    fg = current_graph()
    if fg is None or len(fg.graph.nodes) <= mark:
        return
    dropped: set[int] = set()
    kept = fg.graph.nodes[:mark]
    for node in fg.graph.nodes[mark:]:
        if node.stateful or any(isinstance(v, Value) and id(v) in dropped for v in node.inputs):
            dropped.update(id(v) for v in node.outputs)
        else:
            kept.append(node)
    fg.graph.nodes = kept


def user_location():
    return source_map.user_location(2)


_SCALAR_LITERALS = (bool, int, float, complex)


def to_value(graph: FuncGraph, item, op_name: str = "") -> Value | object:
    """A node input for `item`: a Value, or a Python scalar kept as a weak literal."""
    if isinstance(item, Tensor):
        return graph.value_of(item)
    if isinstance(item, Value):  # already a value of `graph` (control-flow operands)
        return item
    t = type(item)
    if t in _SCALAR_LITERALS:
        return item
    if isinstance(item, (np.ndarray, np.generic)):
        return constant_value(graph, item)
    if has_staged_value(item):  # Variables
        return graph.value_of(item._staged_value())
    raise errors.UnsupportedOpError(
        f"{where()}op {op_name!r} cannot take a {type(item).__name__} ({item!r:.60}) as an input; "
        f"only arrays, numbers and symbolic tensors can be staged"
    )


def _with_location(exc: BaseException, prefix: str) -> BaseException:
    """`exc` (an op's rule refusing its inputs: the error eager NumPy raises there) with the
    user's file:line and the op (`prefix`) as a note: its message, arguments and attributes are
    eager's own."""
    add_note(exc, prefix.rstrip(": ") + ": raised while staging this op")
    return exc


def constant_value(graph: FuncGraph, array) -> Value:
    if isinstance(array, np.ndarray) and array.dtype.hasobject:
        raise errors.UnsupportedOpError(f"{where()}object arrays cannot be staged")
    if isinstance(array, np.ndarray):
        array = array.copy()
        array.setflags(write=False)
    node = Node("const", [], {"value": array}, [TensorType.of(array)], user_location())
    graph.graph.add_node(node)
    return node.outputs[0]


# (op, input types and literals) -> output types, for ops without attrs: the rules are pure
# functions of these, and a long program applies the same few over and over. Bounded.
_INFERRED: dict = {}
_MAX_INFERRED = 4096


def _infer(op, in_types: list, attrs):
    """infer_types(op, in_types, attrs), remembered for inputs that are TensorTypes and Python
    numbers (keyed by type and value: 1, 1.0 and True differ, and so do 0.0 and -0.0)."""
    key = None
    if not attrs:
        key = [op]
        for t in in_types:
            kind = type(t)
            if kind is TensorType:
                key.append(t)
            elif kind is float:
                key.append((float, t, math.copysign(1.0, t)))
            elif kind is int or kind is bool:
                key.append((kind, t))
            else:
                key = None
                break
        if key is not None:
            key = tuple(key)
            known = _INFERRED.get(key)
            if known is not None:
                return known
    out = infer_types(op, in_types, attrs)
    if key is not None:
        if len(_INFERRED) >= _MAX_INFERRED:
            _INFERRED.clear()
        _INFERRED[key] = out
    return out


def record(
    op_name: str,
    inputs,
    attrs=None,
    *,
    graph: FuncGraph | None = None,
    subgraphs=None,
    output_types=None,
):
    """Adds one `op_name` node to the current graph; returns its symbolic output(s).

    Returns a Tensor for single-output ops, a tuple of Tensors otherwise
    (an empty tuple for ops without outputs). `output_types`, when given, are the node's
    output types (structured ops, whose types follow from their subgraphs); otherwise the op's
    rule gives them, kind by kind for inputs that may be of several (runtime.registry).
    """
    fg = graph if graph is not None else current_graph()
    if fg is None:
        for item in inputs:
            if isinstance(item, Tensor):
                raise leaked_error(item)
        raise errors.StagingError(f"{where()}op {op_name!r} was recorded outside of any trace")
    attrs = attrs or {}
    values = [
        fg.value_of(item) if type(item) is Tensor else to_value(fg, item, op_name)
        for item in inputs
    ]
    if output_types is None:
        op = _op_named(op_name)
        output_types = _output_types(fg, op, values, attrs)
        single = op.num_outputs == 1
    else:
        single = False
    found = source_map._find_user_frame(sys._getframe())  # (user_location(), inline)
    node = Node(op_name, values, attrs, output_types, found[1] if found else None, subgraphs)
    if fg.scope is not None and node.opdef.constant is None:  # (a constant cannot raise)
        node.set_scope(fg.scope)
    nodes = fg.graph.nodes
    nodes.append(node)
    if len(nodes) == LONG_GRAPH:
        _pause_gc_for_long_trace()
    if single and len(node.outputs) == 1:
        return symbolic(fg, node.outputs[0])
    outs = tuple(symbolic(fg, v) for v in node.outputs)
    return outs[0] if single else outs


def _op_named(op_name: str):
    try:
        return get_op(op_name)
    except UnknownOpError:
        raise errors.UnsupportedOpError(
            f"{where()}no staged op {op_name!r}; wrap the computation in staging.py_function"
        ) from None


_RULE_ERRORS = (ValueError, TypeError, IndexError, ArithmeticError, LookupError)


def _str_on_some_paths(t) -> bool:
    """A union holding the str kind, or a str a branch found it to be (`if s is not None:`),
    which the Tensor its code holds computes on as an array."""
    return t is STR or (type(t) is UnionType and STR in t.alternatives)


def _optional_tuple(v) -> bool:
    """A value that is a tuple on some paths and None on the others, or a tuple made from such
    a value (where a staged `if` found it is not None: a `not_none` of it)."""
    if not isinstance(v, Value):
        return False
    t = v.type
    if type(t) is UnionType:
        return optional_tuple_kind(t) is not None
    return (
        type(t) is TupleType
        and v.producer is not None
        and any(_optional_tuple(i) for i in v.producer.inputs)
    )


def _check_tuples(op, values) -> None:
    """Refuses an op that does not take tuples (OpDef.takes_tuples) on a value that is a tuple
    on some paths and None on others: NumPy would make an array of the tuple."""
    if not op.takes_tuples and any(_optional_tuple(v) for v in values):
        raise errors.BranchMismatchError(
            f"{where()}{op.name}: an input is a tuple on some paths and None on others, which "
            f"this op does not take as staged (such a value is tested with `is None` / `is not "
            f"None`, indexed by a number, unpacked and returned); give it one type on every path"
        )


def _output_types(fg: FuncGraph, op, values, attrs) -> tuple:
    """The op's output types for inputs `values` (Values and Python literals). For inputs that
    are of several kinds (a Python number on some paths), each combination of kinds is a run
    of the rule (runtime.registry.infer_kinds); a combination the rule refuses is a path on
    which the op raises when the graph runs, as eagerly."""
    in_types = [v.type if isinstance(v, Value) else v for v in values]
    _check_tuples(op, values)
    try:
        if not any(type(t) is UnionType for t in in_types):
            return _infer(op, in_types, attrs)
        groups = [id(v) for v in values]
        output_types, failures = infer_kinds(op, in_types, attrs, groups, _infer)
        if failures:  # it raises on some paths when the graph runs (staging.control_flow.raising)
            fg.trace_state["deferred"] = True
        return output_types
    except TooManyKindsError as exc:
        raise errors.BranchMismatchError(f"{where()}{op.name}: {exc}") from None
    except UnstagedNoneError:
        raise errors.BranchMismatchError(
            f"{where()}{op.name}: an input is None on some path, and what this op makes of None "
            f"is not staged; give the value a number or an array on every path"
        ) from None
    except TypeJoinError as exc:
        raise errors.BranchMismatchError(
            f"{where()}{op.name}: its result would be of kinds that one value cannot have: {exc}"
        ) from None
    except _RULE_ERRORS as exc:
        if isinstance(exc, errors.StagingError):
            raise
        if any(_str_on_some_paths(t) for t in in_types):
            raise errors.BranchMismatchError(
                f"{where()}{op.name}: an input is a str on some paths and not on others, which "
                f"this op does not take as staged; give the value one type on every path"
            ) from None
        located = _with_location(exc, f"{where()}{op.name}: ")
        if located is exc:
            raise
        raise located from None


def check(condition, message: str, error: type) -> None:
    """A staged check of the staging layer itself: when the graph runs and `condition` (a
    symbolic bool scalar) is false, it raises `error(message)` (message: with the user's line)."""
    record("assert", [condition], {"parts": (message,), "error": error})
