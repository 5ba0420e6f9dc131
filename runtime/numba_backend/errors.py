"""The note the numba backend gives when a graph keeps running on the interpreter."""

from __future__ import annotations


class NumbaFallbackWarning(UserWarning):
    """A function staged with jit_compile="numba" runs one of its graphs on the interpreter:
    an op or a value of the graph has no nopython form yet (the message names it and its line),
    or numba is not installed. Given once per graph; the results are the interpreter's."""


class Unsupported(Exception):
    """A node (or value) the numba lowering cannot write: why, naming it."""
