"""Python's own view of a symbolic array whose shape is known while tracing: iteration (a Python
`for` in code autograph does not convert, unpacking, list(), zip(), generator expressions left
as they are), `.tolist()` and `.item()`.

Eagerly, iterating an array gives `x[0], x[1], ...` (views of its rows, or NumPy scalars), and
`.tolist()` / `.item()` give Python numbers. With the first dim (for `.tolist()`, every dim)
known while tracing, the same happens here: each element is a `getitem` node, so the graph
reads them when it runs; `.tolist()`'s and `.item()`'s elements are converted to the Python
number `.item()` gives (a `python_number` node: a weak value, a Python int, float, bool or
complex when the graph runs). Where the length is only known when the graph runs, the number of
Python values cannot be, and iteration is refused naming the line (a converted `for` loop over
the array is a staged loop instead). This is not how a converted `for` loop over a tensor is
staged: that stays one `while_loop` over the index (autograph.operators.control_flow).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from runtime.types import optional_tuple_kind
from staging import errors
from staging.core.recording import record
from staging.core.source_map import where
from staging.core.tensor import Tensor
from staging.kinds import decisions as kinds

# The most elements Python code may take out of one symbolic array while tracing: each is a node
# of the graph, so a longer array is better walked by a converted (staged) loop.
MAX_ELEMENTS = 10_000

_ITEM_TYPES = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def _not_iterable(tensor: Tensor, what: str) -> TypeError | None:
    """The TypeError eager Python raises when `what` meets this value on every path: a Python
    number or a 0-d value is not iterable."""
    found = kinds.kinds(tensor.type)
    if all(kinds.is_python_number(k) for k in found):
        name = found[0].python_type.__name__
        return TypeError(f"{where()}'{name}' object is not iterable")
    if all(k.shape == () for k in found):
        return TypeError(f"{where()}iteration over a 0-d array")
    if any(kinds.is_python_number(k) or k.shape == () for k in found):
        kinds.one_answer(tensor, what, lambda k: bool(k.shape) and not k.weak)
    return None


def _too_many(tensor: Tensor, what: str, count: int) -> errors.SymbolicValueError:
    return errors.SymbolicValueError(
        f"{where()}{what} of a symbolic tensor {tensor._describe()} would take {count} Python "
        f"values out of it while tracing (one graph node each; at most {MAX_ELEMENTS}); walk it "
        f"with a `for` loop in converted code (a staged loop), or with NumPy operations"
    )


def iterate(self: Tensor):
    """iter(x): `x[0], x[1], ...` for a first dim known while tracing (Tensor.__iter__); the
    items of a value that is a tuple on some paths and None on others (unpacking it raises
    Python's TypeError where it is None when the graph runs)."""
    what = "iterating (a Python `for` loop, unpacking, list(), ...)"
    items = optional_tuple_kind(self.type)
    if items is not None:
        return iter(
            [
                record("tuple_item", [self], {"index": i, "unpack": True})
                for i in range(len(items.items))
            ]
        )
    error = _not_iterable(self, what)
    if error is not None:
        raise error
    n = kinds.one_answer(self, what, lambda k: k.shape[0])
    if n is None:
        raise self._symbolic_error(
            what,
            " (its first dim is unknown while tracing, and so is the number of items; a `for` "
            "statement or a comprehension over a symbolic tensor is a staged loop in converted "
            "code, while unpacking, list(), generator expressions read lazily and library code "
            "iterate in Python: write a `for` statement, or elsewhere index it with x[i])",
        )
    if n > MAX_ELEMENTS:
        raise _too_many(self, what, n)
    return (self[i] for i in range(n))


def _item_kind(tensor: Tensor, what: str):
    """The Python type `.item()` gives for the value's dtype, the same on every path."""

    def kind(k):
        kinds.number_attribute(k, what.strip(".()"))
        dtype = k.dtype
        python = _ITEM_TYPES.get(dtype.kind)
        if python is None or dtype.char in "gG":  # (long double: .item() keeps NumPy's type)
            raise errors.UnsupportedOpError(
                f"{where()}{what} of a symbolic {dtype.name} tensor gives Python objects that "
                f"a staged value cannot hold (only bool, integer, float and complex arrays "
                f"convert); return the array from the staged function and convert it outside, "
                f"or use staging.py_function"
            )
        return python, k.shape

    return kinds.one_answer(tensor, f"`{what}`", kind)


def _python_number(element: Tensor, kind) -> Tensor:
    return record("python_number", [element], {"kind": kind})


def tolist(self: Tensor, *args, **kwargs):
    """x.tolist(): nested Python lists of the elements as Python numbers (ndarray.tolist)."""
    if args or kwargs:
        raise TypeError(f"{where()}tolist() takes no arguments")
    kind, shape = _item_kind(self, ".tolist()")
    if any(d is None for d in shape):
        raise self._symbolic_error(
            ".tolist()",
            f" (its shape {tuple(shape)} has dims unknown while tracing, and so has the list); "
            f"return the array from the staged function, or use "
            f"NumPy operations",
        )
    count = math.prod(shape)
    if count > MAX_ELEMENTS:
        raise _too_many(self, ".tolist()", count)
    if not shape:
        return _python_number(self, kind)
    elements = iter([_python_number(self[index], kind) for index in np.ndindex(*shape)])
    return _nest(elements, shape)


def _nest(elements, shape):
    if len(shape) == 1:
        return list(itertools.islice(elements, shape[0]))
    return [_nest(elements, shape[1:]) for _ in range(shape[0])]


def item(self: Tensor, *args):
    """x.item(), x.item(k), x.item(i, j): one element as a Python number (ndarray.item)."""
    kind, shape = _item_kind(self, ".item()")
    if not args:
        if any(d is None for d in shape):
            raise self._symbolic_error(
                ".item()",
                " (its shape is unknown while tracing, and .item() needs exactly one element); "
                "index it first (x[0], x.reshape(-1)[0])",
            )
        if math.prod(shape) != 1:
            raise ValueError(f"{where()}can only convert an array of size 1 to a Python scalar")
        element = self[(0,) * len(shape)] if shape else self
        return _python_number(element, kind)
    if len(args) == 1 and isinstance(args[0], tuple):
        args = args[0]
    if len(args) == 1:
        flat = self if len(shape) == 1 else self.reshape(-1)
        return _python_number(flat[args[0]], kind)
    if len(args) != len(shape):
        raise ValueError(f"{where()}incorrect number of indices for array")
    return _python_number(self[tuple(args)], kind)
