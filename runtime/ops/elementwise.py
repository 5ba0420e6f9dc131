"""Every NumPy ufunc as an op (name = ufunc.__name__), with one generic NEP 50 dtype rule."""

from __future__ import annotations

import operator
import re
import warnings
from collections.abc import Sequence
from typing import Any, Callable

import numpy as np

from .. import suspect_checks
from ..registry import register_op
from ..types import (
    NONE,
    PYTHON_SCALAR_DTYPES,
    TensorType,
    UnionType,
    broadcast_shapes,
    kinds,
    may_be_python_number,
    union_of,
)
from . import _jax_forms, ufunc_derivatives
from ._rules import (
    check_type,
    dummy,
    fmt_shape,
    is_literal,
    is_weak,
    python_value,
    result_dtype,
    shape_of,
)

# Python operator templates the executor may inline: only where the operator on NumPy values
# dispatches to exactly this ufunc. `**` is left out: ndarray.__pow__ has fast paths
# (x**0.5 -> sqrt, x**2 -> square) that differ from np.power in corner cases (-0.0, -inf).
OPERATOR_EXPRS = {
    "add": "{0} + {1}",
    "subtract": "{0} - {1}",
    "multiply": "{0} * {1}",
    "divide": "{0} / {1}",
    "floor_divide": "{0} // {1}",
    "remainder": "{0} % {1}",
    "matmul": "{0} @ {1}",
    "negative": "-{0}",
    "positive": "+{0}",
    "absolute": "abs({0})",
    "invert": "~{0}",
    "less": "{0} < {1}",
    "less_equal": "{0} <= {1}",
    "equal": "{0} == {1}",
    "not_equal": "{0} != {1}",
    "greater": "{0} > {1}",
    "greater_equal": "{0} >= {1}",
    "bitwise_and": "{0} & {1}",
    "bitwise_or": "{0} | {1}",
    "bitwise_xor": "{0} ^ {1}",
    "left_shift": "{0} << {1}",
    "right_shift": "{0} >> {1}",
}


def _all_ufuncs() -> dict[str, np.ufunc]:
    found: dict[str, np.ufunc] = {}
    for value in vars(np).values():
        if isinstance(value, np.ufunc):
            found.setdefault(value.__name__, value)
    return dict(sorted(found.items()))


UFUNCS: dict[str, np.ufunc] = _all_ufuncs()


def broadcast(*shapes) -> tuple:
    """None-aware broadcasting with NumPy's error wording."""
    try:
        return broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(
            "operands could not be broadcast together with shapes "
            + " ".join(fmt_shape(s) for s in shapes)
        ) from None


_CORE = re.compile(r"\(([^)]*)\)")


def _parse_signature(signature: str):
    """'(n?,k),(k,m?)->(n?,m?)' -> ([[('n', True), ('k', False)], ...], [[...]])."""
    ins, outs = signature.split("->")

    def groups(text):
        result = []
        for body in _CORE.findall(text):
            dims = [d.strip() for d in body.split(",") if d.strip()]
            result.append([(d.rstrip("?"), d.endswith("?")) for d in dims])
        return result

    return groups(ins), groups(outs)


def gufunc_shapes(ufunc: np.ufunc, shapes) -> list[tuple]:
    """Output shapes of a generalized ufunc (matmul, vecdot, ...) on inputs of `shapes`."""
    assert ufunc.signature is not None  # (a generalized ufunc's)
    in_cores, out_cores = _parse_signature(ufunc.signature)
    sizes: dict[str, int | None] = {}
    missing: set[str] = set()
    loops = []
    for i, (shape, core) in enumerate(zip(shapes, in_cores)):
        n_missing = len(core) - len(shape)
        n_optional = sum(opt for _, opt in core)
        if n_missing > n_optional:
            required = len(core) - n_optional
            raise ValueError(
                f"{ufunc.__name__}: Input operand {i} does not have enough dimensions (has {len(shape)}, "
                f"gufunc core with signature {ufunc.signature} requires {required})"
            )
        present = []
        drop = max(n_missing, 0)
        for name, optional in core:
            if optional and drop:
                missing.add(name)
                drop -= 1
            else:
                present.append(name)
        core_shape = shape[len(shape) - len(present) :] if present else ()
        loops.append(shape[: len(shape) - len(present)])
        for axis, (name, size) in enumerate(zip(present, core_shape)):
            known = sizes.get(name)
            if name in sizes and known is not None and size is not None and known != size:
                raise ValueError(
                    f"{ufunc.__name__}: Input operand {i} has a mismatch in its core dimension {axis}, "
                    f"with gufunc signature {ufunc.signature} (size {size} is different from {known})"
                )
            if known is None:
                sizes[name] = size
    loop = broadcast(*loops)
    return [
        loop + tuple(sizes[name] for name, _ in core if name not in missing) for core in out_cores
    ]


# Python's operator for each ufunc a Python operator dispatches to. On Python numbers only
# (literals and weak types: numbers known at run time) such an op is Python's own arithmetic:
# it runs as the operator and gives a Python number, as the same expression does eagerly.
PYTHON_OPERATORS: dict[str, Callable[..., Any]] = {
    "add": operator.add,
    "subtract": operator.sub,
    "multiply": operator.mul,
    "divide": operator.truediv,
    "floor_divide": operator.floordiv,
    "remainder": operator.mod,
    "power": operator.pow,
    "divmod": divmod,
    "negative": operator.neg,
    "positive": operator.pos,
    "absolute": operator.abs,
    "invert": operator.invert,
    "less": operator.lt,
    "less_equal": operator.le,
    "equal": operator.eq,
    "not_equal": operator.ne,
    "greater": operator.gt,
    "greater_equal": operator.ge,
    "bitwise_and": operator.and_,
    "bitwise_or": operator.or_,
    "bitwise_xor": operator.xor,
    "left_shift": operator.lshift,
    "right_shift": operator.rshift,
    "pow": operator.pow,
}
PYTHON_EXPRS = {
    **{k: v for k, v in OPERATOR_EXPRS.items() if k in PYTHON_OPERATORS},
    "power": "_ipow({0}, {1})",
    "pow": "_ipow({0}, {1})",
    "divmod": "divmod({0}, {1})",
}


_FLOAT64_SCALAR = TensorType(np.float64, ())


def python_operands(name, types) -> bool:
    """True when Python's operator `name` gives a Python number: every input is a Python number
    (one known only at run time), or a Python complex meets a float64 scalar on its right and
    complex's own operator takes it (np.float64 subclasses float: `(1+2j) + np.float64(1)` is
    a Python complex, while `(1+2j) < np.float64(1)` falls back to NumPy)."""
    if all(is_weak(t) for t in types):
        return not all(is_literal(t) for t in types)
    first = types[0]
    if not (
        len(types) == 2
        and types[1] == _FLOAT64_SCALAR
        and (
            type(first) is complex
            or (isinstance(first, TensorType) and first.weak and first.python_type is complex)
        )
    ):
        return False
    try:
        return PYTHON_OPERATORS[name](1j, 1.0) is not NotImplemented
    except TypeError:
        return False


def _python_result_types(name, types):
    """The weak types of Python's operator on Python numbers of these types (the types depend on
    the operands' types only: `1 / 1` is a float, `True + True` an int)."""
    func = PYTHON_OPERATORS[name]
    args = [python_value(t) if is_weak(t) else 1.0 for t in types]  # (1.0: a float64 scalar)
    try:
        result = func(*args)
    except TypeError as exc:  # e.g. ~1.0: the error the same Python expression raises
        raise TypeError(f"{name}: {exc}") from None
    results = result if isinstance(result, tuple) else (result,)
    if _power_may_be_float(name, types):
        return (UnionType((_PYTHON_INT, _PYTHON_FLOAT)),)
    return tuple(TensorType.python_scalar(type(r)) for r in results)


_PYTHON_INT, _PYTHON_FLOAT = TensorType.python_scalar(int), TensorType.python_scalar(float)


def _power_may_be_float(name: str, types) -> bool:
    """Python's `a ** b` of ints is an int for b >= 0 and a float for b < 0: of an exponent
    known only when the graph runs, either (a value of two kinds, by its path)."""
    if name not in ("power", "pow") or len(types) != 2:
        return False
    exponent = types[1]
    if is_literal(exponent):
        return False
    return all(
        is_weak(t)
        and (type(t) in (int, bool) or (not is_literal(t) and t.python_type in (int, bool)))
        for t in types
    )


def make_ufunc_infer(ufunc: np.ufunc, python_arithmetic: bool = True):
    """The type rule of `ufunc`: NumPy's (NEP 50), or with `python_arithmetic` Python's own for
    operands that are all Python numbers, as a Python operator computes them."""

    def infer(*types):
        if len(types) != ufunc.nin:
            raise TypeError(f"{ufunc.__name__} takes {ufunc.nin} input(s), got {len(types)}")
        if NONE in types:  # (only ops that take None get here: == and !=)
            return _equality_with_none(*types)
        for t in types:
            check_type(t, f"{ufunc.__name__} input")
        if (
            python_arithmetic
            and ufunc.__name__ in PYTHON_OPERATORS
            and python_operands(ufunc.__name__, types)
        ):
            outs = _python_result_types(ufunc.__name__, types)
            return outs[0] if ufunc.nout == 1 else outs
        shapes = [shape_of(t) for t in types]
        if ufunc.signature:
            out_shapes = gufunc_shapes(ufunc, shapes)
        else:
            out_shapes = [broadcast(*shapes)] * ufunc.nout
        outs = _dtypes(ufunc, types)
        out = tuple(TensorType(dt, s) for dt, s in zip(outs, out_shapes))
        return out[0] if ufunc.nout == 1 else out

    infer.__name__ = f"infer_{ufunc.__name__}"
    return infer


_PYTHON_BOOL = TensorType.python_scalar(bool)


def _equality_with_none(a, b):
    """The type of `a == b` (or `!=`) where an operand is None: Python's operators give a
    Python bool against None, a Python number, a str or a NumPy scalar, NumPy's an np.bool_
    against a 0-d array and a bool array against an array (`np.zeros(3) == None`). A 0-d
    operand may be either a NumPy scalar or a 0-d array, so its result is either bool."""
    other = b if a is NONE else a
    if other is NONE or is_literal(other) or not isinstance(other, TensorType) or other.weak:
        return _PYTHON_BOOL
    if other.shape == ():
        return union_of((_PYTHON_BOOL, TensorType(np.bool_, ())))
    return TensorType(np.bool_, other.shape)


_DTYPE_CACHE: dict = {}
_DTYPE_CACHE_LIMIT = 4096


def _dtypes(ufunc: np.ufunc, types) -> Sequence[np.dtype]:
    """Output dtypes, memoised per (ufunc, input types, Python scalar inputs by type and value)."""
    key = (ufunc, *[t if type(t) is TensorType else (type(t), t) for t in types])
    try:
        hit = _DTYPE_CACHE.get(key)
    except TypeError:  # an unhashable literal: compute without caching
        return _compute_dtypes(ufunc, types)
    if hit is None:
        hit = _compute_dtypes(ufunc, types)
        if len(_DTYPE_CACHE) >= _DTYPE_CACHE_LIMIT:
            _DTYPE_CACHE.clear()
        _DTYPE_CACHE[key] = hit
    return list(hit)


def _compute_dtypes(ufunc: np.ufunc, types) -> tuple:
    # Size-1 stand-ins (not empty ones) so value-based errors about Python scalar inputs surface
    # at trace time as they would on any non-empty array (e.g. `int_array ** -1`).
    return tuple(_run_dtypes(ufunc, types))


def _run_dtypes(ufunc: np.ufunc, types) -> list[np.dtype]:
    args = [dummy(t, fill=1) for t in types]
    if ufunc.nout == 1:
        return [result_dtype(ufunc, *args)]
    return [result_dtype(lambda *xs, i=i: ufunc(*xs)[i], *args) for i in range(ufunc.nout)]


# Logical ops on bool scalars inline as bitwise operators: the same np.bool_ results without
# a ufunc call (NumPy's scalar operators are several times faster than ufuncs on scalars).
# `_TRUE` is np.True_ in the executor's namespace (`b ^ True` with a Python bool is slow).
_BOOL_SCALAR_EXPRS = {
    "logical_not": "{0} ^ _TRUE",
    "logical_and": "{0} & {1}",
    "logical_or": "{0} | {1}",
    "logical_xor": "{0} ^ {1}",
}


def _make_expr(name):
    """The inline expression of a node of ufunc `name` for its input types, or None (the
    registered `expr`, or the kernel)."""
    python = PYTHON_EXPRS.get(name)
    bool_scalar = _BOOL_SCALAR_EXPRS.get(name)

    def rule(*types):
        if _power_may_be_float(name, types):
            return "({0} ** {1})"  # (an int or a float: the type holds either)
        if any(type(t) is UnionType for t in types):
            # a kind that depends on the path: frontends record this op with such inputs only
            # for Python's operator (an explicit call is `ufunc_call`), which the template is
            return python
        if python is not None and python_operands(name, types):
            return python
        if bool_scalar is not None and all(
            isinstance(t, TensorType) and t.dtype == np.bool_ and t.ndim == 0 and not t.weak
            for t in types
        ):
            return bool_scalar
        if name == "absolute":  # (np.abs of a complex scalar is the ufunc's loop: see the `abs` op)
            return _absolute_expr(types[0])
        if (
            name == "multiply"
        ):  # (np.multiply of complex scalars is the ufunc's loop: see the `mul` op)
            return None if complex_scalars(types) else OPERATOR_EXPRS[name]
        return None

    return rule if python is not None or bool_scalar is not None else None


# --- what each op of this module is beyond its kernel: the OpDef fields it fills ----------------

_FACTS: dict[str, dict] = {}


def _declare(names: str, **fields) -> None:
    for name in names.split():
        _FACTS.setdefault(name, {}).update(fields)


for _name, _func in PYTHON_OPERATORS.items():
    _declare(_name, python_operator=_func, python_expr=PYTHON_EXPRS[_name])

# operators on scalars that never raise, and those that raise only where every operand is a
# Python number (on NumPy scalars they warn: `1 // 0` raises, `np.int64(1) // 0` warns)
_COMPARISONS = "less less_equal greater greater_equal equal not_equal"
_declare(f"add subtract multiply mul negative positive {_COMPARISONS}", raises="never")
_declare("remainder floor_divide divide absolute", raises="on_python_numbers")
_declare(
    "divide floor_divide remainder divmod",
    division=True,
    python_errors=(ZeroDivisionError,),
    python_error_if=lambda right: right == 0,
)
_declare("power pow", python_errors=(ZeroDivisionError,), python_error_if=lambda right: right < 0)
_declare(_COMPARISONS, comparison=True, unboxed="compare")
_declare("equal not_equal", takes_none=True)  # (None == x is Python's False, not an error)
for _name in ("not", "and", "or", "xor"):
    _declare(f"logical_{_name}", logical=_name)
_declare("add subtract multiply", unboxed="arithmetic")
_declare("negative absolute", unboxed="unary")
_declare("positive", unboxed="identity")
_declare("divide", unboxed="division")
_declare("floor_divide remainder", unboxed="integer_division")
_declare("power pow", unboxed="small_power")
_declare("add subtract multiply negative positive absolute", nan_propagating=True)
# x + 0, x - 0, x * 1 (either side), x // 1 of integers and x / 1 of floats are x, bit for bit
_declare("add", identities=((1, 0, "iu"), (0, 0, "iu")))
_declare("subtract", identities=((1, 0, "iuf"),))
_declare("multiply", identities=((1, 1, "iuf"), (0, 1, "iuf")))
_declare("floor_divide", identities=((1, 1, "iu"),))
_declare("divide", identities=((1, 1, "f"),))
# ufuncs that convert a Python int operand to a float64 array's dtype (NEP 50) before computing
_declare(
    f"add subtract multiply divide floor_divide remainder maximum minimum {_COMPARISONS}",
    int_as_float=True,
)

# Ufuncs whose value per element is fixed by IEEE-754 (correctly rounded or exact) for real
# floats: computing them chunk by chunk gives the same bits as one call over the whole array.
_declare(
    "add subtract multiply divide negative positive absolute fabs square sqrt reciprocal "
    "minimum maximum fmin fmax copysign nextafter ldexp floor ceil trunc rint sign heaviside "
    f"conjugate {_COMPARISONS} logical_and logical_or logical_xor logical_not isnan isinf "
    "isfinite signbit bitwise_and bitwise_or bitwise_xor invert left_shift right_shift",
    exact=True,
)
# one correctly rounded IEEE-754 operation or a sign-bit operation: compiled kernels take them,
# as one LLVM instruction over the operands {0}, {1} (runtime.numba_backend.kernel_ops;
# {minus_zero}: a kernel argument holding -0.0)
for _name, _expr in {
    "add": "_k.add({0}, {1})",
    "subtract": "_k.subtract({0}, {1})",
    "multiply": "_k.multiply({0}, {1})",
    "divide": "_k.divide({0}, {1})",
    "negative": "_k.negative({0}, {minus_zero})",
    "positive": "{0}",
    "square": "_k.multiply({0}, {0})",
    "reciprocal": "_k.reciprocal({0})",
    "sqrt": "_k.sqrt({0})",
    "absolute": "_k.absolute({0})",
    "fabs": "_k.absolute({0})",
}.items():
    _declare(_name, correctly_rounded=True, kernel_expr=_expr)


_min_max_checked: list = []


def numpy_min_max_follow_one_rule() -> bool:
    """Whether np.maximum / np.minimum follow one rule here, bit for bit, on short and long
    arrays (NumPy's scalar and SIMD loops) of both float dtypes: signed zeros, NaNs of either
    operand and of both, infinities. The rule: the first operand when it is NaN or strictly
    beyond the second, else the second (a NaN of either comes out, and of two equal zeros the
    second). Compiled kernels (kernel_expr) and the JAX lowering compute it, where it holds."""
    if not _min_max_checked:
        same = True
        nan, other_nan = np.float64(np.nan), -np.float64(np.nan)
        for dtype in (np.float32, np.float64):
            for n in (1, 3, 257):
                a = np.tile(
                    np.array([-0.0, 0.0, nan, 1.0, nan, 2.0, -np.inf, other_nan, 5.0], dtype), n
                )
                b = np.tile(
                    np.array([0.0, -0.0, 1.0, nan, other_nan, 1.0, np.inf, nan, 5.0], dtype), n
                )
                with np.errstate(all="ignore"):
                    for ufunc, beyond in ((np.maximum, np.greater), (np.minimum, np.less)):
                        want = np.where(np.isnan(a) | beyond(a, b), a, b)
                        got = ufunc(a, b)
                        same = same and np.array_equal(
                            got.view(f"u{a.itemsize}"), want.view(f"u{a.itemsize}")
                        )
        _min_max_checked.append(same)
    return _min_max_checked[0]


_declare(
    "maximum",
    kernel_expr="_k.maximum({0}, {1})",
    kernel_expr_agrees=numpy_min_max_follow_one_rule,
)
_declare(
    "minimum",
    kernel_expr="_k.minimum({0}, {1})",
    kernel_expr_agrees=numpy_min_max_follow_one_rule,
)
# complex loops that give another last bit when the output is one of the inputs (NumPy 2.4,
# measured on one-element arrays): their result never goes into an operand's buffer
_declare("multiply square", in_place_complex=False)
# ufuncs that deprecate `out` given positionally (NumPy 2.4); the others take it positionally,
# which is cheaper than the keyword on small arrays
_declare("maximum minimum", out_by_keyword=True)
_declare("isnat", unlowerable="JAX has no datetime types")
_declare("nextafter", unlowerable="XLA's nextafter differs from NumPy's on subnormals")
_declare("spacing", unlowerable="JAX has no spacing")


def _mixes_float_and_int(ufunc: np.ufunc) -> bool:
    """A loop takes a float and an integer (ldexp): NumPy picks it from a Python number's kind
    (NEP 50), so such a number must reach the ufunc as it is, never cast to the array's dtype."""
    for loop in ufunc.types:
        kinds = {np.dtype(c).kind for c in loop.split("->")[0] if c not in "OMm"}
        if "f" in kinds and kinds & {"i", "u"}:
            return True
    return False


def _mixes_python_int_and_integer(inputs) -> bool:
    found = [k for v in inputs for k in kinds(getattr(v, "type", None)) if type(k) is TensorType]
    return any(k.weak and k.dtype.kind == "i" for k in found) and any(
        not k.weak and k.dtype.kind in "iu" for k in found
    )


def _python_error_possible(node) -> bool:
    """A division (or power) of Python numbers known only at run time: Python raises
    ZeroDivisionError where NumPy would warn, and the eager code raises it even when nothing
    reads the result (a nonzero literal divisor or a non-negative literal exponent cannot)."""
    if len(node.inputs) != 2 or not all(
        type(v) in (bool, int, float, complex) or may_be_python_number(getattr(v, "type", None))
        for v in node.inputs
    ):
        return False
    right = node.inputs[1]
    if type(right) in (int, float, complex):
        return node.opdef.python_error_if(right)
    return True


def _keep_unused(node) -> bool:
    """A ufunc of a Python int and a NumPy integer (NEP 50: an int the dtype cannot hold is an
    OverflowError), or a division or power of Python numbers that Python's operator may refuse."""
    op = node.opdef
    if len(node.inputs) == 2 and op.out_ufunc is not None:
        if _mixes_python_int_and_integer(node.inputs):
            return True
    return bool(op.python_errors) and _python_error_possible(node)


# --- the JAX lowering of the ufuncs: the dtypes NumPy resolves are the dtypes JAX computes in ----


def _is_static(x) -> bool:
    return type(x) in (bool, int, float, complex)


def _resolve(t):
    """What ufunc.resolve_dtypes takes for an input: int, float or complex for a Python number
    (a literal, or a weak type: a Python number known at run time), else its dtype."""
    if isinstance(t, TensorType) and t.weak:
        python_type = t.python_type
        return np.dtype(bool) if python_type is bool else python_type
    return _resolve_arg(t)


def loop_dtypes(ufunc: np.ufunc, types) -> tuple:
    """The dtypes NumPy computes `ufunc` in for inputs of `types` (weak numbers by NEP 50)."""
    args = tuple(_resolve(t) for t in types)
    try:
        return ufunc.resolve_dtypes(args + (None,) * ufunc.nout)
    except (TypeError, ValueError):  # only Python numbers: they meet as their NumPy dtypes
        strong = tuple(PYTHON_SCALAR_DTYPES[a] if isinstance(a, type) else a for a in args)
        return ufunc.resolve_dtypes(strong + (None,) * ufunc.nout)


_PYTHON_KINDS = "biufc"


def _python_dtypes(ufunc: np.ufunc, types, out_types) -> tuple:
    """The dtypes that give Python's arithmetic on Python numbers (weak types and literals):
    the result's type when it is a number at least as wide as the inputs' common type (`True +
    True` is the int 2, `3 / 2` the float 1.5), else that common type (`True < 2` compares ints,
    `abs(1j)` takes a complex)."""
    inputs = [
        np.dtype(t.dtype) if hasattr(t, "dtype") else np.dtype(PYTHON_SCALAR_DTYPES[type(t)])
        for t in types
    ]
    common = max(inputs, key=lambda d: _PYTHON_KINDS.index(d.kind))
    if common.kind == "u":
        common = np.dtype(np.int64)
    outs = tuple(np.dtype(t.dtype) for t in out_types)
    rank = _PYTHON_KINDS.index
    compute = outs[0] if outs[0].kind != "b" and rank(outs[0].kind) >= rank(common.kind) else common
    return (compute,) * ufunc.nin + outs


def _input_types(node) -> list:
    return [v.type if hasattr(v, "type") else v for v in node.inputs]


def _min_max_form(form):
    def lower(jnp, a, b):
        if numpy_min_max_follow_one_rule():
            return form(jnp, a, b)
        return getattr(jnp, form.__name__)(a, b)  # (NumPy's loops follow no one rule here)

    return lower


# ufuncs whose XLA form gives other signed zeros, infinities or NaNs than NumPy's loops on
# floats: their lowering computes NumPy's definition (runtime/ops/_jax_forms.py)
_JAX_FORMS = {
    "matmul": lambda jnp, a, b: _jax_forms.summed_products(jnp, jnp.matmul, a.dtype, a, b),
    "divide": _jax_forms.divide,
    "divmod": _jax_forms.divmod_,
    "floor_divide": _jax_forms.floor_divide,
    "remainder": _jax_forms.remainder,
    "modf": _jax_forms.modf,
    "logaddexp": _jax_forms.logaddexp,
    "logaddexp2": _jax_forms.logaddexp2,
    "sign": _jax_forms.sign,
    "maximum": _min_max_form(_jax_forms.maximum),
    "minimum": _min_max_form(_jax_forms.minimum),
}


def jnp_ufunc(jnp, name: str):
    """The JAX function computing ufunc `name` as NumPy's loops do (on dtypes NumPy resolved)."""
    form = _JAX_FORMS.get(name)
    if form is None:
        return getattr(jnp, name)
    return lambda *args: form(jnp, *args)


def _lower_ufunc_as(name: str):
    """The lowering of ufunc `name` (also of Python's operators that compute as it does)."""
    ufunc = UFUNCS[name]
    python = PYTHON_OPERATORS.get(name)

    def lower(ctx, node, *inputs):
        if python is not None and all(_is_static(x) for x in inputs):
            return python(*inputs)  # Python numbers known now: Python's arithmetic
        types = _input_types(node)
        if python is not None and python_operands(name, types):
            loop = _python_dtypes(ufunc, types, [v.type for v in node.outputs])
        else:
            loop = loop_dtypes(ufunc, types)
        jnp = ctx.jnp
        args = [jnp.asarray(x, dtype=d) for x, d in zip(inputs, loop[: ufunc.nin])]
        out = jnp_ufunc(jnp, name)(*args)
        if ufunc.nout == 1:
            return out.astype(loop[ufunc.nin])
        return tuple(o.astype(d) for o, d in zip(out, loop[ufunc.nin :]))

    lower.__name__ = f"lower_{name}"
    return lower


for _name, _ufunc in UFUNCS.items():
    _declare(
        _name,
        out_ufunc=_ufunc if _ufunc.nout == 1 and not _mixes_float_and_int(_ufunc) else None,
    )
    if "unlowerable" not in _FACTS[_name]:
        _declare(_name, lower=_lower_ufunc_as(_name))
    if _FACTS[_name].get("out_ufunc") is not None or _FACTS[_name].get("python_errors"):
        _declare(_name, keep_unused=_keep_unused)
_declare("pow", keep_unused=_keep_unused)
# a ufunc gives a NumPy scalar for a 0-d result (0-d arrays in, too); so do Python's operators
_declare(" ".join(UFUNCS) + " pow mul abs", zero_d_result="scalar")


def _integer_division_suspect(jnp, node, outputs, divisor):
    """An integer division or remainder by zero: NumPy warns and gives 0, XLA gives another
    number silently. (A float division by zero, an overflow: NumPy warns, XLA gives the same
    inf or NaN; under np.seterr(...="raise") the call runs on the interpreter:
    runtime.jax_lowering.suspects.)"""
    out = jnp.asarray(outputs[0])
    if not jnp.issubdtype(out.dtype, jnp.integer):
        return None
    return jnp.any(jnp.asarray(divisor) == 0)


# Python's operation of each ufunc on Python numbers (suspect_checks' names)
_PYTHON_OPERATIONS = {
    "add": "add",
    "subtract": "sub",
    "multiply": "mul",
    "negative": "neg",
    "absolute": "abs",
    "power": "pow",
    "left_shift": "lshift",
    "right_shift": "rshift",
    "divide": "truediv",
    "floor_divide": "floordiv",
    "remainder": "mod",
    "divmod": "divmod",
}
_INTEGER_DIVISIONS = frozenset("floor_divide remainder fmod divmod".split())


def _python_type(t):
    """int, float ... for a Python number operand (a literal or one kind of a weak type)."""
    return type(t) if is_literal(t) else t.python_type


def _is_python_int(t) -> bool:
    return is_weak(t) and _python_type(t) is int


def _mixes_python_int_and_narrow_integer(inputs) -> bool:
    """A Python int meets a NumPy integer that does not hold every int64 (int8 ... uint64)."""
    found = [k for v in inputs for k in kinds(getattr(v, "type", None)) if type(k) is TensorType]
    return any(k.weak and k.dtype.kind == "i" for k in found) and any(
        not k.weak and k.dtype.kind in "iu" and k.dtype != np.int64 for k in found
    )


def _python_number_suspect(jnp, operation, types, outputs, inputs):
    """Python's arithmetic on Python numbers known at run time, where XLA's differs."""
    if all(_python_type(t) in (int, bool) for t in types):
        return suspect_checks.python_int_differs(jnp, operation, *inputs)
    return suspect_checks.python_float_differs(jnp, operation, inputs, outputs[0])


def _python_ints_out_of_range(jnp, ufunc, types, inputs) -> list:
    """Python ints known at run time that the integer dtype NumPy computes in does not hold
    (NEP 50: OverflowError)."""
    weak = [i for i, t in enumerate(types) if isinstance(t, TensorType) and _is_python_int(t)]
    if not weak:
        return []
    loop = loop_dtypes(ufunc, types)
    return [suspect_checks.int_out_of_range(jnp, inputs[i], loop[i]) for i in weak]


def _arithmetic_suspect(name: str):
    """(OpDef.lower_suspect) of the op lowered as ufunc `name`: Python's arithmetic on Python
    numbers known at run time where XLA's differs (an int past 64 bits, a division by zero, a
    negative integer power), a Python int the array's integer dtype does not hold, an integer
    division by zero."""
    ufunc = UFUNCS[name]
    operation = _PYTHON_OPERATIONS.get(name)
    division = name in _INTEGER_DIVISIONS
    comparison = name in _COMPARISONS.split()

    def check(jnp, node, outputs, *inputs):
        types = _input_types(node)
        if operation is not None and python_operands(name, types):
            return _python_number_suspect(jnp, operation, types, outputs, inputs)
        flags = [] if comparison else _python_ints_out_of_range(jnp, ufunc, types, inputs)
        if division:
            flags.append(_integer_division_suspect(jnp, node, outputs, inputs[1]))
        return suspect_checks.any_of(jnp, flags)

    def may_apply(node) -> bool:
        """Read from the graph: a divisor known at run time, or a Python number known at run
        time meeting Python numbers (Python's arithmetic) or a NumPy integer (NEP 50)."""
        values = [v for v in node.inputs if hasattr(v, "type")]
        if division and hasattr(node.inputs[-1], "type"):
            return True
        if not any(may_be_python_number(v.type) for v in values):
            return False
        if operation is not None and all(
            is_literal(v) or may_be_python_number(getattr(v, "type", None)) for v in node.inputs
        ):
            return True
        return not comparison and _mixes_python_int_and_narrow_integer(node.inputs)

    check.may_apply = may_apply  # type: ignore[attr-defined]
    check.__name__ = f"{name}_suspect"
    return check


for _name in UFUNCS:
    _declare(_name, lower_suspect=_arithmetic_suspect(_name))
_POWER_KINDS = (
    "Python's int ** int is an int for an exponent >= 0 and a float for a negative one, and "
    "this exponent is known only when the graph runs"
)
_declare("power pow", kinds_by_value=_POWER_KINDS)
_declare("pow", lower_suspect=_arithmetic_suspect("power"))
_declare("mul", lower_suspect=_arithmetic_suspect("multiply"))
_declare("abs", lower_suspect=_arithmetic_suspect("absolute"))


def _opposite_zeros_suspect(jnp, node, outputs, a, b):
    """(OpDef.lower_suspect) np.fmax / np.fmin of two zeros of opposite signs: which one NumPy
    gives depends on its loop (the C library's fmax on short arrays, SIMD on long ones, another
    on float32 0-d arrays), so such a call runs on the interpreter."""
    a, b = jnp.asarray(a), jnp.asarray(b)
    if not (jnp.issubdtype(a.dtype, jnp.floating) and jnp.issubdtype(b.dtype, jnp.floating)):
        return None
    return jnp.any((a == 0) & (b == 0) & (jnp.signbit(a) != jnp.signbit(b)))


_declare("fmax fmin", lower_suspect=_opposite_zeros_suspect)


for _name, _rule in ufunc_derivatives.RULES.items():
    if _name in UFUNCS or _name in ("pow", "mul"):
        _declare(_name, vjp=_rule)


_KERNEL_ON_SCALARS = (
    "absolute",
    "multiply",
)  # (their make_expr gives the operator where it agrees)
for _name, _ufunc in UFUNCS.items():
    register_op(
        _name,
        infer=make_ufunc_infer(_ufunc),
        num_outputs=_ufunc.nout,
        expr=OPERATOR_EXPRS.get(_name) if _name not in _KERNEL_ON_SCALARS else None,
        make_expr=_make_expr(_name),
        weak_results=True,
        doc=f"np.{_name} ({_ufunc.nin} in, {_ufunc.nout} out)",
        **_FACTS.get(_name, {}),
    )(_ufunc)
del _name, _ufunc


def _numpy_operand(t):
    """What NumPy makes of a Python number operand when every operand is one: an array of its
    default dtype (np.add(1, 2) is np.int64(3))."""
    return TensorType(np.asarray(python_value(t)).dtype, ()) if is_weak(t) else t


def _ufunc_call_infer(*types, ufunc):
    func = UFUNCS.get(ufunc)
    if func is None or func.nout != 1:
        raise TypeError(f"ufunc_call: {ufunc!r} is not a NumPy ufunc with one output")
    if all(is_weak(t) for t in types):
        types = tuple(_numpy_operand(t) for t in types)
    return make_ufunc_infer(func, python_arithmetic=False)(*types)


def _lower_ufunc_call(ctx, node, *inputs, ufunc):
    func = UFUNCS[ufunc]
    if all(_is_static(x) for x in inputs):
        return func(*inputs)
    types = _input_types(node)
    if all(is_weak(t) for t in types):
        types = [_numpy_operand(t) for t in types]
    loop = loop_dtypes(func, types)
    jnp = ctx.jnp
    args = [jnp.asarray(x, dtype=d) for x, d in zip(inputs, loop[: func.nin])]
    return jnp_ufunc(jnp, ufunc)(*args).astype(loop[func.nin])


register_op(
    "ufunc_call",
    infer=_ufunc_call_infer,
    make_kernel=lambda ufunc: UFUNCS[ufunc],
    lower=_lower_ufunc_call,
    doc="np.<ufunc>(*inputs) called explicitly, where the operands may be Python numbers: "
    "NumPy's arithmetic on every path (the op of the ufunc's name is Python's on them)",
)(lambda *inputs, ufunc: UFUNCS[ufunc](*inputs))


# Python's `**`, apart from np.power: on NumPy scalars it is NumPy's scalar power (the C library's
# pow, which may differ from the ufunc's loop in the last bit), and on arrays it takes the
# shortcuts ndarray.__pow__ takes for some exponents. The staged op is the operator itself.
_pow_infer = make_ufunc_infer(np.power)
register_op(
    "pow",
    infer=lambda *types: _pow_infer(*types),
    expr="{0} ** {1}",
    make_expr=_make_expr("pow"),
    weak_results=True,
    doc="x ** y (Python's operator)",
    lower=_lower_ufunc_as("power"),
    **_FACTS["pow"],
)(operator.pow)


# Python's `*` of complex NumPy scalars is the scalar type's own product, which differs in the
# last bit from np.multiply's loop (which may fuse a multiply and an add) about half the time:
# a staged `a * b` of such scalars is this op, and np.multiply(a, b) stays the ufunc (run as the
# ufunc itself on such scalars, not inline as `*`).
_multiply_infer = make_ufunc_infer(np.multiply)
register_op(
    "mul",
    infer=lambda a, b: _multiply_infer(a, b),
    expr="{0} * {1}",
    weak_results=True,
    doc="x * y of complex scalars (Python's operator)",
    lower=_lower_ufunc_as("multiply"),  # (XLA has one complex product)
    **_FACTS["mul"],
)(operator.mul)


def complex_scalars(types) -> bool:
    """Whether an op on these input types has no array operand and a complex one (not every
    operand a Python number: those are Python's own arithmetic)."""
    complex_seen = False
    for t in types:
        if isinstance(t, TensorType):
            if t.shape != ():
                return False
            complex_seen = complex_seen or t.dtype.kind == "c"
        else:
            complex_seen = complex_seen or type(t) is complex
    return complex_seen and not all(is_weak(t) for t in types)


# Python's `abs()` of a complex NumPy scalar is the scalar type's own (the C library's cabs),
# which can differ in the last bit from np.absolute's loop: a staged `abs(z)` of such a scalar
# is this op (the builtin itself), and np.abs(z) stays the ufunc (whose inline `abs(...)` is
# kept for the other types, where the two agree).
_absolute_infer = make_ufunc_infer(np.absolute)
register_op(
    "abs",
    infer=lambda t: _absolute_infer(t),
    expr="abs({0})",
    weak_results=True,
    doc="abs(x) of a complex scalar (Python's builtin)",
    lower=lambda ctx, node, x: ctx.jnp.abs(ctx.jnp.asarray(x)).astype(node.outputs[0].type.dtype),
    **_FACTS["abs"],
)(abs)


def _absolute_expr(t):
    return None if isinstance(t, TensorType) and t.dtype.kind == "c" and not t.weak else "abs({0})"


# --- a ufunc written into an existing array: x += y, np.add(a, b, out=x) --------------------------


def _resolve_arg(t):
    """What ufunc.resolve_dtypes takes for an input: int, float, complex for a weak number (NEP 50)."""
    python_type = (
        type(t) if is_literal(t) else getattr(t, "python_type", None) if is_weak(t) else None
    )
    if python_type in (int, float, complex):
        return python_type
    return np.dtype(bool) if python_type is bool else t.dtype


def _ufunc_out_infer(target, *types, ufunc, numpy_out=False):
    func = UFUNCS.get(ufunc)
    if func is None or func.nout != 1:
        raise TypeError(f"ufunc_out: {ufunc!r} is not a NumPy ufunc with one output")
    check_type(target, "ufunc_out target")
    if is_weak(target):  # a Python number on this path: `x op= y` is `x = x op y` there
        return make_ufunc_infer(func)(*types)
    if not isinstance(target, TensorType):
        raise TypeError("ufunc_out: the output operand must be an array")
    for t in types:
        check_type(t, f"{ufunc} input")
    # NumPy resolves the loop's dtypes, and the same-kind cast into the output, before shapes.
    loop = func.resolve_dtypes(
        tuple(_resolve_arg(t) for t in types) + (target.dtype,), casting="same_kind"
    )
    for t, dtype in zip(types, loop):
        if type(t) is int and dtype.kind in "iu":
            np.array(t, dtype=dtype)  # a Python int out of the loop dtype's range: OverflowError
    result = make_ufunc_infer(func)(*types)
    try:
        shape = broadcast_shapes(target.shape, result.shape)
    except ValueError:
        shape = None
    if (
        shape is None
        or len(shape) != target.ndim
        or any(t is not None and s != t for s, t in zip(shape, target.shape))
    ):
        raise ValueError(
            f"non-broadcastable output operand with shape {fmt_shape(target.shape).replace(' ', '')} "
            f"doesn't match the broadcast shape {fmt_shape(result.shape).replace(' ', '')}"
        )
    # NumPy itself on stand-ins, for errors that depend on a Python number's value (int ** -1).
    out = np.ones((1,) * target.ndim, target.dtype)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        func(*[dummy(t, fill=1) for t in types], out=out)
    return target


_PY_NUMBERS = (bool, int, float, complex)


# Python's operators that NumPy computes even with a Python number on the left: `x @ y` is
# np.matmul(x, y), which raises for a number x (it has no dims); no Python arithmetic.
_NUMPY_ONLY_OPERATORS = {"matmul": operator.matmul}


def _number_target_kernel(ufunc: str, numpy_out: bool) -> Callable[..., Any]:
    """ufunc_out where its target is a Python number on this path: `x op= y` makes a new number,
    Python's `x op y`. With no Python arithmetic for the ufunc, what eager code raises: `x @= y`
    what `x @ y` raises; `np.<ufunc>(..., out=x)` (`numpy_out`) NumPy's TypeError for a number
    as `out=`, whatever the ufunc."""
    python_operator = None if numpy_out else PYTHON_OPERATORS.get(ufunc)
    if python_operator is not None:
        return python_operator
    numpy_operator = _NUMPY_ONLY_OPERATORS.get(ufunc)

    def refuse(*inputs):
        if numpy_operator is not None and not numpy_out:
            numpy_operator(*inputs)  # (`x @= y` raises here, as eagerly)
        raise TypeError("return arrays must be of ArrayType")

    return refuse


def _ufunc_out_kernel(ufunc, numpy_out=False):
    func = UFUNCS[ufunc]
    python_operator = _number_target_kernel(ufunc, numpy_out)

    def run(target, *inputs):
        if type(target) in _PY_NUMBERS:  # (a Python number on this path: immutable)
            return python_operator(*inputs)
        out = np.array(target, copy=True)
        func(*inputs, out=out)
        return out

    return run


def _lower_ufunc_out(ctx, node, target, *inputs, ufunc, numpy_out=False):
    func = UFUNCS[ufunc]
    types = _input_types(node)[1:]
    loop = func.resolve_dtypes(
        tuple(_resolve(t) for t in types) + (node.outputs[0].type.dtype,), casting="same_kind"
    )
    jnp = ctx.jnp
    args = [jnp.asarray(x, dtype=d) for x, d in zip(inputs, loop[: func.nin])]
    result = jnp_ufunc(jnp, ufunc)(*args)
    return jnp.broadcast_to(result.astype(target.dtype), jnp.shape(target))


register_op(
    "ufunc_out",
    infer=_ufunc_out_infer,
    make_kernel=_ufunc_out_kernel,
    lower=_lower_ufunc_out,
    zero_d_result="array",  # (it writes into a copy of its target, an array)
    doc=(
        "np.<ufunc>(*inputs, out=<a copy of target>) (x += y); the result has target's type; "
        "numpy_out: an `out=` argument (a Python number there raises NumPy's TypeError, not "
        "Python's `x op y`)"
    ),
)(
    lambda target, *inputs, ufunc, numpy_out=False: _ufunc_out_kernel(ufunc, numpy_out)(
        target, *inputs
    )
)


def as_dtype(number, dtype):
    """`number` as a 0-d array of `dtype` when NumPy's weak-scalar rule casts it exactly so."""
    if dtype.kind not in "iuf" or (isinstance(number, float) and dtype.kind != "f"):
        return None
    if np.result_type(dtype, number) != dtype:
        return None
    try:
        with np.errstate(all="raise"):
            converted = np.array(number, dtype=dtype)
    except (OverflowError, FloatingPointError, ValueError):
        return None
    if dtype.kind in "iu" and int(converted) != number:
        return None
    if dtype.kind == "f" and not np.isfinite(converted):
        return None
    return converted
