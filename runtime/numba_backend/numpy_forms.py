"""NumPy's arithmetic on NumPy values of every dtype the numba backend takes, as nopython code.

An op whose result is a NumPy value is computed in the dtypes NumPy computes it in: its ufunc's
loop for the input types (`ufunc.resolve_dtypes`, NEP 50: a Python number takes the other
operand's dtype), the same on every path or the op is not written. Each operand is cast to its
loop dtype as NumPy casts it (a Python int that the dtype does not hold raises OverflowError
eagerly: the call reruns), then:

- integers of 8 to 32 bits are computed in int64 and checked to fit the dtype (NumPy's scalars
  warn on an overflow; numba would widen), int64 and uint64 by checked helpers; arrays of
  integers wrap silently, as NumPy's do, and a division checks its divisors (NumPy warns on a
  zero; `lo // -1` traps in machine code);
- float32 results are rounded from the operation on the operands (exact for `+ - * /`: a double
  holds the float32 result before its rounding), and checked finite, as float64 ones are;
- comparisons of integers are exact (NumPy's loops compare int64 with uint64, and Python ints
  with any integer dtype, exactly); those involving floats compare in the loop's float dtype.
"""

from __future__ import annotations

import math
import operator
from fractions import Fraction

import numpy as np

from ..graph import Node, Value
from ..ops._rules import is_weak
from ..ops.elementwise import loop_dtypes
from ..registry import kind_combinations

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_INT64 = np.dtype(np.int64)
_UINT64 = np.dtype(np.uint64)
_FLOAT64 = np.dtype(np.float64)
# a float dtype's exactly held integers: |n| up to 2**mantissa (a Python int beyond may be
# rounded otherwise by NumPy, through a double, than by numba's direct conversion)
_EXACT = {np.dtype(np.float32): 2**24, _FLOAT64: 2**53}
# the overflow-checked helper of Python's operator on two int64 operands
_CHECKED_INT = {operator.add: "_h.add_int", operator.sub: "_h.sub_int", operator.mul: "_h.mul_int"}
_UNSIGNED_HELPERS = {
    operator.add: "_h.add_uint",
    operator.sub: "_h.sub_uint",
    operator.mul: "_h.mul_uint",
}


def loop_of(node: Node, op) -> tuple | None:
    """The dtypes NumPy computes the node in (one per input, then the output's), or None: the op
    is no ufunc, Python's arithmetic computes it on some path, or the dtypes differ by path."""
    if op.out_ufunc is None or op.out_ufunc.nout != 1:
        return None
    types = [v.type if isinstance(v, Value) else v for v in node.inputs]
    groups = [id(v) if isinstance(v, Value) else -k - 1 for k, v in enumerate(node.inputs)]
    loops = set()
    for combination in kind_combinations(types, groups):
        if all(is_weak(t) for t in combination):
            return None
        try:
            loops.add(tuple(loop_dtypes(op.out_ufunc, combination)))
        except (TypeError, ValueError):
            return None
    return loops.pop() if len(loops) == 1 else None


def cast(ctx, node: Node, item, dtype: np.dtype) -> str:
    """Operand `item` (a graph value or a literal) cast to `dtype` as NumPy casts it."""
    form = ctx.form(node, item)
    ref = ctx.ref(item)
    if form.dtype == dtype:
        return ref
    name = f"np.{dtype.name}"
    if form.ndim:
        return f"{ref}.astype({name})"
    if form.weak is False or form.kind == "b":
        return f"{name}({ref})"
    if form.kind == "i":
        return _python_int(ctx, node, item, ref, dtype)
    return _python_float(ctx, node, item, ref, dtype)


def _python_int(ctx, node: Node, item, ref: str, dtype: np.dtype) -> str:
    """A Python int (within int64) as a value of `dtype` (NEP 50)."""
    name = f"np.{dtype.name}"
    if dtype.kind == "f":
        limit = _EXACT[dtype]
        if not isinstance(item, Value):
            if abs(item) > limit:
                ctx.unsupported(node, f"the int {item} meets a {dtype} value")
            return f"{name}({ref})"
        return ref if dtype == _FLOAT64 else f"{name}(_h.exact_within({ref}, {limit}))"
    if dtype.kind not in "iu":
        ctx.unsupported(node, f"a Python int meets a {dtype} value")
    info = np.iinfo(dtype)
    lo, hi = max(int(info.min), _INT64_MIN), min(int(info.max), _INT64_MAX)
    if not isinstance(item, Value):
        if not lo <= item <= hi:
            ctx.unsupported(node, f"the int {item} does not fit {dtype}")
        return f"{name}({ref})"
    return f"{name}(_h.within({ref}, {lo}, {hi}))"


def _python_float(ctx, node: Node, item, ref: str, dtype: np.dtype) -> str:
    """A Python float as a value of float dtype `dtype` (NumPy warns where it overflows)."""
    if dtype.kind != "f":
        ctx.unsupported(node, f"a Python float meets a {dtype} value")
    name = f"np.{dtype.name}"
    if not isinstance(item, Value):
        with np.errstate(over="ignore"):
            if np.isfinite(item) and not np.isfinite(dtype.type(item)):
                ctx.unsupported(node, f"the float {item!r} overflows {dtype}")
        return f"{name}({ref})"
    return f"_h.finite({name}({ref}))"


def scalar_expr(ctx, node: Node, op, out) -> str:
    """The checked expression of a scalar op whose result is a NumPy scalar of form `out`."""
    loop = _loop(ctx, node, op)
    ins, result = loop[:-1], loop[-1]
    if op.comparison:
        return _compare(ctx, node, op, ins)
    if result != out.dtype or len(set(ins)) != 1 or op.unboxed is None:
        ctx.unsupported(node, "it has no nopython form yet")
    dtype = ins[0]
    refs = [cast(ctx, node, item, dtype) for item in node.inputs]
    if dtype.kind in "iu":
        return _integer(ctx, node, op, refs, dtype)
    if dtype.kind != "f" or (dtype != _FLOAT64 and op.unboxed == "small_power"):
        ctx.unsupported(node, f"it has no nopython form on {dtype} yet")
    if dtype == _FLOAT64:
        return float64_expr(ctx, node, op, refs, dtype.kind)
    expr = f"np.{dtype.name}({op.python_expr.format(*refs)})"
    if op.unboxed in ("identity", "unary"):
        return expr
    if op.unboxed in ("arithmetic", "division"):
        return f"_h.finite({expr})"
    ctx.unsupported(node, f"it has no nopython form on {dtype} yet")
    return ""


def _loop(ctx, node: Node, op) -> tuple:
    loop = loop_of(node, op)
    if loop is None:
        ctx.unsupported(
            node,
            "NumPy computes it in other dtypes on different paths, or it has no nopython form yet",
        )
    assert loop is not None
    return loop


def _compare(ctx, node: Node, op, ins) -> str:
    if all(d.kind in "iub" for d in ins):  # exact, as NumPy's integer comparisons are
        dtypes = [ctx.form(node, item).dtype for item in node.inputs]
        refs = [ctx.ref(item) for item in node.inputs]
        if _UINT64 in dtypes and any(d.kind == "i" for d in dtypes):
            return op.python_expr.format(f"_h.order_mixed({refs[0]}, {refs[1]})", "0")
        return op.python_expr.format(*refs)
    refs = [cast(ctx, node, item, d) for item, d in zip(node.inputs, ins)]
    return op.python_expr.format(*refs)


def _integer(ctx, node: Node, op, refs: list[str], dtype: np.dtype) -> str:
    name = f"np.{dtype.name}"
    form = op.unboxed
    if form == "identity":
        return f"{name}({refs[0]})"
    if dtype == _INT64:
        return int64_expr(ctx, node, op, refs)
    if dtype == _UINT64:
        return f"{name}({_unsigned64(ctx, node, op, refs)})"
    wide = [f"np.int64({r})" for r in refs]
    if form == "arithmetic" and op.python_operator in (operator.add, operator.sub):
        expr = op.python_expr.format(*wide)
    elif form == "arithmetic" and op.python_operator is operator.mul:
        expr = f"_h.mul_int({wide[0]}, {wide[1]})"
    elif form == "unary":
        expr = op.python_expr.format(wide[0])
    elif form == "integer_division":
        expr = op.python_expr.format(wide[0], f"_h.divisor_int({wide[0]}, {wide[1]})")
    else:
        ctx.unsupported(node, f"it has no nopython form on {dtype} yet")
    info = np.iinfo(dtype)
    return f"{name}(_h.within({expr}, {int(info.min)}, {int(info.max)}))"


def _unsigned64(ctx, node: Node, op, refs: list[str]) -> str:
    form = op.unboxed
    if form == "arithmetic" and op.python_operator in _UNSIGNED_HELPERS:
        return f"{_UNSIGNED_HELPERS[op.python_operator]}({refs[0]}, {refs[1]})"
    if form == "unary":
        return refs[0] if op.python_operator is operator.abs else f"_h.neg_uint({refs[0]})"
    if form == "integer_division":
        return op.python_expr.format(refs[0], f"_h.divisor_uint({refs[1]})")
    ctx.unsupported(node, "it has no nopython form on uint64 yet")
    return ""


def _literal_factor(node: Node) -> int | None:
    """The position of a literal int operand of a product, or None."""
    for k, item in enumerate(node.inputs):
        if type(item) is int:
            return k
    return None


def _times_literal(node: Node, refs: list[str]) -> str:
    """x * c for a literal c, checked by the range of x whose product fits int64 (bounds
    computed here: no division when the code runs)."""
    k = _literal_factor(node)
    assert k is not None
    c, x = node.inputs[k], refs[1 - k]
    if c == 0:
        return f"({x} * 0)"
    ends = sorted((Fraction(_INT64_MIN, c), Fraction(_INT64_MAX, c)))
    lo, hi = math.ceil(ends[0]), math.floor(ends[1])
    return f"(_h.within({x}, {lo}, {hi}) * {c})"


def _fits_int64(ctx, node: Node, op) -> bool:
    """Whether the ranges known of the operands keep the result within int64."""
    ranges = [ctx.range_of(v) for v in node.inputs]
    if len(ranges) != 2 or None in ranges:
        return False
    ends = [op.python_operator(a, b) for a in ranges[0] for b in ranges[1]]
    return _INT64_MIN <= min(ends) and max(ends) <= _INT64_MAX


def array_expr(ctx, node: Node, op, out, checked: bool = True) -> str:
    """The expression of an elementwise op with an array operand: NumPy's ufunc on operands cast
    to its loop's dtypes, where numba's loop gives NumPy's bits. A float result is checked
    finite unless `checked` is False (a link of a chain that the end's check covers)."""
    loop = _loop(ctx, node, op)
    ins, result = loop[:-1], loop[-1]
    if len(set(ins)) != 1 or result != out.dtype:
        ctx.unsupported(node, f"NumPy computes it in dtypes {loop}, which numba does not")
    dtype = ins[0]
    refs = [cast(ctx, node, item, dtype) for item in node.inputs]
    call = f"np.{op.out_ufunc.__name__}"
    if op.comparison or op.logical is not None:
        return f"{call}({', '.join(refs)})"
    if dtype.kind == "f" and op.correctly_rounded:
        expr = f"{call}({', '.join(refs)})"
        return f"_h.all_finite({expr})" if checked else expr
    if dtype.kind in "iu" and op.unboxed in ("arithmetic", "unary", "identity"):
        return f"{call}({', '.join(refs)})"
    if dtype.kind in "iu" and op.unboxed == "integer_division":
        lo = int(np.iinfo(dtype).min)
        return f"{call}({refs[0]}, _h.divisors({refs[0]}, {refs[1]}, {lo}))"
    ctx.unsupported(node, f"its nopython form on {dtype} arrays may differ from NumPy's")
    return ""


def int64_expr(ctx, node: Node, op, refs: list[str]) -> str:
    """The checked expression of an op computed on int64 numbers (Python's ints within int64,
    NumPy's int64 scalars: the same numbers where neither overflows)."""
    form = op.unboxed
    if form == "identity":
        return op.python_expr.format(*refs)
    if form == "unary":
        return op.python_expr.format(f"_h.neg_int({refs[0]})")
    if form == "arithmetic" and op.python_operator in _CHECKED_INT:
        if _fits_int64(ctx, node, op):  # (known ranges: no overflow to check)
            return op.python_expr.format(*refs)
        if op.python_operator is operator.mul and _literal_factor(node) is not None:
            return _times_literal(node, refs)
        return f"{_CHECKED_INT[op.python_operator]}({refs[0]}, {refs[1]})"
    if form == "integer_division":
        divisor = node.inputs[1]
        if type(divisor) is int and divisor not in (0, -1):  # (a literal: nothing to check)
            return op.python_expr.format(*refs)
        return op.python_expr.format(refs[0], f"_h.divisor_int({refs[0]}, {refs[1]})")
    if form == "division":
        exact = [f"_h.exact_int({r})" for r in refs]
        return f"_h.finite({op.python_expr.format(*exact)})"
    ctx.unsupported(node, "it has no nopython form on integers yet")
    return ""


def float64_expr(ctx, node: Node, op, refs: list[str], first_kind: str) -> str:
    """The checked expression of an op computed on float64 numbers (`first_kind`: its first
    operand's dtype kind)."""
    form = op.unboxed
    if form in ("identity", "unary"):
        return op.python_expr.format(*refs)
    if form in ("arithmetic", "division"):
        return f"_h.finite({op.python_expr.format(*refs)})"
    if form == "small_power":
        exponent = node.inputs[1]
        if first_kind == "f" and type(exponent) is int and 0 <= exponent <= 64:
            return f"_h.finite({refs[0]} ** {float(exponent)!r})"
    ctx.unsupported(node, "it has no nopython form on floats yet")
    return ""
