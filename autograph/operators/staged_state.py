"""What a staged if/loop carries besides its arguments: cells, placeholders, the loop-ran check.

Cell variables are reached through get_state/set_state; names a branch or loop body
assigns first get placeholders; a loop creating a variable checks at run time that it ran.
"""

from __future__ import annotations

import re

import numpy as np

from autograph.operators import data_structures
from autograph.operators.variables import is_maybe_undefined, is_undefined, is_undefined_return
from staging import errors, nest
from staging.debugging import check as staged_check
from staging.source_map import where
from staging.tensor import is_symbolic

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


class Refill(Exception):
    """A body gave a value to a name that was unassigned before it: trace again with
    placeholders of that value's type ({position: placeholder})."""

    def __init__(self, fill):
        super().__init__()
        self.fill = fill


def zero_like(x):
    """A function making a zero of x's type and structure (in the graph being built when it is
    called), or None when x holds something that is not a number, tensor or None."""
    leaves = nest.flatten(x)
    makers = []
    for leaf in leaves:
        maker = _zero_leaf(leaf)
        if maker is None:
            return None
        makers.append(maker)
    return lambda: nest.pack_as(x, [m() for m in makers])


def _zero_leaf(x):
    if x is None:
        return lambda: None
    if is_symbolic(x):
        if x.type.weak:  # a Python number known at run time: a Python zero
            return lambda: x.type.python_type(0)
        shape = tuple(0 if d is None else d for d in x.static_shape)
        dtype = x.dtype
        return lambda: np.zeros(shape, dtype)[()] if shape == () else np.zeros(shape, dtype)
    if isinstance(x, (np.ndarray, np.generic)):
        zero = np.zeros_like(x)
        return lambda: zero[()] if zero.ndim == 0 else zero.copy()
    if type(x) in (bool, int, float, complex):
        return lambda: type(x)(0)
    return None


def placeholder(name, value, where, kind):
    """The value a name first assigned inside a staged loop holds before the loop: a zero of
    the type the body gives it (converted code never reads it: a return value is guarded by
    `do_return`, a created variable by the check that the loop ran)."""
    if is_maybe_undefined(value):  # assigned on only some paths of the body: refused by the caller
        value = value.value
    make = zero_like(value)
    if make is None or data_structures.is_staged_value(value):
        what = "a list" if data_structures.is_staged_value(value) else f"a {type(value).__name__}"
        raise errors.UndefinedNameError(
            f"{where}'{name}' is first assigned inside this staged {kind}, to {what}; a staged "
            f"loop can create only tensors and numbers (or tuples, lists and dicts of them); "
            f"assign it before the loop")
    return make()


def check_ran(ran, names, kind) -> None:
    """At run time, after a staged loop that creates `names`: the loop ran at least once, or
    those names are unassigned, as Python would find them (UnboundLocalError)."""
    listed = ", ".join(repr(n) for n in names)
    message = (f"{where()}{listed} {'is' if len(names) == 1 else 'are'} assigned only inside this "
               f"staged {kind}, which ran zero times, and used after it")
    staged_check(ran, message, errors.UndefinedNameError)


def undefined_positions(values):
    """Positions holding the Undefined marker: (all of them, those that are not the return value)."""
    undefined = [i for i, v in enumerate(values) if is_undefined(v)]
    return undefined, [i for i in undefined if not is_undefined_return(values[i])]
