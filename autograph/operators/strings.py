"""Strings in converted code: f-strings, `%` with a literal template, str(), repr(), format(),
ascii() and the methods of a Python str given symbolic values (`"{}".format(x)`,
`", ".join(names)`) give staged strings inside a trace (staging.effects.formatting), Python
strs otherwise."""

from __future__ import annotations

import builtins

from autograph.operators import data_structures
from runtime import ListType, TensorType
from runtime.types import kinds
from staging import errors
from staging.core import strings
from staging.core.recording import current_graph, record
from staging.core.source_map import where
from staging.core.tensor import Tensor
from staging.effects import formatting
from staging.kinds.undefined import MaybeUndefined, read_all
from staging.state.tensor_array import TupleList


def _read(value):
    return value.read() if isinstance(value, MaybeUndefined) else value


def fstring(*parts):
    """An f-string: `parts` are literal strs and (value, conversion, spec) tuples."""
    if current_graph() is None:
        return "".join(
            p if type(p) is str else formatting.format_now(p[0], p[1], p[2]) for p in parts
        )
    pieces = []
    for p in parts:
        if type(p) is str:
            pieces.append(p)
        else:
            value, conversion, spec = p
            pieces.append(formatting.piece(_listed(_read(value)), conversion, spec))
    return formatting.join(pieces)


def percent(template, values):
    """`template % values` for a literal template."""
    if current_graph() is None:
        return template % values
    return formatting.percent(template, _listed(read_all(values)))


def _listed(value):
    """A staged list is formatted as the list it is when the graph runs."""
    if isinstance(value, data_structures.StagedList):
        return value.tensor_array._handle
    return value


def str_(*args, **kwargs):
    """str(): of a symbolic value (or a container of them), a staged string."""
    if len(args) == 1 and not kwargs and current_graph() is not None:
        return formatting.to_str(_listed(_read(args[0])))
    return builtins.str(*args, **kwargs)


def repr_(value):
    if current_graph() is not None:
        return formatting.to_repr(_listed(_read(value)))
    return builtins.repr(value)


def ascii_(value):
    if current_graph() is not None:
        return formatting.to_ascii(_listed(_read(value)))
    return builtins.ascii(value)


def format_(value, spec=""):
    if current_graph() is not None:
        return formatting.to_format(_listed(_read(value)), _read(spec))
    return builtins.format(value, spec)


def str_method(method, args, kwargs):
    """`text.<method>(*args, **kwargs)` for a Python str `text` (a bound method of it) inside a
    trace: staged when an argument holds a staged value; None when it is not (call it as it is)."""
    args = tuple(_listed(a) for a in read_all(args))
    kwargs = read_all(kwargs)
    name, text = method.__name__, method.__self__
    if name == "format":
        if formatting.holds_staged(args) or formatting.holds_staged(kwargs):
            return formatting.str_format(text, args, kwargs)
        return None
    if name == "join" and len(args) == 1 and not kwargs:
        return _join(text, args[0])
    if formatting.holds_staged(args) or formatting.holds_staged(kwargs):
        return strings.call_method(strings.constant(text), name, args, kwargs)
    return None


def _join(separator, items):
    if isinstance(items, Tensor) and isinstance(items.type, ListType):  # a staged list
        return strings.call_method(strings.constant(separator), "join", (items,), None)
    if not isinstance(items, (str, list, tuple, dict, Tensor)) and hasattr(items, "__iter__"):
        items = list(items)  # (a generator: str.join reads it into a list too)
        if not formatting.holds_staged(items):
            return separator.join(items)
    if type(items) in (list, tuple) and formatting.holds_staged(items):
        return strings.join(separator, items)
    return None


class StagedBytes:
    """bytes() of a staged list (one a staged loop built): its items are known only when the graph
    runs, and `.decode()` of it is a staged string; any other use is refused, naming the line."""

    __slots__ = ("items",)

    def __init__(self, items):
        self.items = items

    def decode(self, encoding="utf-8", errors="strict"):
        if type(encoding) is not str or type(errors) is not str:
            raise _bytes_refused("bytes.decode() with an encoding known only when the graph runs")
        return record("bytes_decode", [self.items], {"encoding": encoding, "errors": errors})

    def __getattr__(self, name):
        raise _bytes_refused(f"`.{name}` of it")

    def _refused(self, *args):
        raise _bytes_refused("this use of it")

    __len__ = __iter__ = __bool__ = __hash__ = __eq__ = __ne__ = __add__ = __radd__ = _refused
    __getitem__ = __contains__ = __lt__ = __le__ = __gt__ = __ge__ = __mul__ = _refused


def _bytes_refused(what: str):
    return errors.SymbolicValueError(
        f"{where()}bytes() of a list built by a staged loop has items known only when the staged "
        f"graph runs: {what} is not staged (only bytes(lst).decode() is, giving a staged str)"
    )


def bytes_(*args, **kwargs):
    """bytes(): of a staged list of integers, a StagedBytes (its .decode() is staged)."""
    if len(args) == 1 and not kwargs and current_graph() is not None:
        items = _read(args[0])
        if isinstance(items, data_structures.StagedList) and not isinstance(
            items.tensor_array, TupleList
        ):
            handle = items.tensor_array._handle
            element = handle.type.element
            for kind in kinds(element) if element is not None else ():
                if not isinstance(kind, TensorType) or kind.dtype.kind not in "iub" or kind.shape:
                    raise _bytes_refused(f"a list of {element} values (not integers)")
            return StagedBytes(handle)
    return builtins.bytes(*args, **kwargs)


def is_str_method(func) -> bool:
    """A method of a Python str (`"{}".format`, `", ".join`)."""
    return type(func) is _BUILTIN_METHOD and type(func.__self__) is str


_BUILTIN_METHOD = type("".join)


def chr_(i):
    """chr(): of a symbolic integer, a staged string (Python's ValueError out of range)."""
    i = _read(i)
    if isinstance(i, Tensor) and current_graph() is not None:
        return record("str_chr", [i])
    return builtins.chr(i)


def ord_(s):
    """ord(): of a staged string, its code point when the graph runs (a Python int)."""
    s = _read(s)
    if strings.is_staged_str(s) and current_graph() is not None:
        return record("str_ord", [s])
    return builtins.ord(s)


OVERRIDES = {
    builtins.chr: chr_,
    builtins.ord: ord_,
    builtins.str: str_,
    builtins.repr: repr_,
    builtins.ascii: ascii_,
    builtins.format: format_,
    builtins.bytes: bytes_,
}

__all__ = ["fstring", "percent"]
