"""Errors raised while a staged branch is traced: raised when the graph runs and takes that
branch, as Python raises them only when the branch runs.

`staging.control_flow.cond` traces both branches whatever the condition will be. User code in a
branch may raise while it is traced (a missing dict key, an index past the end, an operation
the types do not support, a division by a Python zero): eagerly that happens only on the calls
that take the branch. Such a branch becomes one that raises the same exception type when the
graph runs (a staged `assert` of False), giving in place of its values the other branch's
(never seen).

A loop body whose first iteration raises while traced gives a loop that raises when the graph
runs and the loop runs at least once (loop_that_raises). A loop that provably never ends is
kept, as Python would never finish it (never_ends).

describe_leaf, describe_structure and first_difference word the trace-time errors of branches
and loop bodies whose values do not match.
"""

from __future__ import annotations

import re

import numpy as np

from runtime.types import is_str, kinds
from staging import errors
from staging.control_flow.joins import is_undefined, name_of
from staging.core import nest
from staging.core.recording import building, record
from staging.core.source_map import raised_at, where
from staging.core.tensor import Tensor

_LOCATED = re.compile(r"\S+:\d+: ")  # a message that starts with a file:line


def deferrable(error) -> bool:
    """An exception that the user's code raised while a staged branch was traced, and that
    Python raises only if that branch runs (KeyError, IndexError, TypeError, ZeroDivisionError
    ...): a built-in exception, not a refusal of staging and not one that stops the program."""
    if isinstance(error, (errors.StagingError, RecursionError, StopIteration, StopAsyncIteration)):
        return False
    if isinstance(
        error.__cause__, StopIteration
    ):  # (a generator's StopIteration: a bug, not the user's)
        return False
    return raised_type(error) is not None


def raised_type(error):
    """The exception type the graph raises in place of `error`: its own type for a built-in
    exception; for one of NumPy's (UFuncTypeError, AxisError: subclasses of built-in types,
    with constructors that need more than a message) its first built-in base class, which an
    `except` clause written for the eager error also catches. None for other errors."""
    cls = type(error)
    module = cls.__module__ or ""
    if module == "builtins":
        try:
            cls("")
        except Exception:  # noqa: BLE001 - a constructor that needs more than a message
            return None
        return cls
    if module.split(".")[0] != "numpy":
        return None
    for base in cls.__mro__[1:]:
        if base.__module__ == "builtins" and base not in (Exception, BaseException):
            return base
    return None


def defer(branches) -> None:
    """A branch whose tracing raised (see `deferrable`) raises the same exception type when the
    graph runs and takes that branch, as Python does; it gives the other branch's values (zeros
    of their types, never seen). When both raise, the error is raised now: the first, when both
    are of one type; when they differ, which one Python raises depends on the condition, and the
    `if` is refused (BranchesRaiseError) naming both. `branches`: staging.control_flow's
    BranchTraces."""
    failed = [b for b in branches if b.raised is not None]
    if not failed:
        return
    if len(failed) == 2:
        first, second = failed[0].raised, failed[1].raised
        if raised_type(first) is raised_type(second):
            raise first
        raise errors.BranchesRaiseError(
            f"{where()}both branches of this staged `if` raise while traced, and which error Python "
            f"raises depends on the condition's value: the true branch {_quoted(first)}; the false "
            f"branch {_quoted(second)}"
        ) from first
    raising, other = failed[0], next(b for b in branches if b.raised is None)
    message = _located(raising.raised, where())
    g = raising.graph
    g.trace_state["deferred"] = True  # (see call_deferring)
    with building(g):
        record("assert", [False], {"parts": (message,), "error": raised_type(raising.raised)})
    raising.result = nest.pack_as(
        other.result, [_stand_in(g, leaf) for leaf in nest.flatten(other.result)]
    )


def call_deferring(fg, func, args, kwargs):
    """`func(*args, **kwargs)`, the staged function's trace into `fg`. When it raises a built-in
    exception after the trace made a branch that raises when the graph runs (`defer`) or a run-time
    check (an `assert`, _has_checks), the line
    that raised runs only on the paths that did not take such a branch (the values after it are
    the other branch's): the graph raises the error there, when it runs, after those branches
    had their chance to raise theirs, as Python would. The trace then gives None."""
    try:
        return func(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - raised again unless deferred
        # (a name or return value unset on the paths without such a branch fails there too)
        undefined = isinstance(error, errors.UndefinedNameError)
        if not (
            (fg.trace_state.get("deferred") or _has_checks(fg.graph))
            and (undefined or deferrable(error))
        ):
            raise
        with building(fg):
            record(
                "assert",
                [False],
                {
                    "parts": (_located(error, where()),),
                    "error": type(error) if undefined else raised_type(error),
                },
            )
        return None


# ops that raise when the graph runs on Python numbers (ZeroDivisionError), as Python's do
_PYTHON_RAISING = frozenset(
    ("floor_divide", "remainder", "divide", "true_divide", "divmod", "pow", "power")
)


def _has_checks(graph) -> bool:
    """Whether the graph may raise when it runs before the line being traced (an `assert`: a
    value that may make an earlier line raise eagerly; a division of what may be Python
    numbers): an error raised later while tracing is raised after those, as Python would."""
    return any(
        n.op == "assert"
        or n.op in _PYTHON_RAISING
        and any(_may_be_python_number(v) for v in n.inputs)
        or any(_has_checks(g) for g in n.subgraphs.values())
        for n in graph.nodes
    )


def _may_be_python_number(v) -> bool:
    return any(getattr(k, "weak", False) for k in kinds(getattr(v, "type", None)))


def _located(error, fallback: str = "") -> str:
    """The error's message, starting with the user's file:line that raised it (or `fallback`)."""
    text = str(error)
    return text if _LOCATED.match(text) else f"{raised_at(error) or fallback}{text}"


def _quoted(error) -> str:
    return f"raises {type(error).__name__} ({_located(error)})"


def _stand_in(g, leaf):
    """The value a branch that raises gives in place of `leaf`: the same object, or for a tensor
    a zero of its type in graph `g` (never seen: the branch raises first)."""
    if not isinstance(leaf, Tensor):
        return leaf
    with building(g):
        if is_str(leaf.type):
            return record("str_const", [], {"text": ""})
        return record("const", [], {"value": _zero(leaf.type)})


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
    """True when `value` is a Python True or a Value made by a `const` node holding a true
    scalar; False otherwise (unknown)."""
    if value is True:
        return True
    producer = getattr(value, "producer", None)
    if producer is None or producer.op != "const":
        return False
    constant = producer.attrs.get("value")
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
