"""Staged control flow: a symbolic `if` becomes one `cond` node (branches), a symbolic loop one
`while_loop` node (loops); where their paths meet, values join (joins); errors raised in a
branch are deferred to the path that runs it (raising); a `try` whose clauses may catch what
its body raises when the graph runs becomes one `try_except` node (handlers); items and
attributes written in a branch or body join like variables (written)."""

from staging.control_flow.branches import cond
from staging.control_flow.loops import while_loop

__all__ = ["cond", "while_loop"]
