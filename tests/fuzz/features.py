"""Feature switches, the dtype table, and the arguments of generated programs (drawn from a byte string).

Every construct and type family the generator can use is a switch (`FEATURES`); `CI_FEATURES`
is the set the test suite runs. `Source` turns a byte string that Hypothesis draws into choices;
`call_sets` draws the argument values `f` is called with.
"""

from __future__ import annotations

import numpy as np

from .program import Arg

# -- features -------------------------------------------------------------------------------

FEATURES = {
    # inputs
    "arrays": "x may be a 1-d array (length 1 to 3)",
    "np_scalars": "x may be a NumPy scalar",
    "zero_d": "x may be a 0-d array",
    "py_inputs": "x (and y) may be Python numbers (of the py_* types)",
    "py_bool": "Python bool inputs",
    "py_int": "Python int inputs",
    "py_float": "Python float inputs",
    "py_complex": "Python complex inputs",
    "second_input": "f takes a second value y (a scalar of any dtype)",
    "retrace_dtype": "the retracing call changes x's dtype (not only its shape or value)",
    "retrace_py_type": "the retracing call changes the type of a Python x (2 -> 2.0, True -> 1)",
    "special_values": "inputs may hold nan, inf, -0.0 and integer extremes",
    "edge_ints": "integer literals and Python int inputs that do not fit every dtype (-1 for unsigned, 300, "
    "+-2**40): NEP 50 raises OverflowError where they meet a NumPy integer",
    # dtype families of the inputs (and of casts and literals)
    "dt_bool": "bool",
    "dt_int": "int8..int64",
    "dt_uint": "uint8..uint64",
    "dt_float": "float32, float64",
    "dt_float16": "float16",
    "dt_complex": "complex64, complex128 and complex literals",
    # statements
    "if": "if / else",
    "elif": "elif",
    "while": "while loops with a bounded counter",
    "branch_define": "a new variable assigned in every branch of an if (and used after it)",
    "for_range": "for over range()",
    "range_start": "range(1, n)",
    "for_array": "for over a 1-d array",
    "for_list": "for over a list",
    "break": "break",
    "continue": "continue",
    "return": "early return",
    "loop_else": "else: on loops",
    "nesting": "control flow nested to depth 3 (else 1)",
    "print": "print() with a staged argument",
    "lists": "lists: literals, append, reads, len",
    "dicts": "dicts with str keys",
    "attrs": "attributes of a Box instance",
    "closures": "nested functions reading f's variables",
    "helpers": "module-level helper functions called from f",
    "aug_assign": "augmented assignment to scalars",
    "inplace": "in-place updates of arrays (+=, v[i] = ...)",
    "retype": "values of different types meeting at a join (reassignments in branches and loops, the "
    "two sides of `a if c else b`, list elements, early returns); without it the generator "
    "keeps types the same there",
    "py_results": "Python scalars among the results (returned, in returned containers)",
    "zero_d_results": "0-d arrays among the results",
    "py_locals": "local Python numbers (accumulators starting at a literal)",
    "weak_scalars": "Python-valued variables (loop counters, accumulators, len()) in arithmetic with NumPy "
    "values, as operands of and/or, assigned inside branches and loops; without it they "
    "appear only in comparisons, indices and top-level Python-only arithmetic",
    # expressions
    "divmod": "/, // and % (division by zero possible)",
    "pow": "**",
    "bitwise": "&, |, ^, ~, <<, >>",
    "numpy_calls": "np.abs, np.sqrt, np.maximum, np.where, ...",
    "reductions": "np.sum, .max(), np.any, ...",
    "indexing": "x[0], x[-1], x[k % len(x)]",
    "astype": "v.astype(np.<dtype>)",
    "scalar_casts": "np.<dtype>(v)",
    "ifexp": "a if c else b",
    "boolop": "and / or / not",
    "random": "draws from np.random's global state (np.random.uniform(-2.0, 2.0, 1)[0], np.random.rand(len(x)), "
    "...); the runner seeds it alike before the eager and the staged call",
    # Python constructs (constructs.py)
    "list_methods": "list methods: pop, extend, insert, remove (after `in`); `in` and truthiness of lists",
    "dict_methods": "dict methods: get, setdefault, pop, update, `for k, v in d.items()`; `in`",
    "sets": "sets: literals, set(), add, discard, `in`, len, truthiness",
    "deques": "collections.deque: append, appendleft, pop, popleft, len, truthiness",
    "heaps": "heapq.heappush / heapq.heappop on a list",
    "iter_builtins": "sorted, sum, min, max over lists, sets, deques and arrays",
    "comprehensions": "list comprehensions and generator expressions (sum, len, min, max, any, all, "
    "np.array of them) over arrays, lists and ranges",
    "nonlocal": "a nested helper writing a variable of f with `nonlocal`, called inside staged "
    "control flow",
    "strings": "strings: literals, str(), repr(), + and == of strings; returned and printed",
    "fstrings": "f-strings of staged values, with conversions (!r, !s) and format specs "
    "(:.3f, :>8, :e, ...)",
    "raise": "the program's exception classes (FuzzError(ValueError), FuzzLimit(ArithmeticError) "
    "with an attribute) and ValueError raised under staged conditions",
    "try": "try/except/else/finally around what may raise at run time: np.linalg.solve, // % / by "
    "int()/float() of a value, indexing with a staged index, math domain errors, raise",
    "fill_arrays": "arrays made with np.zeros(<Python int>) and filled in a loop (out[i] = v), "
    "out[k % len(out)] += 1 with a staged k",
    "math": "math.* (sqrt, exp, log, floor, isnan, isclose, hypot, ...), round, abs, divmod, pow "
    "on staged scalars",
}
ALL_FEATURES = frozenset(FEATURES)

# The features whose programs already behave identically staged and eagerly: the test suite
# runs these. Each switch left out is left out because of known failures (docs/testing.md);
# `python -m tests.fuzz.run --features ci,<switch>` shows what still fails with one added, and
# a fix that makes a switch pass adds it here.
CI_FEATURES = ALL_FEATURES - {
    # types: Python scalars and 0-d arrays as results, weak Python scalars, casts, complex
    "retype",
    "py_results",
    "zero_d_results",
    "weak_scalars",
    "zero_d",
    "scalar_casts",
    "pow",
    "py_complex",
    "dt_complex",
    "retrace_dtype",
    "retrace_py_type",
    "edge_ints",
    # control flow
    "return",
    "break",
    "continue",
    "range_start",
    "branch_define",
    # Python objects
    "closures",
    "lists",
    "dicts",
    "attrs",
    "for_list",
    "inplace",
}

NP_DTYPES = {
    "dt_bool": ["bool"],
    "dt_int": ["int8", "int16", "int32", "int64"],
    "dt_uint": ["uint8", "uint16", "uint32", "uint64"],
    "dt_float": ["float32", "float64"],
    "dt_float16": ["float16"],
    "dt_complex": ["complex64", "complex128"],
}
PY_TYPES = {"py_bool": "bool", "py_int": "int", "py_float": "float", "py_complex": "complex"}

_INT_VALUES = [0, 1, 2, -1, 3, -2, 5, 7, -3]
_FLOAT_VALUES = [0.0, 1.0, 0.5, -1.0, 2.5, -3.25, 3.0, 0.1]
_SPECIAL_FLOATS = [float("nan"), float("inf"), float("-inf"), -0.0, 1e30]


def dtypes_of(features):
    out = []
    for family, names in NP_DTYPES.items():
        if family in features:
            out += names
    return out or ["float64"]


def py_types_of(features):
    return [t for switch, t in PY_TYPES.items() if switch in features] or ["int"]


# -- values ---------------------------------------------------------------------------------


class Source:
    """Choices taken from a byte string that Hypothesis draws (one draw per program: drawing
    each choice through Hypothesis costs more than running the program). Byte 0 is always the
    simplest option and bytes past the end read as 0, so when Hypothesis shrinks the string
    (shorter, smaller bytes) the program shrinks too."""

    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        b = self.data[self.pos] if self.pos < len(self.data) else 0
        self.pos += 1
        return b

    def index(self, n: int) -> int:
        if n <= 1:
            return 0
        if n <= 256:
            return self.byte() % n
        return (self.byte() * 256 + self.byte()) % n

    def pick(self, options):
        options = list(options)
        return options[self.index(len(options))]

    def chance(self, tenths: int) -> bool:
        """True with probability tenths/10 (False for byte 0)."""
        return self.byte() % 10 >= 10 - tenths

    def integer(self, lo: int, hi: int) -> int:
        return lo + self.index(hi - lo + 1)


def _values_for(src: Source, dtype: str, features, count=None):
    """`count` values (or one) that fit `dtype` (a NumPy dtype name or a Python type name)."""

    def one():
        if dtype == "bool":
            return src.pick([False, True])
        if dtype in ("int", "float", "complex"):
            kind = {"int": "i", "float": "f", "complex": "c"}[dtype]
            dt = None
        else:
            dt = np.dtype(dtype)
            kind = dt.kind
        special = "special_values" in features and src.chance(1)
        if kind in "iu":
            if special and dt is not None:
                info = np.iinfo(dt)
                return src.pick([int(info.max), int(info.min)])
            if special and "edge_ints" in features:
                return src.pick([2**40, -(2**40)])
            v = src.pick(_INT_VALUES)
            return abs(v) if kind == "u" else v
        pool = _FLOAT_VALUES + (_SPECIAL_FLOATS if special else [])
        if kind == "f":
            v = src.pick(pool)
            if dt is not None and dt.itemsize == 2 and v == 1e30:
                v = 7e4  # overflows float16 to inf
            return v
        return complex(src.pick(pool), src.pick(_FLOAT_VALUES))

    if count is None:
        return one()
    return tuple(one() for _ in range(count))


def _param_kind(src: Source, features, allow_array=True):
    kinds = []
    if "np_scalars" in features:
        kinds.append("np")
    if allow_array and "arrays" in features:
        kinds.append("arr")
    if "zero_d" in features:
        kinds.append("0d")
    if "py_inputs" in features:
        kinds.append("py")
    return src.pick(kinds or ["np"])


def _arg(src: Source, kind, dtype, length, features):
    if kind == "arr":
        return Arg(kind, dtype, _values_for(src, dtype, features, length))
    return Arg(kind, dtype, _values_for(src, dtype, features))


def _dtype(src: Source, kind, features):
    if kind == "py":
        return src.pick(py_types_of(features))
    return src.pick(dtypes_of(features))


def call_sets(src: Source, features):
    """(params, calls): calls A1, A2 (same signature: a cache hit), B (a retrace), A1 again."""
    params = ["x", "n"] + (["y"] if "second_input" in features else [])
    x_kind = _param_kind(src, features)
    x_dtype = _dtype(src, x_kind, features)
    x_len = src.integer(1, 3) if x_kind == "arr" else None
    n_kind = src.pick(["np", "py"] if "py_inputs" in features else ["np"])
    n_dtype = "int" if n_kind == "py" else src.pick(["int64", "int32", "uint8", "int8"])
    if "second_input" in features:
        y_kind = _param_kind(src, features, allow_array=False)
        y_dtype = _dtype(src, y_kind, features)

    def make(x_dtype=x_dtype, x_len=x_len, same_as=None):
        args = [
            _arg(src, x_kind, x_dtype, x_len, features),
            Arg(n_kind, n_dtype, src.integer(0, 3)),
        ]
        if "second_input" in features:
            args.append(_arg(src, y_kind, y_dtype, None, features))
        if (
            same_as is not None
        ):  # Python values are part of the trace key: keep them for a cache hit
            args = [old if old.kind == "py" else new for old, new in zip(same_as, args)]
        return tuple(args)

    a1 = make()
    a2 = make(same_as=a1)
    b_dtype, b_len = x_dtype, x_len
    if x_kind == "py" and "retrace_py_type" in features and src.chance(5):
        b_dtype = _dtype(src, x_kind, features)
    if x_kind != "py" and "retrace_dtype" in features and src.chance(5):
        b_dtype = _dtype(src, x_kind, features)
        same_kind = (
            [d for d in dtypes_of(features) if np.dtype(d).kind == np.dtype(x_dtype).kind]
            if x_kind != "py"
            else []
        )
        if same_kind and src.chance(7):  # mostly a dtype the program's operations still accept
            b_dtype = src.pick(same_kind)
    if x_kind == "arr":
        b_len = src.integer(1, 3)
    b1 = make(b_dtype, b_len)
    return params, (a1, a2, b1, a1)
