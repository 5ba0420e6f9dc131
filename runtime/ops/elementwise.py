"""Every NumPy ufunc as an op (name = ufunc.__name__), with one generic NEP 50 dtype rule."""

from __future__ import annotations

import operator
import re
import warnings

import numpy as np

from ..registry import register_op
from ..types import TensorType, UnionType, broadcast_shapes
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
PYTHON_OPERATORS = {
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
    return tuple(TensorType.python_scalar(type(r)) for r in results)


def make_ufunc_infer(ufunc: np.ufunc, python_arithmetic: bool = True):
    """The type rule of `ufunc`: NumPy's (NEP 50), or with `python_arithmetic` Python's own for
    operands that are all Python numbers, as a Python operator computes them."""

    def infer(*types):
        if len(types) != ufunc.nin:
            raise TypeError(f"{ufunc.__name__} takes {ufunc.nin} input(s), got {len(types)}")
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


_DTYPE_CACHE: dict = {}
_DTYPE_CACHE_LIMIT = 4096


def _dtypes(ufunc: np.ufunc, types) -> list[np.dtype]:
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


register_op(
    "ufunc_call",
    infer=_ufunc_call_infer,
    make_kernel=lambda ufunc: UFUNCS[ufunc],
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


def _ufunc_out_infer(target, *types, ufunc):
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


def _ufunc_out_kernel(ufunc):
    func = UFUNCS[ufunc]

    python_operator = PYTHON_OPERATORS.get(ufunc)

    def run(target, *inputs):
        if type(target) in _PY_NUMBERS:  # (a Python number on this path: immutable)
            return python_operator(*inputs)
        out = np.array(target, copy=True)
        func(*inputs, out=out)
        return out

    return run


register_op(
    "ufunc_out",
    infer=_ufunc_out_infer,
    make_kernel=_ufunc_out_kernel,
    doc="np.<ufunc>(*inputs, out=<a copy of target>) (x += y); the result has target's type",
)(lambda target, *inputs, ufunc: _ufunc_out_kernel(ufunc)(target, *inputs))


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


# ufuncs that convert a Python int operand to a float64 array's dtype (NEP 50) before computing
INT_AS_FLOAT = frozenset(
    (
        "add",
        "subtract",
        "multiply",
        "divide",
        "floor_divide",
        "remainder",
        "maximum",
        "minimum",
        "less",
        "less_equal",
        "greater",
        "greater_equal",
        "equal",
        "not_equal",
    )
)
