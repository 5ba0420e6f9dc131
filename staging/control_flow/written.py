"""What the branches of a staged `if` wrote (items, attributes, arrays written in place): the
value each written place has on each path, and writing the merged values back after the `if`.

`staging.control_flow.cond` records the places each branch writes (staging.state.journal), undoes
the writes before tracing the other branch, and merges each place like a variable. A place
that exists on one path only gets a placeholder and a flag (set_on_path). A branch result that
is an array the branch wrote in place is the value that write left (as_written); results that
are that array on both paths are the array object itself (same_as_written), so the staleness
checks of staging.state.stale_values do not mistake them for the array from before the `if`.
"""

from __future__ import annotations

import numpy as np

from staging import errors
from staging.control_flow.joins import is_convertible
from staging.core.source_map import where
from staging.kinds.undefined import MaybeMissing, zero_leaf
from staging.state import journal as mutation
from staging.state import stale_values


def set_on_path(location, x, other):
    """(value, set flag) of a location on one path of a staged `if`: a location that does not
    exist there (absent before the `if` and not set by the branch) holds a placeholder of the
    type the other path gives it, flagged unset; one set on only some earlier paths keeps its
    flag. Refused when no placeholder can stand for it."""
    if isinstance(x, MaybeMissing):
        return x.value, x.defined
    if x is not mutation.MISSING:
        return x, np.True_
    if isinstance(other, MaybeMissing):
        other = other.value
    if location.kind != "attr":
        raise errors.UndefinedNameError(
            f"{where()}{location.describe()} is set in only one branch of this staged `if`, whose "
            f"condition is symbolic, and did not exist before it (which keys a dict has is seen by "
            f"`in`, len() and iteration); set it in both branches or before the `if`"
        )
    zero = None if other is mutation.MISSING or not is_convertible(other) else zero_leaf(other)
    if zero is None:
        raise errors.UndefinedNameError(
            f"{where()}{location.describe()} is set in only one branch of this staged `if`, whose "
            f"condition is symbolic, and did not exist before it, and it is not a tensor or number "
            f"that could be checked at run time; set it in both branches or before the `if`"
        )
    return zero(), np.False_


def write_back(outer, locations, values, unless=None) -> None:
    """After a staged `if` or loop: the items, attributes and arrays its branches or body wrote
    take their merged values. An array written in place this way was, eagerly, changed: other
    tensors that may be the same array (aliases staged control flow hides) become stale, except
    through the branch that did not write it (`unless`: per location, (id(cond node), label) or
    None)."""
    for k, (location, value) in enumerate(zip(locations, values)):
        if location.kind == "tensor" and location.obj._graph is outer:
            stale_values.mark_overwritten(
                outer,
                location.obj._value,
                where().rstrip(": ") or "an earlier line",
                unless[k] if unless else None,
            )
            stale_values.mark_final(outer, value._value)
        if location.kind == "tensor":
            mutation.rebind_tensor(
                location.obj, value
            )  # (noted where the array is not the construct's own)
            continue
        mutation.note(location)  # (an enclosing staged branch or loop sees the write)
        location.write(value)


def unwritten_branches(node, locations, t_written, e_written) -> list:
    """For write_back: per location, the branch of the staged `if` `node` that did not write it,
    as (id(node), label), or None when both did."""
    return [
        None
        if node is None or (loc.ident in t_written) == (loc.ident in e_written)
        else (id(node), "else" if loc.ident in t_written else "then")
        for loc in locations
    ]


def as_written(leaves, written, n_results, pairs) -> None:
    """A branch result that is an array the branch wrote in place (`v2` after a loop that did
    `v2 += 1`) is, eagerly, that array after the writes: the value the write left, not the one
    the object was reset to for the other branch."""
    arrays = {
        id(location.obj): value for location, value in written.values() if location.kind == "tensor"
    }
    if not arrays:
        return
    for i in range(n_results):
        leaf = leaves[i][1] if pairs else leaves[i]
        value = arrays.get(id(leaf))
        if value is not None:
            leaves[i] = (leaves[i][0], value) if pairs else value


def same_as_written(tg, eg, dynamic, n_results, locations, leaves) -> None:
    """Results of a staged `if` that are, on both paths, the array a branch wrote in place (`v`
    after `if c: v -= x`) are that array object itself, as eagerly: after write_back it holds
    the merged value, and an enclosing `if` or loop sees one array, not two equal values (one of
    which would look like a stale copy of the array before the write)."""
    position = {leaf: i for i, leaf in enumerate(dynamic)}

    def pair(i):
        return id(tg.graph.outputs[i]), id(eg.graph.outputs[i])

    written = {
        pair(position[n_results + k]): location.obj
        for k, location in enumerate(locations)
        if location.kind == "tensor" and n_results + k in position
    }
    if not written:
        return
    for leaf in (d for d in dynamic if d < n_results):
        obj = written.get(pair(position[leaf]))
        if obj is not None:
            leaves[leaf] = obj
