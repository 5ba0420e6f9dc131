"""Staged branches: `cond` traces both branches into subgraphs (`BranchTrace`) and records one
`cond` node whose outputs join what each branch gives (`Merge`): nothing is converted, a value
is what the branch taken made it (runtime.types.join_types). Items and attributes written in a
branch (staging.state.journal) join like variables.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from runtime import Value
from runtime.registry import get_op
from runtime.types import may_be_none
from staging import errors
from staging.control_flow import optional_tuples
from staging.control_flow import raising as branch_errors
from staging.control_flow import written as branch_writes
from staging.control_flow.joins import (
    align_captures,
    is_convertible,
    is_tensor_array,
    join_types,
    leaf_type,
    rebuild_leaf,
    top_level_paths,
    truth_value,
    value_in,
)
from staging.core import nest
from staging.core.recording import FuncGraph, building, current_graph, record
from staging.core.source_map import where
from staging.core.tensor import Tensor, has_staged_value
from staging.kinds.undefined import MaybeMissing, other_path
from staging.state import journal as mutation
from staging.state import python_state, tensor_array

# -- cond --------------------------------------------------------------------


@dataclass
class BranchTrace:
    """One branch of a staged `if`, traced into `graph`: what it returned (`result`), the places
    it wrote ({ident: (location, value it left)}), or the built-in error its user code raised
    while traced (`raised`: the branch raises it when the graph runs, staging.control_flow.raising)."""

    label: str
    graph: FuncGraph
    result: object = None
    written: dict = field(default_factory=dict)
    raised: Exception | None = None


def _trace_branch(outer: FuncGraph, label: str, fn, not_none=None) -> BranchTrace:
    """`not_none`: a Value of `outer` this branch runs only when it is not None."""
    g = FuncGraph(label, outer=outer)
    g.function_name = outer.function_name
    if not_none is not None:
        g.exclude_none(not_none)
    trace = BranchTrace(label, g)
    with building(g), mutation.recording(g) as journal:
        try:
            trace.result = fn()
        except Exception as error:  # noqa: BLE001 - deferred to run time, or raised again
            if not branch_errors.deferrable(error):
                raise branch_errors.not_deferred(error)  # noqa: B904 - (itself, or its cause)
            trace.raised = error
    if trace.raised is None:  # its containers as the branch left them (the undo restores them)
        trace.result = nest.pack_as(trace.result, nest.flatten(trace.result))
        trace.written = {
            ident: (location, location.read()) for ident, (location, _) in journal.before.items()
        }
    journal.undo()  # the other branch starts from the state before the `if`
    return trace


def excluded_none(pred_value) -> dict:
    """{outcome: value}: the value a predicate's outcome proves is not None (OpDef.excludes_none:
    `x is not None` true, `x is None` false, `x` true), or {}."""
    node = pred_value.producer
    if node is None:
        return {}
    rule = get_op(node.op).excludes_none
    if rule is None:
        return {}
    value, outcome = rule(node)
    return {outcome: value} if isinstance(value, Value) and may_be_none(value.type) else {}


def _list_view(x) -> bool:
    """A converted-code view of a staged list (its branch state is the TensorArray, which
    converted code passes; the view itself, as an operand of `and`/`or`, is no graph value)."""
    return getattr(type(x), "_is_staged_list", False)


def cond(pred, true_fn, false_fn, *, names=None, unread=(), watch=None):
    """`true_fn()` if pred else `false_fn()`; staged as one `cond` node when `pred` is symbolic.

    Both functions take no arguments and return the same nested structure.
    Leaves identical (`is`) in both branches pass through unchanged; the others meet as the
    join of their types (nothing is converted). `watch`: the staging.state.python_state.Snapshot
    of the Python state the branches must not change while traced (converted code's; called
    directly, as TensorFlow's cond, Python code in the branches runs while they are traced).
    """
    if _list_view(pred) and current_graph() is not None:
        pred = pred._truth_value()  # (a staged list: whether it holds anything)
    elif has_staged_value(pred) and current_graph() is not None:
        pred = pred._staged_value()
    if not isinstance(pred, Tensor):
        return true_fn() if pred else false_fn()
    outer = current_graph()
    if outer is None:
        outer = pred._graph  # raises the leaked-tensor error below
    pred_value = truth_value(outer, pred, "condition of a staged `if`")
    not_none = excluded_none(pred_value)
    then = _trace_branch(outer, "then", true_fn, not_none.get(True))
    python_state.check(watch, "`if`")
    other = _trace_branch(outer, "else", false_fn, not_none.get(False))
    python_state.check(watch, "`if`")
    branch_errors.defer([then, other])
    if then.raised is not None and other.raised is not None:  # the `if` raises on every path
        branch_errors.record_raising(
            "cond",
            [pred_value],
            [then, other],
            {"then": then.graph.graph, "else": other.graph.graph},
        )
    if then.raised is None and other.raised is None:
        then.result, other.result = optional_tuples.pack_against_none(
            then.result, other.result, then.graph, other.graph
        )
    check_same_structure(then.result, other.result, names)
    return Merge(outer, then, other, names, unread).record_op(
        "cond", [pred_value], {"then": then.graph.graph, "else": other.graph.graph}, {}
    )


def check_same_structure(
    t_out, e_out, names, first="the true branch", second="the false branch"
) -> None:
    if nest.structure_signature(t_out) == nest.structure_signature(e_out):
        return
    path, a, b = branch_errors.first_difference(t_out, e_out, names, "output")
    construct = (
        "the branches of a staged `if`" if first == "the true branch" else f"{first} and {second}"
    )
    raise errors.BranchMismatchError(
        f"{where()}{construct} give {path} different structures: "
        f"{branch_errors.describe_structure(a)} in {first} and "
        f"{branch_errors.describe_structure(b)} in {second}"
    )


class Merge:
    """The values of two paths (a staged `if`'s branches, a staged `try`'s body and handler),
    joined into the outputs of one node: its results, then the places its paths wrote, then the
    flags of places set on one path only (staging.control_flow.written)."""

    # how errors name the two paths and the construct
    labels = ("the true branch", "the false branch", "a staged `if`")

    def __init__(self, outer, then: BranchTrace, other: BranchTrace, names, unread, labels=None):
        self.outer, self.then, self.other, self.names = outer, then, other, names
        if labels is not None:
            self.labels = labels
        single = not isinstance(then.result, (tuple, list))
        self.single = single
        self.t_items = [then.result] if single else list(then.result)
        e_items = [other.result] if single else list(other.result)
        self.t_leaves = top_level_paths(self.t_items, names, "output")
        self.e_leaves = [leaf for _, leaf in top_level_paths(e_items, names, "output")]
        self.n_results = len(self.t_leaves)
        self.locations, self.flagged = self._written_places(unread)

    def _written_places(self, unread):
        """Items and attributes written in either branch (`d["a"] = ...`, `obj.n = ...`) merge
        like variables; a branch that does not write one leaves it as it was before the `if`."""
        t_written, e_written = self.then.written, self.other.written
        locations = [loc for loc, _ in t_written.values()] + [
            loc for ident, (loc, _) in e_written.items() if ident not in t_written
        ]
        kept, t_flags, e_flags = [], [], []
        for location in locations:
            if mutation.unobservable(location, locations, unread):  # made and dropped, or unread
                continue
            before = location.read()
            a = t_written.get(location.ident, (None, before))[1]
            b = e_written.get(location.ident, (None, before))[1]
            (a, a_set) = branch_writes.set_on_path(location, a, b)
            (b, b_set) = branch_writes.set_on_path(location, b, a)
            self.t_leaves.append((location.describe(), a))
            self.e_leaves.append(b)
            kept.append(location)
            t_flags.append((f"<{location.describe()} set>", a_set))
            e_flags.append(b_set)
        branch_writes.as_written(self.t_leaves, t_written, self.n_results, pairs=True)
        branch_writes.as_written(self.e_leaves, e_written, self.n_results, pairs=False)
        flagged = [
            i
            for i, (a_set, b_set) in enumerate(zip(t_flags, e_flags))
            if not (a_set[1] is b_set is np.True_)
        ]
        self.t_leaves += [t_flags[i] for i in flagged]
        self.e_leaves += [e_flags[i] for i in flagged]
        return kept, flagged

    def _join_leaves(self):
        """Per leaf ("static", the object both branches give) or ("dynamic", a template to
        rebuild a list from); and the output type of each dynamic leaf."""
        tg, eg = self.then.graph, self.other.graph
        merged, out_types = [], []
        for (name, a), b in (other_path(leaf, b) for leaf, b in zip(self.t_leaves, self.e_leaves)):
            if (
                a is b
                and not is_tensor_array(a)
                and (not isinstance(a, Tensor) or a._graph not in (tg, eg))
            ) or (type(a) is str and type(b) is str and a == b):
                merged.append(("static", a))
                continue
            if not (is_convertible(a) and is_convertible(b)) or _list_view(a) or _list_view(b):
                first, second, construct = self.labels
                raise errors.BranchMismatchError(
                    f"{where()}'{name}' is {branch_errors.describe_leaf(a)} in {first} and "
                    f"{branch_errors.describe_leaf(b)} in {second} of {construct}; both "
                    f"paths must give it a tensor, a number, a str or None"
                )
            joined = join_types(leaf_type(a), leaf_type(b), f"'{name}'")
            merged.append(("dynamic", tensor_array.either_list(a, b)))
            out_types.append(joined)
        return merged, out_types

    def record_op(self, op, inputs, subgraphs, attrs):
        """Records the node `op` taking `inputs` then the operands its subgraphs capture (the
        then path's graph is `subgraphs`' first, the other's its second, or the same)."""
        merged, out_types = self._join_leaves()
        tg, eg = self.then.graph, self.other.graph
        dynamic = [
            (name, a, b)
            for (name, a), b, (kind, _) in zip(self.t_leaves, self.e_leaves, merged)
            if kind == "dynamic"
        ]
        tg.graph.outputs = [value_in(tg, a) for _, a, _ in dynamic]
        if eg is not tg:
            eg.graph.outputs = [value_in(eg, b) for _, _, b in dynamic]
        operands = align_captures([tg, eg] if eg is not tg else [tg], 0)
        outs = record(op, [*inputs, *operands], attrs, output_types=out_types, subgraphs=subgraphs)
        tg.closed = eg.closed = True  # a tensor of a branch used later is a leak
        return self._rebuild(merged, outs)

    def _rebuild(self, merged, outs):
        it = iter(outs)
        leaves = [next(it) if kind == "dynamic" else obj for kind, obj in merged]
        leaves = [
            rebuild_leaf(obj, leaf) if kind == "dynamic" and obj is not None else leaf
            for (kind, obj), leaf in zip(merged, leaves)
        ]
        n, locations = self.n_results, self.locations
        values = leaves[n : n + len(locations)]
        for i, flag in zip(self.flagged, leaves[n + len(locations) :]):
            if isinstance(flag, Tensor) or not flag:
                values[i] = MaybeMissing(locations[i], values[i], flag)
        t_written, e_written = self.then.written, self.other.written
        producer = outs[0]._value.producer if outs else None
        branch_writes.write_back(
            self.outer,
            locations,
            values,
            branch_writes.unwritten_branches(producer, locations, t_written, e_written),
        )
        dynamic_positions = [
            i for i, (kind, _) in enumerate(merged[: n + len(locations)]) if kind == "dynamic"
        ]
        branch_writes.same_as_written(
            self.then.graph, self.other.graph, dynamic_positions, n, locations, leaves
        )
        rebuilt = nest.pack_as(self.t_items, leaves[:n])
        t_out = self.then.result
        if self.single:
            return rebuilt[0]
        if nest.is_namedtuple(t_out):
            return type(t_out)(*rebuilt)
        return type(t_out)(rebuilt)
