"""Formatting values as eager Python does, when the graph runs: f-strings, `str()`, `repr()`,
`format()`, `ascii()`, `"%d" % x` and `"{}".format(x)` of symbolic values give staged strings
(staging.core.strings) whose text is computed from the run-time values by the very calls eager
code makes. Text made only of Python values stays a Python str, computed now.

A piece of text is a Python str, a StagedStr, or a `Formatted` value (formatted when the graph
runs): a symbolic value, or a NumPy value of a text that is staged anyway (its text follows the
print options in force when the graph runs, as the symbolic values' does). A tuple, list or dict
holding symbolic values is written as Python writes it (`[` + the items' reprs + `]`), each
item's repr a piece.
"""

from __future__ import annotations

import _string

import numpy as np

from runtime.core_ops import ARG
from staging import errors
from staging.core import nest
from staging.core.recording import current_graph, record
from staging.core.source_map import where
from staging.core.strings import Formatted, StagedStr, is_staged_str, printoptions_delta, text
from staging.core.tensor import Tensor, has_staged_value, staged_value

_CONVERT = {"s": str, "r": repr, "a": ascii}


def is_staged(x) -> bool:
    """A value known only when the graph runs: symbolic, or read as one (a Variable)."""
    return isinstance(x, Tensor) or has_staged_value(x)


def holds_staged(x, depth: int = 0) -> bool:
    """`x` is staged, or a container (tuple, list, dict, namedtuple, dataclass) holding one."""
    if is_staged(x):
        return True
    if depth > 16 or nest.is_leaf(x):
        return False
    return any(holds_staged(leaf, depth + 1) for leaf in nest.flatten(x))


def format_now(value, conversion: str, spec) -> str:
    """What Python's f-string gives for `value`, `!conversion` and `:spec`, now."""
    if conversion:
        value = _CONVERT[conversion](value)
    return format(value, spec)


def _empty(spec) -> bool:
    return type(spec) is str and not spec


def piece(value, conversion: str = "", spec=""):
    """One formatted value of a text (`{value!conversion:spec}`) as a piece: a Python str when
    its text is known now, else a StagedStr or a Formatted value."""
    if has_staged_value(value) and current_graph() is not None:
        value = staged_value(value)  # (a Variable: its value at this point of the program)
    if isinstance(value, Tensor):
        if is_staged_str(value) and conversion in ("", "s") and _empty(spec):
            return value
        return Formatted(value, conversion, spec)
    if type(value) in (tuple, list, dict) and holds_staged(value):
        return _container_piece(value, conversion, spec)
    if isinstance(value, BaseException) and holds_staged(value.args):
        return _exception_piece(value, conversion, spec)
    if holds_staged(value):
        raise errors.UnsupportedOpError(
            f"{where()}formatting a {type(value).__name__} that holds symbolic values is not "
            f"staged (only tuples, lists and dicts of them are); format the values themselves"
        )
    if is_staged_str(spec) or isinstance(value, (np.ndarray, np.generic)):
        return Formatted(value, conversion, spec)  # (formatted now when the text is not staged)
    return format_now(value, conversion, spec)


def _container_piece(value, conversion: str, spec):
    """A tuple, list or dict holding symbolic values, formatted: str() and repr() of these are
    their items' reprs between brackets."""
    if conversion == "a":
        raise errors.UnsupportedOpError(
            f"{where()}ascii() of a {type(value).__name__} holding symbolic values is not staged"
        )
    if not conversion and not _empty(spec):  # object.__format__: a spec is an error
        error = TypeError(f"unsupported format string passed to {type(value).__name__}.__format__")
        raise error
    written = join(container_pieces(value))
    if _empty(spec):
        return written
    return Formatted(written, "", spec) if is_staged_str(written) else format(written, spec)


def _exception_piece(error, conversion: str, spec):
    """str() of an exception whose arguments hold symbolic values (`print(e)` of a caught
    `FuzzError("r", x)`): its one argument's str(), or its arguments' tuple; repr() is its class
    name before its arguments in parentheses (BaseException's __str__ and __repr__)."""
    cls = type(error)
    if (
        cls.__str__ is not BaseException.__str__
        or cls.__repr__ is not BaseException.__repr__
        or conversion == "a"
    ):
        raise errors.UnsupportedOpError(
            f"{where()}formatting a {cls.__name__} (with its own __str__ or __repr__, or by "
            f"ascii()) whose arguments hold symbolic values is not staged; format the values "
            f"themselves"
        )
    if not conversion and not _empty(spec):  # object.__format__: a spec is an error
        raise TypeError(f"unsupported format string passed to {cls.__name__}.__format__")
    args = error.args
    if conversion == "r":
        pieces = [cls.__name__, "("]
        for i, item in enumerate(args):
            pieces += [", "] if i else []
            pieces += _item_pieces(item)
        written = join(pieces + [")"])
    elif len(args) == 1:
        written = _one(piece(args[0], "s", ""))
    else:
        written = join(container_pieces(args))
    if _empty(spec):
        return written
    return Formatted(written, "", spec) if is_staged_str(written) else format(written, spec)


def container_pieces(value) -> list:
    """The pieces of `repr(value)` for a tuple, list or dict (nested ones too)."""
    if type(value) is dict:
        out = ["{"]
        for i, (key, item) in enumerate(value.items()):
            if is_staged(key):
                raise errors.SymbolicValueError(f"{where()}a dict keyed by a symbolic value")
            out += [", "] if i else []
            out += [repr(key), ": ", *_item_pieces(item)]
        return out + ["}"]
    opening, closing = ("[", "]") if type(value) is list else ("(", ")")
    out = [opening]
    for i, item in enumerate(value):
        out += [", "] if i else []
        out += _item_pieces(item)
    if type(value) is tuple and len(value) == 1:
        out.append(",")
    return out + [closing]


def _item_pieces(item) -> list:
    if type(item) in (tuple, list, dict) and holds_staged(item):
        return container_pieces(item)
    return [piece(item, "r", "")]


def join(pieces):
    """The text of `pieces` (see the module docstring): a Python str when no piece is staged."""
    if not any(_is_staged_piece(p) for p in pieces):
        return "".join(
            p if type(p) is str else format_now(p.value, p.conversion, p.spec) for p in pieces
        )
    return text(pieces)


def _is_staged_piece(p) -> bool:
    if type(p) is str:
        return False
    if isinstance(p, Formatted):
        return isinstance(p.value, Tensor) or is_staged_str(p.spec)
    return True


# -- str(), repr(), format(), ascii() -------------------------------------------------------------


def to_str(value):
    """`str(value)`."""
    return _one(piece(value, "s", ""))


def to_repr(value):
    """`repr(value)`."""
    return _one(piece(value, "r", ""))


def to_ascii(value):
    """`ascii(value)`."""
    return _one(piece(value, "a", ""))


def to_format(value, spec=""):
    """`format(value, spec)`."""
    if not isinstance(spec, str) and not is_staged_str(spec):
        raise TypeError(f"format() argument 2 must be str, not {type(spec).__name__}")
    return _one(piece(value, "", spec))


def _one(p):
    return p if type(p) is str or is_staged_str(p) else join([p])


# -- "%d" % x ---------------------------------------------------------------------------------


def percent(template: str, values):
    """`template % values` for a Python str `template`: staged when `values` is symbolic or a
    tuple or dict holding symbolic values."""
    if not holds_staged(values):
        return template % values
    inputs = []

    def slot(v):
        if has_staged_value(v):
            v = staged_value(v)
        if isinstance(v, Tensor):
            inputs.append(v)
            return ARG
        if holds_staged(v):
            raise errors.UnsupportedOpError(
                f"{where()}`%` formatting of a {type(v).__name__} holding symbolic values is not "
                f"staged; format the values themselves"
            )
        if isinstance(v, (np.ndarray, np.generic)):  # (formatted when the graph runs)
            inputs.append(v)
            return ARG
        return v

    if type(values) is tuple:
        slots = tuple(slot(v) for v in values)
    elif type(values) is dict:
        slots = {k: slot(v) for k, v in values.items()}
    else:
        slots = slot(values)
    attrs = {"template": template, "values": slots}
    options = printoptions_delta()
    if options:
        attrs["printoptions"] = options
    return record("str_percent", inputs, attrs)


# -- "{}".format(x) -------------------------------------------------------------------------


class _Numbering:
    """str.format's field numbering: automatic (`{}`) or manual (`{0}`), not both."""

    def __init__(self):
        self.next, self.auto, self.manual = 0, False, False

    def index(self, first):
        if first == "":
            if self.manual:
                raise ValueError(
                    "cannot switch from manual field specification to automatic field numbering"
                )
            self.auto = True
            first, self.next = self.next, self.next + 1
        elif type(first) is int:
            if self.auto:
                raise ValueError(
                    "cannot switch from automatic field numbering to manual field specification"
                )
            self.manual = True
        return first


def str_format(template: str, args, kwargs):
    """`template.format(*args, **kwargs)` for a Python str `template`: staged when an argument
    holds a symbolic value. The template is read here (str.format's own parser); each field is
    a piece formatted as str.format formats it."""
    if not (holds_staged(args) or holds_staged(kwargs)):
        return template.format(*args, **kwargs)
    return join(_fields(template, args, kwargs, _Numbering(), depth=2))


def _fields(template: str, args, kwargs, numbering: _Numbering, depth: int) -> list:
    if depth < 0:
        raise ValueError("Max string recursion exceeded")
    pieces = []
    for literal, field, spec, conversion in _string.formatter_parser(template):
        if literal:
            pieces.append(literal)
        if field is None:
            continue
        value = _field_value(field, args, kwargs, numbering)
        spec = spec or ""
        if "{" in spec:
            spec = join(_fields(spec, args, kwargs, numbering, depth - 1))
        if conversion and conversion not in _CONVERT:
            raise ValueError(f"Unknown conversion specifier {conversion}")
        pieces.append(piece(value, conversion or "", spec))
    return pieces


def _field_value(field: str, args, kwargs, numbering: _Numbering):
    first, rest = _string.formatter_field_name_split(field)
    first = numbering.index(first)
    if type(first) is int:
        if first >= len(args):
            raise IndexError(f"Replacement index {first} out of range for positional args tuple")
        value = args[first]
    else:
        value = kwargs[first]
    for is_attribute, key in rest:
        if is_staged(value):
            raise errors.UnsupportedOpError(
                f"{where()}str.format field {field!r} looks up "
                f"{'an attribute' if is_attribute else 'an item'} of a symbolic value; format "
                f"the value you need instead"
            )
        value = getattr(value, key) if is_attribute else value[key]
    return value


__all__ = [
    "StagedStr",
    "container_pieces",
    "holds_staged",
    "is_staged",
    "join",
    "percent",
    "piece",
    "str_format",
    "to_ascii",
    "to_format",
    "to_repr",
    "to_str",
]
