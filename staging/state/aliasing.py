"""In-place writes into symbolic arrays: which tensors share memory (views), and rebinding them.

Eager NumPy mutates arrays: after `y = x; x[0] = 5`, `y[0]` is 5, and writing into a view
(`v = x[1:3]; v[0] = 9`) writes into `x`. A symbolic Tensor is a mutable reference to an SSA
graph value, so a write records a node computing the new array (`setitem`, `ufunc_out`, ...)
and *rebinds* the Tensor object to that node's output: every Python reference to the object
sees the write.

Views. A Tensor made from another by an operation that NumPy guarantees to return a view
(basic indexing, transpose, expand_dims, squeeze; read-only: broadcast_to, diagonal) records
its base (`root`, the tensor that owns the data) and the steps that derive it. A write into
a view writes the new contents back into the root through those steps; after any write into
a root, each of its live views is derived again from the new root. reshape and ravel return a
view or a copy depending on the memory layout, which is unknown while tracing: their results
are "maybe" views: writing into one is refused, and one read after its root was written
raises (staging.state.stale_values.check_use checks `View.stale`). Aliases that views cannot follow,
through staged control flow, are staging.state.stale_values' concern.

Refused writes (errors.MutationError): into a value that may be an argument through staged
control flow (an argument itself is written back: staging.functions.argument_writes), through a maybe-view, into a tensor that
belongs to an enclosing graph from inside a staged `if` or loop body (check_rebind), and into
an array that is an element of a staged list (a TensorArray stores a snapshot of the value,
where a Python list holds the array itself and sees later writes; see note_stored).
"""

from __future__ import annotations

import weakref

from runtime.registry import get_op
from staging import errors
from staging.core.recording import current_graph, record
from staging.core.source_map import user_names, where
from staging.core.tensor import Tensor, leaked_error
from staging.state import concrete_arrays
from staging.state import journal as mutation
from staging.state.stale_values import argument_of, mark_overwritten
from staging.state.stale_values import describe as _describe

VIEW, READONLY, MAYBE = "view", "readonly", "maybe"


class View:
    """How a view tensor derives from its root: steps (op, extra inputs, attrs) applied in order
    to the root's value; `kind` is VIEW (writable), READONLY or MAYBE (a view or a copy)."""

    __slots__ = ("root", "steps", "kind", "stale")

    def __init__(self, root: Tensor, steps: tuple, kind: str):
        self.root = root
        self.steps = steps
        self.kind = kind
        self.stale = None  # for a MAYBE view whose root was written: the error to raise on use


def _combine(a: str, b: str) -> str:
    if MAYBE in (a, b):
        return MAYBE
    return READONLY if READONLY in (a, b) else VIEW


def track_view(result, source, kind: str = VIEW):
    """Records that `result`, just recorded from `source` (its first input), shares `source`'s
    memory the way NumPy's view of `kind` does. Returns `result`."""
    if not isinstance(result, Tensor) or not isinstance(source, Tensor) or result is source:
        return result
    node = result._value.producer
    if node is None or not node.inputs:
        return result
    step = (node.op, tuple(node.inputs[1:]), dict(node.attrs))
    parent = source._alias
    if parent is None:
        root, steps = source, (step,)
    else:
        root, steps, kind = parent.root, parent.steps + (step,), _combine(parent.kind, kind)
    result._alias = View(root, steps, kind)
    views = root._views
    if views is None:
        views = root._views = []
    elif len(views) >= 64 and len(views) & (len(views) - 1) == 0:  # prune at powers of two
        views[:] = [r for r in views if r() is not None]
    views.append(weakref.ref(result))
    return result


def _live_views(root: Tensor) -> list:
    """The views of `root` still usable: alive, and not made in a staged branch or loop body
    whose trace has finished (their graph is closed)."""
    if not root._views:
        return []
    alive = [v for v in (r() for r in root._views) if v is not None and not v._graph.closed]
    root._views = [weakref.ref(v) for v in alive]
    return alive


# -- the checks made before a write -------------------------------------------------------------


def check_rebind(tensor: Tensor, what: str) -> None:
    """Raises when a write would rebind `tensor` from inside a staged `if` branch or loop body
    that `tensor` is not part of (it belongs to an enclosing graph). Such a write cannot yet
    flow out of the branch or loop as its output. This is the one place that decides it: a
    trace-time journal of such rebindings (so the staged `if`/loop makes them its outputs)
    replaces this check, and `_rebind` is the one place a tensor is rebound."""
    fg = current_graph()
    owner = tensor._graph
    if owner is fg:
        return
    if owner.closed or fg is None:
        raise leaked_error(tensor)
    if fg._encloses(owner) and mutation.recording_active():
        return  # the staged `if`/loop journals the rebinding and makes it one of its outputs
    if fg._encloses(owner):
        construct = "`if`" if fg.name in ("then", "else") else "loop"
        names = user_names(tensor)
        name, var = (f"'{names[0]}'", names[0]) if names else ("an array", "x")
        raise errors.MutationError(
            f"{where()}{what} writes into {name} inside a staged {construct}, but {name} was created "
            f"outside it; a write into it cannot flow out of the staged {construct}. Rebind the name "
            f"instead: copy it inside the {construct} first (`{var} = {var}.copy()`, then write), or "
            f"build the new value and assign it to a name (`{var} = np.where(mask, v, {var})`)"
        )


def check_writable(target: Tensor, what: str, in_place_op: bool = False) -> None:
    """Raises when `what` (e.g. "`x[...] = v`") may not write into `target`."""
    view = target._alias
    root = target if view is None else view.root
    for tensor in [target] + ([root] if root is not target else []) + _live_views(root):
        check_rebind(tensor, what)  # every tensor the write rebinds
    if view is not None and view.kind == MAYBE:
        made = _made_at(target)
        raise errors.MutationError(
            f"{where()}{what} writes into {_describe(target)}, the result of a reshape/ravel{made}: NumPy "
            f"returns a view or a copy there depending on memory layout, so whether the write "
            f"reaches the array it was reshaped from is not known while tracing. Call .copy() on "
            f"the reshaped array, or write into the original array and reshape afterwards"
        )
    if view is not None and view.kind == READONLY:
        raise ValueError(
            f"{where()}"
            + (
                "output array is read-only"
                if in_place_op
                else "assignment destination is read-only"
            )
        )
    if root._stored is not None:
        raise errors.MutationError(
            f"{where()}{what} writes into {_describe(target)}, whose data was {root._stored}: eagerly "
            f"the list holds the array itself and would show this write, while the staged list "
            f"holds its value. Store or take a copy (`.copy()`), or rebind instead of writing in place"
        )
    if (
        id(root) not in getattr(root._graph, "argument_tensors", ())
        and argument_of(root._graph, root._value) is not None
    ):
        # (an argument itself, on every path, is written back into the caller's array:
        # staging.functions.argument_writes; a value that is the argument on some paths only cannot be)
        through = "" if root is target else f" (through a view of it{_made_at(target)})"
        raise errors.MutationError(
            f"{where()}{what} writes into {_describe(target)}{through}, which may be an argument passed "
            f"through a staged `if` or loop: eagerly this modifies the caller's array on the paths "
            f"where it is the argument, which one staged graph cannot follow. Copy it first "
            f"(`.copy()`), or write into the argument by its own name"
        )


def _root(tensor: Tensor) -> Tensor:
    return tensor if tensor._alias is None else tensor._alias.root


def _is_loop_carried(tensor: Tensor) -> bool:
    """A loop variable inside a staged loop body: the same array object on every iteration."""
    fg = tensor._graph
    return fg.outer is not None and fg.name == "body" and tensor._value.producer is None


def note_stored(tensor, what: str) -> None:
    """Records that `tensor`'s data went into a staged list (`what`: "appended to", "read from").
    Eagerly the list holds the array object itself, so a later in-place write into the array
    would change the list's element; the staged list holds the value. Such writes are refused:
    here, when the array is a loop variable the loop body also writes in place (the next
    iteration's write comes after this append), and later in check_writable."""
    if not isinstance(tensor, Tensor):
        return
    root = _root(tensor)
    if root._written == "carried":
        raise errors.MutationError(
            f"{where()}{_describe(tensor)} is {what} a list inside a staged loop that also writes into "
            f"it in place: eagerly the list holds the array itself, so every element would show the "
            f"later writes. Append a copy (`.copy()`), or rebind instead of writing in place "
            f"(`y = y + d` instead of `y += d`)"
        )
    if root._stored is None:
        loc = where().rstrip(": ")
        root._stored = f"{what} a list at {loc}" if loc else f"{what} a list"


def _made_at(tensor: Tensor) -> str:
    node = tensor._value.producer
    if node is not None and node.location:
        return f" made at {node.location[0]}:{node.location[1]}"
    return ""


# -- the write ------------------------------------------------------------------------------------


def _rebind(tensor: Tensor, new: Tensor) -> None:
    mutation.rebind_tensor(tensor, new)  # (inside a staged branch or loop body: journaled)


def _apply(step, base):
    op, extra, attrs = step
    return record(op, [base, *extra], attrs)


def _unapply(step, base: Tensor, new_view: Tensor) -> Tensor:
    """The new value of `base` once its view made by `step` holds `new_view` (the op's
    OpDef.view_update: only the ops of VIEW steps have one)."""
    op, extra, attrs = step
    update = get_op(op).view_update
    if update is None:  # pragma: no cover - only VIEW steps get here
        raise AssertionError(f"no inverse for a {op} view")
    name, inputs, new_attrs = update(
        base, new_view, extra, attrs, base.static_shape, new_view.static_shape
    )
    return record(name, inputs, new_attrs)


def carry_out(init, placeholder, out: Tensor, name: str = "") -> None:
    """After a staged loop whose body wrote loop variable `placeholder` in place: eagerly the loop
    wrote into its initial array `init` itself, so every name holding that array (`u = v` before
    the loop), and the views of it, see the loop's result `out`. A write that may not be made
    (into an argument, a maybe-view, a list's element, ...) is left to the loop's own checks
    (staging.state.stale_values), which refuse it naming the loop."""
    if not (isinstance(placeholder, Tensor) and placeholder._written == "carried"):
        return
    if concrete_arrays.is_concrete_array(init):
        # (an array nothing else refers to became a staged value where the loop began:
        # staging.state.concrete_arrays.promote_entering)
        raise concrete_arrays.aliased_error(
            init, "the staged loop's in-place write", f" (loop variable {name!r})"
        )
    if not isinstance(init, Tensor):
        return
    try:
        check_writable(init, "the loop's in-place write")
    except (errors.StagingError, ValueError):
        return
    write(init, out)


def read_through_loop_variable(read: tuple, start, item) -> bool:
    """A staged `for` over an array that its body writes in place (`for e in v: v *= 2`, with `v`
    the loop variable): eagerly each element is read from the array as the earlier iterations
    left it. The element nodes recorded in the body graph (positions read[0] to read[1]) read
    the loop's captured initial array; they are made to read `start` (the loop variable's value
    at the start of the iteration) instead, and the capture dropped. Only for scalar elements,
    and only when nothing else in the body reads the captured array; True when done."""
    fg = current_graph()
    if fg is None or not isinstance(item, Tensor) or item.type.shape != ():
        return False
    nodes = fg.graph.nodes[read[0] : read[1]]
    captures = {id(inner) for _, inner in fg.captures.values()}
    # (the node that reads the element out of a captured array: the array is its first input)
    readers = [n for n in nodes if n.inputs and id(n.inputs[0]) in captures]
    if len(readers) != 1:
        return False
    captured = readers[0].inputs[0]
    key = next((k for k, (_, inner) in fg.captures.items() if inner is captured), None)
    if (
        key is None
        or any(v is captured for v in fg.graph.outputs)
        or any(v is captured for n in fg.graph.walk() if n is not readers[0] for v in n.inputs)
    ):
        return False
    readers[0].inputs[0] = start
    del fg.captures[key]
    position = next(i for i, v in enumerate(fg.graph.inputs) if v is captured)
    del fg.graph.inputs[position], fg.graph.input_names[position]
    return True


def write(target: Tensor, new: Tensor) -> None:
    """Makes `target` hold `new` (same type), as an in-place write would: `target`'s root gets the
    new contents through `target`'s view steps, and every live view of the root is rebound to
    its contents (maybe-views become stale). Call check_writable first."""
    view = target._alias
    if view is None:
        root, new_root = target, new
    else:
        root = view.root
        bases = [root]
        for step in view.steps[:-1]:
            bases.append(_apply(step, bases[-1]))
        new_root = new
        for step, base in zip(reversed(view.steps), reversed(bases)):
            new_root = _unapply(step, base, new_root)
    if root._written != "carried":  # a loop variable keeps being the loop's array once rebound
        root._written = "carried" if _is_loop_carried(root) else True
    old = root._value
    journaled = mutation.journals(root)
    _rebind(root, new_root)
    if not journaled:  # (a journaled write is marked where its staged `if`/loop merges it)
        mark_overwritten(root._graph, old, where().rstrip(": ") or "an earlier line")
    for w in _live_views(root):  # the written view too: its value must be a view of the root's
        if w._alias.kind == MAYBE:
            if w._alias.stale is None:
                w._alias.stale = _stale_message(w)
        else:
            derived = root
            for step in w._alias.steps:
                derived = _apply(step, derived)
            _rebind(w, derived)


def _stale_message(tensor: Tensor) -> str:
    loc = where().rstrip(": ")
    return (
        f"{_describe(tensor)} is the result of a reshape/ravel{_made_at(tensor)}, and the array it was "
        f"reshaped from was written afterwards (at {loc or 'an earlier line'}): NumPy's "
        f"reshape returns a view or a copy depending on memory layout, so whether it sees that "
        f"write is not known while tracing. Call .copy() on the reshaped array before the "
        f"write, or reshape after it"
    )
