"""Restructures statement lists so that jumps (break, continue, return) become assignments.

A jump that ends one branch of an `if` moves the statements after the `if`
into the other branch; only where that is impossible (a jump nested deeper
that may or may not happen) is a flag tested to guard the remaining code.
"""

from __future__ import annotations

import ast
import copy

from autograph.pyct import transformer

NEVER, MAYBE, ALWAYS = 0, 1, 2


class NeedFlag(Exception):
    """Raised when restructuring alone cannot express the jumps of a block."""


def not_(expr):
    return ast.UnaryOp(op=ast.Not(), operand=expr)


def assign(name, value, origin):
    node = ast.Assign(
        targets=[ast.Name(id=name, ctx=ast.Store())],
        value=value if isinstance(value, ast.AST) else ast.Constant(value=value, kind=None),
        type_comment=None,
    )
    node.lineno = getattr(origin, "lineno", 1)
    return node


def load(name):
    return ast.Name(id=name, ctx=ast.Load())


def make_if(test, body, orelse, origin):
    node = ast.If(test=test, body=body, orelse=orelse)
    node.lineno = getattr(origin, "lineno", 1)
    return node


class Lowering:
    """Lowers the jumps of one kind in a block.

    is_jump(stmt) -> bool picks the jump statements; make_jump(stmt, flagged)
    returns their replacement; `flag` is the variable tested by guards when the
    block needs one. `loops` says whether to descend into nested loops.
    """

    def __init__(self, is_jump, make_jump, flag, use_flag=False, loops=None):
        self.is_jump = is_jump
        self.make_jump = make_jump
        self.flag = flag
        self.use_flag = use_flag
        self.loops = loops  # callable(loop_node) -> (stmts, status), or None

    def block(self, stmts):
        out = []
        for idx, s in enumerate(stmts):
            if self.is_jump(s):
                out.extend(self.make_jump(s, self.use_flag))
                return out, ALWAYS
            new, status, branch_status = self.compound(s)
            if status == NEVER:
                out.extend(new)
                continue
            if status == ALWAYS:
                out.extend(new)
                return out, ALWAYS
            rest = stmts[idx + 1 :]
            if branch_status is not None and set(branch_status) == {ALWAYS, NEVER}:
                (if_node,) = new
                rest_lowered, rest_status = self.block(rest)
                if branch_status[0] == NEVER:
                    if_node.body = if_node.body + rest_lowered
                else:
                    if_node.orelse = if_node.orelse + rest_lowered
                out.extend(self._tidy_if(if_node))
                return out, ALWAYS if rest_status == ALWAYS else MAYBE
            if not self.use_flag:
                raise NeedFlag()
            out.extend(new)
            rest_lowered, _ = self.block(rest)
            if rest_lowered:
                out.append(make_if(not_(load(self.flag)), rest_lowered, [], s))
            return out, MAYBE
        return out, NEVER

    def _tidy_if(self, node):
        if node.body:
            return [node]
        if node.orelse:
            node.test, node.body, node.orelse = not_(node.test), node.orelse, []
            return [node]
        if not isinstance(node.test, ast.Constant):
            # the test still runs, as in Python: it may raise (`n % e` of types that do not
            # support it), call something, or be a truth value that raises
            node.body = [ast.Pass()]
            return [node]
        return []

    def compound(self, s):
        """(replacement statements, status, (body status, else status) for an if).

        Works on shallow copies so that a failed attempt leaves the tree intact.
        """
        if isinstance(s, (ast.If, ast.With, ast.AsyncWith, ast.Try)):
            s = copy.copy(s)
        if isinstance(s, ast.If):
            body, b = self.block(s.body)
            orelse, o = self.block(s.orelse)
            s.body, s.orelse = body, orelse
            if b == o == NEVER:
                return [s], NEVER, None
            if b == o == ALWAYS:
                return self._tidy_if(s), ALWAYS, None
            if MAYBE in (b, o):
                return [s], MAYBE, None
            return [s], MAYBE, (b, o)
        if isinstance(s, (ast.With, ast.AsyncWith)):
            s.body, b = self.block(s.body)
            return [s], b, None
        if isinstance(s, ast.Try):
            statuses = []
            s.body, st = self.block(s.body)
            statuses.append(st)
            s.handlers = [copy.copy(h) for h in s.handlers]
            for h in s.handlers:
                h.body, st = self.block(h.body)
                statuses.append(st)
            s.orelse, st = self.block(s.orelse)
            statuses.append(st)
            s.finalbody, st = self.block(s.finalbody)
            statuses.append(st)
            return [s], MAYBE if any(statuses) else NEVER, None
        if isinstance(s, (ast.While, ast.For)) and self.loops is not None:
            return (*self.loops(s, self), None)
        return [s], NEVER, None


def contains(
    stmts, types, stop=(ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef), loops=True
):
    """True if a statement of `types` occurs in `stmts` (not inside nested scopes;
    not inside nested loops unless `loops`)."""
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, types):
            return True
        if isinstance(n, stop):
            continue
        if not loops and isinstance(n, (ast.While, ast.For)):
            stack.extend(n.orelse)
            continue
        stack.extend(
            c for c in transformer.children(n) if isinstance(c, (ast.stmt, ast.excepthandler))
        )
    return False
