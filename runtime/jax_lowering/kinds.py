"""Nodes whose inputs are values of several kinds (values.Tagged): the op is lowered once per
combination of its inputs' kinds (each a node of single-kind types, lowered as any other), the
combination the path taken made is chosen by the inputs' tags, and each output's tag comes from
a table built while lowering: the kind the op's rule (runtime.registry) gives that combination.

A combination the rule refuses is a path on which the interpreter raises: the compiled call
raises the interpreter's error there. Ops with effects (print, assert, py_function, Variables)
run one combination only, in a lax.switch; the others compute every combination (small: only
0-d values have several kinds) and select, which XLA folds where the combinations agree.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..graph import ListType, Node, Value
from ..registry import get_op, infer_kinds, infer_types, kind_combinations
from ..types import TensorType, UnionType
from .errors import cannot_lower
from .values import Tagged, conform, ir_type, kind_index

_RULE_ERRORS = (ValueError, TypeError, IndexError, ArithmeticError, LookupError)


def _structured_or_lists(node) -> bool:
    """Nodes that carry tags themselves: those with subgraphs or a called graph (cond,
    while_loop, call: OpDef.called_graph) and those that take or give a list (whose elements
    keep their tags)."""
    return (
        bool(node.subgraphs)
        or get_op(node.op).called_graph is not None
        or any(isinstance(ir_type(item), ListType) for item in node.inputs)
        or any(isinstance(v.type, ListType) for v in node.outputs)
    )


def splits(node, inputs) -> bool:
    """Whether `node` is lowered per combination of kinds: a tagged input, and it does not
    carry tags itself (_structured_or_lists)."""
    return any(type(x) is Tagged for x in inputs) and not _structured_or_lists(node)


def raises_on_some_path(node) -> bool:
    """Whether the rule of `node` refuses some combination of its inputs' kinds: the compiled
    call then checks, through a host callback, that the path taken is not one of those."""
    types = [ir_type(item) for item in node.inputs]
    if not any(type(t) is UnionType for t in types) or _structured_or_lists(node):
        return False
    try:
        _, failures = infer_kinds(node.opdef, types, node.attrs, [id(i) for i in node.inputs])
    except _RULE_ERRORS:
        return False
    return bool(failures)


class _Case:
    """One combination of the inputs' kinds: its types, and the rule's output types or error."""

    __slots__ = ("types", "outputs", "error")

    def __init__(self, types, outputs, error):
        self.types, self.outputs, self.error = types, outputs, error


def _cases(node, inputs):
    """(cases, which): the combinations of kinds the inputs may have on the path taken, in the
    order `which` (an int32 scalar, or an int known while lowering) numbers them."""
    types = [ir_type(item) for item in node.inputs]
    groups = [id(item) for item in node.inputs]  # the same value is the same kind
    first: dict = {}
    for position, (group, t) in enumerate(zip(groups, types)):
        if type(t) is UnionType:
            first.setdefault(group, position)
    known = {p: inputs[p].tag for p in first.values() if type(inputs[p].tag) is int}
    dynamic = [p for p in first.values() if p not in known]
    found = {}
    for combination in kind_combinations(types, groups):
        tags = {p: types[p].alternatives.index(combination[p]) for p in first.values()}
        if any(tags[p] != tag for p, tag in known.items()):
            continue  # not the path taken: its kind is known while lowering
        try:
            outputs, error = infer_types(node.opdef, list(combination), node.attrs), None
        except _RULE_ERRORS as exc:
            outputs, error = None, exc
        found[tuple(tags[p] for p in dynamic)] = _Case(combination, outputs, error)
    which = 0
    for p in dynamic:  # (mixed radix, the last group varying fastest: the sorted keys' order)
        which = which * len(types[p].alternatives) + jnp.asarray(inputs[p].tag, np.int32)
    return [found[key] for key in sorted(found)], which


def _specialised(node, case: _Case) -> Node:
    """`node` on inputs of the case's single kinds, with the rule's outputs for them."""
    inputs = [
        Value(t, item.producer, item.index) if isinstance(item, Value) else item
        for item, t in zip(node.inputs, case.types)
    ]
    spec = Node(node.op, inputs, node.attrs, list(case.outputs), node.location)
    spec.scope = node.scope
    return spec


def _interpreter_error(node, case: _Case):
    """A new exception: the error the interpreter's kernel raises on inputs of the case's kinds
    (the rule's own when the kernel runs on the stand-in values)."""
    values = []
    for item, t in zip(node.inputs, case.types):
        if not isinstance(item, Value):
            values.append(item)
        elif isinstance(t, TensorType) and t.weak:
            values.append(t.python_type(1))
        elif isinstance(t, TensorType) and None not in t.shape:
            values.append(np.ones(t.shape, dtype=t.dtype))
        else:
            return _again(case.error)
    try:
        with np.errstate(all="ignore"):
            get_op(node.op).kernel(node.attrs)(*values)
    except Exception as found:  # noqa: BLE001 - what the interpreter raises on this path
        return found
    return _again(case.error)


def _again(error: BaseException) -> BaseException:
    try:
        return type(error)(*error.args)
    except Exception:  # noqa: BLE001 - an exception type made otherwise: its class and text
        return TypeError(str(error))


def _raiser(node, case: _Case):
    return lambda: _interpreter_error(node, case)


def _run_case(ctx, node, case: _Case, values, strong: bool) -> tuple:
    """The outputs of one ok combination (strong: arrays of its output kinds' dtypes)."""
    spec = _specialised(node, case)
    outs = ctx.lower_node(spec, values)
    return tuple(conform(o, t, strong=strong) for o, t in zip(outs, case.outputs))


def _tags(node, cases, which, index: int):
    """Output `index`'s tag: its kind in the node's output union on each combination."""
    union = node.outputs[index].type
    table = [0 if c.error else kind_index(union, c.outputs[index]) for c in cases]
    if type(which) is int or len(set(table)) == 1:
        return table[which] if type(which) is int else table[0]
    return jnp.asarray(table, dtype=np.int32)[which]


def _select(node, which, options):
    if all(o is options[0] for o in options[1:]):
        return options[0]
    try:
        return jax.lax.select_n(which, *options)
    except TypeError:
        shapes = " and ".join(str(jnp.shape(o)) for o in options)
        raise cannot_lower(
            node,
            f"its result has shapes {shapes} on the paths its inputs' kinds make, and XLA "
            f"needs one shape",
            "Give the value one type on every path (convert it where it is set), or keep the "
            "interpreter (jit_compile=False)",
        ) from None


def _every_case(ctx, node, cases, which, values) -> list:
    """Every combination computed (a pure op), the failing ones checked: their outputs are
    stand-ins (those of an ok combination) the call never returns."""
    results = [None if c.error else _run_case(ctx, node, c, values, strong=True) for c in cases]
    fallback = next(r for r in results if r is not None)
    for k, case in enumerate(cases):
        if case.error:
            ctx.fail_if(node, jnp.asarray(which) == k, _raiser(node, case))
    return [fallback if r is None else r for r in results]


def _one_case(ctx, node, cases, which, values) -> list:
    """One combination run, in a lax.switch (an op with effects: only the path taken prints,
    calls or writes); Variables' state threaded through it."""
    before = ctx.state_values()

    def branch(case):
        def run():
            ctx.set_state(before)
            if case.error is None:
                outs = _run_case(ctx, node, case, values, strong=True)
            else:
                ctx.fail_if(node, True, _raiser(node, case))
                outs = tuple(jnp.zeros(s.shape, s.dtype) for s in shapes)  # (never returned)
            return outs, ctx.state_values()

        return run

    shapes: tuple = ()  # (jax.ShapeDtypeStruct of each output)
    if any(c.error for c in cases):  # the failing paths' stand-ins: an ok path's shapes
        shapes = jax.eval_shape(branch(next(c for c in cases if c.error is None)))[0]
    outs, state = jax.lax.switch(which, [branch(c) for c in cases])
    ctx.set_state(state)
    return [outs] * len(cases)


def lower_by_kinds(ctx, node, inputs) -> tuple:
    """The outputs of `node`, some of whose inputs are tagged (see the module's docstring)."""
    cases, which = _cases(node, inputs)
    values = [x.value if type(x) is Tagged else x for x in inputs]
    if len(cases) == 1:  # every kind known while lowering
        (case,) = cases
        if case.error is not None:
            ctx.fail_if(node, True, _raiser(node, case))
            outs = tuple(_stand_in(t) for t in _output_kinds(node))
        else:
            outs = _run_case(ctx, node, case, values, strong=False)
        return tuple(
            Tagged(o, _tags(node, cases, 0, i)) if type(v.type) is UnionType else o
            for i, (o, v) in enumerate(zip(outs, node.outputs))
        )
    results = (_one_case if node.stateful else _every_case)(ctx, node, cases, which, values)
    outputs = []
    for i, v in enumerate(node.outputs):
        value = _select(node, which, [r[i] for r in results])
        outputs.append(Tagged(value, _tags(node, cases, which, i)) if _is_union(v) else value)
    return tuple(outputs)


def _is_union(v) -> bool:
    return type(v.type) is UnionType


def _output_kinds(node):
    """A kind of each output (a stand-in's dtype where the op raises on every path taken)."""
    return [v.type.alternatives[0] if _is_union(v) else v.type for v in node.outputs]


def _stand_in(t: TensorType):
    """Zeros of type `t` (unknown dims empty): the output of a node whose path raises."""
    return jnp.zeros(tuple(d or 0 for d in t.shape), t.dtype)


kind_cases = _cases
specialised = _specialised


def stand_in(t):
    """Zeros of (a kind of) type `t`: the output of a node whose values the call never returns."""
    return _stand_in(t.alternatives[0] if type(t) is UnionType else t)


__all__ = [
    "kind_cases",
    "lower_by_kinds",
    "raises_on_some_path",
    "specialised",
    "splits",
    "stand_in",
]
