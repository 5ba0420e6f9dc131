"""The staged string: a Python str known only when the graph runs (text formatted from symbolic
values), a graph value of type runtime.types.StrType.

A StagedStr is a Tensor of that type (so it flows through staged branches, loops, lists and
results like any graph value), with str's behaviour instead of an array's: `+` joins, `*`
repeats, `==` and `<` compare, `s[i]`, `len(s)` (through converted code) and the methods of str
that give a str, a bool or an int record `str_method` nodes (runtime.ops.strings). What Python
needs as a concrete str while tracing (a dict key, `str(s)` in library code, iterating it
outside converted code) is refused naming the line; so is what str does not have (`s - 1`,
`s.sum()`), with eager's own error.
"""

from __future__ import annotations

import operator

import numpy as np

from runtime._compat import add_note
from runtime.core_ops import ARG
from runtime.ops.strings import METHODS
from runtime.types import STR, ListType, StrType, TensorType, is_str, kinds
from staging import errors
from staging.core.recording import current_graph, record
from staging.core.source_map import where
from staging.core.tensor import SYMBOLIC_CLASSES, Tensor, called_by_own_code, has_staged_value

# Tensor's own names that a staged string keeps (what this project's code reads of any value).
_OWN_ATTRIBUTES = frozenset(("type", "graph", "static_shape", "static_dtype", "static_ndim"))


class StagedStr(Tensor):
    """A Python str known when the graph runs; see the module docstring."""

    __slots__ = ()

    def _describe(self) -> str:
        return "<str>"

    def __repr__(self):
        return f"<staging.Str in trace of {self._graph.function_name!r}>"

    def __str__(self):
        if called_by_own_code() or not self._in_open_trace():
            return repr(self)  # (an error raised while tracing shows it in its message)
        raise self._symbolic_error(
            "str() in code that is not converted (a library function, `%` with a template that "
            "is not a literal)",
            " (converted code uses it as it is: print it, return it, join or compare it)",
        )

    def __format__(self, spec):
        if called_by_own_code():
            return repr(self)
        raise self._symbolic_error(
            "formatting (format(), str.format, an f-string in code that is not converted)"
        )

    def _symbolic_error(self, what: str, detail: str = "") -> errors.StagingError:
        if self._graph.closed:
            return super()._symbolic_error(what, detail)
        return errors.SymbolicValueError(
            f"{where()}{what} of a staged string needs its text, which is only known when the "
            f"staged graph runs{detail}"
        )

    def __getattribute__(self, name):
        if name[0] == "_" or name in _OWN_ATTRIBUTES:
            return object.__getattribute__(self, name)
        if name in METHODS or hasattr(str, name):
            return _bound_method(self, name)
        error = AttributeError(f"'str' object has no attribute {name!r}")
        _note_line(error)
        raise error

    # -- what Python needs a concrete str for -------------------------------------------------
    def __hash__(self):
        raise self._symbolic_error("hashing (a dict key, a set element)")

    def __bool__(self):
        raise self._symbolic_error("the truth value")

    def __len__(self):
        raise self._symbolic_error("len() in code that is not converted")

    def __iter__(self):
        raise self._symbolic_error("iterating in code that is not converted")

    def __contains__(self, item):
        raise self._symbolic_error("`in` in code that is not converted")

    def __index__(self):
        raise TypeError(f"{where()}'str' object cannot be interpreted as an integer")

    def __int__(self):
        raise self._symbolic_error("int() in code that is not converted")

    __float__ = __complex__ = __int__

    def __array__(self, dtype=None, copy=None):
        raise self._symbolic_error("converting to a NumPy array")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise errors.UnsupportedOpError(
            f"{where()}NumPy's {ufunc.__name__} of a staged string (text known only when the "
            f"graph runs) is not staged; use str's operators and methods"
        )

    def __array_function__(self, func, types, args, kwargs):
        raise errors.UnsupportedOpError(
            f"{where()}NumPy's {func.__name__} of a staged string (text known only when the "
            f"graph runs) is not staged; use str's operators and methods"
        )

    # -- str's operators -------------------------------------------------------------------
    def __add__(self, other):
        return concat(self, other)

    def __radd__(self, other):
        return concat(other, self)

    def __iadd__(self, other):
        return concat(self, other)

    def __mul__(self, count):
        return repeat(self, count, text_first=True)

    def __rmul__(self, count):
        return repeat(self, count, text_first=False)

    def __imul__(self, count):
        return repeat(self, count, text_first=True)

    def __mod__(self, values):
        raise errors.UnsupportedOpError(
            f"{where()}`%` with a staged string as the template (text known only when the graph "
            f"runs) is not staged; give `%` a literal template"
        )

    __imod__ = __mod__

    def __rmod__(self, template):
        return _unsupported(template, self, "%")

    def __getitem__(self, key):
        return call_method(self, "__getitem__", (key,))

    def __eq__(self, other):
        return compare(self, other, "__eq__")

    def __ne__(self, other):
        return compare(self, other, "__ne__")

    def __lt__(self, other):
        return compare(self, other, "__lt__")

    def __le__(self, other):
        return compare(self, other, "__le__")

    def __gt__(self, other):
        return compare(self, other, "__gt__")

    def __ge__(self, other):
        return compare(self, other, "__ge__")


SYMBOLIC_CLASSES[StrType] = StagedStr


def is_staged_str(x) -> bool:
    return isinstance(x, StagedStr)


def is_text(x) -> bool:
    """A Python str or a staged one."""
    return type(x) is str or isinstance(x, StagedStr)


# -- operators str does not have: eager's error ---------------------------------------------

_BINARY = {
    "sub": operator.sub,
    "truediv": operator.truediv,
    "floordiv": operator.floordiv,
    "pow": operator.pow,
    "matmul": operator.matmul,
    "and": operator.and_,
    "or": operator.or_,
    "xor": operator.xor,
    "lshift": operator.lshift,
    "rshift": operator.rshift,
    "divmod": divmod,
}
_SYMBOLS = {
    "sub": "-",
    "truediv": "/",
    "floordiv": "//",
    "pow": "**",
    "matmul": "@",
    "and": "&",
    "or": "|",
    "xor": "^",
    "lshift": "<<",
    "rshift": ">>",
    "divmod": "divmod()",
}


def stand_in(x):
    """A concrete value of the kind `x` has while tracing (its text or value unknown): what an
    operation would raise on it is what it raises on `x`."""
    if isinstance(x, StagedStr):
        return ""
    if isinstance(x, Tensor):
        kind = kinds(x.type)[0]
        if type(kind) is not TensorType:
            return None
        if kind.weak:
            return kind.python_type(0)
        zero = np.zeros(tuple(1 if d is None else d for d in kind.shape), kind.dtype)
        return zero[()] if kind.shape == () else zero
    return x


def _unsupported(a, b, symbol: str, fn=None):
    """Raises what `a <symbol> b` raises eagerly when one of them is a str: eager's error (the
    same on every value of their kinds), noted with the line; UnsupportedOpError if it does not
    raise there."""
    try:
        fn(stand_in(a), stand_in(b)) if fn is not None else None
    except TypeError as exc:
        error = type(exc)(*exc.args)
        _note_line(error)
        raise error from None
    raise errors.UnsupportedOpError(
        f"{where()}`{symbol}` of a staged string (text known only when the graph runs) and "
        f"{_describe(b if is_staged_str(a) else a)} is not staged"
    )


def _note_line(error: BaseException) -> None:
    place = where().rstrip(": ")
    if place:
        add_note(error, f"{place}: raised while staging this line (a staged string)")


def _describe(x) -> str:
    if isinstance(x, Tensor):
        return f"a symbolic value {x._describe()}"
    return f"a {type(x).__name__}"


def _binary(name: str, reflected: bool):
    fn, symbol = _BINARY[name], _SYMBOLS[name]

    def method(self, other):
        if reflected:
            return _unsupported(other, self, symbol, fn)
        return _unsupported(self, other, symbol, fn)

    method.__name__ = f"__r{name}__" if reflected else f"__{name}__"
    return method


def _unary(symbol: str, fn):
    def method(self):
        try:
            fn("")
        except TypeError as exc:
            error = type(exc)(*exc.args)
            _note_line(error)
            raise error from None
        raise errors.UnsupportedOpError(f"{where()}`{symbol}` of a staged string")

    return method


for _name in _BINARY:
    setattr(StagedStr, f"__{_name}__", _binary(_name, reflected=False))
    setattr(StagedStr, f"__r{_name}__", _binary(_name, reflected=True))
    if _name != "divmod":
        setattr(StagedStr, f"__i{_name}__", _binary(_name, reflected=False))
StagedStr.__neg__ = _unary("-", operator.neg)
StagedStr.__pos__ = _unary("+", operator.pos)
StagedStr.__abs__ = _unary("abs()", abs)
StagedStr.__invert__ = _unary("~", operator.invert)


# -- recording ---------------------------------------------------------------------------------


def printoptions_delta() -> tuple:
    """The NumPy print options the traced code set (now different from those in force when the
    trace began: a `with np.printoptions(...)` block), as (name, value) pairs: a node formatting
    arrays here applies them when the graph runs, over the options in force then."""
    graph = current_graph()
    before = getattr(graph, "printoptions", None)
    if before is None:
        return ()
    now = np.get_printoptions()
    if now == before:
        return ()
    return tuple((name, value) for name, value in now.items() if before.get(name) != value)


class Formatted:
    """One formatted value of a text: `value` (a staged value) converted by `conversion` ("",
    "s", "r" or "a") and formatted with `spec` (a str, or a StagedStr)."""

    __slots__ = ("value", "conversion", "spec")

    def __init__(self, value, conversion: str = "", spec=""):
        self.value, self.conversion, self.spec = value, conversion, spec


def text(pieces, printoptions=None):
    """The text of `pieces` (Python strs, StagedStrs and Formatted values) joined: a Python str
    when every piece is one, else a StagedStr computed when the graph runs (one `str_format`
    node)."""
    attrs, inputs, literal = [], [], []
    for piece in pieces:
        if type(piece) is str:
            literal.append(piece)
            continue
        if literal:
            attrs.append("".join(literal))
            literal = []
        if isinstance(piece, Formatted):
            spec = piece.spec
            attrs.append((piece.conversion, ARG if is_staged_str(spec) else spec))
            inputs.append(piece.value)
            if is_staged_str(spec):
                inputs.append(spec)
        else:  # a StagedStr, as it is
            attrs.append(("", ""))
            inputs.append(piece)
    if not inputs:
        return "".join(literal)
    if literal:
        attrs.append("".join(literal))
    attrs = {"pieces": tuple(attrs)}
    if printoptions is None:
        printoptions = printoptions_delta()
    if printoptions:
        attrs["printoptions"] = printoptions
    return record("str_format", inputs, attrs)


def concat(a, b):
    """`a + b` where one of them is a staged string."""
    if is_text(a) and is_text(b):
        return text([a, b], printoptions=())
    return _unsupported(a, b, "+", operator.add)


def _is_count(n) -> bool:
    """A value str's `*` takes as a count: a Python int or bool, or one known at run time."""
    if isinstance(n, Tensor):
        return all(
            type(k) is TensorType and k.weak and k.python_type in (int, bool) for k in kinds(n.type)
        )
    return isinstance(n, (int, np.integer)) and not isinstance(n, StagedStr)


def repeat(s, count, text_first: bool):
    """`s * count` (`text_first`) or `count * s`, for a str `s` (Python or staged) and a count
    (Python or symbolic). A Python int (or bool) repeats either way, as a NumPy integer scalar
    does on the right of the str; NumPy's `*` with the count on the left is refused (a 0-d array
    raises there, a NumPy scalar does not)."""
    if isinstance(count, Tensor) and not is_staged_str(count):
        numpy_integer = all(
            type(k) is TensorType and not k.weak and k.shape == () and k.dtype.kind in "biu"
            for k in kinds(count.type)
        )
        if not (_is_count(count) or (text_first and numpy_integer)):
            raise errors.UnsupportedOpError(
                f"{where()}`*` of a str and {_describe(count)} is not staged (a str repeats by a "
                f"Python int; convert the count with int())"
            )
    elif not _is_count(count):
        a, b = (s, count) if text_first else (count, s)
        return _unsupported(a, b, "*", operator.mul)
    return call_method(s if is_staged_str(s) else constant(s), "__mul__", (count,))


def compare(s, other, name: str):
    """`s == other` (`!=`, `<`, ...) for a staged string `s`: a Python bool known at run time.
    Against a value that is not a str, `==` and `!=` give what Python gives without looking at
    the text (not equal); an order comparison raises eager's TypeError."""
    if is_text(other):
        return call_method(s, name, (other,))
    if isinstance(other, Tensor):
        raise errors.UnsupportedOpError(
            f"{where()}comparing a staged string with {_describe(other)} is not staged (NumPy "
            f"compares a str with an array elementwise); compare strings with strings"
        )
    if name in ("__eq__", "__ne__"):
        return NotImplemented
    symbol = {"__lt__": "<", "__le__": "<=", "__gt__": ">", "__ge__": ">="}[name]
    return _unsupported(s, other, symbol, getattr(operator, name.strip("_")))


def _argument(value, method: str):
    """An argument of a str method as a node's attr (a Python value) or input (ARG)."""
    if isinstance(value, Tensor):
        if is_staged_str(value) or _is_count(value) or method == "__mul__":
            return ARG, value
        if method == "join" and isinstance(value.type, ListType):  # a staged list
            return ARG, value
        raise errors.UnsupportedOpError(
            f"{where()}str.{method}() of a staged string with {_describe(value)} as an argument "
            f"is not staged; pass it strings and Python ints"
        )
    if has_staged_value(value):
        raise errors.UnsupportedOpError(
            f"{where()}str.{method}() of a staged string with a {type(value).__name__} argument "
            f"is not staged"
        )
    return value, None


def call_method(s, name: str, args, kwargs=None):
    """`s.<name>(*args)` for a staged string `s` (or a Python one with staged arguments)."""
    if kwargs:
        raise errors.UnsupportedOpError(
            f"{where()}str.{name}() with keyword arguments on a staged string is not staged"
        )
    if name not in METHODS:
        raise errors.UnsupportedOpError(
            f"{where()}str.{name}() of a staged string (text known only when the graph runs) is "
            f"not staged: only the methods giving a str, a bool or an int are "
            f"({', '.join(sorted(m for m in METHODS if not m.startswith('_')))})"
        )
    template, inputs = [], [s]
    for value in args:
        attr, staged = _argument(value, name)
        template.append(attr)
        if staged is not None:
            inputs.append(staged)
    return record("str_method", inputs, {"name": name, "args": tuple(template)})


def _bound_method(s, name: str):
    def method(*args, **kwargs):
        if name == "join" and not kwargs and len(args) == 1:
            return join(s, args[0])
        return call_method(s, name, args, kwargs)

    method.__name__ = name
    method.__qualname__ = f"str.{name}"
    return method


def join(separator, items):
    """`separator.join(items)` for a Python tuple or list of strings, some staged (a staged
    separator, or staged items)."""
    if not isinstance(items, (list, tuple, dict, Tensor)) and hasattr(items, "__iter__"):
        items = list(items)  # (a generator: str.join reads it into a list too)
    if type(items) not in (list, tuple):
        raise errors.UnsupportedOpError(
            f"{where()}str.join() of a staged string over a {type(items).__name__} is not staged; "
            f"join a list or tuple of strings"
        )
    pieces = []
    for i, item in enumerate(items):
        if not is_text(item):
            error = TypeError(
                f"sequence item {i}: expected str instance, {type(stand_in(item)).__name__} found"
            )
            _note_line(error)
            raise error
        if i:
            pieces.append(separator)
        pieces.append(item)
    return text(pieces, printoptions=())


def constant(text: str):
    """A staged string of the Python str `text` (where it meets staged ones)."""
    return record("str_const", [], {"text": str(text)})


def contains(container, item):
    """`item in container` where one of them is a staged string: a Python bool known at run
    time. In a staged string, a str is a substring; in a tuple, list, set, frozenset or dict of
    Python values, a staged string is one of them (`==`, as Python's `in` compares)."""
    if is_staged_str(container):
        if is_text(item):
            return call_method(container, "__contains__", (item,))
        error = TypeError(
            f"'in <string>' requires string as left operand, not {type(stand_in(item)).__name__}"
        )
        _note_line(error)
        raise error
    if type(container) is str:
        return call_method(constant(container), "__contains__", (item,))
    if type(container) in (tuple, list, set, frozenset, dict) and not any(
        isinstance(v, Tensor) or has_staged_value(v) for v in container
    ):
        options = tuple(v for v in container if type(v) is str)  # (no other value equals a str)
        return record("str_in", [item], {"options": options})
    raise errors.UnsupportedOpError(
        f"{where()}`in` of a staged string and a {type(container).__name__} is not staged; test "
        f"it against a str, or a tuple, list or set of Python strs"
    )


def truth(s):
    """The truth value of a staged string (non-empty), a NumPy bool known at run time."""
    return record("truth", [call_method(s, "__len__", ())])


__all__ = [
    "STR",
    "Formatted",
    "StagedStr",
    "call_method",
    "compare",
    "concat",
    "constant",
    "contains",
    "is_staged_str",
    "is_str",
    "is_text",
    "join",
    "printoptions_delta",
    "text",
    "truth",
]
