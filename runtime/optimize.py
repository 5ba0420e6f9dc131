"""Graph passes run once after tracing: constant folding, common-subexpression and dead-code
elimination. None of them changes results: stateful nodes are never folded, merged or removed."""

from __future__ import annotations

import warnings

import numpy as np

from .analysis import node_uses, replace_uses
from .chunks import LONG_GRAPH, gc_paused
from .fusion import UFUNCS
from .graph import Graph, Node, Value
from .ops.elementwise import PYTHON_OPERATORS
from .options import get_options
from .registry import get_op
from .types import TensorType, kinds, may_be_python_number
from .verify import verify

# Folding makes the result a constant held by the graph: keep big results computed at run time.
MAX_FOLDED_ELEMENTS = 4096


def optimize(graph: Graph, options: dict | None = None) -> Graph:
    """Runs the passes the options enable (runtime.options, read now when not given), then
    checks the result when `verify_graphs` is on."""
    if options is None:
        options = get_options()
    with gc_paused(len(graph.nodes) > LONG_GRAPH):
        _optimize(graph, options)
    return graph


def _optimize(graph: Graph, options: dict) -> None:
    if options["constant_folding"]:
        fold_constants(graph)
    if options["arithmetic_simplification"]:
        remove_identities(graph)
        swap_negated_conds(graph)
    if options["common_subexpression_elimination"]:
        eliminate_common_subexpressions(graph)
    if options["dead_code_elimination"]:
        eliminate_dead_code(graph)
    if options.get("verify_graphs"):
        verify(graph)


def _is_pure(node: Node) -> bool:
    return not node.subgraphs and not node.stateful


def fold_constants(graph: Graph) -> None:  # noqa: C901
    """Evaluates pure nodes whose inputs are all constants or literals, once, at trace time."""
    constants: dict[Value, object] = {}  # outputs of const nodes and of folded nodes -> value
    mapping: dict[Value, Value] = {}

    def visit(g: Graph):
        new_nodes = []
        for node in g.nodes:
            if node.op == "const":
                constants[node.outputs[0]] = node.attrs["value"]
            elif node.inputs and _is_pure(node):
                for v in node.inputs:
                    if isinstance(v, Value) and v not in constants:
                        break
                else:  # every input a constant or a literal
                    folded = _evaluate(node, constants)
                    if folded is not None:
                        for out, value in zip(node.outputs, folded):
                            const = Node("const", [], {"value": value}, [out.type], node.location)
                            new_nodes.append(const)
                            constants[out] = value
                            mapping[out] = const.outputs[0]
                        continue
            if node.subgraphs:
                for sub in node.subgraphs.values():
                    visit(sub)
            new_nodes.append(node)
        g.nodes = new_nodes

    visit(graph)
    replace_uses(graph, mapping)


def _evaluate(node: Node, constants) -> list | None:
    op = get_op(node.op)
    args = [constants[v] if isinstance(v, Value) else v for v in node.inputs]
    weak = any(getattr(v.type, "weak", False) for v in node.outputs)
    # a node with weak outputs computes as Python's operator does (what the executor emits)
    kernel = PYTHON_OPERATORS.get(node.op) if weak else op.kernel(node.attrs)
    if kernel is None:
        return None
    try:
        with warnings.catch_warnings(), np.errstate(all="raise"):
            warnings.simplefilter("error")
            result = kernel(*args)
    except Exception:  # leave it to run time, where the error names the node
        return None
    results = [result] if op.num_outputs == 1 else list(result)
    if len(results) != len(node.outputs):
        return None
    out = []
    for value, v in zip(results, node.outputs):
        if getattr(v.type, "weak", False):
            if type(value) is not v.type.python_type:
                return None
            out.append(value)
            continue
        if not isinstance(value, (np.ndarray, np.generic)) or np.size(value) > MAX_FOLDED_ELEMENTS:
            return None
        if not v.type.accepts_shape(np.shape(value)) or np.asarray(value).dtype != v.type.dtype:
            return None
        if isinstance(value, np.ndarray):
            value = value.copy()
            value.setflags(write=False)
        out.append(value)
    return out


# (op, literal position, literal) -> dtype kinds for which the node returns its other input
# unchanged, bit for bit. `x + 0.0` is not one (-0.0 + 0.0 is +0.0), nor `x // 1.0` (floor).
_IDENTITIES = {
    ("add", 1, 0): "iu",
    ("add", 0, 0): "iu",
    ("subtract", 1, 0): "iuf",
    ("multiply", 1, 1): "iuf",
    ("multiply", 0, 1): "iuf",
    ("floor_divide", 1, 1): "iu",
    ("divide", 1, 1): "f",
}


def _escaping(g: Graph) -> set[int]:
    """Ids of the values of `g` whose array object may be seen outside a pure computation: the
    graph's outputs, and what views (may_alias_input), stateful and structured nodes read."""
    out = {id(v) for v in g.outputs if isinstance(v, Value)}
    for node in g.nodes:
        op = get_op(node.op)
        if node.subgraphs or node.stateful or op.may_alias_input or op.may_alias_state:
            out.update(id(v) for v in node_uses(node) if isinstance(v, Value))
    return out


def remove_identities(graph: Graph) -> None:  # noqa: C901, PLR0915
    """Drops `x + 0`, `x - 0`, `x * 1`, `x // 1` (ints) and `x / 1` (floats) when the result
    has x's exact type: the value is x itself. NumPy gives a new array there, so only results
    that stay inside the graph's arithmetic are dropped: a result that is returned, viewed,
    stored or passed to a structured op keeps its node (else the caller's `y = f(x)` would be
    `x` itself, and `y[0] = 99` would change `x`). Python numbers (weak types) are immutable:
    their identities are always dropped. A 0-d x qualifies only where a 0-d array and a NumPy
    scalar are interchangeable (a ufunc turns a 0-d array, such as an input or np.where's result,
    into a scalar): x is known to be a scalar, or every reader of the result is a ufunc."""
    mapping: dict[Value, Value] = {}
    scalars: set[int] = set()  # 0-d values that ufuncs made: NumPy scalars at run time
    # id(value) -> the op reading it ("" for a graph's output), or the set of them when several
    # (a string for most: no container per value)
    readers: dict[int, str | set] = {}

    def read(v, op: str):
        known = readers.get(id(v))
        if known is None:
            readers[id(v)] = op
        elif type(known) is set:
            known.add(op)
        elif known != op:
            readers[id(v)] = {known, op}

    def scan(g: Graph):
        for node in g.nodes:
            op = node.op
            for v in node.inputs:
                if isinstance(v, Value):
                    known = readers.get(id(v))  # (read(v, op), inline)
                    if known is None:
                        readers[id(v)] = op
                    elif type(known) is set:
                        known.add(op)
                    elif known != op:
                        readers[id(v)] = {known, op}
            if node.subgraphs:
                for sub in node.subgraphs.values():
                    scan(sub)
        for v in g.outputs:
            read(v, "")

    def interchangeable(x: Value, result: Value) -> bool:
        ops = readers.get(id(result), ())
        return (
            x.type.ndim != 0
            or x.type.weak
            or id(x) in scalars
            or all(op in UFUNCS for op in ((ops,) if type(ops) is str else ops))
        )

    def visit(g: Graph):
        kept = []
        escaping = _escaping(g)
        for node in g.nodes:
            if node.op in UFUNCS:
                if len(node.outputs) == 1:
                    scalars.add(id(node.outputs[0]))
                else:
                    scalars.update(id(v) for v in node.outputs)
            if node.subgraphs:
                for sub in node.subgraphs.values():
                    visit(sub)
            if len(node.inputs) == 2 and not node.attrs and len(node.outputs) == 1:
                for pos in (0, 1):
                    lit, other = node.inputs[pos], node.inputs[1 - pos]
                    if type(lit) not in (int, float) or not isinstance(other, Value):
                        continue
                    kinds = _IDENTITIES.get((node.op, pos, lit))
                    x = mapping.get(other, other)  # x may be dropped too
                    if (
                        kinds
                        and type(other.type) is TensorType  # (one kind: see runtime.types)
                        and other.type == node.outputs[0].type
                        and other.type.dtype.kind in kinds
                        and (
                            other.type.weak
                            or (
                                id(node.outputs[0]) not in escaping
                                and interchangeable(x, node.outputs[0])
                            )
                        )
                    ):
                        mapping[node.outputs[0]] = x
                        break
                else:
                    kept.append(node)
                    continue
                continue
            kept.append(node)
        g.nodes = kept

    scan(graph)
    visit(graph)
    replace_uses(graph, mapping)


def swap_negated_conds(graph: Graph) -> None:
    """`cond(logical_not(p), A, B)` becomes `cond(p, B, A)` for a bool scalar p (what
    `if not p` and `if c: continue` give): one op less on every pass through the branch."""
    for node in graph.nodes:
        for sub in node.subgraphs.values():
            swap_negated_conds(sub)
        while node.op == "cond" and isinstance(node.inputs[0], Value):  # `not not p` too
            negation = node.inputs[0].producer
            if negation is None or negation.op != "logical_not" or negation.attrs:
                break
            p = negation.inputs[0]
            if (
                not isinstance(p, Value) or p.type != node.inputs[0].type
            ):  # a bool scalar, as the predicate
                break
            node.inputs = [p, *node.inputs[1:]]
            node.subgraphs = {"then": node.subgraphs["else"], "else": node.subgraphs["then"]}


def _attr_key(value):
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, np.generic):
        return ("scalar", value.dtype.str, value.tobytes())
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(_attr_key(v) for v in value)
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return (type(value).__name__, value)


def _literal_key(value):
    return (
        (type(value).__name__, value)
        if not isinstance(value, float) or value == value
        else ("nan",)
    )


def eliminate_common_subexpressions(graph: Graph) -> None:
    """Merges pure nodes with the same op, inputs and attributes (constants by value).
    Subgraphs are handled on their own (no merging across a control-flow boundary)."""
    mapping: dict[Value, Value] = {}  # output of a dropped node -> the same output of its twin

    def visit(g: Graph):
        seen: dict = {}
        kept = []
        for node in g.nodes:
            if node.subgraphs:
                for sub in node.subgraphs.values():
                    visit(sub)
            if not node.subgraphs and not node.stateful:  # (_is_pure)
                # one flat tuple of strings, numbers and tuples of them (which the garbage
                # collector stops tracking): a Value is its id (an int: never a literal's key,
                # a tuple; the values outlive the pass, so their ids stay theirs)
                key = (
                    node.op,
                    len(node.inputs),
                    *[
                        id(mapping.get(v, v)) if type(v) is Value else _literal_key(v)
                        for v in node.inputs
                    ],
                    tuple(sorted((k, _attr_key(v)) for k, v in node.attrs.items()))
                    if node.attrs
                    else (),
                )
                hit = seen.get(key)
                if hit is not None and len(hit.outputs) == len(node.outputs):
                    mapping.update(zip(node.outputs, hit.outputs))
                    continue
                seen[key] = node
            kept.append(node)
        g.nodes = kept

    visit(graph)
    replace_uses(graph, mapping)


_PYTHON_DIVISIONS = frozenset(("divide", "floor_divide", "remainder", "divmod", "power", "pow"))


def _may_raise_unused(node: Node, memo: dict | None = None) -> bool:
    """A division (or power) of Python numbers known only at run time: Python raises
    ZeroDivisionError where NumPy would warn, and the eager code raises it even when nothing
    reads the result, so the node stays (a nonzero literal divisor or a non-negative
    literal exponent cannot raise); so does a ufunc of such a Python int and a NumPy integer,
    one number written into an integer array that may not hold it, and a cond or loop holding
    one."""
    if node.subgraphs:
        memo = {} if memo is None else memo
        if id(node) not in memo:
            memo[id(node)] = any(
                _may_raise_unused(n, memo) for g in node.subgraphs.values() for n in g.nodes
            )
        return memo[id(node)]
    if (
        node.op == "astype"
        and node.attrs.get("scalar")
        and may_be_python_number(getattr(node.inputs[0], "type", None))
    ):
        return True  # np.uint8(n) of a Python number known at run time: OverflowError where it does not fit
    if node.op == "setitem" and _scalar_write_may_raise(node.inputs[0], node.inputs[1]):
        return True  # one number written into an integer array: NaN, inf or out of range raises
    if len(node.inputs) == 2 and node.op in UFUNCS and _mixes_python_int_and_integer(node.inputs):
        return True  # NEP 50: a Python int that does not fit the integer dtype is an OverflowError
    if node.op not in _PYTHON_DIVISIONS or len(node.inputs) != 2:
        return False
    if not all(
        type(v) in (bool, int, float, complex) or may_be_python_number(getattr(v, "type", None))
        for v in node.inputs
    ):
        return False
    right = node.inputs[1]
    if type(right) in (int, float, complex):
        return right == 0 if node.op not in ("power", "pow") else right < 0
    return True


def _scalar_write_may_raise(target, value) -> bool:
    """`target[i] = value` of one number into an integer array: a float (NaN and inf raise) or an
    integer of a wider dtype (one out of the target's range raises OverflowError)."""
    if _kind_of(target) not in "iu" or getattr(getattr(value, "type", None), "shape", ()) != ():
        return False
    kind = _kind_of(value)
    if kind in "fc":
        return True
    return (
        kind in "iu"
        and hasattr(value, "type")
        and not np.can_cast(value.type.dtype, target.type.dtype)
    )


def _kind_of(value) -> str:
    """The dtype kind of a node input ('f' for a Python float), or '?'."""
    t = getattr(value, "type", None)
    if t is None:
        return {float: "f", complex: "c", int: "i", bool: "b"}.get(type(value), "?")
    return getattr(getattr(t, "dtype", None), "kind", "?")


def _mixes_python_int_and_integer(inputs) -> bool:
    found = [k for v in inputs for k in kinds(getattr(v, "type", None)) if type(k) is TensorType]
    return any(k.weak and k.dtype.kind == "i" for k in found) and any(
        not k.weak and k.dtype.kind in "iu" for k in found
    )


def eliminate_dead_code(graph: Graph, _memo: dict | None = None) -> None:
    """Removes nodes whose outputs nothing uses, in this graph and its subgraphs."""
    memo = {} if _memo is None else _memo
    live: set[int] = {id(v) for v in graph.outputs if isinstance(v, Value)}
    kept = []
    for node in reversed(graph.nodes):
        outputs = node.outputs
        if (
            (id(outputs[0]) in live if len(outputs) == 1 else any(id(v) in live for v in outputs))
            or node.stateful
            or _may_raise_unused(node, memo)
        ):
            if node.subgraphs:
                for sub in node.subgraphs.values():
                    eliminate_dead_code(sub, memo)
                uses = node_uses(node)
            else:
                uses = node.inputs  # (node_uses, without the copy)
            kept.append(node)
            for v in uses:
                if isinstance(v, Value):
                    live.add(id(v))
    kept.reverse()
    graph.nodes = kept
