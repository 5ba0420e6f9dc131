"""NumPy arrays made while tracing that receive a staged value: they become staged values.

`out = np.zeros(3)` runs while the function is traced and gives a concrete NumPy array; `out[i]
= v` with a symbolic `v` (or index `i`), `out += t`, or any in-place write inside a staged `if`
or loop body (whose writes happen when the graph runs, on the path taken) cannot be made into
that array: it would hold the value at trace time. Instead the array is *promoted*: a constant
node holding its current contents becomes a symbolic Tensor, the write is made on it (an
ordinary in-place write: staging.state.aliasing), and converted code rebinds the name that held
the array to the Tensor (`out = ag__.setitem(out, i, v)`; autograph's composite-assignment and
control-flow converters, and autograph.operators.control_flow for the arrays a staged `if` or
loop writes).

Eagerly every other reference to the array (another name, a view such as `cols = out.T`, a
list or an object holding it) sees the write; the Tensor cannot be put in their place. (A view
taken by indexing a name the function writes items of, `row = out[i]`, makes the array staged
there: autograph.operators.composites.take_view.) So a
promotion first checks that nothing else refers to the array: its reference count, minus the
references a promotion expects (the name it is bound to, and the state tuples of the
constructs that pass it along, see `carrying`), must be zero. Otherwise the write is refused
(errors.MutationError, naming the line), never made on a copy that the other references do
not see.

The expected count is measured, not assumed: `calibrate` runs an operator of the converted-code
call shape `name = op(name, ...)` on an array held by one name and records what it sees, which
absorbs the differences between Python versions in how calls hold their arguments.
"""

from __future__ import annotations

import gc
import sys
import threading

import numpy as np

from staging import errors
from staging.core.recording import current_graph, record
from staging.core.source_map import user_frame, user_names, where
from staging.core.tensor import Tensor, is_symbolic
from staging.state import journal

_local = threading.local()


def _carriers() -> list:
    stack = getattr(_local, "carriers", None)
    if stack is None:
        stack = _local.carriers = []
    return stack


class carrying:
    """While converted code's `if_stmt` / `for_stmt` / `while_stmt` run a branch or an iteration
    natively inside a trace, the state tuples they pass along (`initial`: the tuple converted
    code built from its variables, `current`: the one of this iteration) hold the arrays of
    those variables: references a promotion expects (the tuple, and the variable of the frame
    that built it), not aliases."""

    __slots__ = ("initial", "others")

    def __init__(self, initial: tuple, *others: tuple):
        self.initial = initial
        self.others = []  # this iteration's tuple, the call's arguments: each tuple once
        for values in others:
            if values is not initial and all(values is not t for t in self.others):
                self.others.append(values)

    def __enter__(self):
        _carriers().append(self)
        return self

    def __exit__(self, *exc):
        _carriers().pop()
        return False

    def holds(self, array) -> int:
        """The references to `array` this construct and its caller hold (-1: the array is two of
        the variables, which makes them aliases)."""
        count = _count_identical(self.initial, array)
        if count > 1:
            return -1
        found = 2 * count  # the tuple, and the caller's variable it was built from
        for values in self.others:
            extra = _count_identical(values, array)
            if extra > 1:
                return -1
            found += extra
        return found


def _count_identical(values: tuple, obj) -> int:
    return sum(v is obj for v in values)


def _expected_by_carriers(array) -> int:
    total = 0
    for carrier in _carriers():
        held = carrier.holds(array)
        if held < 0:
            return -1
        total += held
    return total


# -- when an array must become a staged value ---------------------------------------------------


def is_concrete_array(x) -> bool:
    """A plain NumPy array (not a subclass, whose in-place semantics are its own)."""
    return type(x) is np.ndarray


def holds_symbolic(x, depth: int = 0) -> bool:
    """A symbolic value (or a Variable, a staged list), or a tuple or list holding one."""
    if is_symbolic(x) or hasattr(type(x), "_staged_value"):
        return True
    if depth < 4 and type(x) in (tuple, list):
        return any(holds_symbolic(v, depth + 1) for v in x)
    return False


def needs_promotion(array, *operands) -> bool:
    """Whether an in-place write of `operands` (an index, a value) into the concrete `array` must
    make it a staged value: while tracing, when an operand is symbolic, or inside a staged
    branch or loop body (the write happens when the graph runs, on the paths that make it)."""
    if not is_concrete_array(array) or current_graph() is None:
        return False
    return journal.recording_active() or any(holds_symbolic(x) for x in operands)


# -- the check and the promotion ----------------------------------------------------------------

# References to an array bound to one name, as an operator of the shape `name = op(name, ...)`
# counts them with sys.getrefcount on its first parameter (set by `calibrate`).
_BASE = [None]


def calibrate(operator, probe) -> None:
    """Measures the references an operator of converted code's shape sees on an array held by
    one local name: `operator(array, probe)` must return `sys.getrefcount(array)` taken on its
    first line when given `probe`."""

    def one_name():
        array = np.empty(0)
        return operator(array, probe)

    _BASE[0] = one_name()


def is_temporary(references: int) -> bool:
    """Whether an operator's first argument, of which it saw `references`, is bound to no name
    (the element or view `x[i]` that `x[i] += v` updates and writes back)."""
    return references < _BASE[0]


def unaliased(array, references: int) -> bool:
    """Whether an operator's first argument `array`, of which it saw `references` (on its first
    line, see calibrate), is referred to by nothing but its name."""
    return _unaliased(array, references - _BASE[0])


def check_unaliased(array, references: int, what: str, base: int | None = None) -> None:
    """Raises errors.MutationError when `array`, of which an operator saw `references` (its
    sys.getrefcount on its first parameter), is referred to by anything else than the name the
    write rebinds and the state of the constructs passing it along. `what` names the write;
    `base`: the references expected without carriers, when not the calibrated count."""
    expected = _BASE[0] if base is None else base
    if not _unaliased(array, references - expected):
        raise aliased_error(array, what)


def _snapshot_references(array) -> int:
    """The references to `array` from the locals dicts of running frames (what `frame.f_locals`
    made of their variables, kept by the frame until it ends): copies of the frames' own
    references, counted already."""
    referrers = [r for r in gc.get_referrers(array) if type(r) is dict]
    if not referrers:
        return 0
    candidates = {id(r) for r in referrers}
    snapshots = set()
    frame = sys._getframe(1)
    while frame is not None:
        if id(frame.f_locals) in candidates:
            snapshots.add(id(frame.f_locals))
        frame = frame.f_back
    return sum(sum(v is array for v in r.values()) for r in referrers if id(r) in snapshots)


def held_error(array, what: str) -> errors.MutationError:
    """The error for a write that would make a NumPy array held by an attribute, an item or a
    global (which converted code does not rebind) a staged value."""
    return errors.MutationError(
        f"{where()}{what} writes a value known only when the staged graph runs into a NumPy "
        f"array made while tracing, held by an attribute, an item of a container or a global: "
        f"the array would become a staged value, which can be bound only to a name of the "
        f"function. Bind it to a local name, write through that name, and store it back"
    )


def aliased_error(array, what: str, extra: str = "") -> errors.MutationError:
    names = user_names(array, outwards=True)
    views = _view_names(array)
    holders = []
    if len(names) > 1:
        holders.append("the names " + ", ".join(f"'{n}'" for n in names))
    if views:
        holders.append("the views " + ", ".join(f"'{n}'" for n in views))
    if array.base is not None:
        holders.append("the array it is a view of")
    known = f" ({' and '.join(holders)})" if holders else ""
    return errors.MutationError(
        f"{where()}{what} writes a value known only when the staged graph runs into a NumPy "
        f"array made while tracing{extra}; the array becomes a staged value here, but something "
        f"else also refers to it{known}: another name, a view of it (`cols = out.T`), a list, "
        f"an object or a function it was passed to. Eagerly they all see the write, which cannot "
        f"be made on them. Make the staged writes before other references to the array are "
        f"taken (or take them again after the writes), and write through the name that made it"
    )


def _view_names(array) -> list[str]:
    """Names of the innermost user frame bound to views of `array` (for messages)."""
    frame = user_frame(2)
    if frame is None:
        return []
    found = []
    for name, value in frame.f_locals.items():
        if type(value) is np.ndarray and value is not array and value.base is array:
            found.append(name)
    return sorted(found)


def promote(array) -> Tensor:
    """A Tensor holding `array`'s contents now (a constant node of the graph being built), to be
    written in place and bound where the array was."""
    return record("const", [], {"value": array.copy()})


# -- at the entry of a staged `if` or loop -------------------------------------------------------


def promote_entering(state: tuple, cells) -> tuple:
    """At the entry of a staged `if` or loop, whose branches or body make their writes when the
    graph runs: the concrete arrays of its state (`state`, the tuple converted code passes, of
    the variables the construct carries) and of the closure `cells` of its branch or body
    functions holding arrays the body writes in place become staged values, when nothing else
    refers to them (the variable, the tuple, the constructs passing them along). Returns the
    state to use; cells are set in place. An array something else refers to stays concrete: a
    write into it inside the construct is refused there."""
    if current_graph() is None:
        return state
    promoted = {}
    for i in range(len(state)):
        if is_concrete_array(state[i]):
            others = _references_in(state, i) - _IN_STATE[0]  # (before `value` holds it)
            value = state[i]
            if _unaliased(value, others):
                promoted[id(value)] = promote(value)
            value = None
    if promoted:
        state = tuple(promoted.get(id(v), v) for v in state)
    for cell in cells:
        try:
            value = cell.cell_contents
        except ValueError:  # (an empty cell: a name not bound yet)
            continue
        if is_concrete_array(value) and id(value) not in promoted:
            others = _references_in_cell(cell) - _IN_CELL[0] - 1  # (- `value`, measured first)
            if _unaliased(value, others):
                cell.cell_contents = promote(value)
        value = None
    return state


def unaliased_in_state(state: tuple, i: int) -> bool:
    """Whether `state[i]` (the tuple converted code passes a construct) is referred to by
    nothing but the variable it was built from, the tuple, and the constructs passing it along:
    a container a staged construct may make a staged value of (staging.state.containers)."""
    others = _references_in(state, i) - _IN_STATE[0]
    return _unaliased(state[i], others)


def unaliased_in_cell(cell) -> bool:
    """Whether the contents of closure cell `cell` are referred to by nothing but the cell (and
    the constructs passing them along)."""
    others = _references_in_cell(cell) - _IN_CELL[0]
    return _unaliased(cell.cell_contents, others)


def _references_in(values: tuple, i: int) -> int:
    """The references to `values[i]` (measured as calibrated: see _calibrate_entering)."""
    value = values[i]
    return sys.getrefcount(value)


def _references_in_cell(cell) -> int:
    value = cell.cell_contents
    return sys.getrefcount(value)


# The references promote_entering expects: an array bound to one variable and held by the state
# tuple; an array held by a cell alone (each as the two functions above count them).
_IN_STATE = [None]
_IN_CELL = [None]


def _calibrate_entering() -> None:
    array = np.empty(0)
    _IN_STATE[0] = _references_in((array,), 0)

    def cell_of_fresh_array():
        fresh = np.empty(0)
        return (lambda: fresh).__closure__[0]

    _IN_CELL[0] = _references_in_cell(cell_of_fresh_array())


_calibrate_entering()


def _unaliased(array, others: int) -> bool:
    carried = _expected_by_carriers(array)
    if carried < 0:
        return False
    if others - carried > 0 and others - carried - _snapshot_references(array) > 0:
        return False
    return _base_unaliased(array)


def _base_unaliased(array) -> bool:
    """A view of another array (`row = out[0]`, `x = np.arange(6).reshape(2, 3)`) shares its
    data: a write into it is one into its base, which must have no other reference than the
    view's (else the write, made on the staged value, would be lost for the others)."""
    base = getattr(array, "base", None)
    if base is None:
        return True
    others = sys.getrefcount(base) - 3  # the view's, `base` and getrefcount's argument
    return others <= 0 or others - _snapshot_references(base) <= 0


def closure_cells(functions, names) -> list:
    """The closure cells of `functions` (branch or body functions) for the free variables
    `names`, each once."""
    found, seen = [], set()
    for fn in functions:
        code = getattr(fn, "__code__", None)
        closure = getattr(fn, "__closure__", None)
        if code is None or not closure:
            continue
        for name, cell in zip(code.co_freevars, closure):
            if name in names and id(cell) not in seen:
                seen.add(id(cell))
                found.append(cell)
    return found
