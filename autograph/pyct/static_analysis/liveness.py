"""Liveness: which names may be read after each if/while/for before being written again.

Annotates If, While, For and Try nodes with anno.Static.LIVE_OUT (live after the statement)
and anno.Static.LIVE_IN (live on entry; for loops, live at the loop head).
Runs on structured code after break/continue/return have been lowered.

`analyze_source` runs first, on the user's code with its jumps: lowering a `break` or
`continue` puts the rest of the body under `if not flag:`, where a name looks read on the path
that jumped (the read is never reached there). Names a loop body assigns that the user's code
does not read at the loop head are annotated (anno.Static.SOURCE_DEAD_AT_HEAD), so that
they do not become loop variables (see statement_state).
"""

from __future__ import annotations

import ast

from autograph.pyct import anno, transformer
from autograph.pyct.static_analysis import activity


def _targets(node) -> set:
    return activity.modified(node)


class _Liveness:
    def __init__(self):
        # id(node) -> (read, modified) of a node: the fixpoints of loops go through their
        # bodies again, and a nested loop's again for each pass of the outer one; the tree does
        # not change during an analysis, so the activity of each node is found once.
        self._seen = {}

    def _activity(self, node) -> tuple:
        if node.__class__ is list:
            return activity.analyze(node)
        found = self._seen.get(id(node))
        if found is None:
            found = self._seen[id(node)] = activity.analyze(node)
        return found

    def _read(self, node) -> set:
        return self._activity(node)[0]

    def block(self, stmts, live):
        for s in reversed(stmts):
            live = self.stmt(s, live)
        return live

    def stmt(self, s, live):
        method = getattr(self, "visit_" + type(s).__name__, None)
        if method is not None:
            return method(s, live)
        reads, writes = self._activity(s)
        return (live - writes) | reads

    def visit_If(self, s, live):
        anno.setanno(s, anno.Static.LIVE_OUT, frozenset(live))
        body_in = self.block(s.body, live)
        else_in = self.block(s.orelse, live)
        anno.setanno(s, anno.Static.LIVE_IN, frozenset(body_in | else_in))
        return body_in | else_in | self._read(s.test)

    def visit_While(self, s, live):
        anno.setanno(s, anno.Static.LIVE_OUT, frozenset(live))
        test_reads = self._read(s.test)
        head = self.block(s.orelse, live) | test_reads
        for _ in range(8):
            new_head = head | self.block(s.body, head)
            if new_head == head:
                break
            head = new_head
        anno.setanno(s, anno.Static.LIVE_IN, frozenset(head))
        return head

    def visit_For(self, s, live):
        anno.setanno(s, anno.Static.LIVE_OUT, frozenset(live))
        targets = _targets(s.target)
        exit_live = self.block(s.orelse, live)
        extra_test = anno.getanno(s, anno.Basic.EXTRA_TEST, None)  # set by the break converter
        if extra_test is not None:
            exit_live = exit_live | self._read(extra_test)
        head = set(exit_live)
        for _ in range(8):
            new_head = exit_live | (self.block(s.body, head) - targets)
            if new_head == head:
                break
            head = new_head
        anno.setanno(s, anno.Static.LIVE_IN, frozenset(head))
        return head | self._read(s.iter)

    def visit_Return(self, s, live):
        return set(self._read(s.value)) if s.value is not None else set()

    def _function(self, s, live):
        return (live - {s.name}) | self._read(s)

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_With(self, s, live):
        reads, writes = self._activity(s.items)
        return (self.block(s.body, live) - writes) | reads

    visit_AsyncWith = visit_With

    def visit_Match(self, s, live):
        # A case whose pattern (or guard) fails falls through to the next; when no case
        # matches, none runs.
        entry = set(live)
        for case in reversed(s.cases):
            bound = activity.modified(case.pattern)
            body_in = self.block(case.body, live)
            if case.guard is not None:
                body_in = body_in | self._read(case.guard)
            entry = (body_in - bound) | self._read(case.pattern) | entry
        return entry | self._read(s.subject)

    def visit_Try(self, s, live):
        anno.setanno(s, anno.Static.LIVE_OUT, frozenset(live))
        # (an error may leave the body anywhere: what its `finally:` block reads is live there)
        final_in = self.block(s.finalbody, live) if s.finalbody else set()
        after = live | final_in
        handlers_in = set()
        for h in s.handlers:
            handlers_in |= (self.block(h.body, after) - {h.name}) | self._read(h.type or [])
        else_in = self.block(s.orelse, after)
        live_in = self.block(s.body, else_in | handlers_in) | handlers_in | final_in
        anno.setanno(s, anno.Static.LIVE_IN, frozenset(live_in))
        return live_in

    visit_TryStar = visit_Try


class _SourceLiveness(_Liveness):
    """Liveness of code that still has its break, continue and return statements."""

    def __init__(self):
        super().__init__()
        self.loops = []  # per enclosing loop: [live at its head, live after it]
        self.finally_reads = set()  # read by the `finally:` blocks a jump leaves through

    def visit_Break(self, s, live):
        return set(self.loops[-1][1]) | self.finally_reads if self.loops else set(live)

    def visit_Continue(self, s, live):
        return set(self.loops[-1][0]) | self.finally_reads if self.loops else set(live)

    def visit_Return(self, s, live):
        return super().visit_Return(s, live) | self.finally_reads

    def _loop(self, s, live, head_reads, targets):
        exit_live = self.block(s.orelse, live)
        head = set(exit_live) | head_reads
        self.loops.append([head, set(live)])
        for _ in range(8):
            self.loops[-1][0] = head
            new_head = head | (self.block(s.body, head) - targets)
            if new_head == head:
                break
            head = new_head
        self.loops.pop()
        assigned = activity.modified(s.body) | targets
        anno.setanno(s, anno.Static.SOURCE_DEAD_AT_HEAD, frozenset(assigned - head))
        return head

    def visit_While(self, s, live):
        return self._loop(s, live, self._read(s.test), set())

    def visit_For(self, s, live):
        return self._loop(s, live, set(), _targets(s.target)) | self._read(s.iter)

    def visit_Try(self, s, live):
        outer = self.finally_reads
        self.finally_reads = outer | self._read(s.finalbody)
        try:
            return super().visit_Try(s, live)
        finally:
            self.finally_reads = outer

    visit_TryStar = visit_Try

    def _function(self, s, live):
        return (live - {s.name}) | self._read(s)  # analysed on its own, by analyze_source

    visit_FunctionDef = visit_AsyncFunctionDef = _function


def analyze_source(tree) -> None:
    """Annotates the loops of every function in `tree` with the names their bodies assign that
    are dead at the loop head in the user's code (before jumps are lowered)."""
    for node in transformer.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _SourceLiveness().block(node.body, set())


def analyze(fn_node) -> None:
    """Annotates the control-flow statements of one function body (not nested defs)."""
    body = fn_node.body if isinstance(fn_node.body, list) else []
    _Liveness().block(body, set())
