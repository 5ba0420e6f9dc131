"""Staged `try`/`except`: the body traced into a subgraph, and the `except` clauses that may catch
what it raises when the graph runs traced into another; one `try_except` node.

`try_except(body, handlers, ...)` traces `body()` like a branch (staging.control_flow.branches).
What its nodes may raise when the graph runs (runtime.analysis.run_time_errors), and the error
its trace raised (the user's `raise`, a missing key: made a `raise` node at the end of the body,
staging.control_flow.raising), decide which clauses may run: those are traced as the handler
path, which starts, as the body did, from the state before the `try`, and dispatches on the
caught exception's class when there are several. The two paths join like a staged `if`'s, and
the nodes of the body whose errors a clause may catch stay where they are (Node.keep_in_place).
When the body stages nothing, the `try` runs as Python runs it, while tracing (`native`).
"""

from __future__ import annotations

from runtime import Graph, Node, Value
from runtime.analysis import graph_errors, may_catch, node_uses, run_time_errors
from staging import errors
from staging.control_flow import raising
from staging.control_flow.branches import BranchTrace, Merge, check_same_structure
from staging.control_flow.branches import cond as staged_cond
from staging.core import nest
from staging.core.exceptions import SymbolicException
from staging.core.recording import FuncGraph, building, current_graph, record
from staging.state import journal as mutation
from staging.state import python_state


def _trace(outer: FuncGraph, label: str, fn) -> BranchTrace:
    """`fn()` traced into a subgraph of `outer` (as a staged branch is); its error, when it
    raises one that can be deferred, in `raised`; the places it wrote with their values (also
    those it wrote before raising), undone."""
    g = FuncGraph(label, outer=outer)
    g.function_name = outer.function_name
    trace = BranchTrace(label, g)
    with building(g), mutation.recording(g) as journal:
        try:
            trace.result = fn()
        except Exception as error:  # noqa: BLE001 - deferred to run time, or raised again
            if not raising.deferrable(error):
                raise raising.not_deferred(error)  # noqa: B904 - (itself, or its cause)
            trace.raised = error
    if trace.raised is None:
        trace.result = nest.pack_as(trace.result, nest.flatten(trace.result))
    trace.written = {
        ident: (location, location.read()) for ident, (location, _) in journal.before.items()
    }
    journal.undo()
    return trace


def _redo(trace: BranchTrace) -> None:
    """The writes of a path run as Python ran them (the `try` ran natively)."""
    for location, value in trace.written.values():
        mutation.note(location)
        location.write(value)


def clause_classes(types) -> tuple:
    """The classes of an `except` clause (a class or a tuple of them), as Python checks them."""
    flat = types if isinstance(types, tuple) else (types,)
    for t in flat:
        if not (isinstance(t, type) and issubclass(t, BaseException)):
            raise TypeError(
                "catching classes that do not inherit from BaseException is not allowed"
            )
    return flat


def try_except(body, handlers, *, native, check_body=None, names=None, unread=(), watch=None):
    """`try: body() except ...: handler(e)`, staged where what the body stages may raise an
    error a clause catches.

    body() gives the results (a tuple); `handlers` is [(types(), handler)], types() the classes
    of the clause (evaluated here, in order), handler(e) the results of the clause given the
    exception `e`. When the body stages nothing, the `try` runs natively: `native(error)` gives
    the results for an error the body raised while traced (the clause run as Python runs it).
    `check_body(results, wrote)` refuses a body whose results (None: it raises on every path) a
    clause could not see as Python would (a name assigned before a later line that may raise;
    `wrote`: it wrote items, attributes or arrays in place). `watch`: the
    staging.state.python_state.Snapshot of the Python state a staged body and clauses must not
    change while traced."""
    outer = current_graph()
    body_trace = _trace(outer, "body", body)
    if not body_trace.graph.graph.nodes and not isinstance(
        body_trace.raised, (raising.PendingRaise, raising.PathRaises)
    ):
        _redo(body_trace)
        if body_trace.raised is None:
            return body_trace.result
        return native(body_trace.raised)
    if body_trace.raised is not None:  # (it raises when the graph runs, after its nodes)
        with building(body_trace.graph):
            raising.record_raise(body_trace.raised)
        body_trace.graph.trace_state["deferred"] = True
    possible = graph_errors(body_trace.graph.graph)
    reachable = []
    for types, handler in handlers:
        classes = clause_classes(types())
        if any(may_catch(e, c) for e in possible for c in classes):
            reachable.append((classes, handler))
    if not reachable:  # (its body always runs: what it changes is changed, as eagerly)
        return _inert(outer, body_trace, names, unread)
    if check_body is not None:
        check_body(
            body_trace.result if body_trace.raised is None else None, bool(body_trace.written)
        )
    python_state.check(watch, "`try`")
    _keep_in_place(body_trace.graph.graph, [c for classes, _ in reachable for c in classes])
    caught = tuple(dict.fromkeys(c for classes, _ in reachable for c in classes))
    handler_trace = _trace(outer, "handler", lambda: _dispatch(caught, reachable, names))
    python_state.check(watch, "`try`")
    return _join(outer, body_trace, handler_trace, caught, names, unread)


def _dispatch(caught, reachable, names):
    """The handler path: the caught exception, then the first clause whose classes it is an
    instance of (staged `if`s on its class when several clauses may catch it)."""
    e = record("caught_exception", [], {"classes": caught})
    e = SymbolicException(e._graph, e._value)

    def clause(k):
        classes, handler = reachable[k]
        if k == len(reachable) - 1:
            return handler(e)
        test = record("exception_matches", [e], {"classes": classes})
        return staged_cond(test, lambda: handler(e), lambda: clause(k + 1), names=names)

    return clause(0)


def _keep_in_place(graph, classes) -> bool:
    """Marks the nodes of the body (and those enclosing them) whose errors a clause may catch:
    the passes keep them where they are, read or not (Node.keep_in_place)."""
    kept = False
    for node in graph.nodes:
        inner = any(_keep_in_place(sub, classes) for sub in node.subgraphs.values())
        if inner or (
            not node.subgraphs
            and any(may_catch(e, c) for e in run_time_errors(node) for c in classes)
        ):
            node.keep_in_place()
            kept = True
    return kept


def _inert(outer, body_trace: BranchTrace, names, unread):
    """No clause can catch what the body raises: the body runs as it is (a try_except without
    a handler, which the executor writes inline)."""
    subgraphs = {"body": body_trace.graph.graph}
    if body_trace.raised is not None:  # it raises on every path
        raising.record_raising("try_except", [], [body_trace], subgraphs, {})
    return Merge(outer, body_trace, body_trace, names, unread).record_op(
        "try_except", [], subgraphs, {}
    )


def _join(outer, body_trace, handler_trace, caught, names, unread):
    """The results of the body and handler paths joined by one try_except node (a path that
    raises on every run gives the other's values, never seen)."""
    if handler_trace.raised is not None:
        with building(handler_trace.graph):
            raising.record_raise(handler_trace.raised)
    paths = [body_trace, handler_trace]
    subgraphs = {"body": body_trace.graph.graph, "handler": handler_trace.graph.graph}
    attrs = {"catch": caught}
    if body_trace.raised is not None and handler_trace.raised is not None:
        raising.record_raising("try_except", [], paths, subgraphs, attrs)
    for trace, other in ((body_trace, handler_trace), (handler_trace, body_trace)):
        if trace.raised is not None:
            trace.result = raising.stand_ins(trace.graph, other.result)
            trace.written = {}
    check_same_structure(body_trace.result, handler_trace.result, names, *_LABELS[:2])
    return Merge(outer, body_trace, handler_trace, names, unread, _LABELS).record_op(
        "try_except", [], subgraphs, attrs
    )


_LABELS = ("the `try` body", "its `except` clause", "a staged `try`")


def refuse_unsettled(name: str, try_where: str) -> errors.UnsupportedConstructError:
    """The refusal of a `try` whose clause would see `name` as it was before the `try`, where
    Python's clause may see what the body assigned it before the error."""
    return errors.UnsupportedConstructError(
        f"{try_where}this `try` is staged (its `except` clause may catch an error raised when "
        f"the graph runs), and its body assigns {name!r} before a later line that may raise: "
        f"Python's clause would see the value the body gave it before the error, the staged "
        f"clause sees it as it was before the `try`. Assign {name!r} in the body's last line "
        f"(or after the `try`, in an `else:` block), or assign it in the `except` clause too"
    )


# -- finally ------------------------------------------------------------------------------------


def finally_on_errors(fg: FuncGraph, start: int, finally_start: int, where: str) -> None:
    """A `finally:` block traced as its nodes after those of its `try` (fg's nodes from `start`
    to `finally_start`, then the block's): Python runs the block also when the `try` raises,
    before the error propagates. The `try`'s nodes become the body of a try_finally node whose
    cleanup is a copy of the block's nodes, run on an error raised when the graph runs; the
    block's own nodes stay after it, for the path without one. The values the `try` computed
    keep their identity (the node gives them). Refused when the block reads one of them: on the
    error path it may not exist (Python's block would see the names as the `try` left them)."""
    nodes = fg.graph.nodes
    region, block = nodes[start:finally_start], nodes[finally_start:]
    made = {id(v) for n in region for v in n.outputs}
    if any(isinstance(v, Value) and id(v) in made for n in block for v in node_uses(n)):
        raise errors.UnsupportedConstructError(
            f"{where}this `finally:` block has staged effects (a print, a Variable write, a "
            f"`raise` ...) and reads values its `try` computed, and the `try` may raise when "
            f"the graph runs: Python runs the block before such an error propagates, where "
            f"those values may not exist yet. Move the effects after the `try` statement, or "
            f"read only values computed before the `try`"
        )
    made_after = {id(v) for n in block for v in n.outputs}
    outer: dict[int, Value] = {}  # the values from before the `try` the subgraphs read
    for n in (*region, *block):
        for v in node_uses(n):
            if isinstance(v, Value) and id(v) not in made and id(v) not in made_after:
                outer.setdefault(id(v), v)
    operands = list(outer.values())
    body = _closed_graph("body", operands)
    fresh = {id(v): inner for v, inner in zip(operands, body.inputs)}
    given = []  # the Values the region's nodes gave: the new node gives them
    for n in region:
        n.inputs = [fresh.get(id(v), v) if isinstance(v, Value) else v for v in n.inputs]
        given.extend(n.outputs)
        n.outputs = [Value(v.type, n, i) for i, v in enumerate(n.outputs)]
        fresh.update((id(a), b) for a, b in zip(given[len(given) - len(n.outputs) :], n.outputs))
        body.outputs.extend(n.outputs)
        body.nodes.append(n)
    cleanup = _closed_graph("cleanup", operands)
    copies = dict(zip(operands, cleanup.inputs))
    cleanup.nodes = [_copy_node(n, copies) for n in block]
    node = Node("try_finally", operands, {}, [], region[0].location if region else None)
    node.subgraphs = {"body": body, "cleanup": cleanup}
    for i, v in enumerate(given):
        v.producer, v.index = node, i
    node.outputs = given
    fg.graph.nodes = [*nodes[:start], node, *block]


def _closed_graph(name: str, operands) -> Graph:
    g = Graph(name)
    for v in operands:
        g.add_input(v.type, "capture")
    return g


def _copy_node(node: Node, mapping: dict) -> Node:
    """A copy of `node` reading mapping[v] for each Value v it reads that mapping has (its
    subgraphs copied too); its outputs are added to `mapping`."""
    subgraphs = {label: _copy_graph(g) for label, g in node.subgraphs.items()}
    inputs = [mapping.get(v, v) if isinstance(v, Value) else v for v in node.inputs]
    copy = Node(node.op, inputs, node.attrs, [v.type for v in node.outputs], node.location)
    copy.subgraphs = subgraphs or copy.subgraphs
    if node.scope is not None:
        copy.set_scope(node.scope)
    if node._stateful:  # (kept in place for a `try` around it)
        copy.keep_in_place()
    mapping.update(zip(node.outputs, copy.outputs))
    return copy


def _copy_graph(g: Graph) -> Graph:
    copy = Graph(g.name)
    mapping = {v: copy.add_input(v.type, name) for v, name in zip(g.inputs, g.input_names)}
    copy.nodes = [_copy_node(n, mapping) for n in g.nodes]
    copy.outputs = [mapping.get(v, v) if isinstance(v, Value) else v for v in g.outputs]
    return copy
