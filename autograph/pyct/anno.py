"""Typed annotations on ast nodes: the declared keys and setanno / getanno / hasanno."""

from __future__ import annotations

import enum


class _Key(enum.Enum):
    __hash__ = object.__hash__  # members are singletons; Enum's own hash is a Python call


class Basic(_Key):
    """Annotations a converter leaves for the converters and analyses after it."""

    EXTRA_TEST = "For: the loop-continue test added by the break converter (an expression)"
    LOOP_OPTIONS = "While/For: the keywords of the set_loop_options(...) call of its body"
    LOWERED_RETURN = (
        "Assign/Return: made by the return converter (the assignment of a user "
        "`return`'s value, or the function's one final `return`)"
    )
    LOWERED_JUMP = (
        "Assign: `flag = True` of a lowered `continue`, `break` or `return` (the value is "
        "that word)"
    )
    TRY_ELSE = (
        "If: the `if no_error:` running a `try`'s `else:` block after it (the try_and_with "
        "converter); the value is that Try"
    )
    RETURN_FLAG = (
        "FunctionDef: (flag, value) names of the return converter's `do_return` and "
        "`retval_`, when returns inside its statements were lowered to them"
    )


class Static(_Key):
    """Annotations of the static analyses (pyct/static_analysis), each a frozenset of names."""

    LIVE_IN = "If/While/For/Try: names live on entry (for loops: at the loop head)"
    LIVE_OUT = "If/While/For/Try: names live after the statement"
    SOURCE_DEAD_AT_HEAD = (
        "While/For: names its body assigns that the user's code, before "
        "break/continue/return were lowered, does not read at the loop head"
    )
    DEFINED_IN = (
        "If/While/For/Try: names that may be bound at this point in the Python function "
        "holding it in converted code (the function itself or a branch/loop body)"
    )
    STATE = (
        "If/While/For/Try: the statement_state.State of a statement the control-flow converter "
        "makes into functions (set by the definitions analysis, which needs it first)"
    )
    CELLS = (
        "FunctionDef: its cell variables that a nested function, lambda, class or generator "
        "uses (a frozenset; see static_analysis/cells)"
    )
    HELPER_WRITES = (
        "FunctionDef: its cell variables that a function nested in it assigns through "
        "`nonlocal` (a frozenset; see static_analysis/cells)"
    )


_KEY_TYPES = (Basic, Static)
_FIELD = "_ag_anno"  # the one node attribute: a dict key -> value
_NO_ANNOS: dict = {}  # never written
_NO_DEFAULT = object()


# The accessors run tens of times per conversion, so each checks its key inline.
def _unknown(key):
    return TypeError(f"unknown annotation key {key!r}: declare it in autograph.pyct.anno")


def setanno(node, key, value) -> None:
    if key.__class__ not in _KEY_TYPES:
        raise _unknown(key)
    d = node.__dict__
    # A new dict on each write: a shallow copy of the node (copy.copy) shares the old one, and
    # writing to either must not show on the other.
    d[_FIELD] = {**d.get(_FIELD, _NO_ANNOS), key: value}


def getanno(node, key, default=_NO_DEFAULT):
    """The value of `key` on `node`; `default` if it has none, else KeyError."""
    if key.__class__ not in _KEY_TYPES:
        raise _unknown(key)
    value = node.__dict__.get(_FIELD, _NO_ANNOS).get(key, default)
    if value is _NO_DEFAULT:
        raise KeyError(f"{type(node).__name__} node has no annotation {key}")
    return value


def hasanno(node, key) -> bool:
    if key.__class__ not in _KEY_TYPES:
        raise _unknown(key)
    return key in node.__dict__.get(_FIELD, _NO_ANNOS)
