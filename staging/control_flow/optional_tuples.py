"""A tuple on one path of a staged `if` and None on the other (`pair = None` before the `if`,
`pair = (i, j)` in a branch) meet as one graph value: the tuple is packed (`tuple_pack`) in its
branch, and the `cond` gives a value of type `None | (...)` (runtime.types: a union holding a
tuple kind). Such a value is tested with `is None` / `is not None`, indexed by a number,
unpacked and returned (the caller gets the Python tuple or None); any other op refuses it
at trace time (OpDef.takes_tuples), as NumPy would make an array of the tuple.
"""

from __future__ import annotations

from runtime.types import optional_tuple_kind
from staging import errors
from staging.core.recording import building, record
from staging.core.tensor import Tensor
from staging.state import containers


def meets_tuple(x) -> bool:
    """Whether `x` may meet a tuple on another path: None, or a value that is a tuple on some
    paths and None on others."""
    return x is None or (isinstance(x, Tensor) and optional_tuple_kind(x.type) is not None)


def pack_against_none(a, b, graph_a, graph_b):
    """(a, b), what two paths give (made in graphs graph_a and graph_b), with each tuple that
    meets None or such a value on the other path packed into one graph value (tuples that
    meet tuples of their length are gone through item by item)."""
    if type(a) is tuple and type(b) is tuple:
        if len(a) != len(b):
            return a, b
        pairs = [pack_against_none(x, y, graph_a, graph_b) for x, y in zip(a, b)]
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
    if type(a) is tuple and meets_tuple(b):
        return _packed(a, graph_a), b
    if type(b) is tuple and meets_tuple(a):
        return a, _packed(b, graph_b)
    return a, b


def _packed(t: tuple, graph):
    """`t` as one value of `graph` (a tuple when the graph runs), or `t` itself when it holds
    something a graph tuple cannot (the paths then differ in structure, as before)."""
    if not t:
        return t
    try:
        template, inputs = containers.encode_arguments(t, "a tuple")
    except errors.StagingError:
        return t
    with building(graph):
        return record("tuple_pack", inputs, {"items": template})
