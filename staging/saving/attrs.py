"""The kinds of the attributes a saved node may carry, checked when saving and again when loading.

An op's attributes are its type rule's keyword parameters (`OpDef.infer`): those it names, or,
for an op that takes `**attrs` (NumPy library functions, whose keywords NumPy checks), any name of
the vocabulary below. Each attribute's value must be of the kind its name says (an op may say
otherwise for a name, OP_KINDS), so that a hostile or damaged file fails at load, never when the
function is called: `dim` with a string axis, an `assert` whose error class is a string.

Strings from a file are data. The one message an op formats (distinct_arrays, the error raised
when arguments written in place share memory) must be the template staging.functions.argument_writes
makes, with its own text escaped: `str.format` then fills only our two fields.
"""

from __future__ import annotations

import functools
import inspect
import re

import numpy as np

from runtime import ListType, TensorType
from runtime.core_ops import ARG
from runtime.ops.python_calls import CALLABLES
from runtime.ops.strings import METHODS as STR_METHODS_ALL
from runtime.registry import get_op
from staging.functions.argument_writes import _message as distinct_arrays_message
from staging.saving.values import ERROR_CLASSES, MAX_DIMS, PYTHON_TYPES, FormatError
from staging.state.variables import Variable


class Kind:
    """A kind of attribute value: `test(value)` and how an error message names it."""

    def __init__(self, description: str, test):
        self.description, self.test = description, test

    def __or__(self, other: Kind) -> Kind:
        return Kind(
            f"{self.description} or {other.description}", lambda v: self.test(v) or other.test(v)
        )


def _is_int(v) -> bool:
    return (type(v) is int or isinstance(v, np.integer)) and not isinstance(v, np.bool_)


def _is_number(v) -> bool:
    if type(v) in (int, float) or isinstance(v, (np.integer, np.floating)):
        return not isinstance(v, np.bool_)
    return False


def tuple_of(kind: Kind, limit: int = 1 << 16) -> Kind:
    return Kind(
        f"a tuple of ({kind.description})",
        lambda v: type(v) is tuple and len(v) <= limit and all(kind.test(x) for x in v),
    )


def choice(*names: str) -> Kind:
    return Kind(" or ".join(map(repr, names)), lambda v: type(v) is str and v in names)


NONE = Kind("None", lambda v: v is None)
BOOL = Kind("a bool", lambda v: type(v) is bool)
INT = Kind("an int", _is_int)
NUMBER = Kind("a real number", _is_number)
STR = Kind("a string", lambda v: type(v) is str)
SYMBOLIC = choice("?")  # (eye / arange: the value is the next input)
DTYPE = Kind("a dtype", lambda v: isinstance(v, np.dtype))
SHAPE = tuple_of(INT | NONE, MAX_DIMS)
AXES = NONE | INT | tuple_of(INT, MAX_DIMS)


def _numbers(v, depth: int = 0) -> bool:
    """A number, bool, NumPy scalar or array of them, or a (nested) tuple / list of these."""
    if type(v) in (bool, int, float, complex) or isinstance(v, (np.generic, np.ndarray)):
        return True
    return depth < 8 and type(v) in (tuple, list) and all(_numbers(x, depth + 1) for x in v)


NUMBERS = Kind("numbers (a number, an array, or a tuple of them)", _numbers)
SLOT = Kind("an argument slot", lambda v: v is ARG)
_LITERAL = NONE | BOOL | INT | STR | Kind("a float", lambda v: type(v) is float)
# printf-style values: a slot or a literal, or a tuple of them, or a dict of them by str keys
PERCENT_VALUES = (
    SLOT
    | _LITERAL
    | tuple_of(SLOT | _LITERAL)
    | Kind(
        "a dict of slots and literals",
        lambda v: (
            type(v) is dict
            and all(type(k) is str and (SLOT | _LITERAL).test(x) for k, x in v.items())
        ),
    )
)
# an f-string's pieces: literal strs and (conversion, spec) pairs, the spec a str or a slot
PIECES = tuple_of(
    STR
    | Kind(
        "a (conversion, spec) pair",
        lambda v: (
            type(v) is tuple
            and len(v) == 2
            and v[0] in ("", "s", "r", "a")
            and (type(v[1]) is str or v[1] is ARG)
        ),
    )
)
PRINTOPTIONS = tuple_of(
    Kind(
        "a (NumPy print option, value) pair",
        lambda v: (
            type(v) is tuple
            and len(v) == 2
            and v[0] in np.get_printoptions()
            and (v[1] is None or type(v[1]) in (bool, int, float, str))
        ),
    )
)

_SLICE_PART = r"\s*(-?[0-9]{1,20}|\?)?\s*"
_SLICE = re.compile(f"{_SLICE_PART}:{_SLICE_PART}(:{_SLICE_PART})?")
INDEX_ENTRY = Kind(
    "None, an int, '...', '?' or a slice 'start:stop:step'",
    lambda v: (
        v is None
        or _is_int(v)
        or (type(v) is str and (v in ("...", "?") or bool(_SLICE.fullmatch(v))))
    ),
)

# attribute name -> its kind, for every op that uses the name (OP_KINDS for an op that differs)
KINDS = {
    "M": NONE | INT | SYMBOLIC,
    "N": INT | SYMBOLIC,
    "UPLO": choice("L", "U"),
    "append": NONE | NUMBERS,
    "assume_unique": BOOL,
    "base": NUMBERS,
    "bias": BOOL,
    "deg": INT,
    "discont": NONE | NUMBER,
    "dx": NUMBER,
    "edge_order": INT,
    "increasing": BOOL,
    "invert": BOOL,
    "minlength": INT,
    "nan": NUMBER,
    "neginf": NONE | NUMBER,
    "new_shape": INT | tuple_of(INT, MAX_DIMS),
    "obj": NUMBERS,
    "p": NONE | NUMBER | choice("fro", "nuc"),
    "posinf": NONE | NUMBER,
    "returned": BOOL,
    "reverse": BOOL,
    "rowvar": BOOL,
    "sequence": BOOL,
    "stacked": BOOL,
    "width": INT,
    "trim": choice("f", "b", "fb", "bf", "F", "B", "FB", "BF"),
    "atol": NUMBER,
    "axes": NONE | INT | tuple_of(INT | tuple_of(INT, MAX_DIMS), MAX_DIMS),
    "axis": AXES,
    "axis1": INT,
    "axis2": INT,
    "axisa": INT,
    "axisb": INT,
    "axisc": INT,
    "bins": INT | STR | NUMBERS,
    "bounds": choice("min_max", "min", "max", "none"),
    "compute_uv": BOOL,
    "constant_values": NUMBERS,
    "correction": NONE | NUMBER,
    "ddof": NUMBER,
    "decimals": INT,
    "density": NONE | BOOL,
    "device": NONE | STR,
    "dtype": NONE | DTYPE,
    "dynamic_size": BOOL,
    "element": NONE
    | Kind("a tensor or list type", lambda v: isinstance(v, (TensorType, ListType))),
    "element_shape": SHAPE,
    "empty": choice("zeros", "stack", "array"),
    "end": STR,
    "endpoint": BOOL,
    "equal_nan": BOOL,
    "error": Kind(
        "AssertionError or an error class of staging.errors",
        lambda v: isinstance(v, type) and ERROR_CLASSES.get(v.__name__) is v,
    ),
    "full_matrices": BOOL,
    "hermitian": BOOL,
    "include_initial": BOOL,
    "index": tuple_of(INDEX_ENTRY, MAX_DIMS + 1),
    "initial": NUMBERS,
    "k": INT | SYMBOLIC,
    "keepdims": BOOL,
    "kind": NONE | choice("quicksort", "mergesort", "heapsort", "stable"),
    "left": NONE | NUMBERS,
    "method": STR,
    "mode": STR,
    "n": NONE | INT,
    "names": tuple_of(STR),
    "norm": NONE | choice("backward", "ortho", "forward"),
    "num": INT,
    "num_loop_vars": INT,
    "offset": INT,
    "ord": NONE | NUMBER | choice("fro", "nuc"),
    "order": choice("C", "F", "A", "K"),
    "overwrite_input": BOOL,
    "pad_width": INT | tuple_of(INT | tuple_of(INT, 2), MAX_DIMS),
    "parts": tuple_of(STR | SLOT),
    "pieces": PIECES,
    "printoptions": PRINTOPTIONS,
    "file": choice("stdout", "stderr"),
    "flush": BOOL,
    "template": STR,
    "text": STR,
    "values": PERCENT_VALUES,
    "options": tuple_of(STR),
    "period": NONE | NUMBER,
    "prepend": NONE | NUMBERS,
    "range": NONE | tuple_of(NUMBER, 2),
    "rcond": NONE | NUMBER,
    "repeats": INT,
    "reps": INT | tuple_of(INT, MAX_DIMS),
    "retstep": BOOL,
    "return_counts": BOOL,
    "return_index": BOOL,
    "return_inverse": BOOL,
    "right": NONE | NUMBERS,
    "rtol": NUMBER,
    "s": NONE | tuple_of(INT, MAX_DIMS),
    "scalar": BOOL,
    "sep": STR,
    "shape": SHAPE,
    "shift": INT | tuple_of(INT, MAX_DIMS),
    "side": choice("left", "right"),
    "sorted": BOOL,
    "stable": NONE | BOOL,
    "start": NUMBER | SYMBOLIC,
    "step": NUMBER | SYMBOLIC,
    "stop": NUMBER | SYMBOLIC,
    "subok": BOOL,
    "subscripts": STR,
    "tol": NONE | NUMBER,
    "ufunc": STR,
    "upper": BOOL,
    "value": NUMBERS,
    "where": BOOL,
    "written": INT,
}
# (op, attribute name) -> its kind where the op means something else by the name
OP_KINDS = {
    ("python_number", "kind"): Kind(
        "bool, int, float or complex", lambda v: any(v is t for t in PYTHON_TYPES.values())
    ),
    ("assign_variable", "mode"): choice("set", "add", "sub"),
    ("assign_variable", "var"): Kind("a Variable of the file", lambda v: isinstance(v, Variable)),
    ("read_variable", "var"): Kind("a Variable of the file", lambda v: isinstance(v, Variable)),
    ("const", "value"): Kind(
        "a number, an array or None",
        lambda v: (
            v is None
            or type(v) in (bool, int, float, complex)
            or isinstance(v, (np.generic, np.ndarray))
        ),
    ),
    ("dim", "axis"): INT,
    ("python_call", "func"): choice(*CALLABLES),
    ("python_call", "keywords"): tuple_of(STR, 8),
    ("angle", "deg"): BOOL,
    ("isin", "kind"): NONE | choice("sort", "table"),
    ("partition", "kind"): choice("introselect"),
    ("argpartition", "kind"): choice("introselect"),
    ("unravel_index", "shape"): INT | tuple_of(INT, MAX_DIMS),
    ("str_method", "name"): choice(*sorted(STR_METHODS_ALL)),
    ("str_method", "args"): tuple_of(SLOT | _LITERAL, 8),
    ("distinct_arrays", "message"): STR,
}
# ops whose attributes another check looks at: `call` (the loader's, staging.saving.api)
CHECKED_ELSEWHERE = frozenset(("call",))


@functools.lru_cache(maxsize=None)
def attribute_names(op: str) -> tuple[frozenset | None, frozenset]:
    """(the attribute names op takes, None: any name of the vocabulary; those it requires)."""
    try:
        params = inspect.signature(get_op(op).infer).parameters.values()
    except (TypeError, ValueError):
        return None, frozenset()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None, frozenset()
    named = [p for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = {p.name for p in named if p.kind is p.KEYWORD_ONLY and p.default is p.empty}
    return frozenset(p.name for p in named), frozenset(required)


def problem(op: str, attrs: dict, n_inputs: int) -> str | None:
    """What is wrong with the attributes of a node of `op` with `n_inputs` inputs, or None."""
    if op in CHECKED_ELSEWHERE:
        return None
    names, required = attribute_names(op)
    missing = required - attrs.keys()
    if missing:
        return f"it lacks attribute(s) {', '.join(map(repr, sorted(missing)))}"
    for name, value in attrs.items():
        kind = OP_KINDS.get((op, name)) or KINDS.get(name)
        if (names is not None and name not in names) or kind is None:
            return f"op {op!r} has no attribute {name!r:.40}"
        if not kind.test(value):
            return f"attribute {name!r} must be {kind.description}, not {_shown(value)}"
    check = _NODE_CHECKS.get(op)
    return check(attrs, n_inputs) if check is not None else None


def _shown(value) -> str:
    if isinstance(value, type):
        return f"the class {value.__name__}"
    return f"{type(value).__name__} {value!r:.40}"


# -- the checks that look at several attributes and the inputs ----------------------------------

# the fixed part of the distinct_arrays message, after the function's place and name
_TAIL = distinct_arrays_message("NAME", "WHERE").split("'NAME'", 1)[1]


def _is_our_message(message: str) -> bool:
    """`message` is what staging.functions.argument_writes makes: escaped text ({{ and }} only), then our
    template with its two `{!r}` fields."""
    if not message.endswith(_TAIL):
        return False
    head = message[: -len(_TAIL)].replace("{{", "").replace("}}", "")
    return "{" not in head and "}" not in head


def _distinct_arrays(attrs: dict, n_inputs: int) -> str | None:
    if not 0 <= attrs["written"] <= n_inputs:
        return f"it checks {attrs['written']} written arrays of {n_inputs} inputs"
    if len(attrs["names"]) != n_inputs:
        return f"it names {len(attrs['names'])} arguments for {n_inputs} inputs"
    if not _is_our_message(attrs["message"]):
        return "its message is not the message staging writes (a file's text is never a format)"
    return None


def _parts(attrs: dict, n_inputs: int, condition: int) -> str | None:
    slots = sum(1 for p in attrs["parts"] if p is ARG)
    if slots != n_inputs - condition:
        return f"its message has {slots} argument slots for {n_inputs - condition} inputs"
    return None


_NODE_CHECKS = {
    "distinct_arrays": _distinct_arrays,
    "print": lambda attrs, n: _parts(attrs, n, 0),
    "assert": lambda attrs, n: _parts(attrs, n, 1),
}


def check(op: str, attrs: dict, n_inputs: int, what: str) -> None:
    """Raises FormatError naming `what` (a node) when its attributes are not what `op` takes."""
    found = problem(op, attrs, n_inputs)
    if found is not None:
        raise FormatError(f"{what}: {found}")


__all__ = ["KINDS", "OP_KINDS", "check", "problem"]
