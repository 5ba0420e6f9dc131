"""Products: np.dot, np.outer, np.einsum."""

from __future__ import annotations

import numpy as np

from ._common import _as_input, _no_out, _record, _unsupported

def _dot(a, b, out=None):
    _no_out(out, "np.dot")
    return _record("dot", [_as_input(a), _as_input(b)])


def _outer(a, b, out=None):
    _no_out(out, "np.outer")
    return _record("outer", [_as_input(a), _as_input(b)])


def _einsum(*operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    """np.einsum with a subscripts string. `optimize` only changes the contraction order, so it is
    accepted and the staged kernel uses NumPy's default."""
    _no_out(out, "np.einsum")
    if not operands or not isinstance(operands[0], str):
        raise _unsupported("np.einsum in the interleaved (operand, sublist) form", "pass a subscripts string")
    if dtype is not None or casting != "safe" or order != "K":
        raise _unsupported("np.einsum(..., dtype/casting/order=...)")
    subscripts, *arrays = operands
    return _record("einsum", [_as_input(x) for x in arrays], {"subscripts": subscripts.replace(" ", "")})


FUNCTIONS = {np.dot: _dot, np.outer: _outer, np.einsum: _einsum}
