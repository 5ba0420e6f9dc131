"""Which names may have been assigned before each if/while/for (the rest are undefined there).

Annotates If, While and For nodes with anno.Static.DEFINED_IN: the names that some
path from the function entry may have assigned before the statement runs.
"""

from __future__ import annotations

import ast

from autograph.pyct import anno
from autograph.pyct.static_analysis import activity


class _Definitions:
    def block(self, stmts, defined):
        for s in stmts:
            self.stmt(s, defined)

    def stmt(self, s, defined):
        if isinstance(s, ast.If):
            anno.setanno(s, anno.Static.DEFINED_IN, frozenset(defined))
            body, orelse = set(defined), set(defined)
            self.block(s.body, body)
            self.block(s.orelse, orelse)
            defined |= body | orelse
        elif isinstance(s, (ast.While, ast.For)):
            anno.setanno(s, anno.Static.DEFINED_IN, frozenset(defined))
            inner = set(defined) | activity.modified(s.body)
            if isinstance(s, ast.For):
                inner |= activity.modified(s.target)
            self.block(s.body, inner)
            self.block(s.orelse, inner)
            defined |= inner
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
        elif isinstance(s, ast.Try):
            self.block(s.body, defined)
            for h in s.handlers:
                if h.name is not None:
                    defined.add(h.name)
                self.block(h.body, defined)
            self.block(s.orelse, defined)
            self.block(s.finalbody, defined)
        else:
            defined |= activity.modified(s)


def analyze(fn_node, outer_names=()) -> None:
    """Annotates one function body; parameters and `outer_names` count as defined."""
    args = fn_node.args
    defined = set(outer_names)
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            defined.add(a.arg)
    if isinstance(fn_node.body, list):
        _Definitions().block(fn_node.body, defined)
