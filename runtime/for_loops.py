"""A `while_loop` that walks an array by index, emitted as a Python `for` over the array.

A staged `for x in xs` becomes `i = 0; while i < n: x = xs[i]; ...; i = i + 1`. When the loop
is exactly that (the condition is `i < n` and nothing else, the body reads the counter only as
`xs[i]` and steps it by 1, `xs` does not change in the loop, the counter starts at 0), the
executor writes `for x in xs[:n]:` instead: the array's own iterator hands out the same
elements (`xs[i]`, a scalar or a row view) without an index operation per iteration.

If n exceeds len(xs), the while loop would have failed at xs[len(xs)] after running every
element; the emitted code runs the same iterations and then raises that same IndexError.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

from . import scalar_loops
from .graph import Graph, Node, Value
from .registry import get_op


@dataclass
class ArrayWalk:
    counter: int  # the loop variable that is the index
    array: Value  # the Value walked (loop-invariant), as the body reads it
    bound: int | Value  # n: an int literal or a loop-invariant Value, as the cond reads it
    element: Node  # the body's getitem node (its output is the loop target)
    stepper: Node  # the body's `counter + 1`
    whole: bool = False  # `for x in xs`: n is len(xs)


def coalesce_loop_outputs(em, body: Graph, outs: list[str], positions) -> None:
    """Names a `cond` result of a loop body after the loop variable it becomes (`if c: v4 = a
    else: v4 = b` instead of a new variable and `v4 = v6`) when nothing in the body reads that
    loop variable after the cond: the branches then write the loop variable itself."""
    where = {id(n): i for i, n in enumerate(body.nodes)}
    for k in positions:
        out = body.outputs[k]
        producer = out.producer if isinstance(out, Value) else None
        if (
            producer is None
            or get_op(producer.op).predicate is None  # (a branch op: its branches write it)
            or id(producer) not in where
        ):
            continue
        if em.use_counts().get(id(out)) != 1 or id(out) in em.names:
            continue
        variable = body.inputs[k]
        later = body.nodes[where[id(producer)] + 1 :]
        if any(v is variable for i, v in enumerate(body.outputs) if i != k) or any(
            _reads_value(n, variable) for n in later
        ):
            continue
        em.name_as(out, outs[k])


def _reads_value(node: Node, value: Value) -> bool:
    if any(v is value for v in node.inputs):
        return True
    return any(
        _reads_value(n, value) or any(v is value for v in sub.outputs)
        for sub in node.subgraphs.values()
        for n in sub.nodes
    ) or any(v is value for sub in node.subgraphs.values() for v in sub.outputs)


def _is_zero(item) -> bool:
    if type(item) is int:
        return item == 0
    producer = item.producer if isinstance(item, Value) else None
    constant = get_op(producer.op).constant if producer is not None else None
    return constant is not None and type(constant(producer)) is int and constant(producer) == 0


def array_walk(node: Node) -> ArrayWalk | None:
    """The ArrayWalk of a while_loop node, or None when the loop is not one."""
    nvars = node.attrs["num_loop_vars"]
    found = _index_test(node)
    if found is None:
        return None
    j, bound = found
    body = node.subgraphs["body"]
    counter = body.inputs[j]
    stepper = body.outputs[j].producer if isinstance(body.outputs[j], Value) else None
    if (
        stepper is None
        or get_op(stepper.op).python_operator is not operator.add
        or stepper.attrs
        or stepper.inputs[0] is not counter
        or type(stepper.inputs[1]) is not int
        or stepper.inputs[1] != 1
    ):
        return None
    element = _element_read(body, counter, stepper)
    if element is None:
        return None
    array = element.inputs[0]
    if not isinstance(array, Value) or array in body.inputs[:nvars] or array.producer in body.nodes:
        return None  # not the same array on every iteration
    if getattr(array.type, "ndim", 0) < 1:
        return None
    length = _outer(node, bound)
    length = length.producer if isinstance(length, Value) else None
    dimension = get_op(length.op).dimension if length is not None else None
    whole = dimension is not None and dimension(length) == (_outer(node, array), 0)
    return ArrayWalk(j, array, bound, element, stepper, whole)


def _index_test(node: Node) -> tuple[int, int | Value] | None:
    """(j, n) when the loop's whole condition is `i < n` of loop variable j, starting at 0, and
    a bound n fixed in the loop (an int literal or a value)."""
    nvars = node.attrs["num_loop_vars"]
    cond = node.subgraphs["cond"]
    if len(cond.nodes) != 1 or len(cond.outputs) != 1:
        return None
    test = cond.nodes[0]
    if (
        get_op(test.op).python_operator is not operator.lt  # (i < n)
        or test.attrs
        or test.subgraphs
        or cond.outputs[0] is not test.outputs[0]
    ):
        return None
    index, bound = test.inputs
    if not isinstance(index, Value) or index not in cond.inputs[:nvars]:
        return None
    j = cond.inputs.index(index)
    if isinstance(bound, Value) and bound in cond.inputs[:nvars]:
        return None  # the bound changes in the loop
    if not (type(bound) is int or isinstance(bound, Value)) or not _is_zero(node.inputs[j]):
        return None
    return j, bound


def _element_read(body: Graph, counter: Value, stepper: Node) -> Node | None:
    """The one node of the body (but the stepper) that reads the counter, when it is `x[i]`
    and the counter is not a result of the body."""
    element = None
    for n in body.nodes:
        if n is stepper or not any(_reads(n, counter)):
            continue
        if (
            element is not None
            or get_op(n.op).index_inputs != 1  # (x[i])
            or n.attrs.get("index") != ("?",)
            or len(n.inputs) != 2
            or n.inputs[1] is not counter
            or n.inputs[0] is counter
        ):
            return None
        element = n
    if element is None or any(v is counter for v in body.outputs):
        return None
    return element


def unread_inputs(node: Node) -> tuple[int, ...]:
    """The inputs of a while_loop node that its code never reads when it is an array walk: the
    counter's first value (0), and for `for x in xs` the bound len(xs) when the body does not
    read it either (OpDef.unread_inputs)."""
    walk = array_walk(node)
    if walk is None:
        return ()
    unread = [walk.counter]
    if walk.whole:
        nvars = node.attrs["num_loop_vars"]
        cond, body = node.subgraphs["cond"], node.subgraphs["body"]
        kept = [n for n in body.nodes if n is not walk.element and n is not walk.stepper]
        for p in range(nvars, len(node.inputs)):
            if cond.inputs[p] is walk.bound and not any(
                _reads_value(n, body.inputs[p]) for n in kept
            ):
                if not any(v is body.inputs[p] for v in body.outputs):
                    unread.append(p)
    return tuple(unread)


def _outer(node: Node, item):
    """What a subgraph input of the while_loop `node` stands for outside it (captures only)."""
    nvars = node.attrs["num_loop_vars"]
    for sub in node.subgraphs.values():
        if isinstance(item, Value) and item in sub.inputs[nvars:]:
            return node.inputs[sub.inputs.index(item)]
    return item


def _reads(node: Node, value: Value):
    yield from (v is value for v in node.inputs)
    for sub in node.subgraphs.values():
        for n in sub.nodes:
            yield from _reads(n, value)
        yield from (v is value for v in sub.outputs)


def unboxed_plan(node: Node, walk: ArrayWalk, options: dict):
    """The values of an array walk that run as Python numbers (runtime.scalar_loops), its
    element among them when the array is a vector (walked as `xs.tolist()`)."""
    if not options.get("unboxed_scalar_loops", True) or getattr(walk.array.type, "ndim", 0) != 1:
        return None
    return scalar_loops.plan(node, {walk.counter}, walk.element)


def emit_array_walk(em, node: Node, walk: ArrayWalk, unboxed, indent: int, outs: list[str]) -> None:
    """Writes the loop as `for <element> in <array>[:n]:` (see the module doc); `unboxed`: its
    unboxed_plan."""
    nvars = node.attrs["num_loop_vars"]
    cond, body = node.subgraphs["cond"], node.subgraphs["body"]
    j = walk.counter
    firsts, capture_refs = scalar_loops.enter(em, node, unboxed, indent)
    for sub in (cond, body):
        for inner, name in zip(sub.inputs, outs):
            em.name_as(inner, name)
        for inner, ref in zip(sub.inputs[nvars:], capture_refs):
            em.name_as(inner, ref)
    others = [k for k in range(nvars) if k != j]
    em.assign(
        indent,
        [outs[k] for k in others],
        [
            firsts[k] if k in firsts else em.entry_copy(node, k, em.ref(node.inputs[k]))
            for k in others
        ],
        node,
    )
    array = em.ref(walk.array)
    source, static = _walked(em, walk, array)
    element = em.fresh(walk.element.outputs[0])
    if unboxed is not None and unboxed.element:  # the same numbers, as Python floats or ints
        source = f"{source}.tolist()"
    em.emit(indent, f"for {element} in {source}:", node)
    written = em.position()
    saved = body.nodes
    body.nodes = [n for n in saved if n is not walk.element and n is not walk.stepper]
    coalesce_loop_outputs(em, body, outs, others)
    try:
        em.body(body, indent + 1, top_level=False)
    finally:
        body.nodes = saved
    em.assign(
        indent + 1, [outs[k] for k in others], [em.ref(body.outputs[k]) for k in others], node
    )
    em.pass_if_empty(written, indent + 1)
    if not static:  # the IndexError the while loop would have raised at xs[len(xs)]
        bound = em.ref(walk.bound)
        em.emit(indent, f"if {bound} > len({array}): {array}[len({array})]", walk.element)
    scalar_loops.leave(em, node, firsts, indent, outs)
    if em.use_counts().get(id(node.outputs[j])):  # the counter's final value, when read
        _emit_final_count(em, node, walk, array, outs[j], indent)


def _walked(em, walk: ArrayWalk, array: str) -> tuple[str, bool]:
    """What the Python `for` walks (the array, or its first n elements), and whether n is known
    to fit the array (no IndexError to raise after the loop)."""
    static = (
        type(walk.bound) is int
        and walk.array.type.shape[0] is not None
        and 0 <= walk.bound <= walk.array.type.shape[0]
    )
    if walk.whole or (static and walk.bound == walk.array.type.shape[0]):
        return array, True
    return f"{array}[:max({em.ref(walk.bound)}, 0)]", static


def _emit_final_count(em, node: Node, walk: ArrayWalk, array: str, out: str, indent: int):
    """The counter after the loop: n (at least 0), of the counter's type."""
    if type(walk.bound) is int:
        final = repr(max(walk.bound, 0))
    else:
        final = f"len({array})" if walk.whole else f"int(max({em.ref(walk.bound)}, 0))"
    counter_type = node.outputs[walk.counter].type
    if counter_type.weak:
        em.emit(indent, f"{out} = {final}", node)
    else:
        em.emit(indent, f"{out} = {em.bind(counter_type.dtype.type, 'k')}({final})", node)
