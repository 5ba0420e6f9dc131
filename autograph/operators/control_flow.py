"""if_stmt, while_stmt, for_stmt, if_exp: Python control flow on concrete values, staged on symbolic ones."""

from __future__ import annotations

import collections
import functools

import numpy as np

from autograph.operators import data_structures, py_builtins
from autograph.operators.contexts import mark_staged_region
from autograph.operators.staged_state import (
    Cells,
    PlaceholderUnset,
    Refill,
    check_defined,
    check_ran,
    defined_flag,
    display_names,
    fill_return_value,
    fill_unassigned,
    placeholder,
    placeholder_maker,
    undefined_positions,
    zero_like,
)
from autograph.operators.variables import (
    MaybeUndefined,
    is_maybe_undefined,
    is_undefined,
    is_undefined_return,
)
from staging import control_flow as staged
from staging import errors
from staging.core.recording import current_graph, drop_effects_since, node_count
from staging.core.source_map import where as _where
from staging.core.tensor import is_symbolic
from staging.kinds.undefined import MaybeMissing
from staging.state import aliasing, concrete_arrays, python_state
from staging.state import containers as staged_containers
from staging.state.containers import StagedContainer
from staging.state.tensor_array import TupleList


def _outer_write_error(kind, outer_writes):
    names = ", ".join(repr(n) for n in outer_writes)
    return errors.UnsupportedConstructError(
        f"{_where()}global/nonlocal {names} is written inside a staged {kind} (its condition "
        f"is symbolic); such writes would happen once while tracing, not on every call. Return the "
        f"value instead, or use a staging.Variable"
    )


# -- if ------------------------------------------------------------------------


def if_stmt(  # noqa: PLR0913
    cond,
    if_true,
    if_false,
    state,
    names,
    outer_writes=(),
    cells=(),
    get_state=None,
    set_state=None,
    returns=(),
    unread=None,
    arrays=(),
    containers=(),
    appended=(),
):
    """Runs one branch on a concrete condition, stages both with staging.cond on a symbolic one.

    Branches take `state` as arguments (the outputs first, named by `names`, then names a
    branch reads before writing) and return the new values of the outputs. `cells`: cell
    variables the branches write, read and written with get_state() / set_state(values).
    `returns`: the (flag, value) names of the function's lowered returns when a branch may
    return: the other names a returning branch leaves are never read afterwards. `unread()`: the
    objects of names nothing reads after the `if` (their writes need no merging when nothing
    else refers to them). `arrays`: the names the branches write items of (or update in place)
    that they do not take as arguments: the NumPy arrays made while tracing among them, and in
    `state`, become staged values when the `if` is staged (staging.state.concrete_arrays).
    `containers`: the names of the containers the branches change through their methods, and
    `appended` the deques they append to or pop from: a container the function made (or, among
    `arrays`, a list or dict whose items the branches write) becomes a staged value when the
    `if` is staged (staging.state.containers).
    """
    if is_symbolic(cond) or data_structures.is_staged_value(cond):
        if outer_writes:
            raise _outer_write_error("`if`", outer_writes)
        state = staged_containers.promote_entering(
            tuple(state), names, (if_true, if_false), containers, appended, arrays
        )
        state = concrete_arrays.promote_entering(
            tuple(state), concrete_arrays.closure_cells((if_true, if_false), (*arrays, *cells))
        )
        return _staged_if(
            cond,
            if_true,
            if_false,
            state,
            tuple(names),
            Cells(cells, get_state, set_state),
            tuple(returns),
            _objects(unread),
        )
    branch = if_true if cond else if_false
    if branch is None:
        return tuple(state[: len(names)])
    if current_graph() is None:
        result = branch(*state)
    else:
        with concrete_arrays.carrying(state):
            result = branch(*state)
    return () if result is None else result


def _objects(unread) -> tuple:
    try:
        return unread() if unread is not None else ()
    except NameError:  # (a name not bound on this path)
        return ()


def _staged_if(  # noqa: C901, PLR0915, PLR0913
    cond,
    if_true,
    if_false,
    state,
    names,
    cells,
    returns=(),
    unread=(),
    join=None,
    kind="`if`",
    lists=True,
    watched=None,
):
    """The staged `if` of if_stmt. `join(then, other, unread=, names=, watch=)` traces the two
    paths and joins their results (staging.cond on `cond` by default; a staged `try` joins its
    body and its `except` clauses, `kind` "`try`"). `lists`: the lists in the state become
    staged lists (each path appends to its own copy). `watched`: the user's functions the paths
    run (if_true and if_false by default), whose reach into Python state must not change."""
    where = _where()
    join = join or functools.partial(staged.cond, cond)
    n = len(names)
    all_names = names + cells.names
    original_cells = cells.get()
    # A list in the state is one a branch appends to or pops from: a staged list, so that
    # the branches change copies, at run time, and never the list the caller holds (the same
    # for a list in a cell variable, one a nested function reads).
    if lists:
        state = tuple(data_structures.staged_list(v) if type(v) is list else v for v in state)
    initial_cells = tuple(
        data_structures.staged_list(v) if lists and type(v) is list else v for v in original_cells
    )
    fill = {}  # position -> placeholder for a return value or a name the true branch leaves unset
    flagged = ()  # positions of names assigned on only some paths: they carry a `defined` flag
    dead = {}  # position -> placeholder for a value the true branch leaves as it returns
    staged_at = set()  # positions where the true branch's containers become staged containers
    lists_at: dict = {}  # position -> the false branch's value holding staged lists (a template)
    for _attempt in range(3 * len(all_names) + len(state) + 2):
        outputs = {}

        def branch(label, fn):
            def run():
                cells.set(initial_cells)
                try:
                    result = state[:n] if fn is None else fn(*state)
                except errors.UndefinedNameError as error:
                    marker = getattr(error, "undefined_marker", None)
                    if marker is not None and any(v is marker for v in state[:n]):
                        raise _UndefinedInput(marker, label) from error
                    raise
                result = _read_missing((() if result is None else tuple(result)) + cells.get())
                _check_lists_of_tuples(result, state[:n] + initial_cells)
                if label == "then" and fill:
                    result = tuple(
                        (PlaceholderUnset(fill[i]()) if i in flagged else fill[i]())
                        if i in fill and is_undefined(v)
                        else v
                        for i, v in enumerate(result)
                    )
                if label == "then" and dead:
                    result = tuple(dead[i]() if i in dead else v for i, v in enumerate(result))
                if label == "then" and staged_at:
                    result = tuple(
                        _containers_staged(v) if i in staged_at else v for i, v in enumerate(result)
                    )
                if label == "then" and lists_at:
                    result = tuple(
                        data_structures.lists_staged_like(v, lists_at[i]) if i in lists_at else v
                        for i, v in enumerate(result)
                    )
                other = outputs.get("then")
                if other is not None:
                    result = _match_containers(other, result)
                    result = _match_lists(other, result)
                    result = fill_return_value(other, result)
                    result = _left_by_return(other, result, names, returns, dead)
                    check_defined(other, result, all_names, where, flagged)
                    result = fill_unassigned(other, result, flagged)
                outputs[label] = result
                flags = tuple(defined_flag(result[i]) for i in flagged)
                values = tuple(v.value if is_maybe_undefined(v) else v for v in result)
                return tuple(data_structures.to_staged(v) for v in values + flags)

            return run

        try:
            results = join(
                branch("then", if_true),
                branch("else", if_false),
                unread=unread,
                names=display_names(all_names)
                + tuple(f"<{display_names(all_names)[i]} defined>" for i in flagged),
                watch=_watch(watched or (if_true, if_false), state, names, original_cells, cells),
            )
        except Refill as retry:
            fill.update(retry.fill)
            dead.update(getattr(retry, "dead", {}))
            flagged = tuple(sorted(set(flagged) | set(getattr(retry, "flagged", ()))))
            continue
        except _StagedOnOnePath as retry:
            cells.set(original_cells)
            staged_at |= retry.positions
            lists_at.update(retry.lists)
            continue
        except ListsOfTuples as retry:
            cells.set(original_cells)
            values = retry.apply(state[:n] + initial_cells)
            state, initial_cells = values[:n] + state[n:], values[n:]
            continue
        except _UndefinedInput as undefined_input:
            cells.set(original_cells)
            state = _checked_input(
                cond, undefined_input, if_true, if_false, state, names, initial_cells, cells
            )
            continue
        except BaseException as error:
            cells.set(original_cells)
            mark_staged_region(error, where, kind)
            raise
        results = tuple(data_structures.from_staged(v) for v in results)
        if flagged:
            flags, results = results[len(all_names) :], list(results[: len(all_names)])
            for i, flag in zip(flagged, flags):
                results[i] = MaybeUndefined(all_names[i], results[i], flag)
            results = tuple(results)
        cells.set(results[n:])
        return results[:n]
    raise AssertionError("unreachable: the second trace of a staged `if` has its placeholders")


def _watch(functions, state, names, cell_values, cells):
    """The Snapshot of the Python state a staged construct's functions reach (and of the values
    it is given, `state` named by `names` as far as they go), except the cells it carries itself
    (staging.state.python_state)."""
    names = display_names(names)
    values = [(names[i] if i < len(names) else None, v) for i, v in enumerate(state)]
    values += zip(display_names(cells.names), cell_values)
    return python_state.Snapshot([f for f in functions if f is not None], values, cells.objects())


class _StagedOnOnePath(Exception):
    """The false branch of a staged `if` gives a staged container where the true branch gives a
    Python container: the `if` is traced again with the true branch's made staged too."""

    def __init__(self, positions, lists=None):
        super().__init__()
        self.positions = set(positions)
        self.lists = lists or {}


def _holds_staged(value) -> bool:
    if isinstance(value, StagedContainer):
        return True
    return type(value) is tuple and any(_holds_staged(v) for v in value)


def _holds_plain(value) -> bool:
    if type(value) in (dict, set, collections.deque):
        return True
    return type(value) is tuple and any(_holds_plain(v) for v in value)


def _containers_staged(value):
    """`value` with its Python dicts, sets and deques (in tuples too) made staged containers
    (new ones holding their items, in the graph being built)."""
    if type(value) in (dict, set, collections.deque):
        return staged_containers.promote(value)
    if type(value) is tuple:
        return tuple(_containers_staged(v) for v in value)
    return value


def _match_containers(then, other):
    """The false branch's outputs, where the true branch gives a staged container and this one
    a Python one (a dict that passed through a staged loop as a structure of values): that
    container as a staged one too. Raises _StagedOnOnePath for the reverse."""
    out, retry = list(other), []
    for i, (a, b) in enumerate(zip(then, other)):
        if _holds_staged(a) and _holds_plain(b):
            out[i] = _containers_staged(b)
        elif _holds_staged(b) and _holds_plain(a):
            retry.append(i)
    if retry:
        raise _StagedOnOnePath(retry)
    return tuple(out)


def _match_lists(then, other):
    """The false branch's outputs, where the true branch gives a staged list inside a tuple and
    this one a Python list (`return x, []` and `return y, found`): that list as a staged list
    too. Raises _StagedOnOnePath (its `lists`) for the reverse."""
    out = tuple(data_structures.lists_staged_like(b, a) for a, b in zip(then, other))
    retry = {
        i: b
        for i, (a, b) in enumerate(zip(then, out))
        if data_structures.holds_list_staged_elsewhere(a, b)
    }
    if retry:
        raise _StagedOnOnePath((), retry)
    return out


def _left_by_return(then, other, names, returns, replaced):
    """The false branch's outputs, where one branch returns (sets the return flag, `returns[0]`,
    to True) and the other does not: a name the two give values of different types is never
    read on the returning path (converted code reads nothing but the return value after a
    return), so that branch's value becomes a placeholder of the other's type, and the two
    join. Raises Refill (its `dead`) when the true branch is the one to change."""
    if not returns or returns[0] not in names:
        return other
    flag = names.index(returns[0])
    then_returns, else_returns = then[flag] is True, other[flag] is True
    if then_returns == else_returns:
        return other
    out, dead = list(other), {}
    for i, name in enumerate(names):
        a, b = then[i], other[i]
        if (
            name in returns
            or i in replaced
            or is_undefined(a)
            or is_undefined(b)
            or _type_of(a) == _type_of(b)
        ):
            continue
        zero = zero_like(b if then_returns else a)
        if zero is None:
            continue
        if then_returns:
            dead[i] = zero
        else:
            out[i] = zero()
    if dead:
        retry = Refill({})
        retry.dead = dead
        raise retry
    return tuple(out)


def _type_of(value):
    return value.type if is_symbolic(value) else type(value)


def _read_missing(values):
    """Names holding an attribute or item set on only some paths (the value of `y = d["k"]`,
    staging.kinds.undefined.MaybeMissing) carried into a staged `if` or loop: read there, so a path that
    read it while it was unset fails (eagerly it failed at the read, earlier on that path)."""
    return tuple(v.read() if type(v) is MaybeMissing else v for v in values)


class ListsOfTuples(Exception):
    """A branch or loop body appended a tuple to a list that was empty before it: the `if` or
    loop is traced again with that list a list of tuples (a staged list per position,
    staging.state.tensor_array.TupleList), {position: the list the body made}."""

    def __init__(self, found):
        super().__init__()
        self.found = found

    def apply(self, values: tuple) -> tuple:
        return tuple(
            data_structures.StagedList(self.found[i].empty_like()) if i in self.found else v
            for i, v in enumerate(values)
        )


def _check_lists_of_tuples(result, before) -> None:
    """Raises ListsOfTuples where `result` holds a list of tuples that was an empty list in
    `before` (the values at the same positions before the branch or body)."""
    found = {}
    for i, (new, old) in enumerate(zip(result, before)):
        new = new.tensor_array if isinstance(new, data_structures.StagedList) else new
        if not isinstance(new, TupleList):
            continue
        if (type(old) is list and not old) or (
            isinstance(old, data_structures.StagedList)
            and data_structures.is_empty_list(old.tensor_array)
        ):
            found[i] = new
    if found:
        raise ListsOfTuples(found)


class _UndefinedInput(Exception):
    """A branch of a staged `if` read a name that is unassigned before the `if`."""

    def __init__(self, marker, label):
        super().__init__()
        self.marker, self.label = marker, label


def _checked_input(cond, undefined_input, if_true, if_false, state, names, initial_cells, cells):
    """The state of a staged `if` one of whose branches reads a name unassigned before it
    (`x += 1` where only the other branch assigns `x`, as in a loop whose first iteration
    assigns it): the name becomes a placeholder of the type the other branch gives it, whose
    reads check at run time that it is assigned (they fail, as in Python). The other branch is
    traced once on its own for that type (its effects are dropped). Refused when that branch
    does not assign it either, or gives it something that has no placeholder."""
    error = undefined_input.__cause__
    marker = undefined_input.marker
    other = if_false if undefined_input.label == "then" else if_true
    position = next(i for i, v in enumerate(state) if v is marker)
    if (
        other is None
        or any(data_structures.is_staged_value(v) or type(v) is list for v in state)
        or cells.names
    ):
        raise error
    mark = node_count()
    try:
        probe = other(*state)
    except Exception:  # the branch cannot run on its own: the read stays refused
        raise error from None
    finally:
        drop_effects_since(mark)
        cells.set(initial_cells)
    value = probe[position] if probe is not None and position < len(probe) else marker
    if is_maybe_undefined(value):
        value = value.value
    zero = placeholder_maker(value)
    if zero is None:
        raise error
    return tuple(
        MaybeUndefined(names[position], zero(), np.bool_(False)) if i == position else v
        for i, v in enumerate(state)
    )


def if_exp(cond, true_fn, false_fn):
    """`a if cond else b`; staged with staging.cond when cond is symbolic."""
    if is_symbolic(cond):
        where = _where()
        try:
            watch = python_state.Snapshot((true_fn, false_fn))
            return staged.cond(cond, true_fn, false_fn, watch=watch)
        except BaseException as error:
            mark_staged_region(error, where, "`a if c else b`")
            raise
    return true_fn() if cond else false_fn()


def return_value(value, do_return):
    """The value a converted function that may end without a `return` returns at its end:
    `value` if a `return` ran (`do_return`), else None (the function fell off its end)."""
    if value is None or (type(value) is tuple and all(v is None for v in value)):
        return value if do_return is True else None
    if is_symbolic(do_return):  # (None where it ends without a `return`, as eagerly)
        return staged.cond(do_return, lambda: value, lambda: None)
    if not do_return or is_undefined_return(value):
        return None
    return value


# -- while ------------------------------------------------------------------


def _options(opts):
    opts = opts or {}
    unknown = set(opts) - {"maximum_iterations", "shape_invariants"}
    if unknown:
        raise TypeError(f"set_loop_options() got unknown options {sorted(unknown)}")
    return opts.get("maximum_iterations"), opts.get("shape_invariants")


def while_stmt(  # noqa: PLR0913
    test,
    body,
    state,
    names,
    opts=None,
    outer_writes=(),
    cells=(),
    get_state=None,
    set_state=None,
    arrays=(),
    containers=(),
    appended=(),
):
    """Loops natively while `test(*state)` is concrete; the first symbolic test stages the rest
    of the loop as one staging.while_loop. `cells`, `arrays`, `containers`, `appended`: as for
    if_stmt."""
    maximum_iterations, shape_invariants = _options(opts)
    state = initial = tuple(state)
    count = 0
    while True:
        if (
            maximum_iterations is not None
            and not is_symbolic(maximum_iterations)
            and count >= maximum_iterations
        ):
            return state
        mark = node_count()
        # (the first test may be the staged loop's: what it changes in Python state is seen)
        watch = python_state.Snapshot((test,)) if count == 0 else None
        t = test(*state)
        staged_test = is_symbolic(t) or data_structures.is_staged_value(t)  # (a staged list's)
        test_writes = watch.changes() if staged_test and watch is not None else []
        watch = None  # (it holds the containers it saw: they would look held elsewhere)
        if staged_test:
            drop_effects_since(
                mark
            )  # the staged loop's condition makes the test's draws, prints ...
            _refuse_test_writes(test_writes)
            if outer_writes:
                raise _outer_write_error("`while` loop", outer_writes)
            remaining = maximum_iterations - count if maximum_iterations is not None else None
            state = staged_containers.promote_entering(
                state, names, (test, body), containers, appended, arrays
            )
            state = concrete_arrays.promote_entering(
                state, concrete_arrays.closure_cells((test, body), (*arrays, *cells))
            )
            return _staged_loop(
                test,
                body,
                state,
                names,
                remaining,
                shape_invariants,
                "`while` loop",
                Cells(cells, get_state, set_state),
            )
        if not t:
            return state
        t = None  # (the test's value, a container, must not look like a reference to it)
        result = _run_natively(body, initial, state)
        state = () if result is None else result
        count += 1


def _refuse_test_writes(found: list) -> None:
    """The condition of a loop about to be staged changed Python state when it was first
    evaluated (`while k < n and xs.pop()`, xs a list; `found`: python_state's changes): the
    staged loop evaluates it again on every iteration when the graph runs, but the change was
    made once, while tracing."""
    if found:
        what, line, _ = found[0]
        written = f" (written at {line})" if line else ""
        raise errors.MutationError(
            f"{_where()}the condition of this staged `while` loop (symbolic) changes {what}"
            f"{written} when it is evaluated: the change would be made once, while tracing, and "
            f"not on each iteration when the graph runs; make the change in the loop body"
        )


def _run_natively(body, initial, state, *item):
    """body(*item, *state), an iteration of a loop run natively (see concrete_arrays.carrying)."""
    args = (*item, *state) if item else state
    if current_graph() is None:
        return body(*args)
    with concrete_arrays.carrying(initial, state, args):
        return body(*args)


def _check_assigned_before(all_names, values, where, kind) -> None:
    for name, value in zip(all_names, values):
        if is_maybe_undefined(value):
            raise errors.UndefinedNameError(
                f"{where}'{name}' is assigned on only some paths before this staged {kind} and "
                f"the loop reads or assigns it; a staged loop cannot carry such a name: assign it "
                f"on every path before the loop"
            )


def _check_assigned_after(all_names, values, where, kind) -> None:
    for name, value in zip(all_names, values):
        if (is_undefined(value) and not is_undefined_return(value)) or is_maybe_undefined(value):
            raise errors.UndefinedNameError(
                f"{where}'{name}' may be left unassigned by an iteration of this staged {kind}"
            )


def _loop_options(all_names, created, shape_invariants) -> dict:
    options = {"names": display_names(all_names) + (("<loop ran>",) if created else ())}
    if shape_invariants:
        options["shape_invariants"] = shape_invariants
    return options


def _staged_loop(  # noqa: C901, PLR0913
    test, body, state, names, maximum_iterations, shape_invariants, kind, cells, watched=None
):
    """One staging.while_loop. Loop variables are `state` and then the cells; a name first
    assigned in the body gets a placeholder of the type the first trace of the body gives it
    (and, unless it is the return value, a run-time check that the loop ran)."""
    where = _where()
    n = len(state)
    full = _read_missing(tuple(state) + cells.get())
    count = len(full)
    all_names = tuple(names) + cells.names
    undefined, created = undefined_positions(full)
    fills = {}

    _check_assigned_before(all_names, full, where, kind)

    def split(values):
        ran = values[count] if created else None
        values = tuple(data_structures.from_staged(v) for v in values[:count])
        if created and fills:
            # A name the loop creates holds a placeholder until an iteration assigns it: a
            # read before that checks at run time that the loop has run (as Python would fail).
            values = tuple(
                MaybeUndefined(all_names[i], v, ran) if i in fills and i in created else v
                for i, v in enumerate(values)
            )
        cells.set(values[n:])
        return values[:n]

    def cond_fn(*loop_vars):
        return test(*split(loop_vars))

    def body_fn(*loop_vars):
        result = body(*split(loop_vars))
        result = (() if result is None else tuple(result)) + cells.get()
        _check_lists_of_tuples(result, full)
        new = {
            i: placeholder(display_names(all_names)[i], result[i], where, kind)
            for i in undefined
            if i not in fills and not is_undefined(result[i])
        }
        if new:
            raise Refill(new)
        _check_assigned_after(all_names, result, where, kind)
        ran = (np.bool_(True),) if created else ()
        return tuple(data_structures.to_staged(v) for v in result) + ran

    kwargs = _loop_options(all_names, created, shape_invariants)
    kwargs["watch"] = _watch(watched or (test, body), state, names, full[n:], cells)
    for _attempt in range(len(undefined) + len(full) + 1):
        initial = tuple(fills.get(i, v) for i, v in enumerate(full))
        loop_vars = tuple(data_structures.to_staged(v) for v in initial)
        loop_vars += (np.bool_(False),) if created else ()
        try:
            results = staged.while_loop(cond_fn, body_fn, loop_vars, maximum_iterations, **kwargs)
        except Refill as retry:
            fills.update(retry.fill)
            continue
        except ListsOfTuples as retry:
            full = retry.apply(full)
            continue
        except BaseException as error:
            cells.set(full[n:])
            mark_staged_region(error, where, kind)
            raise
        break
    else:  # pragma: no cover - each attempt fills at least one more position
        raise AssertionError("unreachable: staged loop placeholders did not settle")
    if created:
        check_ran(results[-1], [all_names[i] for i in created], kind)
        results = results[:-1]
    results = tuple(data_structures.from_staged(v) for v in results)
    cells.set(results[n:])
    return results[:n]


# -- for ----------------------------------------------------------------------


def for_stmt(  # noqa: C901, PLR0913
    iterable,
    extra_test,
    body,
    state,
    names,
    opts=None,
    outer_writes=(),
    cells=(),
    get_state=None,
    set_state=None,
    arrays=(),
    containers=(),
    appended=(),
):
    """`for item in iterable` natively for Python iterables; one staging.while_loop over a
    symbolic tensor's first axis, a range with a symbolic bound, or enumerate/zip of those.
    `cells`, `arrays`, `containers`, `appended`: as for if_stmt."""
    maximum_iterations, shape_invariants = _options(opts)
    state = initial = tuple(state)
    cells = Cells(cells, get_state, set_state)

    def entering(state):
        """The state as a staged loop or `if` over the rest of the items takes it: the arrays and
        containers the body writes made staged values (see if_stmt)."""
        state = staged_containers.promote_entering(
            state, names, (body, extra_test), containers, appended, arrays
        )
        return concrete_arrays.promote_entering(
            state, concrete_arrays.closure_cells((body, extra_test), (*arrays, *cells.names))
        )

    if py_builtins.is_staged_iterable(iterable):
        if outer_writes:
            raise _outer_write_error("`for` loop", outer_writes)
        if _never_runs(iterable):
            return state  # (nothing to stage: its containers stay Python's)
        state = entering(state)
        return _staged_for(
            iterable, extra_test, body, state, names, maximum_iterations, shape_invariants, cells
        )
    if is_undefined(iterable):
        iterable._fail()
    if isinstance(iterable, range) and extra_test is not None:
        return _range_for(
            iterable,
            extra_test,
            body,
            state,
            names,
            maximum_iterations,
            shape_invariants,
            outer_writes,
            cells,
            initial,
            entering,
        )
    iterator = iter(iterable)
    count = 0
    while True:
        if maximum_iterations is not None and count >= maximum_iterations:
            return state
        if extra_test is not None:
            t = extra_test(*state)
            if is_symbolic(t):
                if outer_writes:
                    raise _outer_write_error("`for` loop", outer_writes)
                limit = maximum_iterations - count if maximum_iterations is not None else None
                state = staged_containers.promote_entering(
                    state, names, (body, extra_test), containers, appended, arrays
                )
                return _unrolled_rest(t, iterator, extra_test, body, state, names, limit, cells)
            if not t:
                return state
        try:
            item = next(iterator)
        except StopIteration:
            return state
        result = _run_natively(body, initial, state, item)
        state = () if result is None else result
        count += 1


def _unrolled_rest(t, iterator, extra_test, body, state, names, limit, cells):
    """The rest of a loop over a Python iterable once its `break`/`return` condition `t` is
    symbolic: the iterable stays a Python one, so each remaining item's iteration runs as a
    staged `if` on the condition (the state after it joins both paths)."""
    count = 0
    while limit is None or count < limit:
        try:
            item = next(iterator)
        except StopIteration:
            break
        if is_symbolic(t) or data_structures.is_staged_value(t):
            state = _staged_if(
                t,
                lambda *s, item=item: body(item, *s),
                None,
                tuple(state),
                tuple(names),
                cells,
                watched=(body, extra_test, item),
            )
        elif t:
            result = body(item, *state)
            state = () if result is None else result
        else:
            break
        count += 1
        if limit is not None and count >= limit:
            break
        t = extra_test(*state)
    return state


def _range_for(  # noqa: PLR0913
    rng,
    extra_test,
    body,
    state,
    names,
    maximum_iterations,
    shape_invariants,
    outer_writes,
    cells,
    initial,
    entering,
):
    """A loop over a concrete range whose break condition may turn symbolic: the remaining
    iterations are then staged (their state made by `entering(state)`)."""
    count = 0
    for position, item in enumerate(rng):
        if maximum_iterations is not None and count >= maximum_iterations:
            return state
        t = extra_test(*state)
        if is_symbolic(t):
            if outer_writes:
                raise _outer_write_error("`for` loop", outer_writes)
            rest = py_builtins.StagedRange(rng.start + position * rng.step, rng.stop, rng.step)
            remaining = maximum_iterations - count if maximum_iterations is not None else None
            return _staged_for(
                rest, extra_test, body, entering(state), names, remaining, shape_invariants, cells
            )
        if not t:
            return state
        result = _run_natively(body, initial, state, item)
        state = () if result is None else result
        count += 1
    return state


def _both(in_range, extra_test, state):
    """The test of a staged `for`: the iterable has an item left, and the loop's own `break`
    test (extra_test) holds."""
    if extra_test is None:
        return in_range
    more = extra_test(*state)
    if not is_symbolic(more) and not is_symbolic(in_range):
        return in_range and more
    return np.logical_and(in_range, more)


def _container_for(
    container, extra_test, body, state, names, maximum_iterations, invariants, cells
):  # noqa: PLR0913
    """A staged `for` over a staged container. A list is iterated as Python's list iterator
    does, by position while the position is below its length now (items the body appends are
    reached); a deque, set, dict or view over its items when the loop starts, failing as
    Python's iterator does when the body changes its size."""
    alias = next((k for k, v in enumerate(state) if v is container), None)
    live = container._kind == "list"
    snapshot = None if live else container._call("list")

    def current(state):
        return state[alias] if alias is not None else container

    def test(i, *state):
        c = current(state)
        more = i < c._length() if live else c._call("iter_more", snapshot, i)
        return _both(more, extra_test, state)

    def loop_body(i, *state):
        item = current(state)[i] if live else snapshot[i]
        result = body(item, *state)
        return (i + 1, *(() if result is None else tuple(result)))

    result = _staged_loop(
        test,
        loop_body,
        (0, *state),
        ("<for index>", *names),
        maximum_iterations,
        invariants,
        "`for` loop",
        cells,
        watched=(body, extra_test),
    )
    return result[1:]


def _never_runs(iterable) -> bool:
    """Whether a staged `for` over `iterable` (a tensor with a static first dim of 0) never runs
    its body, as in Python."""
    if isinstance(iterable, py_builtins.StagedEnumerate):
        return _never_runs(iterable.iterable)
    if isinstance(iterable, py_builtins.StagedZip):
        return any(_never_runs(it) for it in iterable.iterables)
    if isinstance(iterable, StagedContainer) or not is_symbolic(iterable):
        return False
    try:  # (read from its type: nothing recorded)
        shape = iterable.static_shape
    except Exception:  # noqa: BLE001 - a value of several kinds: staged_length decides later
        return False
    return bool(shape) and shape[0] == 0


def _staged_for(
    iterable, extra_test, body, state, names, maximum_iterations, shape_invariants, cells
):
    if isinstance(iterable, StagedContainer):
        return _container_for(
            iterable, extra_test, body, state, names, maximum_iterations, shape_invariants, cells
        )
    length = py_builtins.staged_length(iterable, clamp=False)  # (below 0: no iteration either)
    if not is_symbolic(length) and length <= 0:
        return state  # a tensor with a static first dim of 0: the body never runs, as in Python

    def test(i, *state):
        return _both(i < length, extra_test, state)

    # `for e in v:` whose body writes the loop variable `v` in place: eagerly the elements come
    # from the array as written so far (staging.state.aliasing.read_through_loop_variable)
    alias = next((k for k, v in enumerate(state) if v is iterable and is_symbolic(v)), None)

    def loop_body(i, *state):
        mark = node_count()
        item = py_builtins.staged_item(iterable, i)
        read = (mark, node_count())  # (the nodes reading the element)
        start = state[alias] if alias is not None else None
        start_value = start._value if alias is not None else None
        result = body(item, *state)
        result = () if result is None else tuple(result)
        if alias is not None and result[alias] is start and start._written == "carried":
            aliasing.read_through_loop_variable(read, start_value, item)
        return (i + 1, *result)

    result = _staged_loop(
        test,
        loop_body,
        (0, *state),
        ("<for index>", *names),
        maximum_iterations,
        shape_invariants,
        "`for` loop",
        cells,
        watched=(body, extra_test),
    )
    return result[1:]


def listed_by_loop(iterable):
    """list() of a staged iterable whose number of items is known only when the graph runs (a
    tensor of unknown first dim, zip() or enumerate() of such, a range with a symbolic bound;
    py_builtins.run_time_length): a staged list, built by a staged loop appending the items, as
    `[item for item in iterable]` is."""

    def body(item, items):
        return (data_structures.list_append(items, item),)

    (items,) = for_stmt(iterable, None, body, ([],), ("<list() items>",))
    return items
