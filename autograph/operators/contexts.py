"""context, finally_guard, catches, caught: `with`, `finally:` and `try`/`except*` blocks.

They are entered and caught while tracing, and refuse wherever staged code inside would make
that differ from Python. (A `try` with `except` clauses is staged: operators.exceptions.)

A context manager is entered and left while tracing, as in TensorFlow. NumPy's run-time
contexts act on the operations run inside them, and staged operations run later, when the
graph runs: `with np.errstate(...)` is also a scope of the graph, whose operations staged
inside run under it (runtime.graph.Node.scope); `with np.printoptions(...)` acts on text, and
the prints and strings staged inside apply the options it sets (staging.core.strings); a `with`
of the others (warnings.catch_warnings, contextlib.suppress, np.errstate with `call=`) around
staged operations is refused (nothing staged inside: fine).

A `finally:` block runs while tracing, after its `try`; one whose staged effects Python would
run before an error raised when the graph runs propagates runs them on that error too
(finally_guard). A `try`
with `except*` clauses catches what is raised while tracing: an error raised while tracing a
staged branch or loop (whether it is raised depends on a symbolic value), or one that staged
operations inside it could raise when the graph runs, would not be caught as in Python: when one
of its clauses would catch it, the `try` is refused.
"""

from __future__ import annotations

import contextlib
import sys
import warnings

import numpy as np

from runtime._compat import add_note
from runtime.analysis import may_catch, run_time_errors
from staging import errors
from staging.control_flow import handlers, raising
from staging.core.recording import current_graph
from staging.core.source_map import where as _where

_REGION = "__autograph_staged_region__"  # set on an error raised while tracing a staged branch/loop


def mark_staged_region(error, where, kind) -> None:
    """Notes on `error` that it escaped the trace of a staged construct (innermost wins), and,
    for an error that is not a refusal of staging's own, says so in a note: the branch or
    body was traced whatever the condition turns out to be (eagerly it may never run)."""
    try:
        if hasattr(error, _REGION):
            return
        setattr(error, _REGION, (where, kind))
    except (AttributeError, TypeError):  # pragma: no cover - an exception without a __dict__
        return
    if isinstance(error, Exception) and not isinstance(error, errors.StagingError):
        if kind == "`try`":
            add_note(
                error,
                f"{where.rstrip(': ')}: raised while tracing this staged `try`: its `except` "
                f"clauses may catch an error raised when the graph runs, so they are traced "
                f"whatever the body turns out to do, even code that would not run for these "
                f"inputs",
            )
            return
        construct = (
            "both branches of an `if`"
            if kind in ("`if`", "`a if c else b`")
            else f"the body of a {kind}"
            if "loop" in kind
            else f"both operands of {kind}"
        )
        add_note(
            error,
            f"{where.rstrip(': ')}: raised while tracing this staged {kind}: its condition is "
            f"symbolic, so {construct} are traced whatever it turns out to be, even code that "
            f"would not run for these inputs",
        )


def _runtime_context(cm) -> str | None:
    """The name of a NumPy/warnings run-time context, or None for any other context manager."""
    if isinstance(cm, np.errstate):
        return "np.errstate"
    if isinstance(cm, warnings.catch_warnings):
        return "warnings.catch_warnings"
    if isinstance(cm, contextlib.suppress):
        return "contextlib.suppress"
    return None  # (np.printoptions acts on formatting, which staged prints and strings apply)


def _mark(graph):
    return (graph, len(graph.graph.nodes)) if graph is not None else None


def _recorded(mark):
    """The nodes recorded since `mark`, other than constants (OpDef.constant)."""
    if mark is None:
        return []
    graph, count = mark
    return [n for n in graph.graph.nodes[count:] if n.opdef.constant is None]


def _errstate_settings(cm) -> tuple | None:
    """The keyword pairs of an np.errstate(...) without `call=` (which a graph cannot hold)."""
    if not isinstance(cm, np.errstate) or getattr(cm, "_call", None) is not getattr(
        np.errstate(), "_call", None
    ):
        return None
    pairs = [
        (key, getattr(cm, f"_{key}", None)) for key in ("all", "divide", "over", "under", "invalid")
    ]
    return tuple((key, value) for key, value in pairs if value is not None)


def _nested(outer: tuple | None, inner: tuple) -> tuple:
    """The settings of an errstate scope inside another: the inner one's `all` overrides every
    category of the outer one, its named categories override the same ones."""
    if outer is None or any(key == "all" for key, _ in inner):
        return inner
    merged = dict(outer)
    merged.update(inner)
    return tuple(merged.items())


class _Context:
    """`with cm:`. An np.errstate(...) while tracing is also a scope of the graph: the ops
    recorded inside run under it when the graph runs (runtime.graph.Node.scope)."""

    __slots__ = ("cm", "exit", "mark", "where", "graph", "saved")

    def __init__(self, cm, exit_, where):
        self.cm, self.exit, self.where = cm, exit_, where
        self.mark = self.graph = None

    def __enter__(self):
        value = type(self.cm).__enter__(self.cm)
        graph = current_graph()
        self.mark = _mark(graph)
        settings = _errstate_settings(self.cm) if graph is not None else None
        if settings is not None:
            self.graph, self.saved = graph, graph.scope
            graph.scope = _nested(graph.scope, settings)
        return value

    def __exit__(self, exc_type, exc, tb):
        if self.graph is not None:
            self.graph.scope = self.saved
            self.mark = None  # staged inside: the graph applies the scope when it runs
        suppress = self.exit(self.cm, exc_type, exc, tb)
        if suppress and exc is not None and (_is_refusal(exc) or hasattr(exc, _REGION)):
            return False  # a refusal, or an error only the graph's run can decide: not swallowed
        name = _runtime_context(self.cm)
        if name is not None and (exc is None or suppress) and _recorded(self.mark):
            raise errors.UnsupportedConstructError(
                f"{self.where}`with {name}(...)` around staged operations: {name} acts while "
                f"tracing only, not when the graph runs, so it would not apply to them; move the "
                f"staged code out of the `with` block (or set the NumPy error / warning state "
                f"outside the staged function)"
            )
        return suppress


def context(cm):
    """`with cm:` in converted code (see the module docstring)."""
    cls = type(cm)
    if not (hasattr(cls, "__enter__") and hasattr(cls, "__exit__")):
        if sys.version_info < (3, 11):  # what Python 3.10's `with` raises
            raise AttributeError("__exit__" if hasattr(cls, "__enter__") else "__enter__")
        raise TypeError(f"'{cls.__name__}' object does not support the context manager protocol")
    return _Context(cm, cls.__exit__, _where())


class _Catches:
    __slots__ = ("types", "mark", "where")

    def __init__(self, types, where):
        self.types, self.where = types, where
        self.mark = None

    def __enter__(self):
        self.mark = _mark(current_graph())
        return None

    def _catches(self, cls) -> bool:
        return any(isinstance(t, type) and issubclass(cls, t) for t in self.types)

    def __exit__(self, exc_type, exc, tb):
        if exc is not None:
            region = getattr(exc, _REGION, None)
            if region is not None and self._catches(exc_type) and not _is_refusal(exc):
                where, kind = region
                raise errors.UnsupportedConstructError(
                    f"{self.where}this `try` would catch the {exc_type.__name__} raised while "
                    f"tracing the staged {kind} at {where.rstrip(': ')}; whether it is raised "
                    f"depends on a symbolic value, known only when the graph runs, so it cannot "
                    f"be caught as Python would. Raise it outside the staged {kind}, or check the "
                    f"condition with an assert (staged) instead"
                ) from exc
            return False
        recorded = _recorded(self.mark)
        if any(may_catch(e, t) for e in graph_errors_of(recorded) for t in self._classes()):
            raise errors.UnsupportedConstructError(
                f"{self.where}this `try` with `except*` clauses catches errors that the staged "
                f"operations inside it could raise only when the graph runs (after the `try` "
                f"has finished): only a `try` with `except` clauses is staged. Write `except` "
                f"(the clauses catch "
                f"{', '.join(getattr(t, '__name__', repr(t)) for t in self.types)})"
            )
        return False

    def _classes(self):
        return [t for t in self.types if isinstance(t, type) and issubclass(t, BaseException)]


class _FinallyGuard:
    """`finally:` of a `try` in converted code (autograph.converters.try_and_with): made before
    the `try`, entered around the `finally` block, which runs while tracing after the `try`.
    Python runs the block also when the `try` raises, before the error propagates: a block that
    stages effects (a print, a Variable write, a `raise`) after staged code that may raise when
    the graph runs also runs on that error (staging.control_flow.handlers.finally_on_errors); a
    block of computations is run as written (on the error path nothing would see its values).
    A refusal raised while tracing the `try` is raised again when the block ends, also when the
    block raises, returns or breaks (which would otherwise replace or drop it)."""

    __slots__ = ("graph", "start", "finally_start", "where", "pending")

    def __init__(self, where):
        self.graph = current_graph()
        self.start = len(self.graph.graph.nodes) if self.graph is not None else 0
        self.where = where
        self.finally_start = 0
        self.pending = None

    def __enter__(self):
        if self.graph is not None:
            self.finally_start = len(self.graph.graph.nodes)
        pending = sys.exc_info()[1]  # the error the `try` raised, propagating through `finally:`
        self.pending = pending if _is_refusal(pending) else None
        return None

    def __exit__(self, exc_type, exc, tb):
        if self.pending is not None and exc is not self.pending:
            raise self.pending
        if self.graph is None or current_graph() is not self.graph:
            return False
        nodes = self.graph.graph.nodes
        guarded = nodes[self.start : self.finally_start]
        if self._raises_while_traced(exc) and graph_errors_of(guarded):
            # The block raises on every path, also after an error of the `try` raised when the
            # graph runs, which its error replaces (Python's rule): a `raise` ending the block,
            # run also on that error (below); every path raises.
            raising.record_raise(exc)
            handlers.finally_on_errors(self.graph, self.start, self.finally_start, self.where)
            raise raising.PathRaises() from exc
        effects = [n for n in nodes[self.finally_start :] if n.stateful]
        if not effects:
            return False
        if isinstance(exc, raising.PathRaises) or graph_errors_of(guarded):
            handlers.finally_on_errors(self.graph, self.start, self.finally_start, self.where)
        return False

    @staticmethod
    def _raises_while_traced(exc) -> bool:
        """An error the block raised while traced, on every path (not a refusal, not a path of
        staged control flow that raises): a Python error, or the user's `raise`."""
        return (
            exc is not None
            and not isinstance(exc, errors.StagingError)
            and not isinstance(exc, (raising.PathRaises, raising.PendingRaise))
        )


def graph_errors_of(nodes) -> tuple:
    memo: dict = {}
    return tuple(e for n in nodes for e in run_time_errors(n, memo))


def finally_guard():
    """The guard of a `finally:` block in converted code (see _FinallyGuard)."""
    return _FinallyGuard(_where())


def _is_refusal(error) -> bool:
    """An error saying the function cannot be staged as written (a user's `except` must not
    swallow it); an UndefinedNameError is a name read before assignment, as in Python."""
    return isinstance(error, errors.StagingError) and not isinstance(
        error, (errors.UndefinedNameError, errors.ExecutionError)
    )


def caught():
    """The first statement of an `except` clause in converted code: re-raises the error being
    handled if it is a refusal raised while tracing, which the clause must not swallow."""
    error = sys.exc_info()[1]
    if error is not None and _is_refusal(error):
        raise error


def catches(*types):
    """Wraps the body of a `try` whose `except` clauses catch `types` (see the module docstring)."""
    flat = []
    for t in types:
        flat.extend(t if isinstance(t, tuple) else (t,))
    return _Catches(tuple(flat), _where())
