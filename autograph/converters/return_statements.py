"""`return` inside if/loops becomes an assignment to `retval_`; one `return retval_` ends the function.

`if c: return a` followed by more code puts that code in the `else` branch;
a return inside a loop sets `do_return` and breaks out (the break converter
then lowers the break), and the code after the loop runs under `if not do_return`.
Where some path may not assign it, `retval_` starts as `ag__.UndefinedReturnValue()`
(a staged `if` or loop gives it a placeholder of the type the other path returns).
A function that may end without a `return` sets `do_return` on every return and ends
with `return ag__.return_value(retval_, do_return)`: None when no return ran.
"""

from __future__ import annotations

import ast
import copy

from autograph.pyct import anno, jumps, templates, transformer

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef)


def _nested_return(body) -> bool:
    for s in body:
        if not isinstance(s, ast.Return) and jumps.contains([s], ast.Return):
            return True
    return False


class _FunctionLowering:
    def __init__(self, ctx, fn):
        self.ctx = ctx
        self.fn = fn
        self.retval = ctx.namer.new("retval_")
        self.flag = None
        self.loop_depth = 0

    def make_jump(self, stmt, flagged):
        value = stmt.value if stmt.value is not None else ast.Constant(value=None, kind=None)
        out = [jumps.assign(self.retval, value, stmt)]
        anno.setanno(out[0], anno.Basic.LOWERED_RETURN, True)
        if flagged:
            out.append(jumps.assign(self.flag, True, stmt))
            anno.setanno(out[-1], anno.Basic.LOWERED_JUMP, "return")
        if self.loop_depth:
            brk = ast.Break()
            brk.lineno = stmt.lineno
            out.append(brk)
        return out

    def loops(self, loop, lowering):
        loop = copy.copy(loop)
        if not jumps.contains(loop.body, ast.Return):
            if jumps.contains(loop.orelse, ast.Return):
                loop.orelse, status = lowering.block(loop.orelse)
                return [loop], (jumps.MAYBE if status else jumps.NEVER)
            return [loop], jumps.NEVER
        if self.flag is None:
            raise jumps.NeedFlag()
        self.loop_depth += 1
        inner = jumps.Lowering(_is_return, self.make_jump, self.flag, True, self.loops)
        loop.body, _ = inner.block(loop.body)
        self.loop_depth -= 1
        loop.orelse, _ = lowering.block(loop.orelse)
        if self.loop_depth:
            # Inside an enclosing loop: leave it too.
            exit_ = jumps.make_if(jumps.load(self.flag), [ast.Break()], [], loop)
            exit_.body[0].lineno = loop.lineno
            return [loop, exit_], jumps.NEVER
        return [loop], jumps.MAYBE

    def lower(self):
        original = list(self.fn.body)
        falls_off = not _always_returns(original)
        try:
            if falls_off:
                # The end tells a function that returned None by falling off its end from
                # one that returned a value: the flag records that a return ran.
                raise jumps.NeedFlag()
            body, status = jumps.Lowering(
                _is_return, self.make_jump, None, False, self.loops
            ).block(original)
        except jumps.NeedFlag:
            self.flag = self.ctx.namer.new("do_return")
            body, status = jumps.Lowering(
                _is_return, self.make_jump, self.flag, True, self.loops
            ).block(original)
        prologue = []
        docstring = []
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            docstring = [body.pop(0)]
        if self.flag is not None:
            prologue.append(jumps.assign(self.flag, False, self.fn))
            anno.setanno(self.fn, anno.Basic.RETURN_FLAG, (self.flag, self.retval))
        if status != jumps.ALWAYS:
            # Unset until a return runs; a staged `if` or loop gives it a placeholder of the
            # type the other branch or the loop body gives it (`do_return` tells it is unset).
            marker = templates.replace_as_expression("ag__.UndefinedReturnValue()", self.fn)
            prologue.append(jumps.assign(self.retval, marker, self.fn))
        value = jumps.load(self.retval)
        if falls_off:
            value = templates.replace_as_expression(
                "ag__.return_value(retval_, do_return)",
                body[-1] if body else self.fn,
                retval_=self.retval,
                do_return=self.flag,
            )
        ret = ast.Return(value=value)
        ret.lineno = (body[-1] if body else self.fn).lineno
        anno.setanno(ret, anno.Basic.LOWERED_RETURN, True)
        self.fn.body = docstring + prologue + body + [ret]


def _always_returns(stmts) -> bool:
    """True if running `stmts` always ends in a return or raise (never falls off their end)."""
    for s in stmts:
        if isinstance(s, (ast.Return, ast.Raise)):
            return True
        if isinstance(s, ast.If) and _always_returns(s.body) and _always_returns(s.orelse):
            return True
        if isinstance(s, ast.Try) and _try_always_returns(s):
            return True
        if isinstance(s, ast.If) and _else_always_returns(s):
            return True
        if isinstance(s, (ast.With, ast.AsyncWith)) and _always_returns(s.body):
            return True
        if (
            isinstance(s, (ast.For, ast.While))
            and not _breaks(s.body)
            and (_always_returns(s.orelse) or isinstance(s, ast.While) and _is_true(s.test))
        ):
            return True  # its `else` runs whenever the loop ends, or it ends only by return/raise
    return False


def _try_always_returns(s) -> bool:
    """A `try` (its `else:` block moved after it) that ends in a return or raise on every path:
    its `finally:` block does, or its body and each of its clauses do."""
    if _always_returns(s.finalbody):
        return True
    return _always_returns(s.body + s.orelse) and all(_always_returns(h.body) for h in s.handlers)


def _else_always_returns(s) -> bool:
    """The `if no_error:` of a `try`'s `else:` block (anno TRY_ELSE) when the block and every
    clause of the `try` end in a return or raise: the `try` body either raised into a clause,
    returned itself, or ran to its end and the block runs."""
    handled = anno.getanno(s, anno.Basic.TRY_ELSE, None)
    return (
        handled is not None
        and _always_returns(s.body)
        and all(_always_returns(h.body) for h in handled.handlers)
    )


def _breaks(stmts) -> bool:
    """Whether a `break` in `stmts` leaves the loop whose body they are (a nested loop's own
    breaks do not; a break in a nested loop's `else` does)."""
    for s in stmts:
        if isinstance(s, ast.Break):
            return True
        if isinstance(s, (ast.For, ast.While, ast.AsyncFor)):
            if _breaks(s.orelse):
                return True
        elif isinstance(s, (ast.If, ast.With, ast.AsyncWith, ast.Try)):
            blocks = [getattr(s, name, []) for name in ("body", "orelse", "finalbody")]
            blocks += [h.body for h in getattr(s, "handlers", [])]
            if any(_breaks(b) for b in blocks):
                return True
        elif isinstance(s, ast.Match):
            if any(_breaks(case.body) for case in s.cases):
                return True
    return False


def _is_true(test) -> bool:
    return isinstance(test, ast.Constant) and bool(test.value) is True


def _is_return(stmt):
    return isinstance(stmt, ast.Return)


class _Returns(transformer.Transformer):
    statements_only = True

    def __init__(self, ctx):
        self.ctx = ctx

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        if _nested_return(node.body):
            _FunctionLowering(self.ctx, node).lower()
        return node

    visit_AsyncFunctionDef = visit_FunctionDef


def transform(node, ctx):
    return _Returns(ctx).visit(node)
