"""What a staged if/loop carries besides its arguments: cells, placeholders, the loop-ran check.

Cell variables are reached through get_state/set_state; names a branch or loop body
assigns first get placeholders; a loop creating a variable checks at run time that it ran.
The placeholders of a staged `if` (a name or return value one branch leaves unset, and the
"defined" flags of names assigned on only some paths) are made here too.
"""

from __future__ import annotations

import re

import numpy as np

from autograph.operators import data_structures
from autograph.operators.variables import (
    MaybeUndefined,
    is_maybe_undefined,
    is_undefined,
    is_undefined_return,
)
from staging import errors
from staging.core import nest
from staging.core.recording import check as staged_check
from staging.core.source_map import where
from staging.core.tensor import is_symbolic
from staging.kinds.undefined import SameAsOtherPath, zero_leaf

# The name the return converter gives the return value (retval_, retval_1, ...).
_RETURN_VALUE = re.compile(r"retval_\d*$")


def is_return_value(name: str) -> bool:
    return bool(_RETURN_VALUE.match(name))


def display_names(names) -> tuple:
    """The names as error messages show them: the return value by what it is, not its
    generated variable name."""
    return tuple("return value" if is_return_value(n) else n for n in names)


class Cells:
    """The cell variables of a staged statement: read with get_state(), written with
    set_state(values). No names: nothing to do."""

    __slots__ = ("names", "_get", "_set")

    def __init__(self, names=(), get_state=None, set_state=None):
        self.names = tuple(names)
        self._get, self._set = get_state, set_state

    def get(self) -> tuple:
        return tuple(self._get()) if self.names else ()

    def set(self, values) -> None:
        if self.names:
            self._set(tuple(values))

    def objects(self) -> tuple:
        """The cell objects of the names (those get_state reads)."""
        if not self.names:
            return ()
        code, closure = self._get.__code__, self._get.__closure__ or ()
        return tuple(c for name, c in zip(code.co_freevars, closure) if name in self.names)


class Refill(Exception):
    """A body gave a value to a name that was unassigned before it: trace again with
    placeholders of that value's type ({position: placeholder})."""

    def __init__(self, fill):
        super().__init__()
        self.fill = fill


def zero_like(x, staged_lists=False):
    """A function making a zero of x's type and structure (in the graph being built when it is
    called), or None when x holds something that is not a number, tensor or None (or, with
    `staged_lists`, a list a staged loop or `if` built: its zero is an empty list)."""
    leaves = nest.flatten(x)
    makers = []
    for leaf in leaves:
        maker = (
            (lambda: [])
            if staged_lists and data_structures.is_staged_value(leaf)
            else zero_leaf(leaf)
        )
        if maker is None:
            return None
        makers.append(maker)
    shape = nest.pack_as(x, leaves)  # (the structure as it is now: a dict may gain keys later)
    return lambda: nest.pack_as(shape, [m() for m in makers])


def placeholder(name, value, where, kind):
    """The value a name first assigned inside a staged loop holds before the loop: a zero of
    the type the body gives it (converted code never reads it: a return value is guarded by
    `do_return`, a created variable by the check that the loop ran)."""
    if is_maybe_undefined(value):  # assigned on only some paths of the body: refused by the caller
        value = value.value
    if name in display_names(("retval_",)) and data_structures.is_staged_value(value):
        return []  # (an empty list, which the loop makes a staged one of the body's element type)
    make = zero_like(value)
    if make is None or data_structures.is_staged_value(value):
        what = "a list" if data_structures.is_staged_value(value) else f"a {type(value).__name__}"
        raise errors.UndefinedNameError(
            f"{where}'{name}' is first assigned inside this staged {kind}, to {what}; a staged "
            f"loop can create only tensors, numbers and strs (or tuples, lists and dicts of them); "
            f"assign it before the loop"
        )
    return make()


def check_ran(ran, names, kind) -> None:
    """At run time, after a staged loop that creates `names`: the loop ran at least once, or
    those names are unassigned, as Python would find them (UnboundLocalError)."""
    listed = ", ".join(repr(n) for n in names)
    message = (
        f"{where()}{listed} {'is' if len(names) == 1 else 'are'} assigned only inside this "
        f"staged {kind}, which ran zero times, and used after it"
    )
    staged_check(ran, message, errors.UndefinedNameError)


def undefined_positions(values):
    """Positions holding the Undefined marker: (all of them, those that are not the return value)."""
    undefined = [i for i, v in enumerate(values) if is_undefined(v)]
    return undefined, [i for i in undefined if not is_undefined_return(values[i])]


def defined_flag(value):
    if is_maybe_undefined(value):
        return value.defined
    return np.bool_(not is_undefined(value))


def fill_unassigned(then, other, flagged):
    """The false branch's outputs, with a placeholder (of the true branch's type) for each
    flagged name it leaves unassigned."""
    out = list(other)
    for i in flagged:
        if is_undefined(out[i]) and not is_undefined(then[i]):
            value = then[i].value if is_maybe_undefined(then[i]) else then[i]
            out[i] = PlaceholderUnset(placeholder_maker(value, other_path=True)())
    return tuple(out)


class PlaceholderUnset(MaybeUndefined):
    """A placeholder for a name a branch leaves unassigned: defined flag False."""

    __slots__ = ()

    def __init__(self, value):
        super().__init__("", value, np.bool_(False))


def fill_return_value(then, other):
    """The false branch's outputs, with the return value given a placeholder where exactly one
    branch sets it (converted code never reads it unset: `do_return` tells)."""
    out = list(other)
    refill = {}
    for i, (a, b) in enumerate(zip(then, other)):
        if is_undefined_return(b) and not is_undefined(a):
            zero = zero_like(a, staged_lists=True)
            if zero is not None:
                out[i] = zero()
        elif is_undefined_return(a) and not is_undefined(b):
            zero = zero_like(b, staged_lists=True)
            if zero is not None:
                refill[i] = zero
    if refill:
        raise Refill(refill)
    return tuple(out)


def placeholder_maker(value, other_path=False):
    """A maker of a placeholder of value's type (a name assigned on only some paths), or None.
    A value that is not made of tensors and numbers (an object, a function, a string) is its own
    placeholder: it passes through the staged `if` unchanged, and the run-time check of the
    name's flag keeps any path that did not assign it from reading it."""
    if is_maybe_undefined(value):
        value = value.value
    if is_undefined(value) or data_structures.is_staged_value(value):
        return None
    zero = zero_like(value)
    if zero is None and not _holds_tensors(
        value
    ):  # (other_path: the staged `if` passes on the other
        return (lambda: SameAsOtherPath(value)) if other_path else (lambda: value)  # path's object)
    return zero


def _holds_tensors(value) -> bool:
    """Whether a tensor is among value's leaves (where a placeholder must be a zero instead)."""
    return any(is_symbolic(leaf) for leaf in nest.flatten(value))


def check_defined(a, b, names, where, flagged):
    new_flags, refill = [], {}
    for i, (name, x, y) in enumerate(zip(names, a, b)):
        maybe = is_maybe_undefined(x) or is_maybe_undefined(y)
        if is_undefined(x) != is_undefined(y) or maybe:
            if is_return_value(name):
                raise errors.BranchMismatchError(
                    f"{where}this function returns a value on one path of this `if` (whose "
                    f"condition is symbolic) that cannot be given a placeholder on the other; "
                    f"return tensors or numbers (or tuples, lists and dicts of them)"
                )
            if i in flagged:
                continue
            maker = placeholder_maker(y if is_undefined(x) else x, other_path=True)
            if maker is None:
                raise errors.UndefinedNameError(
                    f"{where}'{name}' is assigned in only one branch of this `if`, whose condition "
                    f"is symbolic, and is used afterwards, and it is not a tensor or number (or a "
                    f"tuple, list or dict of them) that could be checked at run time; assign it "
                    f"in both branches or before the `if`"
                )
            new_flags.append(i)
            if is_undefined(x):
                refill[i] = maker
    if new_flags:
        retry = Refill(refill)
        retry.flagged = tuple(new_flags)
        raise retry
