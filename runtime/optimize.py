"""Graph passes run once after tracing: constant folding, common-subexpression and dead-code
elimination. None of them changes results: stateful nodes are never folded, merged or removed."""

from __future__ import annotations

import warnings

import numpy as np

from .analysis import node_uses, replace_uses
from .chunks import LONG_GRAPH, gc_paused
from .core_ops import constant_node
from .graph import Graph, Node, Value
from .options import get_options
from .registry import get_op, infer_kinds
from .types import TensorType, UnionType
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
    inline_subgraphs(graph)  # (always: such a node is a form of tracing, not of the graph)
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


def inline_subgraphs(graph: Graph) -> None:
    """Puts in place of each node whose op runs one of its subgraphs once, as it is
    (OpDef.inline_subgraph: a staged `try` none of whose clauses can catch what its body
    raises), that subgraph's nodes, in this graph and its subgraphs."""
    mapping: dict[Value, object] = {}

    def visit(g: Graph):
        nodes = []
        for node in g.nodes:
            for sub in node.subgraphs.values():
                visit(sub)
            inline = get_op(node.op).inline_subgraph
            label = inline(node) if inline is not None else None
            if label is None:
                nodes.append(node)
            else:
                nodes.extend(_inlined(node, label, mapping))
        g.nodes = nodes

    visit(graph)
    if mapping:
        for v, x in list(mapping.items()):  # (chains: an inlined node's output read by another)
            while isinstance(x, Value) and x in mapping:
                x = mapping[x]
            mapping[v] = x
        replace_uses(graph, mapping)


def _inlined(node: Node, label: str, mapping: dict) -> list[Node]:
    """The nodes of subgraph `label` of `node`, reading what the node binds to its inputs;
    `mapping` gets each output of the node -> the value the subgraph gives for it."""
    sub = node.subgraphs[label]
    bind = get_op(node.op).bind_subgraph
    assert bind is not None  # (an op with subgraphs binds them)
    bound = dict(zip(map(id, sub.inputs), bind(node, label)))
    for inner in sub.nodes:
        inner.inputs = [bound.get(id(v), v) if isinstance(v, Value) else v for v in inner.inputs]
        if node.scope is not None and inner.scope is None:
            inner.set_scope(node.scope)
    for out, value in zip(node.outputs, sub.outputs):
        mapping[out] = bound.get(id(value), value) if isinstance(value, Value) else value
    return list(sub.nodes)


def _is_pure(node: Node) -> bool:
    return not node.subgraphs and not node.stateful


def fold_constants(graph: Graph) -> None:
    """Evaluates pure nodes whose inputs are all constants or literals, once, at trace time."""
    constants: dict[Value, object] = {}  # outputs of const nodes and of folded nodes -> value
    mapping: dict[Value, Value] = {}

    def visit(g: Graph):
        new_nodes = []
        for node in g.nodes:
            constant = get_op(node.op).constant
            if constant is not None:
                constants[node.outputs[0]] = constant(node)
            elif node.inputs and _is_pure(node) and _all_known(node.inputs, constants):
                folded = _evaluate(node, constants)
                if folded is not None:
                    for out, value in zip(node.outputs, folded):
                        const = constant_node(value, out.type, node.location)
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


def _all_known(inputs, constants) -> bool:
    """Every input a constant or a literal."""
    return all(not isinstance(v, Value) or v in constants for v in inputs)


def _evaluate(node: Node, constants) -> list | None:
    op = get_op(node.op)
    args = [constants[v] if isinstance(v, Value) else v for v in node.inputs]
    weak = any(getattr(v.type, "weak", False) for v in node.outputs)
    # a node with weak outputs computes as Python's operator does (what the executor emits)
    kernel = op.python_operator if weak else op.kernel(node.attrs)
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


def _identity_kinds(op, position: int, literal) -> str:
    """The dtype kinds for which a node of `op` with the Python number `literal` at input
    `position` gives its other input unchanged, bit for bit (OpDef.identities)."""
    for at, value, kinds in op.identities:
        if at == position and value == literal:
            return kinds
    return ""


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
            or all(_is_ufunc(op) for op in ((ops,) if type(ops) is str else ops))
        )

    def visit(g: Graph):
        kept = []
        escaping = _escaping(g)
        for node in g.nodes:
            op = get_op(node.op)
            if op.out_ufunc is not None:
                if len(node.outputs) == 1:
                    scalars.add(id(node.outputs[0]))
                else:
                    scalars.update(id(v) for v in node.outputs)
            if node.subgraphs:
                for sub in node.subgraphs.values():
                    visit(sub)
            if (
                op.identities
                and len(node.inputs) == 2
                and not node.attrs
                and len(node.outputs) == 1
            ):
                for pos in (0, 1):
                    lit, other = node.inputs[pos], node.inputs[1 - pos]
                    if type(lit) not in (int, float) or not isinstance(other, Value):
                        continue
                    kinds = _identity_kinds(op, pos, lit)
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
    `if not p` and `if c: continue` give): one op less on every pass through the branch. (Any
    branch op: OpDef.predicate, swap_branches.)"""
    for node in graph.nodes:
        for sub in node.subgraphs.values():
            swap_negated_conds(sub)
        op = get_op(node.op)
        if op.predicate is None or op.swap_branches is None:
            continue
        k = op.predicate
        while isinstance(node.inputs[k], Value):  # `not not p` too
            negation = node.inputs[k].producer
            if negation is None or get_op(negation.op).logical != "not" or negation.attrs:
                break
            p = negation.inputs[0]
            if not isinstance(p, Value) or p.type != node.inputs[k].type:  # a bool scalar
                break
            node.inputs = [*node.inputs[:k], p, *node.inputs[k + 1 :]]
            op.swap_branches(node)


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


def _is_ufunc(name: str) -> bool:
    return bool(name) and get_op(name).out_ufunc is not None


def _may_raise_unused(node: Node, memo: dict | None = None) -> bool:
    """The node must run though nothing reads its result: it may raise an error the eager code
    raises (OpDef.keep_unused: a division of Python numbers that may be by zero, a number that
    may not fit its dtype ...), or it is a cond or loop holding such a node."""
    if node.subgraphs:
        memo = {} if memo is None else memo
        if id(node) not in memo:
            memo[id(node)] = any(
                _may_raise_unused(n, memo) for g in node.subgraphs.values() for n in g.nodes
            )
        return memo[id(node)]
    op = get_op(node.op)
    if op.keep_unused is not None and op.keep_unused(node):
        return True
    return _raises_for_some_kinds(op, node)


def _raises_for_some_kinds(op, node: Node) -> bool:
    """Whether the node's rule refuses some combination of its inputs' kinds (a value of several
    kinds by path, runtime.types.UnionType): on such a path the op raises when the graph runs,
    as eagerly, even when nothing reads its result."""
    types = [v.type if isinstance(v, Value) else v for v in node.inputs]
    if not any(type(t) is UnionType for t in types):
        return False
    try:
        _, failures = infer_kinds(op, types, node.attrs)
    except Exception:  # noqa: BLE001 - every combination refused: it raises on every path
        return True
    return bool(failures)


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
