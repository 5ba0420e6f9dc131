"""Staged loops: `while_loop` traces its condition and body into subgraphs (`LoopTrace`) until
the loop variables' types settle (`LoopTypes`: each iteration may widen a variable's type, find
a place the body writes, or give a type to a name the loop first assigns), then records one
`while_loop` node. A loop variable is what each iteration makes it: its type joins its value
before the loop with the body's results (runtime.types.join_types).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from runtime import TensorType
from runtime.types import STR, kinds
from staging import errors
from staging.control_flow import raising as branch_errors
from staging.control_flow import written as branch_writes
from staging.control_flow.branches import cond as _staged_cond
from staging.control_flow.joins import (
    align_captures,
    is_convertible,
    is_undefined,
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
from staging.core.strings import is_staged_str
from staging.core.tensor import Tensor, has_staged_value
from staging.kinds import forms as array0d
from staging.kinds.undefined import MaybeMissing, loop_placeholder
from staging.state import aliasing, python_state
from staging.state import journal as mutation

# -- while_loop --------------------------------------------------------------


@dataclass
class LoopVariable:
    """One value a staged loop carries: a variable proper or a place the body writes.
    `dynamic` ones are graph values of type `type`; static ones pass through as Python objects
    (`init`, unchanged by the body)."""

    name: str
    init: object
    dynamic: bool
    type: object = None


def _loop_variable(name: str, init) -> LoopVariable:
    """A graph value when it is a tensor or a number (not a Variable: it is read where used). A
    Python str stays one unless the body changes it (LoopTypes._settle_variable)."""
    if is_convertible(init) and not has_staged_value(init) and not isinstance(init, str):
        return LoopVariable(name, init, True, leaf_type(init))
    return LoopVariable(name, init, False)


class LoopTypes:
    """The loop variables of a staged loop and the fixpoint of their types: each trace of the
    body may widen a variable's type (the join of what it was and what an iteration makes of
    it), discover a place the body writes, or give a type to a name the loop first assigns;
    the loop is traced again until nothing changes."""

    def __init__(self, loop_vars, names, shape_invariants):
        self.variables = [
            _loop_variable(name, leaf)
            for name, leaf in top_level_paths(loop_vars, names, "loop_vars")
        ]
        self.n_vars = len(self.variables)
        self.places: list = []  # the mutation.Locations the body writes (after the variables)
        self.loop_kinds = array0d.LoopKinds()  # 0-d arrays or NumPy scalars (staging.kinds.forms)
        self.fixed, self.unknown_rank = set(), set()
        if shape_invariants:
            self.fixed, self.unknown_rank = _apply_shape_invariants(
                self.variables, shape_invariants
            )

    def settle(self, trace: LoopTrace, names, loop_vars) -> bool:
        """Joins what the traced body gives each variable into its type; True when a type,
        a place or a variable changed (trace the loop again)."""
        out_leaves = (
            _check_body_outputs(loop_vars, trace.out, self.variables[: self.n_vars], names)
            + trace.places_out
        )
        changed = self._add_places(trace.written)
        for i, (var, out) in enumerate(zip(self.variables, out_leaves)):
            changed = self._settle_variable(i, var, out) or changed
        for i in range(self.n_vars):  # a flag no traced path sets (`return` under a Python `if`)
            var = self.variables[i]
            if var.dynamic and type(var.init) is bool and out_leaves[i] is trace.placeholders[i]:
                var.dynamic, var.type, changed = False, None, True  # stays what it was
        changed = self.loop_kinds.settle(out_leaves) or changed
        self.out_leaves = out_leaves
        return changed

    def _add_places(self, written) -> bool:
        """Items and attributes the body writes (`d["a"] = ...`, `obj.n = ...`) are loop
        variables too, after the variables proper."""
        changed = False
        for location in written:
            if any(location.ident == known.ident for known in self.places):
                continue
            if mutation.unobservable(location, written):
                continue  # an object the body made and dropped (`d = {"a": x}; d["a"] = v`)
            init = location.read()  # its value before the loop (the traces are undone)
            _check_place_exists(location, init)
            self.places.append(location)
            self.variables.append(_loop_variable(location.describe(), init))
            changed = True
        return changed

    def _settle_variable(self, i, var: LoopVariable, out) -> bool:
        if (
            not var.dynamic
            and is_undefined(var.init)
            and is_convertible(out)
            and not has_staged_value(out)
        ):
            # A name first assigned in the loop (e.g. a value returned from inside it): its
            # type comes from the body; before the first iteration it holds a placeholder of
            # that type, which converted code never reads (it tracks whether the name is set).
            var.dynamic, var.type = True, leaf_type(out)
            var.init = loop_placeholder(var.type)
            return True
        if not var.dynamic and _text_changed(var.init, out):
            var.dynamic, var.type = True, STR  # a str the body changes: a staged string
            return True
        if not var.dynamic:
            if i >= self.n_vars and out is not var.init:
                raise errors.LoopVariableError(
                    f"{where()}{var.name} is {branch_errors.describe_leaf(var.init)} before the "
                    f"staged loop and {branch_errors.describe_leaf(out)} inside it; only tensors "
                    f"and numbers can change in a staged loop"
                )
            return False
        if not is_convertible(out):
            raise errors.LoopVariableError(
                f"{where()}loop variable '{var.name}' is a tensor before the loop but the loop body "
                f"makes it {branch_errors.describe_leaf(out)}"
            )
        new = self._widened(i, var, leaf_type(out))
        if new == var.type:
            return False
        var.type = new
        return True

    def _widened(self, i, var: LoopVariable, after):
        if i in self.unknown_rank and _ranks(after) != _ranks(var.type):
            before_dims, after_dims = (
                " or ".join(map(str, sorted(_ranks(t)))) for t in (var.type, after)
            )
            raise errors.LoopVariableError(
                f"{where()}loop variable '{var.name}' has {before_dims} dims before the loop and "
                f"{after_dims} after an iteration; its shape invariant has an unknown rank, but a "
                f"staged loop variable keeps its number of dims"
            )
        new = join_types(var.type, after, f"loop variable '{var.name}'", errors.LoopVariableError)
        if i in self.fixed and new != var.type:
            raise errors.LoopVariableError(
                f"{where()}loop variable '{var.name}' is {after} after an iteration, which its "
                f"shape invariant {var.type} does not accept"
            )
        return new


def _text_changed(init, out) -> bool:
    """A loop variable that is a Python str before the loop and other text after an iteration."""
    return (
        isinstance(init, str)
        and (isinstance(out, str) or is_staged_str(out))
        and not (isinstance(out, str) and out == init)
    )


def _ranks(t) -> set:
    return {len(k.shape) for k in kinds(t)}


def _check_place_exists(location, init) -> None:
    if init is mutation.MISSING:
        raise errors.UndefinedNameError(
            f"{where()}{location.describe()} is first set inside this staged loop, whose "
            f"condition is symbolic; set it before the loop"
        )
    if isinstance(init, MaybeMissing):
        raise errors.UndefinedNameError(
            f"{where()}{location.describe()} is set on only some paths before this staged "
            f"loop (whose condition is symbolic), and the loop writes it; set it on every "
            f"path before the loop"
        )


class LoopTrace:
    """One trace of a staged loop's condition and body into subgraphs, with placeholders of the
    loop variables' current types. The places (items and attributes) the body writes are loop
    variables after the variables proper: their placeholders are written into them while the
    functions are traced (and undone after)."""

    def __init__(self, outer: FuncGraph, types: LoopTypes, counter: bool):
        self.outer, self.types, self.counter = outer, types, counter
        self.out = None
        self.placeholders: list = []
        self.places_out: list = []
        self.written: list = []
        self.inputs: dict = {}  # variable position -> the Value of its subgraph input

    def _subgraph(self, label: str):
        """A subgraph with an input per dynamic variable (and the iteration counter); returns it
        with the values the traced function sees for the variables."""
        g = FuncGraph(label, outer=self.outer)
        g.function_name = self.outer.function_name
        placeholders = []
        for i, var in enumerate(self.types.variables):
            if not var.dynamic:
                placeholders.append(var.init)
                continue
            p = g.add_input(var.type, var.name)
            self.inputs[i] = p._value
            if isinstance(var.type, TensorType) and var.type.shape == () and not var.type.weak:
                self.types.loop_kinds.placeholder(p, i, var.init)  # (0-d array or scalar: array0d)
            placeholders.append(rebuild_leaf(var.init, p))
        counter = g.add_input(TensorType(np.int64, ()), "iteration") if self.counter else None
        return g, placeholders, counter

    def trace_cond(self, cond, loop_vars, maximum_iterations):
        g, placeholders, counter = self._subgraph("cond")
        n_vars = self.types.n_vars
        vars_ = nest.pack_as(list(loop_vars), placeholders[:n_vars])
        with building(g), mutation.recording(g) as journal:
            self._write_places(placeholders)
            c = truth_value(g, cond(*vars_), "condition of a staged `while`")
            if counter is not None:
                below = record("less", [counter, maximum_iterations])
                c = g.value_of(record("logical_and", [below, Tensor(g, c)]))
            known = {location.ident for location in self.types.places}
            extra = [loc for loc in journal.locations if loc.ident not in known]
            if extra:
                raise errors.UnsupportedConstructError(
                    f"{where()}the condition of this staged loop writes {extra[0].describe()}; "
                    f"a condition that changes state cannot be staged: move the write into the "
                    f"loop body"
                )
        journal.undo()
        g.graph.outputs = [c]
        self.cond_graph = g

    def trace_body(self, body, loop_vars):
        g, placeholders, counter = self._subgraph("body")
        n_vars = self.types.n_vars
        vars_ = nest.pack_as(list(loop_vars), placeholders[:n_vars])
        with building(g), mutation.recording(g) as journal:
            self._write_places(placeholders)
            try:
                out = body(*vars_)
            except Exception as exc:
                if not branch_errors.deferrable(exc):
                    raise branch_errors.not_deferred(exc)  # noqa: B904 - (itself, or its cause)
                journal.undo()
                raise branch_errors.BodyRaises(exc) from exc
            if len(loop_vars) == 1 and not isinstance(out, (tuple, list)):
                out = (out,)
            self.out = out
            self.placeholders = placeholders
            self.places_out = [location.read() for location in self.types.places]
            self.written = journal.locations
            if counter is not None:
                self.counter_next = g.value_of(record("add", [counter, 1]))
        journal.undo()
        self.body_graph = g

    def passes_through(self, i: int, out) -> bool:
        """Whether the body gives variable `i` back as it got it (not written in place)."""
        return (
            out is self.placeholders[i]
            and isinstance(out, Tensor)
            and (out._value is self.inputs.get(i))
        )

    def _write_places(self, placeholders) -> None:
        for location, value in zip(self.types.places, placeholders[self.types.n_vars :]):
            mutation.note(location)
            location.write(value)

    def close(self) -> None:
        self.cond_graph.closed = self.body_graph.closed = True


def while_loop(
    cond,
    body,
    loop_vars,
    maximum_iterations=None,
    *,
    names=None,
    shape_invariants=None,
    watch=None,
):
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`.

    Staged as one `while_loop` node when called while tracing. A loop variable is what each
    iteration makes it: its type joins its value before the loop with the body's results (a
    shape that changes is generalised; a Python number that becomes a NumPy value is either,
    by path), the body being traced again until the types settle. `watch`: the
    staging.state.python_state.Snapshot of the Python state the condition and body must not
    change while traced (by default, the state `cond`, `body` and `loop_vars` reach).
    """
    is_list = isinstance(loop_vars, list)
    loop_vars = tuple(loop_vars)
    outer = current_graph()
    if outer is None:
        return _eager_while(cond, body, loop_vars, maximum_iterations, is_list)
    types = LoopTypes(loop_vars, names, shape_invariants)
    counter = maximum_iterations is not None
    for attempt in range(_MAX_TRACES):
        trace = LoopTrace(outer, types, counter)
        trace.trace_cond(cond, loop_vars, maximum_iterations)
        python_state.check(watch, "loop")
        try:
            trace.trace_body(body, loop_vars)
        except branch_errors.BodyRaises as failure:
            python_state.check(watch, "loop")
            if attempt or types.places or shape_invariants:
                if isinstance(
                    failure.error, (branch_errors.PathRaises, branch_errors.PendingRaise)
                ):
                    raise errors.UnsupportedConstructError(
                        f"{where()}the body of this staged loop raises on every path once its "
                        f"variables have the types later iterations give them, but not on its "
                        f"first iteration's; this cannot be staged as Python runs it: raise the "
                        f"error outside the loop"
                    ) from None
                raise failure.error from None
            # The body raises on the first iteration whatever the values are: as eagerly, the
            # loop raises when it runs at least once and gives its initial values otherwise.
            return branch_errors.loop_that_raises(
                cond, body, loop_vars, maximum_iterations, is_list, names, _staged_cond
            )
        python_state.check(watch, "loop")
        if not types.settle(trace, names, loop_vars):
            break
        trace.close()  # this attempt's tensors are discarded
    else:  # pragma: no cover - kinds and dims only widen, so this cannot loop
        raise errors.LoopVariableError(f"{where()}loop variable types did not settle")
    return _record_loop(outer, trace, types, counter, loop_vars, is_list)


_MAX_TRACES = 64


def _record_loop(outer, trace: LoopTrace, types: LoopTypes, counter, loop_vars, is_list):
    """The `while_loop` node of the settled trace; the loop variables after it."""
    variables = types.variables
    dyn_index = [i for i, var in enumerate(variables) if var.dynamic]
    bg, cg = trace.body_graph, trace.cond_graph
    bg.graph.outputs = [value_in(bg, types.out_leaves[i]) for i in dyn_index]
    init_values = [value_in(outer, variables[i].init) for i in dyn_index]
    if counter:
        bg.graph.outputs.append(trace.counter_next)
        init_values.append(record("const", [], {"value": np.int64(0)})._value)
    nvars = len(init_values)
    if not counter and branch_errors.never_ends(cg.graph, bg.graph, init_values):
        # Python loops forever here, and so must the graph: a stateful node in the body keeps
        # dead-code elimination from dropping the loop when its results are unused.
        with building(bg):
            record("assert", [True], {"parts": ("this loop never ends",), "error": AssertionError})
    captures = align_captures([cg, bg], nvars)
    out_types = [variables[i].type for i in dyn_index]
    out_types += [TensorType(np.int64, ())] if counter else []
    outs = record(
        "while_loop",
        [*init_values, *captures],
        {"num_loop_vars": nvars},
        output_types=out_types,
        subgraphs={"cond": cg.graph, "body": bg.graph},
    )
    trace.close()  # a tensor of the loop body used after the loop is a leak
    for out, i in zip(outs, dyn_index):
        if i < types.n_vars:
            aliasing.carry_out(variables[i].init, trace.placeholders[i], out, variables[i].name)
    it = iter(outs)
    leaves = []
    for i, var in enumerate(variables):
        if var.dynamic:  # (one the body gives back unchanged is what it was before)
            out = next(it)
            unchanged = trace.passes_through(i, types.out_leaves[i])
            leaves.append(var.init if unchanged else rebuild_leaf(var.init, out))
        else:
            leaves.append(var.init)
    branch_writes.write_back(outer, types.places, leaves[types.n_vars :])
    result = nest.pack_as(list(loop_vars), leaves[: types.n_vars])
    return result if is_list else tuple(result)


def _check_body_outputs(loop_vars, body_out, variables, names):
    if not isinstance(body_out, (tuple, list)) or len(body_out) != len(loop_vars):
        got = (
            f"{len(body_out)} values"
            if isinstance(body_out, (tuple, list))
            else branch_errors.describe_leaf(body_out)
        )
        raise errors.LoopVariableError(
            f"{where()}the loop body must return {len(loop_vars)} loop variables, got {got}"
        )
    out_flat = top_level_paths(tuple(body_out), None, "loop_vars")
    if nest.structure_signature(tuple(body_out)) != nest.structure_signature(loop_vars):
        path, a, b = branch_errors.first_difference(
            tuple(loop_vars), tuple(body_out), names, "loop_vars"
        )
        raise errors.LoopVariableError(
            f"{where()}the loop body changes the structure of loop variable {path}: "
            f"{branch_errors.describe_structure(a)} before the loop, "
            f"{branch_errors.describe_structure(b)} after an iteration"
        )
    outs = [leaf for _, leaf in out_flat]
    for var, out in zip(variables, outs):
        if not var.dynamic and out is not var.init:
            _check_static_variable(var, out)
    return outs


def _check_static_variable(var: LoopVariable, out) -> None:
    """A loop variable that is not a graph value (a Python object) may not change in the body."""
    init = var.init
    if is_undefined(init) and (is_convertible(out) or is_undefined(out)):
        return  # given a type by the first body trace, see LoopTypes
    if _text_changed(init, out) or (isinstance(init, str) and out == init):
        return  # a str the body changes: a staged string (LoopTypes._settle_variable)
    if is_convertible(out) and init is None:
        raise errors.LoopVariableError(
            f"{where()}loop variable '{var.name}' is {branch_errors.describe_leaf(init)} before the "
            f"staged loop and {branch_errors.describe_leaf(out)} inside it; give it an initial "
            f"value of the same dtype before the loop"
        )
    if not (has_staged_value(init) and out is init):
        raise errors.LoopVariableError(
            f"{where()}loop variable '{var.name}' is a Python {type(init).__name__} that the staged "
            f"loop body changes ({branch_errors.describe_leaf(init)} -> "
            f"{branch_errors.describe_leaf(out)}); only tensors and numbers can change in a "
            f"staged loop"
        )


_NOT_GIVEN = object()


def _apply_shape_invariants(variables, shape_invariants) -> tuple:
    """Sets the types of the loop variables that have a shape invariant (by name or by the
    variable itself) to it; returns their positions (whose types the loop may not relax) and
    those of them whose invariant has an unknown rank."""
    by_name = {}
    if isinstance(shape_invariants, dict):
        by_name = shape_invariants
    else:
        for var_object, shape in shape_invariants:
            for i, var in enumerate(variables):
                if var.init is var_object:
                    by_name[i] = shape
    fixed, unknown_rank = set(), set()
    for i, var in enumerate(variables):
        shape = by_name.get(var.name, by_name.get(i, _NOT_GIVEN))
        if shape is _NOT_GIVEN or var.type is None:
            continue
        if type(var.type) is not TensorType:
            raise errors.LoopVariableError(
                f"{where()}loop variable '{var.name}' is {var.type} before the loop; a shape "
                f"invariant needs one type"
            )
        spec_shape = getattr(shape, "shape", shape)
        if spec_shape is None:
            # An unknown rank: every dim of unknown size, the rank of the value before the loop
            # (a staged value has a known rank; a body changing it is refused where it does).
            spec_shape = (None,) * var.type.ndim
            unknown_rank.add(i)
        t = TensorType(var.type.dtype, spec_shape)
        if not t.is_supertype_of(var.type.strong()):
            raise errors.LoopVariableError(
                f"{where()}shape invariant {t} for loop variable '{var.name}' does not accept its "
                f"initial value {var.type}"
            )
        var.type = t
        fixed.add(i)
    return fixed, unknown_rank


def _eager_while(cond, body, loop_vars, maximum_iterations, is_list):
    count = 0
    vars_ = loop_vars
    while maximum_iterations is None or count < maximum_iterations:
        if not cond(*vars_):
            break
        out = body(*vars_)
        if len(loop_vars) == 1 and not isinstance(out, (tuple, list)):
            out = (out,)
        vars_ = tuple(out)
        count += 1
    return list(vars_) if is_list else vars_
