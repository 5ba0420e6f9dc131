"""The op registry: each op's NumPy kernel and its dtype/shape rule, in one entry."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

from .types import TensorType, UnionType, union_of


@dataclass(frozen=True)
class OpDef:
    """One op.

    impl(*inputs, **attrs) computes the op on NumPy values. `inputs` are
    NumPy arrays / scalars or Python scalars (weak, NEP 50).
    infer(*input_types, **attrs) gives the output TensorType (or a tuple of
    them when `num_outputs` != 1) from the input types: each is a TensorType,
    or the Python scalar itself for a literal Python number input.
    make_kernel(**attrs), when given, returns a specialised callable(*inputs)
    used by the executor instead of binding attrs on every call.
    expr, when given, is a Python expression template over the inputs
    (`"{0} + {1}"`) that the executor inlines instead of calling `impl`; it
    must compute exactly what `impl` computes. Only for ops without attrs.
    make_expr(*input_types, **attrs), when given, returns such a template for
    a node with those input types and attrs, or None when it needs the kernel.
    stateful ops are never folded, deduplicated or removed and keep program order.
    num_outputs: 1 for a single output; n for a tuple of n outputs; None when
    the count depends on attrs (infer and impl then always give tuples).
    may_alias_input: the result may be a view of the first input (reshape, getitem ...).
    may_alias_state: the result may be program state itself (a Variable's buffer).

    Structured ops (control flow) carry subgraphs, and every question about them is asked
    through these hooks, never by op name (`node` is a Node of the op):
    subgraphs: the labels of the subgraphs each node carries (`cond`: then, else).
    bind_subgraph(node, label) -> list: per input of subgraph `label`, the value it stands
    for: a node input, or, for a loop variable (a different value on each iteration), the node
    output that carries it (the loop variable over all iterations).
    output_sources(node, i) -> [(label, value)]: what output i may be: `value` is an input of
    the node (label None) or an output of subgraph `label`.
    emit(emitter, node, indent): writes the node's code (runtime.executor, class _Emitter).
    check(node) -> str | None: what is wrong with the node's subgraphs (their arity, their
    types against the node's inputs and outputs), for runtime.verify; None when all is well.
    A structured node is stateful when a node of its subgraphs is (Node.stateful).
    weak_results: the rule may give weak types (Python numbers known at run time, see
    TensorType): the op computes on Python numbers as Python does. Results of other ops are
    NumPy values, so their weak types are made strong.
    """

    name: str
    impl: Callable
    infer: Callable
    stateful: bool = False
    num_outputs: int | None = 1
    make_kernel: Callable | None = None
    expr: str | None = None
    doc: str = ""
    make_expr: Callable | None = None
    may_alias_input: bool = False
    may_alias_state: bool = False
    subgraphs: tuple[str, ...] = ()
    bind_subgraph: Callable | None = None
    output_sources: Callable | None = None
    emit: Callable | None = None
    check: Callable | None = None
    weak_results: bool = False

    def kernel(self, attrs: dict) -> Callable:
        if self.make_kernel is not None:
            return self.make_kernel(**attrs)
        if not attrs:
            return self.impl
        return functools.partial(self.impl, **attrs)


_REGISTRY: dict[str, OpDef] = {}


class UnknownOpError(LookupError):
    pass


def register_op(name: str, *, infer: Callable, **fields):
    """Decorator registering `impl` under `name`; `fields` are the other OpDef fields."""

    def decorate(impl):
        add_op(OpDef(name, impl, infer, **fields))
        return impl

    return decorate


def add_op(op: OpDef) -> OpDef:
    if op.name in _REGISTRY:
        raise ValueError(f"op {op.name!r} registered twice")
    _REGISTRY[op.name] = op
    return op


def get_op(name: str) -> OpDef:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownOpError(f"no op named {name!r} is registered") from None


def has_op(name: str) -> bool:
    return name in _REGISTRY


def all_ops() -> dict[str, OpDef]:
    return dict(_REGISTRY)


def infer_types(op: OpDef, input_types, attrs) -> tuple[TensorType, ...]:
    """Runs the op's rule and always returns a tuple of output types."""
    out = op.infer(*input_types, **attrs)
    outs = (out,) if op.num_outputs == 1 else tuple(out)
    if not op.weak_results:
        outs = tuple(t.strong() if isinstance(t, TensorType) else t for t in outs)
    return outs


MAX_COMBINATIONS = 64  # kind combinations one op's inputs may have (each is a run of its rule)


class TooManyKindsError(TypeError):
    """An op whose inputs have more kind combinations than MAX_COMBINATIONS."""


def kind_combinations(input_types, groups=None):
    """Each way the inputs' kinds may be at run time: one tuple of single-kind types per way.
    `groups[i]`, when given, names the value input i is: inputs of the same group are the same
    value, so they are the same kind on every path (`v // v` has two ways, not four)."""
    groups = groups if groups is not None else list(range(len(input_types)))
    choices: dict = {}
    for group, t in zip(groups, input_types):
        if type(t) is UnionType:
            choices.setdefault(group, t.alternatives)
    count = 1
    for options in choices.values():
        count *= len(options)
    if count > MAX_COMBINATIONS:
        raise TooManyKindsError(
            f"its inputs have {count} combinations of kinds (a Python number on some paths and a "
            f"NumPy value on others, each); at most {MAX_COMBINATIONS}"
        )
    ways: list[dict] = [{}]
    for group, options in choices.items():
        ways = [{**way, group: option} for way in ways for option in options]
    for way in ways:
        yield tuple(way.get(group, t) for group, t in zip(groups, input_types))


def infer_kinds(op: OpDef, input_types, attrs, groups=None, infer=None):
    """The one propagation rule: the output types of `op` on inputs that may be of several kinds
    (UnionTypes), its rule applied to each combination of kinds and the results joined.

    Returns (output types, failures): `failures` lists (kinds, exception) for the combinations
    whose rule raised; on those paths the op raises when the graph runs, as its kernel does
    eagerly. When every combination fails, the first one's exception is raised here.
    `infer(op, types, attrs)` runs the rule (infer_types by default; a caller may memoise)."""
    infer = infer or infer_types
    results, failures = [], []
    for combination in kind_combinations(input_types, groups):
        try:
            results.append(infer(op, list(combination), attrs))
        except (ValueError, TypeError, IndexError, ArithmeticError, LookupError) as exc:
            failures.append((combination, exc))
    if not results:
        raise failures[0][1]
    outputs = tuple(
        union_of(outs[i] for outs in results)
        if type(results[0][i]) is TensorType or type(results[0][i]) is UnionType
        else results[0][i]
        for i in range(len(results[0]))
    )
    return outputs, failures
