"""The structured ops `cond`, `while_loop`, `try_except` and `try_finally`, with the hooks that
describe their subgraphs, and the structure of `call` (a call of another staged graph,
registered by the staging layer)."""

from __future__ import annotations

import inspect
import operator
import sys
import weakref
from dataclasses import dataclass

from . import fusion, scalar_loops
from .analysis import graph_errors, surely_caught
from .for_loops import (
    ArrayWalk,
    array_walk,
    coalesce_loop_outputs,
    emit_array_walk,
    unboxed_plan,
    unread_inputs,
)
from .graph import Graph, Node, Value
from .headroom import more_frames
from .registry import expect_op, get_op, register_op
from .types import ExceptionType, TensorType, accepts, join_types, kinds


def _given_by_subgraphs(name: str, attrs: tuple = (), optional: tuple = ()):
    """The type rule of a structured op: it has none (its output types follow from its subgraphs).
    Its keyword parameters are still the node's attributes, as every rule's are: `attrs` (each
    node has them) and `optional` ones, what a node read from a file may hold."""

    def infer(*input_types, **given):
        raise TypeError(
            f"{name} has no type rule: its output types follow from its subgraphs and "
            f"are given when the node is recorded"
        )

    keyword = inspect.Parameter.KEYWORD_ONLY
    signature = inspect.Signature(
        [
            inspect.Parameter("input_types", inspect.Parameter.VAR_POSITIONAL),
            *(inspect.Parameter(a, keyword) for a in attrs),
            *(inspect.Parameter(a, keyword, default=None) for a in optional),
        ]
    )
    setattr(infer, "__signature__", signature)  # (what inspect.signature reports)
    return infer


def _run_by_emit(name: str):
    def impl(*inputs, **attrs):
        raise TypeError(f"{name} has no kernel: the executor emits its code (OpDef.emit)")

    return impl


def _type_of(item):
    return item.type if isinstance(item, Value) else None


def _check_inputs(label: str, graph: Graph, declared: list) -> str | None:
    """The inputs of subgraph `label` against the types of what the node binds to them."""
    if len(graph.inputs) != len(declared):
        return f"subgraph {label!r} has {len(graph.inputs)} inputs, the node binds {len(declared)}"
    for k, (inner, t) in enumerate(zip(graph.inputs, declared)):
        if t is not None and inner.type != t:
            return f"input {k} of subgraph {label!r} is {inner.type}, the node binds {t}"
    return None


def _check_results(what: str, results: list, outputs: list) -> str | None:
    """Values (a subgraph's outputs, a loop's initial values) against the node outputs they become."""
    if len(results) != len(outputs):
        return f"{what} gives {len(results)} values for {len(outputs)} outputs"
    for k, (r, out) in enumerate(zip(results, outputs)):
        t = _type_of(r)
        if t is not None and not accepts(out.type, t):
            return f"{what} gives {t} for output {k}, declared {out.type}"
    return None


# what a condition may be: a NumPy bool or a Python bool (None: a literal)
_PREDICATE_TYPES = (
    None,
    TensorType(bool, ()),
    TensorType.python_scalar(bool),
    join_types(TensorType(bool, ()), TensorType.python_scalar(bool)),  # (either, by path)
)


# -- cond ---------------------------------------------------------------------
# inputs: pred, *operands; subgraphs then / else take the operands and give the outputs.


def _cond_bind(node: Node, label: str) -> list:
    return node.inputs[1:]


def _cond_bind_all(node: Node, label: str) -> list:
    return list(node.inputs)


def _cond_sources(node: Node, index: int) -> list:
    return [(label, node.subgraphs[label].outputs[index]) for label in ("then", "else")]


def _cond_check(node: Node) -> str | None:
    if not node.inputs or _type_of(node.inputs[0]) not in _PREDICATE_TYPES:
        return "the predicate (input 0) must be a bool scalar"
    operand_types = [_type_of(v) for v in node.inputs[1:]]
    for label in ("then", "else"):
        sub = node.subgraphs[label]
        problem = _check_inputs(label, sub, operand_types) or _check_results(
            f"subgraph {label!r}", sub.outputs, node.outputs
        )
        if problem:
            return problem
    return None


def _cond_swap_branches(node: Node) -> None:
    node.subgraphs = {"then": node.subgraphs["else"], "else": node.subgraphs["then"]}


def _cond_emit(em, node: Node, indent: int) -> None:
    pred, *operands = node.inputs
    outs = [em.fresh(v) for v in node.outputs]
    em.emit(indent, f"if {em.ref(pred)}:", node)
    for label, keyword in (("then", None), ("else", "else:")):
        if keyword:
            em.emit(indent, keyword, node)
        sub = node.subgraphs[label]
        for inner, outer in zip(sub.inputs, operands):
            em.name_as(inner, em.ref(outer))
        written = em.position()
        em.body(sub, indent + 1, top_level=False)
        em.assign(indent + 1, outs, [em.ref(v) for v in sub.outputs], node)
        em.pass_if_empty(written, indent + 1)


_SHAPE_FIX = (
    "Give the value one shape on every path (pad or preallocate it at its largest size, "
    "np.zeros(n)), or keep the interpreter (jit_compile=False)"
)


def _as_outputs(ctx, node, items, values) -> list:
    """`values` (of the graph items `items`: a branch's results, a loop's initial values or its
    body's results) as arrays of the node's output types, tagged with their kinds where an
    output is of several (ctx.retag)."""
    return [
        ctx.conform(ctx.retag(x, ctx.item_type(item), v.type), v.type, strong=True)
        for x, item, v in zip(values, items, node.outputs)
    ]


def _lower_cond(ctx, node, pred, *operands):
    """jax.lax.cond; only the branch taken when the predicate is known while lowering. Each
    branch tags its results with the kinds it makes them."""
    pred = ctx.untag(pred)  # (a Python bool or a NumPy bool by path: the same truth)
    if ctx.is_static(pred):
        sub = node.subgraphs["then" if pred else "else"]
        outs = ctx.run(sub, operands)
        return tuple(
            ctx.retag(x, ctx.item_type(item), v.type)
            for x, item, v in zip(outs, sub.outputs, node.outputs)
        )
    operands = ctx.branch_lists(node, operands)
    before = ctx.state_values()

    def branch(label):
        def run():
            ctx.set_state(before)
            sub = node.subgraphs[label]
            return _as_outputs(ctx, node, sub.outputs, ctx.run(sub, operands)), ctx.state_values()

        return run

    jax = ctx.jax
    try:
        outs, state = jax.lax.cond(
            ctx.jnp.asarray(pred, dtype=bool), branch("then"), branch("else")
        )
    except TypeError:  # the branches' results differ in shape (only then traced once more)
        then_shapes, else_shapes = (
            [ctx.untag(o) for o in jax.eval_shape(branch(label))[0]] for label in ("then", "else")
        )
        for i, (a, b) in enumerate(zip(then_shapes, else_shapes)):
            if a.shape != b.shape:
                raise ctx.cannot_lower(
                    node,
                    f"its result {i} has shape {a.shape} in one branch and {b.shape} in "
                    f"the other, and XLA needs one shape",
                    _SHAPE_FIX,
                ) from None
        raise
    ctx.set_state(state)
    return tuple(outs)


register_op(
    "cond",
    takes_none=True,
    takes_tuples=True,
    infer=_given_by_subgraphs("cond"),
    num_outputs=None,
    subgraphs=("then", "else"),
    bind_subgraph=_cond_bind,
    output_sources=_cond_sources,
    emit=_cond_emit,
    check=_cond_check,
    predicate=0,
    swap_branches=_cond_swap_branches,
    lower=_lower_cond,
    numba_lower=lambda ctx, node: ctx.branches(node),
    gradient="branches",
    doc="`then(*operands)` if pred else `else(*operands)`",
)(_run_by_emit("cond"))


# -- while_loop -----------------------------------------------------------------
# inputs: the initial values of the num_loop_vars loop variables, then captured values;
# subgraphs cond / body take (loop variables, captures); cond gives the bool to go on, body
# the next loop variables; the outputs are the loop variables after the last iteration.


def _while_bind(node: Node, label: str) -> list:
    nvars = node.attrs["num_loop_vars"]
    return node.outputs[:nvars] + node.inputs[nvars:]


def _while_sources(node: Node, index: int) -> list:
    """The initial value (no iteration) or the body's result."""
    return [(None, node.inputs[index]), ("body", node.subgraphs["body"].outputs[index])]


def _while_check(node: Node) -> str | None:
    nvars = node.attrs.get("num_loop_vars")
    if not isinstance(nvars, int) or not 0 <= nvars <= len(node.inputs):
        return f"num_loop_vars={nvars!r} does not fit its {len(node.inputs)} inputs"
    if len(node.outputs) != nvars:
        return f"{len(node.outputs)} outputs for {nvars} loop variables"
    declared = [v.type for v in node.outputs] + [_type_of(v) for v in node.inputs[nvars:]]
    cond, body = node.subgraphs["cond"], node.subgraphs["body"]
    problem = (
        _check_results("the initial value", node.inputs[:nvars], node.outputs)
        or _check_inputs("cond", cond, declared)
        or _check_inputs("body", body, declared)
    )
    if problem:
        return problem
    if len(cond.outputs) != 1 or _type_of(cond.outputs[0]) not in _PREDICATE_TYPES:
        return "subgraph 'cond' must return one bool scalar"
    return _check_results("subgraph 'body'", body.outputs, node.outputs)


@dataclass
class _LoopForm:
    """How a while_loop node is written, decided on the graph (OpDef.plan_emit)."""

    walk: ArrayWalk | None  # a staged `for x in xs`: a Python for over the array
    counters: set[int]  # loop variables run as Python ints
    unboxed: scalar_loops.Plan | None  # values run as Python numbers

    @property
    def python_numbers(self) -> dict:
        return self.unboxed.numbers if self.unboxed is not None else {}


def _while_plan(node: Node, options: dict) -> _LoopForm:
    walk = array_walk(node)
    if walk is not None:
        return _LoopForm(walk, set(), unboxed_plan(node, walk, options))
    counters = _python_int_counters(node)
    unboxed = (
        scalar_loops.plan(node, counters) if options.get("unboxed_scalar_loops", True) else None
    )
    return _LoopForm(None, counters, unboxed)


def _hoisting_graphs(em, body: Graph):
    """The graphs whose fused runs the loop of `body` tests the captures of before its header:
    the body and the graphs nested in it, but those of a nested loop that hoists its own."""
    yield body
    for n in body.nodes:
        form = em.plan_of(n)
        if isinstance(form, _LoopForm) and form.walk is None:
            continue
        for sub in n.subgraphs.values():
            yield from _hoisting_graphs(em, sub)


def _while_emit(em, node: Node, indent: int) -> None:
    nvars = node.attrs["num_loop_vars"]
    inits = node.inputs[:nvars]
    outs = [em.fresh(v) for v in node.outputs]
    form = em.plan_of(node)
    if form.walk is not None:  # a staged `for x in xs`: a Python for over the array
        emit_array_walk(em, node, form.walk, form.unboxed, indent, outs)
        return
    counters, unboxed = form.counters, form.unboxed
    firsts, capture_refs = scalar_loops.enter(em, node, unboxed, indent)
    em.assign(
        indent,
        outs,
        [
            firsts[i]
            if i in firsts
            else f"int({em.ref(v)})"
            if i in counters
            else em.entry_copy(node, i, em.ref(v))
            for i, v in enumerate(inits)
        ],
        node,
    )
    for label in ("cond", "body"):
        sub = node.subgraphs[label]
        for inner, name in zip(sub.inputs, outs):
            em.name_as(inner, name)
        for inner, ref in zip(sub.inputs[nvars:], capture_refs):
            em.name_as(inner, ref)
    test = _integer_bound_test(node)
    if test is not None:  # `i < n` against an integer bound fixed in the loop: n as a Python int
        op, counter, bound = test
        hoisted = em.fresh(Value(bound.type))
        em.emit(indent, f"{hoisted} = int({em.ref(bound)})", node)
        condition = op.python_expr.format(em.ref(counter), hoisted)
    ranged = _range_counter(em, node, test, counters) if test is not None else None
    body = node.subgraphs["body"]
    fusion.hoist_size_tests(em, _hoisting_graphs(em, body), body.inputs[nvars:], indent, node)
    if ranged is not None:  # `for i in range(i, n)`: the counter stepped by Python's range
        _emit_range_for(em, node, indent, outs, ranged, hoisted)
    else:
        _emit_while_true(em, node, indent, outs, test, condition if test is not None else None)
    for i in sorted(counters):  # back to the declared dtype for whatever reads the result
        em.emit(
            indent, f"{outs[i]} = {em.bind(node.outputs[i].type.dtype.type, 'k')}({outs[i]})", node
        )
    scalar_loops.leave(em, node, firsts, indent, outs)


def _emit_while_true(em, node: Node, indent: int, outs: list[str], test, condition) -> None:
    nvars = node.attrs["num_loop_vars"]
    em.emit(indent, "while True:", node)
    for label in ("cond", "body"):
        sub = node.subgraphs[label]
        if label == "cond":
            if test is None:
                em.body(sub, indent + 1, top_level=False)
                condition = em.ref(sub.outputs[0])
            em.emit(indent + 1, f"if not ({condition}):", node)
            em.emit(indent + 2, "break")
        else:
            coalesce_loop_outputs(em, sub, outs, range(nvars))
            em.body(sub, indent + 1, top_level=False)
            em.assign(indent + 1, outs, [em.ref(v) for v in sub.outputs], node)


def _range_counter(em, node: Node, test, counters: set[int]):
    """(counter position, its stepper node) when the loop is `while i < n: ...; i = i + 1` with
    `i` a Python int (weak, or a counter run as one) that nothing else steps, and `i + 1` read
    only as the next counter: Python's `for i in range(i, n)` runs the same iterations with
    the same values of `i`, without a comparison and an addition of its own per iteration."""
    op, counter, _ = test
    if op.python_operator is not operator.lt:
        return None
    cond, body = node.subgraphs["cond"], node.subgraphs["body"]
    j = cond.inputs.index(counter)
    if not (getattr(node.outputs[j].type, "weak", False) or j in counters):
        return None
    step = body.outputs[j]
    stepper = step.producer if isinstance(step, Value) else None
    if (
        stepper is None
        or get_op(stepper.op).python_operator is not operator.add
        or stepper.subgraphs
        or stepper.attrs
        or stepper.inputs[0] is not body.inputs[j]
        or type(stepper.inputs[1]) is not int
        or stepper.inputs[1] != 1
        or em.use_counts().get(id(step)) != 1
        or not any(n is stepper for n in body.nodes)
    ):
        return None
    return j, stepper


def _emit_range_for(em, node: Node, indent: int, outs: list[str], ranged, bound: str) -> None:
    nvars = node.attrs["num_loop_vars"]
    j, stepper = ranged
    body = node.subgraphs["body"]
    others = [k for k in range(nvars) if k != j]
    em.emit(indent, f"for {outs[j]} in range({outs[j]}, {bound}):", node)
    saved = body.nodes
    body.nodes = [n for n in saved if n is not stepper]
    try:
        written = em.position()
        coalesce_loop_outputs(em, body, outs, others)
        em.body(body, indent + 1, top_level=False)
        em.assign(
            indent + 1, [outs[k] for k in others], [em.ref(body.outputs[k]) for k in others], node
        )
        em.pass_if_empty(written, indent + 1)
    finally:
        body.nodes = saved
    # the while loop leaves the counter at n when it ran (range leaves n - 1), else as it was
    em.emit(indent, f"if {outs[j]} < {bound}: {outs[j]} = {bound}", node)


def _is_integer_scalar(t) -> bool:
    return (
        getattr(t, "shape", None) == ()
        and getattr(t, "dtype", None) is not None
        and t.dtype.kind in "iu"
    )


def _integer_bound_test(node: Node):
    """(OpDef, counter, bound) when the loop's whole condition compares an integer loop variable
    with an integer scalar the loop does not change (`i < n` of a range loop). Comparing with
    int(n) gives the same answers (integer comparisons are exact), several times faster than
    comparing with a NumPy integer; the condition's value is only tested, never kept."""
    nvars = node.attrs["num_loop_vars"]
    cond = node.subgraphs["cond"]
    if len(cond.nodes) != 1 or len(cond.outputs) != 1:
        return None
    test = cond.nodes[0]
    op = get_op(test.op)
    if not op.comparison or test.attrs or test.subgraphs or cond.outputs[0] is not test.outputs[0]:
        return None
    counter, bound = test.inputs
    loop_vars = cond.inputs[:nvars]
    if (
        isinstance(counter, Value)
        and counter in loop_vars
        and _is_integer_scalar(counter.type)
        and isinstance(bound, Value)
        and bound not in loop_vars
        and _is_integer_scalar(bound.type)
    ):
        return op, counter, bound
    return None


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
        if not hasattr(t, "dtype") or t.dtype.kind not in "iu" or t.shape != () or t.weak:
            continue  # (a weak int is a Python int already)
        step = body.outputs[j]
        stepper = step.producer if isinstance(step, Value) else None
        if (
            stepper is None
            or get_op(stepper.op).python_operator not in (operator.add, operator.sub)
            or stepper.subgraphs
            or stepper.inputs[0] is not body.inputs[j]
            or type(stepper.inputs[1]) is not int
        ):
            continue
        if all(
            _counter_uses_ok(g, g.inputs[j], stepper) for g in (cond, body)
        ) and _counter_uses_ok(
            body, step, stepper, output=j
        ):  # (the stepped value runs as one too)
            found.add(j)
    return found


def _counter_uses_ok(
    graph: Graph, counter: Value, stepper: Node, output: int | None = None
) -> bool:
    """`counter` is only compared with a real number or used as an index in `graph`, and is not
    among its outputs (but at position `output`)."""
    for n in graph.nodes:
        if n is stepper:
            continue
        op = get_op(n.op)
        for position, v in enumerate(n.inputs):
            if v is not counter:
                continue
            if (
                op.comparison
                and not n.subgraphs
                and all(
                    type(o) in (bool, int, float)
                    or getattr(getattr(o, "type", None), "dtype", None) is not None
                    and o.type.dtype.kind in "biuf"
                    for o in n.inputs
                    if o is not counter
                )
            ):
                continue  # (a Python int and a complex have no order; NumPy's scalars do)
            if op.index_inputs is not None and position >= op.index_inputs:
                continue  # an index: a Python int selects what an integer scalar selects
            return False
    return not any(v is counter and k != output for k, v in enumerate(graph.outputs))


def _trip_bound(node: Node) -> int | None:
    """The loop's maximum_iterations when it is known while lowering, else None: the staged
    condition is `logical_and(less(iteration, bound), cond)` (staging/control_flow.py)."""
    cond_graph = node.subgraphs["cond"]
    out = cond_graph.outputs[0] if cond_graph.outputs else None
    producer = getattr(out, "producer", None)
    if producer is None or get_op(producer.op).logical != "and":
        return None
    below = getattr(producer.inputs[0], "producer", None)
    if (
        below is None
        or get_op(below.op).python_operator is not operator.lt
        or below.inputs[0] not in cond_graph.inputs
    ):
        return None
    bound = below.inputs[1]
    if isinstance(bound, Value):
        constant = get_op(bound.producer.op).constant if bound.producer is not None else None
        if constant is None:
            return None
        bound = constant(bound.producer)
    try:
        return max(int(bound), 0)
    except (TypeError, ValueError):
        return None


def _lower_while_loop(ctx, node, *inputs, num_loop_vars):
    """jax.lax.while_loop; lists grown in it become preallocated buffers (its bound known). A
    loop variable of several kinds carries its tag."""
    for i, (start, end) in enumerate(zip(node.inputs[:num_loop_vars], node.outputs)):
        if isinstance(start, Value) and _shapes(start.type) != _shapes(end.type):
            raise ctx.cannot_lower(
                node,
                f"its loop variable {i} starts as {start.type} and changes shape between "
                f"iterations ({end.type} after the loop), and XLA needs one shape",
                _SHAPE_FIX,
            )
    cond_graph, body_graph = node.subgraphs["cond"], node.subgraphs["body"]
    inits, captures = ctx.loop_lists(
        node,
        inputs[:num_loop_vars],
        list(inputs[num_loop_vars:]),
        body_graph,
        _trip_bound(node),
    )

    start = _as_outputs(ctx, node, node.inputs[:num_loop_vars], inits)
    if ctx.may_raise_flag(cond_graph):  # the test's flag is carried: it ends each iteration
        return _lower_tested_loop(ctx, node, start, captures)

    def cond(carry):
        values, state = carry
        ctx.set_state(state)
        test = ctx.jnp.asarray(ctx.untag(ctx.run(cond_graph, list(values) + captures)[0]), bool)
        # (values on which eager NumPy raises met: the call runs again on the interpreter)
        return test if ctx.suspect is None else test & ~ctx.suspect

    def body(carry):
        values, state = carry
        ctx.set_state(state)
        outs = ctx.run(body_graph, list(values) + captures)
        return _as_outputs(ctx, node, body_graph.outputs, outs), ctx.state_values()

    values, state = ctx.jax.lax.while_loop(cond, body, (start, ctx.state_values()))
    ctx.set_state(state)
    return tuple(values)


def _lower_tested_loop(ctx, node, start, captures):
    """A loop whose test may meet values on which eager NumPy raises: the test is computed
    before the loop and at the end of each iteration, so that its flag is carried with the
    state; the loop stops when the flag holds."""
    cond_graph, body_graph = node.subgraphs["cond"], node.subgraphs["body"]
    jnp = ctx.jnp

    def test(values):
        return jnp.asarray(ctx.untag(ctx.run(cond_graph, list(values) + captures)[0]), bool)

    def body(carry):
        values, state, _ = carry
        ctx.set_state(state)
        outs = ctx.run(body_graph, list(values) + captures)
        values = _as_outputs(ctx, node, body_graph.outputs, outs)
        going = test(values)
        return values, ctx.state_values(), going

    going = test(start)
    values, state, _ = ctx.jax.lax.while_loop(
        lambda carry: carry[2] & ~carry[1][-1], body, (start, ctx.state_values(), going)
    )
    ctx.set_state(state)
    return tuple(values)


# a counter whose start and step allow this many iterations before it leaves int64 (at a
# nanosecond per iteration, 13 days) is never checked for overflow (OpDef.lower_unchecked)
_FEASIBLE_ITERATIONS = 2**50


def _known_int(item):
    """A loop variable's start as an int when it is known while tracing, else None."""
    if isinstance(item, Value):
        producer = item.producer
        constant = get_op(producer.op).constant if producer is not None else None
        if constant is None:
            return None
        item = constant(producer)
    return int(item) if type(item) in (int, bool) else None


def _counters(node) -> list:
    """(OpDef.lower_unchecked) The body's nodes that step a Python int loop variable by a
    literal (`i += 1`, `n -= 2`) from a start known while tracing, and that it gives as that
    variable's next value: such a counter leaves int64 only after more iterations than any run
    makes, so the JAX backend does not check it for overflow. Also the body's indexing nodes
    whose indices are all a counter counting up from 0 or more while the loop's test is `i <
    N` (N known while tracing) into an array whose every axis holds N (`for x in xs`)."""
    body = node.subgraphs["body"]
    n = node.attrs["num_loop_vars"]
    found = []
    for j, (start, variable, after) in enumerate(zip(node.inputs[:n], body.inputs, body.outputs)):
        first = _known_int(start)
        step = _step(variable, after)
        t = variable.type
        if first is None or step is None or not (isinstance(t, TensorType) and t.weak):
            continue
        if (2**63 - abs(first)) // abs(step) >= _FEASIBLE_ITERATIONS:
            found.append(after.producer)
        bound = _test_bound(node.subgraphs["cond"], j)
        if step > 0 and first >= 0 and bound is not None:
            found.extend(_indexed_within(body, variable, bound))
    return found


def _test_bound(cond: Graph, j: int):
    """N where the loop's test is `variable j < N` with N known while tracing, else None."""
    test = cond.outputs[0]
    producer = getattr(test, "producer", None)
    if producer is None or producer.opdef.python_operator is not operator.lt:
        return None
    if len(producer.inputs) != 2 or producer.inputs[0] is not cond.inputs[j]:
        return None
    return _known_int(producer.inputs[1])


def _indexed_within(body: Graph, variable, bound: int) -> list:
    """The body's nodes indexing (OpDef.index_inputs) an array of static shape whose every axis
    holds `bound` by `variable` alone (a value in [0, bound))."""
    found = []
    for inner in body.nodes:
        first = inner.opdef.index_inputs
        if first is None or not inner.inputs or not isinstance(inner.inputs[0], Value):
            continue
        shape = getattr(inner.inputs[0].type, "shape", None)
        if shape is None or any(d is None or d < bound for d in shape):
            continue
        indices = [v for v in inner.inputs[first:] if isinstance(v, Value)]
        if indices and all(v is variable for v in indices):
            found.append(inner)
    return found


def _step(variable, after):
    """The literal `after` adds to `variable` (after = variable + c, c + variable, variable -
    c), or None."""
    producer = getattr(after, "producer", None)
    if producer is None or len(producer.inputs) != 2:
        return None
    python = producer.opdef.python_operator
    a, b = producer.inputs
    if python is operator.add and b is variable:
        a, b = b, a
    if a is not variable or type(b) is not int or b == 0:
        return None
    if python is operator.add:
        return b
    return -b if python is operator.sub else None


def _shapes(t) -> set:
    """The shapes a value of type `t` may have (a list's: none to compare)."""
    return {k.shape for k in kinds(t) if isinstance(k, TensorType)}


register_op(
    "while_loop",
    takes_none=True,
    takes_tuples=True,
    infer=_given_by_subgraphs("while_loop", attrs=("num_loop_vars",)),
    num_outputs=None,
    subgraphs=("cond", "body"),
    bind_subgraph=_while_bind,
    output_sources=_while_sources,
    emit=_while_emit,
    check=_while_check,
    unread_inputs=unread_inputs,
    plan_emit=_while_plan,
    lower=_lower_while_loop,
    lower_unchecked=_counters,
    numba_lower=lambda ctx, node: ctx.loop(node, node.attrs["num_loop_vars"], "cond", "body"),
    gradient="loop",
    doc="loop variables = body(*loop variables, *captures) while cond(...)",
)(_run_by_emit("while_loop"))


# -- try_except -----------------------------------------------------------------------------
# A staged `try` whose `except` clauses catch errors the graph raises when it runs. inputs: the
# operands; subgraph `body` takes them and gives the outputs; subgraph `handler` (absent when no
# clause can catch what the body raises: the body then runs as it is) takes them too and gives
# the outputs when the body raised one of attr `catch` (the classes of the clauses). Inside the
# handler, `caught_exception` is the exception being handled.


def _try_sources(node: Node, index: int) -> list:
    return [(label, sub.outputs[index]) for label, sub in node.subgraphs.items()]


def _try_check(node: Node) -> str | None:
    if "body" not in node.subgraphs:
        return "a try_except needs a subgraph 'body'"
    operand_types = [_type_of(v) for v in node.inputs]
    for label, sub in node.subgraphs.items():
        problem = _check_inputs(label, sub, operand_types) or _check_results(
            f"subgraph {label!r}", sub.outputs, node.outputs
        )
        if problem:
            return problem
    catch = node.attrs.get("catch", ())
    if ("handler" in node.subgraphs) != bool(catch):
        return "a try_except has a handler exactly when it catches some classes"
    return None


def _try_emit(em, node: Node, indent: int) -> None:
    outs = [em.fresh(v) for v in node.outputs]
    handler = node.subgraphs.get("handler")
    inner = indent + 1 if handler is not None else indent
    if handler is not None:
        em.emit(indent, "try:", node)
    for label in ("body", "handler"):
        sub = node.subgraphs.get(label)
        if sub is None:
            continue
        if label == "handler":
            em.emit(indent, f"except {em.bind(tuple(node.attrs['catch']), 'catch')}:", node)
        for value, operand in zip(sub.inputs, node.inputs):
            em.name_as(value, em.ref(operand))
        written = em.position()
        em.body(sub, inner, top_level=False)
        em.assign(inner, outs, [em.ref(v) for v in sub.outputs], node)
        if handler is not None:
            em.pass_if_empty(written, inner)


def _try_errors(node: Node) -> tuple:
    """What escapes the `try`: what the body raises that its clauses may not catch, and what
    the handler raises."""
    catch = tuple(node.attrs.get("catch", ()))
    memo: dict = {}
    escaping = [
        e for e in graph_errors(node.subgraphs["body"], memo) if not surely_caught(e, catch)
    ]
    if "handler" in node.subgraphs:
        escaping += graph_errors(node.subgraphs["handler"], memo)
    return tuple(dict.fromkeys(escaping))


def _lower_try(ctx, node, *operands, **attrs):
    """The body, when no clause catches what it raises; XLA has no exceptions to catch."""
    if "handler" not in node.subgraphs:
        body = node.subgraphs["body"]
        return tuple(
            ctx.retag(x, ctx.item_type(item), v.type)
            for x, item, v in zip(ctx.run(body, operands), body.outputs, node.outputs)
        )
    raise ctx.cannot_lower(
        node,
        "it is a `try` whose `except` clauses catch errors raised when the graph runs, and XLA "
        "has no exceptions",
        "Check the condition before the operation (an `if`) instead of catching its error, or "
        "keep the interpreter (jit_compile=False)",
    )


register_op(
    "try_except",
    takes_none=True,
    takes_tuples=True,
    infer=_given_by_subgraphs("try_except", optional=("catch",)),
    num_outputs=None,
    subgraphs=("body", "handler"),
    bind_subgraph=_cond_bind_all,
    output_sources=_try_sources,
    emit=_try_emit,
    check=_try_check,
    run_time_errors=_try_errors,
    inline_subgraph=lambda node: None if "handler" in node.subgraphs else "body",
    lower=_lower_try,
    numba_lower=lambda ctx, node: ctx.inline(node, "body"),
    doc="`body(*operands)`; `handler(*operands)` if it raises one of `catch`",
)(_run_by_emit("try_except"))


# -- try_finally ----------------------------------------------------------------------------
# A `finally:` block with staged effects after staged code that may raise: inputs are the values
# from before the `try` that the subgraphs read; subgraph `body` (the staged code of the `try`)
# takes them and gives the outputs; subgraph `cleanup` (the `finally:` block, on the error
# path) takes them and gives nothing, then the error propagates. (On the path without an error
# the block's own nodes follow the node.)


def _finally_sources(node: Node, index: int) -> list:
    return [("body", node.subgraphs["body"].outputs[index])]


def _finally_check(node: Node) -> str | None:
    operand_types = [_type_of(v) for v in node.inputs]
    body, cleanup = node.subgraphs["body"], node.subgraphs["cleanup"]
    return (
        _check_inputs("body", body, operand_types)
        or _check_inputs("cleanup", cleanup, operand_types)
        or _check_results("subgraph 'body'", body.outputs, node.outputs)
        or (None if not cleanup.outputs else "subgraph 'cleanup' gives values")
    )


def _finally_emit(em, node: Node, indent: int) -> None:
    outs = [em.fresh(v) for v in node.outputs]
    em.emit(indent, "try:", node)
    for label in ("body", "cleanup"):
        sub = node.subgraphs[label]
        if label == "cleanup":
            em.emit(indent, "except BaseException:", node)
        for value, operand in zip(sub.inputs, node.inputs):
            em.name_as(value, em.ref(operand))
        written = em.position()
        em.body(sub, indent + 1, top_level=False)
        if label == "body":
            em.assign(indent + 1, outs, [em.ref(v) for v in sub.outputs], node)
            em.pass_if_empty(written, indent + 1)
        else:
            em.emit(indent + 1, "raise", node)


register_op(
    "try_finally",
    takes_none=True,
    takes_tuples=True,
    infer=_given_by_subgraphs("try_finally"),
    num_outputs=None,
    subgraphs=("body", "cleanup"),
    bind_subgraph=_cond_bind_all,
    output_sources=_finally_sources,
    emit=_finally_emit,
    check=_finally_check,
    numba_lower=lambda ctx, node: ctx.inline(node, "body"),
    unlowerable=(
        "XLA has no exceptions: a `finally:` block with effects after code that may raise runs "
        "on the interpreter (jit_compile=False)"
    ),
    doc="`body(*operands)`; `cleanup(*operands)` then the error again if it raises",
)(_run_by_emit("try_finally"))


register_op(
    "caught_exception",
    infer=lambda *, classes: ExceptionType(classes),
    make_kernel=lambda classes: _handled_exception,
    run_time_errors=lambda node: (),
    unlowerable="XLA has no exceptions: a staged `try` that catches one runs on the interpreter",
    doc="the exception an `except` clause of a staged `try` is handling",
)(lambda *, classes: _handled_exception())


def _handled_exception():
    return sys.exc_info()[1]


# -- call ---------------------------------------------------------------------------------
# A call of another staged function: attr `fn` is that function (an object with `graph`, the
# graph it runs, `output_types`, `_execute` and `compiled_graph`, the CompiledGraph running the
# graph on the interpreter or None); the node's inputs are its graph's inputs. The
# staging layer registers the op with its kernel (staging/concrete_function.py); its structure
# is given here, with the other structured ops'.


def _called_graph(node: Node) -> Graph:
    return node.attrs["fn"].graph


def _lowered_call(node: Node):
    return getattr(node.attrs["fn"], "compiled_graph", None)


def _lower_call(ctx, node, *inputs, fn):
    """Inline: the called graph's nodes are lowered in place; values of several kinds enter
    with their tags in the called graph's input types and leave with theirs in the node's."""
    graph = fn.graph
    retagged = [
        ctx.retag(x, ctx.item_type(item), v.type)
        for x, item, v in zip(inputs, node.inputs, graph.inputs)
    ]
    with more_frames(_CALL_FRAMES):  # (a chain of calls, each lowered inside the one calling it)
        outs = ctx.run(graph, retagged)
    return tuple(
        ctx.retag(x, ctx.item_type(item), v.type)
        for x, item, v in zip(outs, graph.outputs, node.outputs)
    )


# Frames granted to the lowering of a call inside the lowering of its caller (runtime.headroom):
# what lowering a graph adds per level (about 5), with room to spare.
_CALL_FRAMES = 20


# called graph -> what it may raise when it runs (a graph a function traced is final)
_CALL_ERRORS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _call_errors(node: Node) -> tuple:
    graph = node.attrs["fn"].graph
    known = _CALL_ERRORS.get(graph)
    if known is None:
        # the graphs it calls first, without recursion: a chain of calls each inside the next
        for g in _callees_first(graph):
            _CALL_ERRORS[g] = graph_errors(g)
        known = _CALL_ERRORS[graph]
    return known


def _callees_first(graph: Graph) -> list:
    """`graph` and the graphs its calls run, directly or not, whose errors are not known yet:
    each after the ones it calls."""
    order, stack, seen = [], [(graph, False)], set()
    while stack:
        g, expanded = stack.pop()
        if expanded:
            order.append(g)
        elif id(g) not in seen and g not in _CALL_ERRORS:
            seen.add(id(g))
            stack.append((g, True))
            for n in g.walk():
                called = get_op(n.op).called_graph
                if called is not None:
                    stack.append((called(n), False))
    return order


expect_op(
    "call",
    called_graph=_called_graph,
    lowered_call=_lowered_call,
    lower=_lower_call,
    run_time_errors=_call_errors,
)
