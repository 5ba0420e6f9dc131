"""The kinds of the attributes a saved node may carry, checked when saving and again when loading.

An op's attributes are its type rule's keyword parameters (`OpDef.infer`): those it names, or,
for an op that takes `**attrs` (NumPy library functions, whose keywords NumPy checks), any name of
the vocabulary below. Each attribute's value must be of the kind its name says (an op may say
otherwise for a name: OpDef.attr_kinds), and an op may check more (OpDef.check_attrs), so that a
hostile or damaged file fails at load, never when the function is called: `dim` with a string
axis, an `assert` whose error class is a string.

Strings from a file are data. The one message an op formats (distinct_arrays, the error raised
when arguments written in place share memory) must be the template its registration
(runtime.core_ops.distinct_arrays_message) makes, with its own text escaped: `str.format` then
fills only our two fields (its check_attrs).
"""

from __future__ import annotations

import functools
import inspect
import re

import numpy as np

from runtime import ListType, TensorType
from runtime.core_ops import ARG, ARG_SLOT
from runtime.registry import BOOL, INT, LITERAL, NONE, STR, get_op, tuple_of
from runtime.registry import AttrKind as Kind
from runtime.registry import one_of as choice
from staging.saving.values import ERROR_CLASSES, MAX_DIMS, FormatError, is_graph_function


def _is_number(v) -> bool:
    if type(v) in (int, float) or isinstance(v, (np.integer, np.floating)):
        return not isinstance(v, np.bool_)
    return False


NUMBER = Kind("a real number", _is_number)
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
SLOT = ARG_SLOT
# printf-style values: a slot or a literal, or a tuple of them, or a dict of them by str keys
PERCENT_VALUES = (
    SLOT
    | LITERAL
    | tuple_of(SLOT | LITERAL)
    | Kind(
        "a dict of slots and literals",
        lambda v: (
            type(v) is dict
            and all(type(k) is str and (SLOT | LITERAL).test(x) for k, x in v.items())
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
        or INT.test(v)
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
    "fn": Kind("a staged function of the file", is_graph_function),  # (a call's)
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
    "numpy_out": BOOL,
    "upper": BOOL,
    "value": NUMBERS,
    "where": BOOL,
    "written": INT,
}


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
    names, required = attribute_names(op)
    missing = required - attrs.keys()
    if missing:
        return f"it lacks attribute(s) {', '.join(map(repr, sorted(missing)))}"
    opdef = get_op(op)
    own = dict(opdef.attr_kinds)  # (where the op means something else by a name)
    for name, value in attrs.items():
        kind = own.get(name) or KINDS.get(name)
        if (names is not None and name not in names) or kind is None:
            return f"op {op!r} has no attribute {name!r:.40}"
        if not kind.test(value):
            return f"attribute {name!r} must be {kind.description}, not {_shown(value)}"
    return opdef.check_attrs(attrs, n_inputs) if opdef.check_attrs is not None else None


def _shown(value) -> str:
    if isinstance(value, type):
        return f"the class {value.__name__}"
    return f"{type(value).__name__} {value!r:.40}"


def check(op: str, attrs: dict, n_inputs: int, what: str) -> None:
    """Raises FormatError naming `what` (a node) when its attributes are not what `op` takes."""
    found = problem(op, attrs, n_inputs)
    if found is not None:
        raise FormatError(f"{what}: {found}")


__all__ = ["KINDS", "check", "problem"]
