"""Which names may be bound before each if/while/for (the rest are undefined there).

Annotates If, While, For and (converted) Try nodes with anno.Static.STATE (their
statement_state.State, which it needs first) and anno.Static.DEFINED_IN: the names that may be bound
at that point in the Python function that holds the statement in converted code. A branch
or loop body becomes its own function (see statement_state): inside it, the names it takes
as arguments are bound, the names it binds itself start unbound on every call (even if the
enclosing function assigned them earlier), and cell variables are the enclosing function's.
Needs the liveness annotations.
"""

from __future__ import annotations

import ast

from autograph.pyct import anno
from autograph.pyct.static_analysis import activity, statement_state


class _Definitions:
    def __init__(self, cells, declared, helpers=frozenset()):
        self.cells = cells
        self.declared = declared
        self.helpers = helpers
        self.bindings = activity.StatementBindings()  # each block is asked about again inside

    def _state(self, s, defined):
        """Annotates statement `s` with the names defined before it and its state."""
        anno.setanno(s, anno.Static.DEFINED_IN, frozenset(defined))
        state = statement_state.of(s, self.cells, self.declared, self.helpers, self.bindings)
        anno.setanno(s, anno.Static.STATE, state)
        return state

    def block(self, stmts, defined):
        for s in stmts:
            self.stmt(s, defined)

    def _body(self, body, defined, state, extra=()):
        """Runs a body function's statements: it starts with its arguments bound and its own
        locals unbound."""
        inner = (set(defined) - state.locals_of(body, self.bindings)) | state.inputs | set(extra)
        self.block(body, inner)

    def _try(self, s, defined):
        """A converted `try` is an `if` whose branches are its body and `except` clauses (each
        binding its exception name); another runs its blocks as Python does."""
        if is_converted_try(s):
            state = self._state(s, defined)
            self._body(s.body, defined, state)
            for h in s.handlers:
                self._body(h.body, defined, state, (h.name,) if h.name else ())
            defined |= state.outputs | state.cells
            return
        self.block(s.body, defined)
        for h in s.handlers:
            if h.name is not None:
                defined.add(h.name)
            self.block(h.body, defined)
        self.block(s.orelse, defined)
        self.block(s.finalbody, defined)

    def stmt(self, s, defined):
        if isinstance(s, ast.If):
            state = self._state(s, defined)
            self._body(s.body, defined, state)
            self._body(s.orelse, defined, state)
            defined |= state.outputs | state.cells
        elif isinstance(s, (ast.While, ast.For)):
            state = self._state(s, defined)
            targets = activity.modified(s.target) if isinstance(s, ast.For) else ()
            self._body(s.body, defined, state, targets)
            defined |= state.outputs | state.cells
            self.block(s.orelse, defined)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(s.name)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            defined |= activity.modified(s.items)
            self.block(s.body, defined)
        elif isinstance(s, ast.Match):
            after = set(defined)
            for case in s.cases:
                inner = set(defined) | activity.modified(case.pattern)
                self.block(case.body, inner)
                after |= inner
            defined |= after
        elif isinstance(s, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            self._try(s, defined)
        else:
            defined |= activity.modified(s)


def is_converted_try(s) -> bool:
    """A `try` the control-flow converter makes into functions: `except` clauses, no `else` or
    `finally` (autograph.converters.try_and_with moves those out), not a `try`/`except*`."""
    return type(s) is ast.Try and bool(s.handlers) and not s.orelse and not s.finalbody


def analyze(fn_node, outer_names=(), shared=frozenset()) -> None:
    """Annotates one function body; parameters and `outer_names` count as defined, and so do
    `shared`, the names it declares `nonlocal` that an enclosing function of the converted code
    binds (its staged statements carry them as cell variables)."""
    args = fn_node.args
    defined = set(outer_names) | set(shared)
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            defined.add(a.arg)
    if isinstance(fn_node.body, list):
        cells = anno.getanno(fn_node, anno.Static.CELLS, frozenset()) | shared
        helpers = anno.getanno(fn_node, anno.Static.HELPER_WRITES, frozenset())
        declared = activity.declared_outer(fn_node) - shared
        _Definitions(cells, declared, helpers).block(fn_node.body, defined)
