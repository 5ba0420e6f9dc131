"""and_, or_, not_: Python's short-circuit logic on concrete values, staged on symbolic ones.

With a symbolic left operand, `x and y` / `x or y` become one staging.cond that
traces the right operand in its own branch (so it runs only when Python would
run it, e.g. `i < n and x[i] > 0` never reads x[n]). The result keeps Python's
value semantics (`x or y` is x if x is true, else y) when both operands have
the same dtype and shape, booleans included; otherwise (say an int tensor
`or` a float) a staged `if` cannot give either value, and the result is the
truth value of the chosen operand, a boolean tensor (for `or` the right
operand is then traced a second time).
"""

from __future__ import annotations

import numpy as np

from staging.control_flow import cond
from staging.tensor import is_symbolic


def and_(a, b_fn):
    """`a and b`; b_fn runs only when a is true (in a staged cond when a is symbolic)."""
    if is_symbolic(a):
        return _staged(a, b_fn, when_true=True)
    return b_fn() if a else a


def or_(a, b_fn):
    """`a or b`; b_fn runs only when a is false (in a staged cond when a is symbolic)."""
    if is_symbolic(a):
        return _staged(a, b_fn, when_true=False)
    return a if a else b_fn()


def not_(a):
    """`not a`; a logical_not node when a is symbolic. For a Python number known at run time
    (a weak value) `not a` is `a == 0`, which stays a Python bool, as eagerly."""
    if is_symbolic(a):
        return a == 0 if a.type.weak else np.logical_not(a)
    return not a


class _AsBool(Exception):
    """`a or b`: the right operand cannot be merged with the left as a value."""


def _staged(a, b_fn, when_true):
    """One staged cond giving b when a's truth is `when_true`, else a.

    staging.cond traces its true branch first. For `and` that is b's branch, which
    decides whether the result can keep the operands' values. For `or` it is a's
    branch: it assumes values, and b's branch asks for a second trace with truth
    values when b turns out not to match a (different dtype or shape)."""
    as_values = []

    def b_branch():
        b = b_fn()
        same = _same_type(a, b)
        if not as_values:
            as_values.append(same)
        elif as_values[0] and not same:
            raise _AsBool()
        return b if as_values[0] else _as_bool(b)

    def a_branch():
        if not as_values:
            as_values.append(True)
        return a if as_values[0] else _as_bool(a)

    if when_true:
        return cond(a, b_branch, a_branch)
    try:
        return cond(a, a_branch, b_branch)
    except _AsBool:
        as_values[:] = [False]
        return cond(a, a_branch, b_branch)


def _same_type(a, b) -> bool:
    """b can be merged with the symbolic a as a value: same dtype (a Python number of the same
    kind counts) and same shape."""
    if is_symbolic(b) or isinstance(b, (np.ndarray, np.generic)):
        return b.dtype == a.dtype and tuple(b.shape) == tuple(a.shape)
    if a.shape != ():
        return False
    if type(b) is bool:
        return a.dtype == np.bool_
    if type(b) is int:
        return np.issubdtype(a.dtype, np.integer)
    if type(b) is float:
        return np.issubdtype(a.dtype, np.floating)
    return False


def _as_bool(x):
    """The truth value of an operand, as a boolean (tensor or NumPy bool)."""
    if is_symbolic(x):
        return x if x.dtype == np.bool_ else x.astype(np.bool_)
    return np.bool_(bool(x))
