"""Ops on Python strings known when the graph runs (values of type StrType): formatting a value
as an f-string, `str()`, `repr()` or `format()` would; `%`-formatting; the methods of str.

Each computes with the very Python operation the eager code makes (`format(value, spec)`,
`template % values`, `str.upper(s)`), on the very values, so the text is eager's: NumPy's str
and repr of scalars and arrays under the print options in force when the graph runs. A node may
carry `printoptions`, the NumPy print options the traced code set around it (a `with
np.printoptions(...)` block in the staged function): they apply while it formats.
"""

from __future__ import annotations

from typing import Any, Callable

from ..core_ops import ARG, ARG_SLOT, with_printoptions
from ..registry import LITERAL, one_of, register_op, tuple_of
from ..types import STR, ListType, TensorType, is_str, kinds

_CONVERSIONS = {"": None, "s": str, "r": repr, "a": ascii}

_NO_XLA = (
    "a Python str is not an array, and XLA computes on arrays (format the values after the "
    "call, or run the function on the interpreter)"
)


def count_slots(template) -> int:
    """How many ARG slots a template (a tuple, list or dict of values and slots) has."""
    if template is ARG:
        return 1
    if type(template) in (tuple, list):
        return sum(count_slots(t) for t in template)
    if type(template) is dict:
        return sum(count_slots(t) for t in template.values())
    return 0


def fill(template, values):
    """`template` with each ARG slot replaced by the next of `values` (an iterator)."""
    if template is ARG:
        return next(values)
    if type(template) in (tuple, list):
        return type(template)(fill(t, values) for t in template)
    if type(template) is dict:
        return {k: fill(t, values) for k, t in template.items()}
    return template


# -- constants -------------------------------------------------------------------------------


def _text_of(node):
    return node.attrs["text"]


def _str_const_infer(*, text):
    if type(text) is not str:
        raise TypeError(f"str_const: text must be a str, not {type(text).__name__}")
    return STR


register_op(
    "str_const",
    infer=_str_const_infer,
    make_kernel=lambda text: lambda: text,
    constant=_text_of,
    raises="never",
    unlowerable=_NO_XLA,
    doc="a constant Python str (where a staged string meets a Python one)",
)(lambda *, text: text)


# -- f-strings, str(), repr(), format() ------------------------------------------------------


def _format_kernel(pieces, printoptions=()):
    """The text of an f-string: `pieces` are literal strs and (conversion, spec) pairs, one per
    formatted value (the next input; a spec that is ARG is the input after it): the value
    converted (`!s`, `!r`, `!a`, or "" for none), then `format(value, spec)`, as Python does."""
    # texts, and (convert, spec): a spec is a str, or ARG (the input after the value)
    steps: list[str | tuple[Callable[[object], str] | None, Any]] = []
    for piece in pieces:
        if type(piece) is str:
            steps.append(piece)
        else:
            conversion, spec = piece
            steps.append((_CONVERSIONS[conversion], spec))
    if len(steps) == 1 and isinstance(steps[0], tuple) and steps[0][1] is not ARG:
        convert, spec = steps[0]  # str(x), repr(x), format(x, spec): one call
        if convert is None:
            return with_printoptions(printoptions, lambda value: format(value, spec))
        return with_printoptions(printoptions, lambda value: format(convert(value), spec))

    def run(*args):
        it = iter(args)
        out = []
        for step in steps:
            if isinstance(step, str):  # (an exact str: pieces are)
                out.append(step)
                continue
            convert, spec = step
            value = next(it)
            if spec is ARG:
                spec = next(it)
            out.append(format(value if convert is None else convert(value), spec))
        return "".join(out)

    return with_printoptions(printoptions, run)


def _format_infer(*inputs, pieces, printoptions=()):
    slots = sum(1 + (piece[1] is ARG) for piece in pieces if type(piece) is not str)
    if slots != len(inputs):
        raise ValueError(f"str_format: {slots} formatted values and specs for {len(inputs)} inputs")
    for piece in pieces:
        if type(piece) is not str and piece[0] not in _CONVERSIONS:
            raise ValueError(f"str_format: unknown conversion {piece[0]!r}")
    return STR


register_op(
    "str_format",
    takes_none=True,
    infer=_format_infer,
    make_kernel=_format_kernel,
    keep_unused=lambda node: any(  # a spec that does not fit the value raises, as eagerly
        type(piece) is not str and piece[1] != "" for piece in node.attrs["pieces"]
    ),
    unlowerable=_NO_XLA,
    doc="an f-string's text (str(), repr() and format() too): literal pieces and formatted inputs",
)(lambda *args, pieces, printoptions=(): _format_kernel(pieces, printoptions)(*args))


# -- "%d" % x -----------------------------------------------------------------------------------


def _percent_kernel(template, values, printoptions=()):
    """`template % values`, `values` a (nested) template whose ARG slots are the inputs."""
    if values is ARG:
        return with_printoptions(printoptions, lambda value: template % value)
    return with_printoptions(printoptions, lambda *args: template % fill(values, iter(args)))


def _percent_infer(*inputs, template, values, printoptions=()):
    if count_slots(values) != len(inputs):
        raise ValueError(f"str_percent: {count_slots(values)} slots for {len(inputs)} inputs")
    return STR


register_op(
    "str_percent",
    takes_none=True,
    infer=_percent_infer,
    make_kernel=_percent_kernel,
    keep_unused=lambda node: True,  # `"%d" % "a"` raises, as eagerly
    unlowerable=_NO_XLA,
    doc="template % values: printf-style formatting of inputs",
)(
    lambda *args, template, values, printoptions=(): _percent_kernel(
        template, values, printoptions
    )(*args)
)


# -- methods of str --------------------------------------------------------------------------

# the methods of str a staged string has, by the type of their result
STR_METHODS = frozenset(
    (
        "capitalize",
        "casefold",
        "center",
        "expandtabs",
        "join",
        "ljust",
        "lower",
        "lstrip",
        "removeprefix",
        "removesuffix",
        "replace",
        "rjust",
        "rstrip",
        "strip",
        "swapcase",
        "title",
        "upper",
        "zfill",
        "__add__",
        "__mul__",
        "__rmul__",
        "__getitem__",
    )
)
BOOL_METHODS = frozenset(
    (
        "endswith",
        "startswith",
        "isalnum",
        "isalpha",
        "isascii",
        "isdecimal",
        "isdigit",
        "isidentifier",
        "islower",
        "isnumeric",
        "isprintable",
        "isspace",
        "istitle",
        "isupper",
        "__eq__",
        "__ne__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__contains__",
    )
)
INT_METHODS = frozenset(("count", "find", "rfind", "index", "rindex", "__len__"))
METHODS = STR_METHODS | BOOL_METHODS | INT_METHODS


def _method_kernel(name, args=()):
    """`str.<name>(s, *args)`, the ARG slots of `args` filled by the inputs after `s`."""
    method = getattr(str, name)
    if not args:
        return method
    if all(a is ARG for a in args):
        return method
    if count_slots(args) == 0:
        return lambda s: method(s, *args)
    return lambda s, *inputs: method(s, *fill(args, iter(inputs)))


def _method_infer(s, *inputs, name, args=()):
    if name not in METHODS:
        raise ValueError(f"str_method: str has no staged method {name!r}")
    if not is_str(s):
        raise TypeError(f"descriptor {name!r} for 'str' objects doesn't apply to a {s} value")
    if count_slots(args) != len(inputs):
        raise ValueError(f"str_method: {count_slots(args)} slots for {len(inputs)} inputs")
    if name in STR_METHODS:
        return STR
    return TensorType.python_scalar(bool if name in BOOL_METHODS else int)


register_op(
    "str_method",
    takes_none=True,
    infer=_method_infer,
    make_kernel=_method_kernel,
    weak_results=True,  # a bool or an int result is a Python bool or int, as str's methods give
    keep_unused=lambda node: node.attrs["name"] in ("index", "rindex", "__getitem__", "join"),
    attr_kinds=(("name", one_of(*sorted(METHODS))), ("args", tuple_of(ARG_SLOT | LITERAL, 8))),
    unlowerable=_NO_XLA,
    doc="str.<name>(s, *args): a method of a staged string",
)(lambda s, *inputs, name, args=(): _method_kernel(name, args)(s, *inputs))


def _in_infer(s, *, options):
    if not is_str(s):
        raise TypeError(f"str_in: a str input, not a {s}")
    return TensorType.python_scalar(bool)


register_op(
    "str_in",
    takes_none=True,
    infer=_in_infer,
    make_kernel=lambda options: frozenset(options).__contains__,
    weak_results=True,
    unlowerable=_NO_XLA,
    doc="s in options: whether a staged string is one of a tuple of Python strs",
)(lambda s, *, options: s in options)


# -- bytes(list).decode() ----------------------------------------------------------------------


def _decode_infer(items, *, encoding, errors):
    """bytes(items).decode(encoding, errors) of a staged list of integers: a str."""
    if not isinstance(items, ListType):
        raise TypeError(f"bytes_decode: a list input, not a {items}")
    for kind in kinds(items.element) if items.element is not None else ():
        if not isinstance(kind, TensorType) or kind.dtype.kind not in "iub" or kind.shape != ():
            raise TypeError(f"a {kind} value cannot be interpreted as an integer")
    return STR


register_op(
    "bytes_decode",
    infer=_decode_infer,
    keep_unused=lambda node: True,  # (ValueError out of range, UnicodeDecodeError, as eagerly)
    attr_kinds=(("encoding", LITERAL), ("errors", LITERAL)),
    unlowerable=_NO_XLA,
    doc="bytes(items).decode(encoding, errors): the text of a list of integers (byte values)",
)(lambda items, *, encoding, errors: bytes(items).decode(encoding, errors))


# -- chr and ord -----------------------------------------------------------------------------


def _chr_infer(i):
    """chr(i): a str, of an integer (a Python int or bool, a NumPy integer or bool, 0-d); what
    chr raises for any other kind (a float: TypeError) is raised here."""
    if is_str(i) or not isinstance(i, TensorType):
        raise TypeError(f"'{i}' object cannot be interpreted as an integer")
    if i.dtype.kind not in "iub" or i.shape != ():
        raise TypeError(f"a {i} value cannot be interpreted as an integer")
    return STR


register_op(
    "str_chr",
    infer=_chr_infer,
    keep_unused=lambda node: True,  # (ValueError or OverflowError out of range, as eagerly)
    unlowerable=_NO_XLA,
    doc="chr(i): the one-character str of code point i (ValueError out of range, as Python)",
)(chr)


def _ord_infer(s):
    if not is_str(s):
        raise TypeError(f"ord() expected string of length 1, but {s} found")
    return TensorType.python_scalar(int)


register_op(
    "str_ord",
    infer=_ord_infer,
    weak_results=True,  # (a Python int)
    keep_unused=lambda node: True,  # (TypeError for a str of another length, as eagerly)
    unlowerable=_NO_XLA,
    doc="ord(s): the code point of a one-character staged string (TypeError otherwise)",
)(ord)
