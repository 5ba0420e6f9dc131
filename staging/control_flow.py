"""Staged control flow: `cond` and `while_loop`, each tracing its functions into subgraphs."""

from __future__ import annotations

import numpy as np

from runtime import TensorType

from . import (
    aliasing,
    array0d,
    branch_errors,
    branch_writes,
    errors,
    loop_flags,
    mutation,
    nest,
    tensor_array,
    weak_paths,
)
from .graph_building import FuncGraph, building, current_graph, record
from .joins import (
    align_captures,
    is_convertible,
    is_tensor_array,
    is_undefined,
    join_types,
    leaf_type,
    rebuild_leaf,
    top_level_paths,
    truth_value,
    value_in,
)
from .source_map import where
from .tensor import Tensor, has_staged_value
from .unset import MaybeMissing, loop_placeholder, other_path

# -- cond --------------------------------------------------------------------


def cond(pred, true_fn, false_fn, *, names=None, unread=()):  # noqa: C901, PLR0912, PLR0915
    """`true_fn()` if pred else `false_fn()`; staged as one `cond` node when `pred` is symbolic.

    Both functions take no arguments and return the same nested structure.
    Tensors and numbers are merged; leaves identical (`is`) in both branches
    pass through unchanged.
    """
    if has_staged_value(pred) and current_graph() is not None:
        pred = pred._staged_value()
    if not isinstance(pred, Tensor):
        return true_fn() if pred else false_fn()
    outer = current_graph()
    if outer is None:
        outer = pred._graph  # raises the leaked-tensor error below
    pred_value = truth_value(outer, pred, "condition of a staged `if`")

    branches = []
    for label, fn in (("then", true_fn), ("else", false_fn)):
        g = FuncGraph(label, outer=outer)
        g.function_name = outer.function_name
        raised = None
        with building(g), mutation.recording(g) as journal:
            try:
                result = fn()
            except Exception as error:  # noqa: BLE001 - deferred to run time, or raised again below
                if not branch_errors.deferrable(error):
                    raise
                raised, result = error, None
        if raised is None:  # its containers as the branch left them (the undo restores them)
            result = nest.pack_as(result, nest.flatten(result))
        written = {
            ident: (location, location.read()) for ident, (location, _) in journal.before.items()
        }
        journal.undo()  # the other branch starts from the state before the `if`
        branches.append([g, result, {} if raised is not None else written, raised])
    branch_errors.defer(branches)
    (tg, t_out, t_written, _), (eg, e_out, e_written, _) = branches

    if nest.structure_signature(t_out) != nest.structure_signature(e_out):
        path, a, b = branch_errors.first_difference(t_out, e_out, names, "output")
        raise errors.BranchMismatchError(
            f"{where()}the branches of a staged `if` give {path} different structures: "
            f"{branch_errors.describe_structure(a)} in the true branch and {branch_errors.describe_structure(b)} in the false "
            f"branch"
        )
    single = not isinstance(t_out, (tuple, list))
    t_items = [t_out] if single else list(t_out)
    e_items = [e_out] if single else list(e_out)
    t_leaves = top_level_paths(t_items, names, "output")
    e_leaves = [leaf for _, leaf in top_level_paths(e_items, names, "output")]
    n_results = len(t_leaves)
    # Items and attributes written in either branch (d["a"] = ..., obj.n = ...) merge like
    # variables; a branch that does not write one leaves it as it was before the `if`.
    locations = [loc for loc, _ in t_written.values()] + [
        loc for ident, (loc, _) in e_written.items() if ident not in t_written
    ]
    kept, t_flags, e_flags = [], [], []
    for location in locations:
        if mutation.unobservable(
            location, locations, unread
        ):  # made and dropped, or never read again
            continue
        before = location.read()
        a = t_written.get(location.ident, (None, before))[1]
        b = e_written.get(location.ident, (None, before))[1]
        (a, a_set), (b, b_set) = (
            branch_writes.set_on_path(location, a, b),
            branch_writes.set_on_path(location, b, a),
        )
        t_leaves.append((location.describe(), a))
        e_leaves.append(b)
        kept.append(location)
        t_flags.append((f"<{location.describe()} set>", a_set))
        e_flags.append(b_set)
    locations = kept
    branch_writes.as_written(t_leaves, t_written, n_results, pairs=True)
    branch_writes.as_written(e_leaves, e_written, n_results, pairs=False)
    flagged = [
        i
        for i, (a_set, b_set) in enumerate(zip(t_flags, e_flags))
        if not (a_set[1] is b_set is np.True_)
    ]
    t_leaves += [t_flags[i] for i in flagged]
    e_leaves += [e_flags[i] for i in flagged]

    merged, out_types = [], []
    for (name, a), b in (other_path(leaf, b) for leaf, b in zip(t_leaves, e_leaves)):
        if (
            a is b
            and not is_tensor_array(a)
            and (not isinstance(a, Tensor) or a._graph not in (tg, eg))
        ):
            merged.append(("static", a))
            continue
        if not (is_convertible(a) and is_convertible(b)):
            raise errors.BranchMismatchError(
                f"{where()}'{name}' is {branch_errors.describe_leaf(a)} in the true branch and {branch_errors.describe_leaf(b)} "
                f"in the false branch of a staged `if`; both branches must give it a tensor or number"
            )
        try:
            joined = join_types(leaf_type(a), leaf_type(b), f"'{name}'")
        except errors.BranchMismatchError as exc:
            raise errors.BranchMismatchError(
                f"{where()}{exc} (branches of a staged `if`)"
            ) from None
        merged.append(("dynamic", tensor_array.either_list(a, b)))
        out_types.append(joined)

    dyn = [
        (name, a, b)
        for (name, a), b, (kind, _) in zip(t_leaves, e_leaves, merged)
        if kind == "dynamic"
    ]
    tg.graph.outputs = [value_in(tg, a, t, f"'{name}'") for (name, a, _), t in zip(dyn, out_types)]
    eg.graph.outputs = [value_in(eg, b, t, f"'{name}'") for (name, _, b), t in zip(dyn, out_types)]
    operands = align_captures([tg, eg], 0)
    outs = record(
        "cond",
        [pred_value, *operands],
        {},
        output_types=out_types,
        subgraphs={"then": tg.graph, "else": eg.graph},
    )
    tg.closed = eg.closed = True  # a tensor of a branch used later is a leak
    for out, (name, a, b), t in zip(outs, dyn, out_types):
        what = (
            f"'{name}'" if names is not None else f"the value ({name}) of this staged conditional"
        )
        out._weak_paths = weak_paths.joined(
            leaf_type(a), leaf_type(b), t, _paths_of(a), _paths_of(b), what, where()
        )
    it = iter(outs)
    leaves = [next(it) if kind == "dynamic" else obj for kind, obj in merged]
    leaves = [
        rebuild_leaf(obj, leaf) if kind == "dynamic" and obj is not None else leaf
        for (kind, obj), leaf in zip(merged, leaves)
    ]
    values = leaves[n_results : n_results + len(locations)]
    for i, flag in zip(flagged, leaves[n_results + len(locations) :]):
        if isinstance(flag, Tensor) or not flag:
            values[i] = MaybeMissing(locations[i], values[i], flag)
    branch_writes.write_back(
        outer,
        locations,
        values,
        branch_writes.unwritten_branches(
            outs[0]._value.producer if outs else None, locations, t_written, e_written
        ),
    )
    branch_writes.same_as_written(
        tg,
        eg,
        [
            i
            for i, (kind, _) in enumerate(merged[: n_results + len(locations)])
            if kind == "dynamic"
        ],
        n_results,
        locations,
        leaves,
    )
    rebuilt = nest.pack_as(t_items, leaves[:n_results])
    return (
        rebuilt[0]
        if single
        else type(t_out)(rebuilt)
        if not nest.is_namedtuple(t_out)
        else type(t_out)(*rebuilt)
    )


_staged_cond = cond  # (while_loop's parameter `cond` hides the function)


def _paths_of(x):
    """The types a joined value has on other paths (staging.weak_paths), or None."""
    return x._weak_paths if isinstance(x, Tensor) else None


# -- while_loop --------------------------------------------------------------


def while_loop(  # noqa: C901, PLR0912, PLR0915
    cond, body, loop_vars, maximum_iterations=None, *, names=None, shape_invariants=None
):
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`.

    Staged as one `while_loop` node when called while tracing. A loop
    variable whose shape changes is generalised (None dims) and the body
    traced again; a dtype change raises LoopVariableError (a Python number
    may widen, as it would in Python).
    """
    is_list = isinstance(loop_vars, list)
    loop_vars = tuple(loop_vars)
    outer = current_graph()
    if outer is None:
        return _eager_while(cond, body, loop_vars, maximum_iterations, is_list)

    flat = top_level_paths(loop_vars, names, "loop_vars")
    kinds, types, inits = [], [], []
    for name, leaf in flat:
        if is_convertible(leaf) and not has_staged_value(leaf):
            kinds.append("dynamic")
            types.append(leaf_type(leaf))
        else:
            kinds.append("static")
            types.append(None)
        inits.append(leaf)
    fixed, unknown_rank = (
        _apply_shape_invariants(flat, types, shape_invariants)
        if shape_invariants
        else (set(), set())
    )
    counter = maximum_iterations is not None
    n_vars = len(flat)
    # Items and attributes the body writes (d["a"] = ..., obj.n = ...) are loop variables too,
    # after the variables proper: found by tracing the body, then traced again as variables.
    places: list = []
    loop_kinds = array0d.LoopKinds()
    later: dict = {}  # variable -> the Python-number types the body gives it (see _trace_loop)

    for _attempt in range(64):
        try:
            cg, bg = _trace_loop(
                outer,
                cond,
                body,
                loop_vars,
                flat,
                kinds,
                types,
                counter,
                maximum_iterations,
                places,
                loop_kinds,
                later,
            )
        except branch_errors.BodyRaises as failure:
            if _attempt or places or shape_invariants:
                raise failure.error from None
            # The body raises on the first iteration whatever the values are: as eagerly, the
            # loop raises when it runs at least once and gives its initial values otherwise.
            return branch_errors.loop_that_raises(
                cond, body, loop_vars, maximum_iterations, is_list, names, _staged_cond
            )
        body_out = bg._loop_out
        changed = False
        out_leaves = (
            _check_body_outputs(loop_vars, body_out, flat[:n_vars], kinds[:n_vars], names)
            + bg._loop_places_out
        )
        new_types = list(types)
        for location in bg._loop_written:
            if all(location.ident != known.ident for known in places):
                if mutation.unobservable(location, bg._loop_written):
                    continue  # an object the body made and dropped (`d = {"a": x}; d["a"] = v`)
                init = location.read()  # its value before the loop (the traces are undone)
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
                places.append(location)
                flat.append((location.describe(), init))
                inits.append(init)
                dynamic = is_convertible(init) and not has_staged_value(init)
                kinds.append("dynamic" if dynamic else "static")
                types.append(leaf_type(init) if dynamic else None)
                new_types.append(types[-1])
                changed = True
        for i, ((name, init), out) in enumerate(zip(flat, out_leaves)):
            if (
                kinds[i] == "static"
                and is_undefined(init)
                and is_convertible(out)
                and not has_staged_value(out)
            ):
                # A name first assigned in the loop (e.g. a value returned from inside it): its
                # type comes from the body; before the first iteration it holds a zero of that
                # type, which converted code never reads (it tracks whether the name is set).
                kinds[i] = "dynamic"
                new_types[i] = leaf_type(out)
                inits[i] = loop_placeholder(new_types[i])
                flat[i] = (name, inits[i])
                changed = True
                continue
            if kinds[i] == "static":
                if i >= n_vars and out is not init:
                    raise errors.LoopVariableError(
                        f"{where()}{name} is {branch_errors.describe_leaf(init)} before the staged loop and "
                        f"{branch_errors.describe_leaf(out)} inside it; only tensors and numbers can change in a "
                        f"staged loop"
                    )
                continue
            if not is_convertible(out):
                raise errors.LoopVariableError(
                    f"{where()}loop variable '{name}' is a tensor before the loop but the loop body "
                    f"makes it {branch_errors.describe_leaf(out)}"
                )
            if i in unknown_rank and leaf_type(out).ndim != types[i].ndim:
                raise errors.LoopVariableError(
                    f"{where()}loop variable '{name}' has {types[i].ndim} dims before the loop and "
                    f"{leaf_type(out).ndim} after an iteration; its shape invariant has an unknown rank, "
                    f"but a staged loop variable keeps its number of dims"
                )
            new = _generalise(types[i], leaf_type(out), name)
            if i in fixed and new != types[i]:
                raise errors.LoopVariableError(
                    f"{where()}loop variable '{name}' is {leaf_type(out)} after an iteration, which its shape "
                    f"invariant {types[i]} does not accept"
                )
            if new != types[i]:
                new_types[i] = new
                changed = True
        for i, out in enumerate(
            out_leaves
        ):  # Python numbers the body writes into a list: it holds them
            if (
                kinds[i] == "dynamic"
                and is_tensor_array(out)
                and is_tensor_array(inits[i])
                and inits[i].with_weak_elements(out) is not inits[i]
            ):
                inits[i] = inits[i].with_weak_elements(out)
                flat[i], changed = (flat[i][0], inits[i]), True
        for i in range(n_vars):  # a flag no traced path sets (`return` under a Python `if`) stays
            if (
                kinds[i] == "dynamic"
                and type(inits[i]) is bool
                and out_leaves[i] is bg._loop_placeholders[i]
            ):
                kinds[i], new_types[i], changed = "static", None, True  # what it was: trace again
        changed = loop_kinds.settle(out_leaves) or changed
        changed = _later_python_numbers(later, out_leaves, kinds, new_types) or changed
        if not changed:
            break
        cg.closed = bg.closed = True  # this attempt's tensors are discarded
        types = new_types
    else:  # pragma: no cover - each retrace loses at least one known dim, so this cannot loop
        raise errors.LoopVariableError(f"{where()}loop variable types did not settle")

    dyn_index = [i for i, k in enumerate(kinds) if k == "dynamic"]
    cg.graph.outputs = [cg._loop_cond]
    bg.graph.outputs = [
        value_in(
            bg, out_leaves[i], types[i], f"loop variable '{flat[i][0]}'", errors.LoopVariableError
        )
        for i in dyn_index
    ]
    init_values = [
        value_in(
            outer, inits[i], types[i], f"loop variable '{flat[i][0]}'", errors.LoopVariableError
        )
        for i in dyn_index
    ]
    if counter:
        bg.graph.outputs.append(bg._loop_counter_next)
        init_values.append(record("const", [], {"value": np.int64(0)})._value)
    nvars = len(init_values)
    if not counter and branch_errors.never_ends(cg.graph, bg.graph, init_values):
        # Python loops forever here, and so must the graph: a stateful node in the body keeps
        # dead-code elimination from dropping the loop when its results are unused.
        with building(bg):
            record("assert", [True], {"parts": ("this loop never ends",), "error": AssertionError})
    captures = align_captures([cg, bg], nvars)
    out_types = [types[i] for i in dyn_index] + ([TensorType(np.int64, ())] if counter else [])
    outs = record(
        "while_loop",
        [*init_values, *captures],
        {"num_loop_vars": nvars},
        output_types=out_types,
        subgraphs={"cond": cg.graph, "body": bg.graph},
    )
    cg.closed = bg.closed = True  # a tensor of the loop body used after the loop is a leak
    # After the loop a variable has the types its body gives it on other paths; not the Python
    # number it started as, which it still is only after zero iterations (docs/semantics.md).
    for out, i in zip(outs, dyn_index):
        out._weak_paths = weak_paths.joined(
            types[i],
            leaf_type(out_leaves[i]),
            types[i],
            weak_paths.types_only(_paths_of(inits[i])),
            _paths_of(out_leaves[i]),
            f"'{flat[i][0]}'",
            where(),
            errors.LoopVariableError,
        )
        start = leaf_type(inits[i]) if i < n_vars else None
        # (eagerly still that Python number when the loop runs zero times: staging.loop_flags;
        # or when it runs zero times after loops before it that left the number as it was)
        before = (
            getattr(getattr(inits[i], "_weak_paths", None), "zero_trip", None)
            if i < n_vars
            else None
        )
        if (
            isinstance(types[i], TensorType)
            and not types[i].weak
            and (before is not None or isinstance(start, TensorType) and start.weak)
        ):
            if out._weak_paths is None:
                out._weak_paths = weak_paths.WeakPaths(
                    (), f"'{flat[i][0]}'", where(), errors.LoopVariableError
                )
            out._weak_paths.zero_trip = (
                ((out,), start, loop_flags.check_ran)
                if before is None
                else (before[0] + (out,), before[1], before[2])
            )
    for out, i in zip(outs, dyn_index):
        if i < n_vars:
            aliasing.carry_out(inits[i], bg._loop_placeholders[i], out)
    it = iter(outs)
    leaves = []
    for i, (name, init) in enumerate(flat):
        if kinds[i] == "dynamic":  # (one the body gives back unchanged is what it was before)
            out = next(it)
            leaves.append(
                init if out_leaves[i] is bg._loop_placeholders[i] else rebuild_leaf(init, out)
            )
        else:
            leaves.append(init)
    branch_writes.write_back(outer, places, leaves[n_vars:])
    result = nest.pack_as(list(loop_vars), leaves[:n_vars])
    return result if is_list else tuple(result)


def _later_python_numbers(later, out_leaves, kinds, types) -> bool:
    """Records in `later` the Python-number types a loop body gives its variables, where the
    loop's type is a NumPy one (`s = len(xs)` in a float64 loop variable): on the iterations
    after, the variable is that Python number eagerly. True when one is new (trace again)."""
    changed = False
    for i, out in enumerate(out_leaves):
        if kinds[i] != "dynamic" or not isinstance(types[i], TensorType) or types[i].weak:
            continue
        paths = _paths_of(out)
        found = [leaf_type(out)] + (list(paths.types) if paths is not None else [])
        for u in found:
            if isinstance(u, TensorType) and u.weak and u not in later.get(i, ()):
                later.setdefault(i, []).append(u)
                changed = True
    return changed


def _trace_loop(  # noqa: C901, PLR0912, PLR0913
    outer,
    cond,
    body,
    loop_vars,
    flat,
    kinds,
    types,
    counter,
    maximum_iterations,
    places,
    loop_kinds,
    later,
):
    """Traces cond and body into subgraphs. Entries of `flat` past the loop variables proper are
    the `places` (items and attributes) the body writes: their placeholders are written into
    them while the functions are traced (and undone after). Sets on the body graph `_loop_out`,
    `_loop_places_out` (the places' values after the body) and `_loop_written` (the places it
    wrote)."""
    n_vars = len(flat) - len(places)
    graphs = []
    for label in ("cond", "body"):
        g = FuncGraph(label, outer=outer)
        g.function_name = outer.function_name
        placeholders = []
        for i, ((name, init), kind, t) in enumerate(zip(flat, kinds, types)):
            if kind == "dynamic":
                p = g.add_input(t, name)
                if isinstance(t, TensorType) and t.shape == () and not t.weak:
                    loop_kinds.placeholder(
                        p, i, init
                    )  # (a 0-d array or a NumPy scalar: staging.array0d)
                if isinstance(p, Tensor) and is_convertible(
                    init
                ):  # on the first iteration it is init,
                    # on later ones what the body made of it (a Python number there: `later`)
                    after = (
                        weak_paths.WeakPaths(
                            later[i], f"'{name}'", where(), errors.LoopVariableError
                        )
                        if i in later
                        else None
                    )
                    p._weak_paths = weak_paths.joined(
                        leaf_type(init),
                        t,
                        t,
                        _paths_of(init),
                        after,
                        f"'{name}'",
                        where(),
                        errors.LoopVariableError,
                    )
                placeholders.append(rebuild_leaf(init, p))
            else:
                placeholders.append(init)
        counter_in = g.add_input(TensorType(np.int64, ()), "iteration") if counter else None
        vars_ = nest.pack_as(list(loop_vars), placeholders[:n_vars])
        with building(g), mutation.recording(g) as journal:
            for location, value in zip(places, placeholders[n_vars:]):
                mutation.note(location)
                location.write(value)
            if label == "cond":
                c = truth_value(g, cond(*vars_), "condition of a staged `while`")
                if counter:
                    below = record("less", [counter_in, maximum_iterations])
                    c = g.value_of(record("logical_and", [below, Tensor(g, c)]))
                g._loop_cond = c
                known = {location.ident for location in places}
                extra = [location for location in journal.locations if location.ident not in known]
                if extra:
                    raise errors.UnsupportedConstructError(
                        f"{where()}the condition of this staged loop writes {extra[0].describe()}; "
                        f"a condition that changes state cannot be staged: move the write into the "
                        f"loop body"
                    )
            else:
                try:
                    out = body(*vars_)
                except Exception as exc:
                    if not branch_errors.deferrable(exc):
                        raise
                    journal.undo()
                    raise branch_errors.BodyRaises(exc) from exc
                if len(loop_vars) == 1 and not isinstance(out, (tuple, list)):
                    out = (out,)
                g._loop_out = out
                g._loop_placeholders = placeholders
                g._loop_places_out = [location.read() for location in places]
                g._loop_written = journal.locations
                if counter:
                    g._loop_counter_next = g.value_of(record("add", [counter_in, 1]))
        journal.undo()
        graphs.append(g)
    return graphs[0], graphs[1]


def _check_body_outputs(loop_vars, body_out, flat, kinds, names):
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
            f"{branch_errors.describe_structure(a)} before the loop, {branch_errors.describe_structure(b)} after an iteration"
        )
    outs = [leaf for _, leaf in out_flat]
    for (name, init), kind, out in zip(flat, kinds, outs):
        if kind == "static" and out is not init:
            if is_undefined(init) and (is_convertible(out) or is_undefined(out)):
                continue  # given a type by the first body trace, see while_loop
            if is_convertible(out) and init is None:
                raise errors.LoopVariableError(
                    f"{where()}loop variable '{name}' is {branch_errors.describe_leaf(init)} before the staged loop "
                    f"and {branch_errors.describe_leaf(out)} inside it; give it an initial value of the same dtype "
                    f"before the loop"
                )
            if not (has_staged_value(init) and out is init):
                raise errors.LoopVariableError(
                    f"{where()}loop variable '{name}' is a Python {type(init).__name__} that the staged "
                    f"loop body changes ({branch_errors.describe_leaf(init)} -> {branch_errors.describe_leaf(out)}); only tensors "
                    f"and numbers can change in a staged loop"
                )
    return outs


def _generalise(before, after, name):
    """The type of a loop variable that is `before` on entry and `after` after an iteration."""
    if (
        isinstance(before, TensorType)
        and isinstance(after, TensorType)
        and not before.weak
        and not after.weak
        and before.dtype != after.dtype
    ):
        raise errors.LoopVariableError(
            f"{where()}loop variable '{name}' changes dtype from {before.dtype.name} before the "
            f"loop to {after.dtype.name} in the loop body; cast it (e.g. .astype(np."
            f"{after.dtype.name})) before the loop so it keeps one dtype"
        )
    try:
        return join_types(before, after, f"loop variable '{name}'", errors.LoopVariableError)
    except errors.LoopVariableError as exc:
        raise errors.LoopVariableError(f"{where()}{exc}") from None


_NOT_GIVEN = object()


def _apply_shape_invariants(flat, types, shape_invariants) -> tuple:
    """Sets the types of the loop variables that have a shape invariant (by name or by the
    variable itself) to it; returns their positions (whose types the loop may not relax) and
    those of them whose invariant has an unknown rank."""
    by_name = {}
    if isinstance(shape_invariants, dict):
        by_name = shape_invariants
    else:
        for var, shape in shape_invariants:
            for i, (_, leaf) in enumerate(flat):
                if leaf is var:
                    by_name[i] = shape
    fixed, unknown_rank = set(), set()
    for i, (name, _) in enumerate(flat):
        shape = by_name.get(name, by_name.get(i, _NOT_GIVEN))
        if shape is not _NOT_GIVEN and types[i] is not None:
            spec_shape = getattr(shape, "shape", shape)
            if spec_shape is None:
                # An unknown rank: every dim of unknown size, the rank of the value before the loop
                # (a staged value has a known rank; a body changing it is refused where it does).
                spec_shape = (None,) * types[i].ndim
                unknown_rank.add(i)
            t = TensorType(types[i].dtype, spec_shape)
            if not t.is_supertype_of(types[i].strong()):
                raise errors.LoopVariableError(
                    f"{where()}shape invariant {t} for loop variable '{name}' does not accept its "
                    f"initial value {types[i]}"
                )
            types[i] = t
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
