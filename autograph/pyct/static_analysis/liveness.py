"""Liveness: which names may be read after each if/while/for before being written again.

Annotates If, While and For nodes with anno.Static.LIVE_OUT (live after the statement)
and anno.Static.LIVE_IN (live on entry; for loops, live at the loop head).
Runs on structured code after break/continue/return have been lowered.
"""

from __future__ import annotations


from autograph.pyct import anno
from autograph.pyct.static_analysis import activity


def _targets(node) -> set:
    return activity.modified(node)


class _Liveness:
    def block(self, stmts, live):
        for s in reversed(stmts):
            live = self.stmt(s, live)
        return live

    def stmt(self, s, live):
        method = getattr(self, "visit_" + type(s).__name__, None)
        if method is not None:
            return method(s, live)
        reads, writes = activity.analyze(s)
        return (live - writes) | reads

    def visit_If(self, s, live):
        anno.setanno(s, anno.Static.LIVE_OUT, frozenset(live))
        body_in = self.block(s.body, live)
        else_in = self.block(s.orelse, live)
        anno.setanno(s, anno.Static.LIVE_IN, frozenset(body_in | else_in))
        return body_in | else_in | activity.read(s.test)

    def visit_While(self, s, live):
        anno.setanno(s, anno.Static.LIVE_OUT, frozenset(live))
        test_reads = activity.read(s.test)
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
            exit_live = exit_live | activity.read(extra_test)
        head = set(exit_live)
        for _ in range(8):
            new_head = exit_live | (self.block(s.body, head) - targets)
            if new_head == head:
                break
            head = new_head
        anno.setanno(s, anno.Static.LIVE_IN, frozenset(head))
        return head | activity.read(s.iter)

    def visit_Return(self, s, live):
        return activity.read(s.value) if s.value is not None else set()

    def _function(self, s, live):
        return (live - {s.name}) | activity.read(s)

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_With(self, s, live):
        reads, writes = activity.analyze(s.items)
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
                body_in = body_in | activity.read(case.guard)
            entry = (body_in - bound) | activity.read(case.pattern) | entry
        return entry | activity.read(s.subject)

    def visit_Try(self, s, live):
        final_in = self.block(s.finalbody, live)
        after = live | final_in
        handlers_in = set()
        for h in s.handlers:
            handlers_in |= self.block(h.body, after) | activity.read(h.type or [])
        else_in = self.block(s.orelse, after)
        return self.block(s.body, else_in | handlers_in) | handlers_in | final_in

    visit_TryStar = visit_Try


def analyze(fn_node) -> None:
    """Annotates the control-flow statements of one function body (not nested defs)."""
    body = fn_node.body if isinstance(fn_node.body, list) else []
    _Liveness().block(body, set())
