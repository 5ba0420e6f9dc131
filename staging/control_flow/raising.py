"""Errors raised in staged control flow: raised when the graph runs and takes that path, as
Python raises them only when the path runs.

`staging.control_flow.cond` traces both branches whatever the condition will be. User code in a
branch may raise while it is traced (the user's own `raise`, a missing dict key, an index past
the end, a division by a Python zero): eagerly that happens only on the calls that take the
branch. Such a branch becomes one that ends with a `raise` node, which raises the exception
when the graph runs and takes the branch, and gives in place of its values the other branch's
(never seen). The exception is eager's: the user's `raise Cls(a, b)` is recorded with its class
and arguments (`new_error`) and made when the graph runs by calling the class with the values
of that run; an exception raised by other code while tracing is remade with the same class,
args and attributes. The user's line goes in a note (runtime.executor), not in the message.

A path whose every run raises (both branches of an `if` raise) is traced once, its raise
recorded, and then ends the trace of what encloses it with PathRaises: that construct raises
on the path too. A loop body whose first iteration raises while traced gives a loop that
raises when the graph runs and the loop runs at least once (loop_that_raises). A loop that
provably never ends is kept, as Python would never finish it (never_ends).

describe_leaf, describe_structure and first_difference word the trace-time errors of branches
and loop bodies whose values do not match.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from runtime.core_ops import ARG, NO_CAUSE
from runtime.registry import get_op
from runtime.types import NONE, ContainerType, ListType, TensorType, is_str, kinds
from staging import errors
from staging.control_flow.joins import align_captures, is_undefined, name_of
from staging.core import nest
from staging.core.exceptions import is_caught_exception
from staging.core.recording import building, current_graph, record, user_location
from staging.core.source_map import raised_at, raised_location, where
from staging.core.tensor import Tensor, has_staged_value
from staging.state import containers
from staging.state.tensor_array import is_tensor_array

# -- the user's `raise` --------------------------------------------------------------------

_RECIPE = "__autograph_raise__"  # set on an exception made by new_error: its Recipe


@dataclass
class Recipe:
    """A `raise cls(*args, **kwargs) [from cause]` of the user's code, to be made when the graph
    runs: `args`, `kwargs` and `cause` may hold symbolic values (node inputs); cause is NO_CAUSE
    without `from`. `location`: the user's line."""

    cls: type | None  # None: raise again the caught exception that args[0] is
    args: tuple
    kwargs: dict
    cause: object
    location: tuple | None
    copy: object = None  # an exception object raised as it is: remade as a copy of it

    def symbolic(self) -> bool:
        return any(_symbolic(leaf) for leaf in _leaves((self.args, self.kwargs, self.cause)))


class PendingRaise(Exception):
    """Raised while tracing in place of the user's exception when its class cannot be made from
    symbolic arguments (its __init__ reads their values): it is made when the graph runs."""

    def __init__(self, recipe: Recipe):
        super().__init__(getattr(recipe.cls, "__name__", "the caught exception"))
        setattr(self, _RECIPE, recipe)


class PathRaises(Exception):
    """The path traced so far raises on every run when the graph runs (its raise is recorded
    already): what follows on it is never reached. Ends the trace of the enclosing branch, loop
    body or function, which then raises on that path."""


def _symbolic(x) -> bool:
    return isinstance(x, Tensor) or has_staged_value(x)


def _leaves(x, depth=0):
    kind = type(x)
    if depth < 8 and (kind is tuple or kind is list):
        for item in x:
            yield from _leaves(item, depth + 1)
    elif depth < 8 and kind is dict:
        for item in x.values():
            yield from _leaves(item, depth + 1)
    else:
        yield x


def _cause_of(cause):
    """The `from` part as Python takes it: None, an exception, or an exception class (made)."""
    if cause is None or cause is NO_CAUSE or isinstance(cause, BaseException):
        return cause
    if isinstance(cause, type) and issubclass(cause, BaseException):
        return cause()
    if is_caught_exception(cause):
        return cause
    raise TypeError("exception causes must derive from BaseException")


def new_error(cls, args=(), kwargs=None, cause=NO_CAUSE):
    """The exception of the user's `raise cls(*args, **kwargs) [from cause]`, with its Recipe:
    inside a trace a path that raises it records it (`record_raise`) to be made when the graph
    runs, from the values of that run. Raised while tracing, it is made now; when its class
    cannot be made from symbolic arguments, a PendingRaise stands for it."""
    kwargs = dict(kwargs or {})
    cause = _cause_of(cause)
    if current_graph() is None:
        return _made(cls(*args, **kwargs), cause)
    recipe = Recipe(cls, tuple(args), kwargs, cause, user_location())
    if not recipe.symbolic():
        error = _made(cls(*args, **kwargs), cause)  # (its own errors are raised as eagerly)
    else:
        try:
            error = _made(cls(*args, **kwargs), cause)
        except Exception:  # noqa: BLE001 - its __init__ reads the values: made at run time
            return PendingRaise(recipe)
    try:
        setattr(error, _RECIPE, recipe)
    except (AttributeError, TypeError):  # pragma: no cover - an exception without a __dict__
        return PendingRaise(recipe)
    return error


def _made(error, cause):
    if cause is not NO_CAUSE and not is_caught_exception(cause):
        error.__cause__ = cause  # (what `raise error from cause` sets)
        error.__suppress_context__ = True
    return error


def with_cause(error, cause=NO_CAUSE):
    """`error` as `raise error from cause` raises it (outside a trace)."""
    return _made(error, _cause_of(cause))


def as_raised(error, cause=NO_CAUSE):
    """`raise error [from cause]` of an exception object while tracing: itself, carrying a
    Recipe that remakes it (class, args holding symbolic values, attributes) when a staged path
    raises it."""
    cause = _cause_of(cause)
    recipe = Recipe(type(error), tuple(error.args), {}, cause, user_location(), copy=error)
    error = _made(error, cause)
    try:
        setattr(error, _RECIPE, recipe)
    except (AttributeError, TypeError):  # pragma: no cover - an exception without a __dict__
        return PendingRaise(recipe)
    return error


def recipe_of(error) -> Recipe | None:
    return getattr(error, _RECIPE, None)


def reraise(exc, cause=NO_CAUSE) -> BaseException:
    """`raise exc [from cause]` of an exception a staged `try` caught when the graph runs: a
    PendingRaise that records raising it again."""
    return PendingRaise(Recipe(None, (exc,), {}, _cause_of(cause), user_location()))


# -- recording a path that raises -----------------------------------------------------------

_OWN_PACKAGES = frozenset(("autograph", "staging", "runtime"))


def deferrable(error) -> bool:
    """An exception that the user's code raised while a staged path was traced, and that Python
    raises only if that path runs: any Exception but a refusal of staging's own (or one that
    a refusal caused: a NumPy error about a symbolic value it was given), a recursion limit, a
    generator's StopIteration, or a built-in error holding a symbolic value (a lookup of a
    symbolic key in a Python dict, which eagerly may succeed)."""
    if isinstance(error, (PathRaises, PendingRaise)) or recipe_of(error) is not None:
        return True
    if isinstance(error, (errors.StagingError, RecursionError, StopIteration, StopAsyncIteration)):
        return False
    if (type(error).__module__ or "").split(".")[0] in _OWN_PACKAGES:  # (a retry, a signal)
        return False
    if isinstance(error.__cause__, StopIteration):  # (a generator's StopIteration: a bug)
        return False
    if refusal_behind(error) is not None:
        return False
    return not any(_symbolic(leaf) for leaf in _leaves(error.args))


def refusal_behind(error) -> BaseException | None:
    """The refusal of staging's own that `error` was raised in handling (NumPy turning the
    SymbolicValueError of a symbolic value it was given into "setting an array element with
    a sequence"), or None."""
    seen = set()
    link = error.__cause__ or error.__context__
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        if isinstance(link, errors.StagingError) and not isinstance(
            link, errors.UndefinedNameError
        ):
            return link
        link = link.__cause__ or link.__context__
    return None


def not_deferred(error) -> BaseException:
    """What to raise while tracing for an error that is not deferrable: the refusal behind it;
    for an error holding a symbolic value (a Python lookup or test of it failed while tracing,
    which eagerly may succeed), a refusal naming the line; or the error itself."""
    if isinstance(error, errors.StagingError):
        return error
    behind = refusal_behind(error)
    if behind is not None:
        return behind
    if type(error).__module__ == "builtins" and any(
        _symbolic(leaf) for leaf in _leaves(error.args)
    ):
        held = next(leaf for leaf in _leaves(error.args) if _symbolic(leaf))
        return errors.SymbolicValueError(
            f"{raised_at(error) or where()}{type(error).__name__} of a symbolic tensor "
            f"{held._describe()}: Python code (a dict or set lookup, a test of membership) "
            f"used it as a key, which needs its value, only known when the staged graph runs; "
            f"index an array with it instead, or keep the lookup outside the staged function"
        )
    return error


def record_raise(error) -> None:
    """Records in the current graph a `raise` node raising `error` when the graph runs: the
    user's `raise` made from the values of that run, or a copy of an exception raised while
    tracing (same class, args and attributes). A PathRaises is recorded already."""
    if isinstance(error, PathRaises):
        return
    recipe = recipe_of(error)
    if recipe is not None:
        _record_recipe(recipe)
        return
    location = raised_location(error)
    error = getattr(error, "__autograph_unlocated__", error)  # (NumPy's message, not ours)
    inputs = []
    args = _template(error.args, inputs)
    attrs = {"error": type(error), "mode": "copy", "args": args}
    _add_state(attrs, error)
    record("raise", inputs, attrs)
    _locate(location)


def _add_state(attrs: dict, error) -> None:
    """attrs["state"]: the attributes of an exception object (its own, not the notes or this
    module's), when it has some."""
    state = tuple(
        (name, value)
        for name, value in getattr(error, "__dict__", {}).items()
        if not name.startswith("__")
    )
    if state:
        attrs["state"] = state


def _record_recipe(recipe: Recipe) -> None:
    inputs = []
    if recipe.cls is None:  # raising again an exception a staged `try` caught
        attrs = {"mode": "value"}
        inputs.append(recipe.args[0])
    elif recipe.copy is not None:
        attrs = {"error": recipe.cls, "mode": "copy", "args": _template(recipe.args, inputs)}
        _add_state(attrs, recipe.copy)
    else:
        attrs = {"error": recipe.cls, "mode": "call", "args": _template(recipe.args, inputs)}
        if recipe.kwargs:
            attrs["kwargs"] = tuple((k, _template(v, inputs)) for k, v in recipe.kwargs.items())
    if recipe.cause is not NO_CAUSE:
        attrs["cause"] = _template(recipe.cause, inputs)
    record("raise", inputs, attrs)
    _locate(recipe.location)


def _template(x, inputs: list, depth=0):
    """`x` with each symbolic value an ARG slot (its value appended to `inputs`)."""
    kind = type(x)
    if depth < 8 and (kind is tuple or kind is list):
        return kind(_template(item, inputs, depth + 1) for item in x)
    if depth < 8 and kind is dict:
        return {k: _template(v, inputs, depth + 1) for k, v in x.items()}
    if _symbolic(x):
        inputs.append(x)
        return ARG
    if any(_symbolic(leaf) for leaf in nest.flatten(x)):
        raise errors.UnsupportedConstructError(
            f"{where()}this `raise` passes the exception a {type(x).__name__} holding symbolic "
            f"values; pass them as arguments of their own, or in a tuple, list or dict"
        )
    return x


def _locate(location) -> None:
    """The `raise` node just recorded names the user's line that raised (its failure note)."""
    if location is not None:
        current_graph().graph.nodes[-1].location = location


def defer(branches) -> None:
    """A branch whose tracing raised (see `deferrable`) ends with a `raise` node: it raises the
    exception when the graph runs and takes that branch, as Python does; it gives the other
    branch's values (zeros of their types, never seen). When both raise, the `if` raises on
    every path: it is recorded with no results and the trace of what encloses it ends
    (PathRaises). `branches`: staging.control_flow's BranchTraces."""
    failed = [b for b in branches if b.raised is not None]
    if not failed:
        return
    for branch in failed:
        with building(branch.graph):
            record_raise(branch.raised)
        branch.graph.trace_state["deferred"] = True  # (see call_deferring)
    if len(failed) == len(branches):
        return
    raising, other = failed[0], next(b for b in branches if b.raised is None)
    raising.result = stand_ins(raising.graph, other.result)


def record_raising(op, inputs, branches, subgraphs, attrs=None) -> None:
    """Records `op` (a `cond`, a `try_except`) whose every path raises, with no results, and
    ends the trace of what encloses it: PathRaises."""
    for b in branches:
        b.graph.graph.outputs = []
    operands = align_captures(list({id(b.graph): b.graph for b in branches}.values()), 0)
    record(op, [*inputs, *operands], attrs or {}, output_types=[], subgraphs=subgraphs)
    for b in branches:
        b.graph.closed = True
    raise PathRaises()


def stand_ins(graph, result):
    """What a path that raises on every run gives in place of the other path's `result`: the
    same objects, and zeros of the types of its tensors (never seen)."""
    return nest.pack_as(result, [_stand_in(graph, leaf) for leaf in nest.flatten(result)])


def call_deferring(fg, func, args, kwargs):
    """`func(*args, **kwargs)`, the staged function's trace into `fg`. When it raises after the
    trace made a path that raises when the graph runs (`defer`), a run-time check (an
    `assert`, _has_checks) or an effect (a print, _has_effects), or when it is the user's `raise` of symbolic values, the line that
    raised runs only on the paths that did not raise before: the graph raises the error there,
    when it runs, after those had their chance to raise theirs, as Python would. The trace then
    gives None. A PathRaises (every path raises, recorded already) gives None too."""
    try:
        return func(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - raised again unless deferred
        # (a name or return value unset on the paths without such a branch fails there too)
        if isinstance(error, PathRaises):
            return None
        recipe = recipe_of(error)
        undefined = isinstance(error, errors.UndefinedNameError)
        checks = fg.trace_state.get("deferred") or _has_checks(fg.graph) or _has_effects(fg.graph)
        if not (
            (recipe is not None and recipe.symbolic())
            or (checks and (undefined or deferrable(error)))
        ):
            if recipe is not None:  # raised on every call, as eagerly: the user's exception
                delattr(error, _RECIPE)
            raise
        with building(fg):
            if undefined:
                record("assert", [False], {"parts": (str(error),), "error": type(error)})
            else:
                record_raise(error)
        return None


def _has_checks(graph) -> bool:
    """Whether the graph may raise when it runs before the line being traced (a node there to
    raise the user's error, OpDef.user_error: an `assert` or a `raise`, a value that may make an
    earlier line raise eagerly; an op Python raises on, OpDef.python_errors, of what may be
    Python numbers: a division): an error raised later while tracing is raised after those, as
    Python would."""
    return any(_may_raise(n) for n in graph.nodes)


def _may_raise(node) -> bool:
    op = get_op(node.op)
    return (
        op.user_error
        or bool(op.python_errors)
        and any(_may_be_python_number(v) for v in node.inputs)
        or any(_has_checks(g) for g in node.subgraphs.values())
    )


def _has_effects(graph) -> bool:
    """Whether the trace staged an effect before the line being traced (a print, a draw, a
    Variable write: a stateful node): Python raises after the effect, so the graph raises an
    error that line raises while tracing after it, when it runs."""
    return any(n.stateful for n in graph.nodes)


def _may_be_python_number(v) -> bool:
    return any(getattr(k, "weak", False) for k in kinds(getattr(v, "type", None)))


def _stand_in(g, leaf):
    """The value a branch that raises gives in place of `leaf`: the same object, or for a tensor
    a zero of its type in graph `g` (never seen: the branch raises first), for a staged list or
    container an empty one of its kind."""
    if is_tensor_array(leaf):
        return leaf._with_handle(_empty_container(g, leaf._handle))
    if not isinstance(leaf, Tensor):
        return leaf
    kind = kinds(leaf.type)[0]  # (any of its kinds: the value is never seen)
    with building(g):
        if is_str(kind):
            return record("str_const", [], {"text": ""})
        if kind is NONE:
            return record("const", [], {"value": None})
        if isinstance(kind, (ListType, ContainerType)) and kind is leaf.type:
            empty = _empty_container(g, leaf)
            if empty is not None:
                return containers.wrap(empty)
        if not isinstance(kind, TensorType):  # (a staged list or container)
            raise errors.UnsupportedConstructError(
                f"{where()}a staged `if` or loop body raises on one path while the other gives "
                f"{leaf.type}, a staged list or container: a stand-in for it on the "
                f"raising path is not staged. Raise before the container is changed, or keep "
                f"the raise out of the staged construct"
            )
        return record("const", [], {"value": _zero(leaf.type)})


def _empty_container(g, handle):
    """An empty container of the kind `handle` (a staged list or container) holds, in graph `g`
    (a raising path's stand-in: never seen); None for a dict's view."""
    t = handle.type
    attrs: dict = {"kind": "list", "items": ()}
    if isinstance(t, ContainerType):
        if t.kind not in ("deque", "set", "dict"):
            return None
        attrs["kind"] = t.kind
        if t.kind == "deque":
            attrs["maxlen"] = t.maxlen
        if t.kind == "dict":
            attrs["factory"] = t.factory
    with building(g):
        return record("container_new", [], attrs)


def _zero(t):
    t = kinds(t)[0]  # (any of its kinds: the value is never seen)
    if t.weak:
        return t.python_type(0)
    shape = tuple(0 if d is None else d for d in t.shape)
    return np.zeros(shape, dtype=t.dtype)[()] if shape == () else np.zeros(shape, dtype=t.dtype)


# -- loops ---------------------------------------------------------------------------------


class BodyRaises(Exception):
    """Tracing the first iteration of a loop body raised `error` (a built-in exception the
    user's code raises: staging.control_flow.raising.deferrable)."""

    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


def loop_that_raises(cond_fn, body, loop_vars, maximum_iterations, is_list, names, staged_cond):
    """A staged loop whose body raises on its first iteration (its trace raised, with the loop
    variables as they are on entry): one staged `cond` on the loop condition whose true branch
    runs the body, raising when the graph runs, as Python raises only if the loop runs.
    `staged_cond`: staging.control_flow.cond (which imports this module)."""
    pred = cond_fn(*loop_vars)
    if maximum_iterations is not None:
        pred = record("logical_and", [pred, record("less", [0, maximum_iterations])])

    def first_iteration():
        # Python numbers as symbolic values, as the loop body sees them (a print of one is then
        # staged, as in the loop), then the body, which raises while traced: staging.control_flow.raising
        # defers it to run time.
        leaves = [
            record("python_number", [v], {"kind": type(v)})
            if type(v) in (bool, int, float, complex)
            else v
            for v in nest.flatten(list(loop_vars))
        ]
        out = body(*nest.pack_as(list(loop_vars), leaves))
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)

    result = staged_cond(pred, first_iteration, lambda: tuple(loop_vars), names=names)
    result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
    return list(result) if is_list else result


def constant_truth(value):
    """True when `value` is a Python True or a Value made by a constant node (OpDef.constant)
    holding a true scalar; False otherwise (unknown)."""
    if value is True:
        return True
    producer = getattr(value, "producer", None)
    op = get_op(producer.op) if producer is not None else None
    if op is None or op.constant is None:
        return False
    constant = op.constant(producer)
    return np.ndim(constant) == 0 and bool(constant)


def never_ends(cond_graph, body_graph, init_values) -> bool:
    """A loop that provably runs forever: its condition is a constant True, or a loop variable
    that is a constant True on entry and that the body sets to a constant True."""
    result = cond_graph.outputs[0]
    if constant_truth(result):
        return True
    if result not in cond_graph.inputs:
        return False
    k = cond_graph.inputs.index(result)
    return (
        k < len(init_values)
        and k < len(body_graph.outputs)
        and constant_truth(init_values[k])
        and constant_truth(body_graph.outputs[k])
    )


def describe_leaf(x) -> str:
    if isinstance(x, Tensor):
        return f"a tensor {x.type}"
    if x is None:
        return "None"
    if is_undefined(x):
        return "undefined"
    return f"a {type(x).__name__} ({x!r:.40})"


def describe_structure(s) -> str:
    if isinstance(s, (tuple, list)):
        return f"a {type(s).__name__} of {len(s)}"
    if isinstance(s, dict):
        return f"a dict with keys {sorted(map(str, s))}"
    return describe_leaf(s)


def first_difference(a, b, names, default):
    """(description of the place, its value in a, its value in b) where the structures of
    a and b first differ; top-level items of a tuple/list are named by `names`."""

    def walk(x, y, path):
        cx, cy = nest._children(x, None), nest._children(y, None)
        if (
            cx is None
            or cy is None
            or type(x) is not type(y)
            or [p for p, _ in cx] != [p for p, _ in cy]
        ):
            return path, x, y
        for (suffix, u), (_, v) in zip(cx, cy):
            if nest.structure_signature(u) != nest.structure_signature(v):
                return walk(u, v, path + suffix)
        return path, x, y

    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b):
        for i, (u, v) in enumerate(zip(a, b)):
            if nest.structure_signature(u) != nest.structure_signature(v):
                path, x, y = walk(u, v, "")
                return f"'{name_of(names, i, path, default)}'", x, y
    return "the outputs", a, b
