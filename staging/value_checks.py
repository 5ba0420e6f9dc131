"""Checks made when the graph runs, where a value that is a Python number on some path gives the
same type there as staged but may give another value.

staging.weak_paths refuses at trace time an op whose result type would differ on a path where
an input is still a Python number. Some differences show only in values: a division by zero
(Python raises, NumPy returns inf or nan), integer arithmetic that wraps around in a fixed-width
dtype (Python's int does not), a product or remainder giving -0.0 (Python's int gives 0),
`np.uint8(v)` of an int that does not fit (Python raises OverflowError). For those `record`
adds a check to the graph after the op; the call raises, naming the line and the variable,
only when the values would differ.
"""

from __future__ import annotations

import numpy as np

from runtime import TensorType

from . import errors
from .source_map import where
from .weak_paths import NUMBERS, describe, in_explicit_call

# Ops that give the int 0 from Python ints where the same values as floats may give -0.0.
_INT_ZERO_OPS = {
    "negative": "-",
    "multiply": "*",
    "mul": "*",
    "remainder": "%",
    "floor_divide": "//",
}

_DIVISIONS = frozenset(("divide", "true_divide", "floor_divide", "remainder", "divmod"))


def _is_tensor(x) -> bool:
    return hasattr(type(x), "_weak_paths")  # (staging.tensor.Tensor, which imports this module)


def guard_divisor(op_name, inputs, in_types, record) -> bool:
    """Records (with `record`, the graph's) the run-time check of `zero_divisor` when the op
    needs one; True when it did."""
    message = zero_divisor(op_name, inputs, in_types)
    if message is None:
        return _guard_zero_trip_divisor(op_name, inputs, in_types, record)
    divisor = inputs[1]
    nonzero = record("not_equal", [divisor, 0]) if _is_tensor(divisor) else False
    record("assert", [nonzero], {"parts": (message,), "error": errors.ZeroDivisorError})
    return True


def _guard_zero_trip_divisor(op_name, inputs, in_types, record) -> bool:
    """A division whose operands are all Python numbers when the staged loops making some of them
    ran zero times (they were Python numbers before those loops): where the divisor is zero and
    none of the loops ran, Python raises ZeroDivisionError, which the graph then raises too (it
    knows which path ran)."""
    if (
        op_name not in _DIVISIONS
        or len(inputs) != 2
        or in_explicit_call()
        or all(isinstance(t, TensorType) and t.weak or type(t) in NUMBERS for t in in_types)
    ):
        return False
    loops, first = (), None
    for item, t in zip(inputs, in_types):
        paths = getattr(item, "_weak_paths", None)
        zero_trip = paths.zero_trip if paths is not None else None
        if zero_trip is not None and isinstance(zero_trip[1], TensorType) and zero_trip[1].weak:
            loops += zero_trip[0]
            first = first or (item, paths, zero_trip)
        elif not (type(t) in NUMBERS or isinstance(t, TensorType) and t.weak):
            return False  # a NumPy value on that path: NumPy's division, which does not raise
    divisor = inputs[1]
    if first is None or (type(divisor) in NUMBERS and divisor != 0):
        return False
    item, paths, (_, kind, check_ran) = first
    message = (
        f"{where()}{op_name}: division by zero: {paths.name} is still {describe(kind)} because "
        f"the staged loop at {paths.location.rstrip(': ')} ran zero times, and Python's "
        f"division of such numbers raises ZeroDivisionError"
    )
    nonzero = record("not_equal", [divisor, 0]) if _is_tensor(divisor) else None
    check_ran(loops, message, errors.ZeroDivisorError, unless=nonzero)
    return True


def check_result(op_name, inputs, in_types, output_types, attrs, out, record) -> None:
    """The run-time checks of an op's result `out` (recorded with `record`, the graph's) where a
    value that is a Python number on some path would give another value there: integer
    arithmetic that wrapped around (`wraps`), and a negated zero (`negative_zero`)."""
    message = wraps(op_name, inputs, in_types, output_types)
    if message is not None:
        as_int = [
            record("python_number", [x], {"kind": int}) if _is_tensor(x) else x for x in inputs
        ]
        exact = record(op_name, as_int, attrs)
        same = record("equal", [exact, record("python_number", [out], {"kind": int})])
        record("assert", [same], {"parts": (message,), "error": errors.WrappedIntegerError})
    message = negative_zero(op_name, inputs, in_types, output_types)
    if message is not None:
        fine = record(
            "logical_or",
            [record("not_equal", [out, 0]), record("logical_not", [record("signbit", [out])])],
        )
        record("assert", [fine], {"parts": (message,), "error": errors.SignedZeroError})
    bounds = unfit_conversion(op_name, inputs, in_types, attrs)
    if bounds is not None:
        (low, high), message = bounds
        checks = ([record("greater_equal", [inputs[0], low])] if low is not None else []) + (
            [record("less_equal", [inputs[0], high])] if high is not None else []
        )
        fits = checks[0] if len(checks) == 1 else record("logical_and", checks)
        record("assert", [fits], {"parts": (message,), "error": errors.NumberDoesNotFitError})


def unfit_conversion(op_name, inputs, in_types, attrs):
    """For `np.uint8(v)` (any NumPy integer type) of a value `v` that is a Python int on some
    path: eagerly that raises OverflowError where the int does not fit, while the staged
    integer value wraps around. ((low, high), message) of the run-time refusal when it does
    not fit (a bound None where the staged dtype cannot pass it), or None."""
    if op_name != "astype" or not attrs.get("scalar") or not inputs:
        return None
    target, source = np.dtype(attrs["dtype"]), in_types[0]
    paths = getattr(inputs[0], "_weak_paths", None)
    if (
        paths is None
        or target.kind not in "iu"
        or not isinstance(source, TensorType)
        or source.dtype.kind not in "iufc"
    ):  # (a complex compares by its real part first)
        return None
    others = [*paths.types, *((paths.zero_trip[1],) if paths.zero_trip is not None else ())]
    kind = next(
        (
            u
            for u in others
            if isinstance(u, TensorType) and u.weak and u.python_type in (int, float)
        ),
        None,
    )
    if kind is None:
        return None
    want = np.iinfo(target)
    have = np.iinfo(source.dtype) if source.dtype.kind in "iu" else None
    low = int(want.min) if have is None or want.min > have.min else None
    high = int(want.max) if have is None or want.max < have.max else None
    if low is None and high is None:
        return None
    if kind.python_type is float and source.dtype.kind in "fc":  # (truncated first: it fits when
        # low - 1 < v < high + 1, in the precision of v)
        real = np.finfo(source.dtype).dtype.type
        low, high = (
            float(np.nextafter(real(low - 1.0), real(np.inf))) if low is not None else None,
            float(np.nextafter(real(high + 1.0), real(-np.inf))) if high is not None else None,
        )
    return (low, high), _run_time_message(
        f"np.{target.name}",
        "the value does not fit it",
        (inputs[0], paths),
        f"np.{target.name}() of such a Python {kind.python_type.__name__} raises "
        f"OverflowError on the first, and casts without a check on the second",
        kind,
    )


def negative_zero(op_name, inputs, in_types, output_types):
    """For `-v` where `v` is a Python int on some path and a float staged: the message of the
    run-time refusal when the result is -0.0 (`-0` is the int 0, positive, eagerly), or None."""
    if op_name not in _INT_ZERO_OPS or in_explicit_call():
        return None
    out = output_types[0] if isinstance(output_types, (tuple, list)) else output_types
    paths = getattr(inputs[0], "_weak_paths", None)
    if (
        paths is None
        or not isinstance(out, TensorType)
        or out.dtype.kind not in "fc"
        or not any(
            isinstance(u, TensorType) and u.weak and u.python_type in (bool, int)
            for u in paths.types
        )
    ):
        return None
    for item in inputs[1:]:  # all operands ints on that path: the result is an int, never -0.0
        other = getattr(item, "_weak_paths", None)
        if not (
            type(item) in (bool, int)
            or other is not None
            and any(
                isinstance(u, TensorType) and u.weak and u.python_type in (bool, int)
                for u in other.types
            )
        ):
            return None
    return _run_time_message(
        op_name,
        "the result is -0.0",
        (inputs[0], paths),
        f"`{_INT_ZERO_OPS[op_name]}` of Python ints gives the int 0 on the first, "
        f"and -0.0 here may come from either",
    )


def zero_divisor(op_name, inputs, in_types):
    """For a division whose operands may all be Python numbers on some path (one of them a
    joined value, the others Python numbers there too) while the staged op is NumPy's: the
    message of the run-time refusal when the divisor is zero (there Python raises
    ZeroDivisionError and NumPy returns inf or 0), or None when no path can differ."""
    if op_name not in _DIVISIONS or len(inputs) != 2 or in_explicit_call():
        return None
    if all(isinstance(t, TensorType) and t.weak or type(t) in NUMBERS for t in in_types):
        return None  # Python's own operator on every path: it raises as Python does
    joined = _python_on_some_path(inputs, in_types)
    divisor = inputs[1]
    if joined is None or (type(divisor) in NUMBERS and divisor != 0):
        return None
    return _run_time_message(
        op_name,
        "the divisor is zero",
        joined,
        "Python raises ZeroDivisionError on the "
        "first, NumPy returns inf, nan or 0 with a warning on the second",
    )


def _run_time_message(op_name, what, joined, eagerly, kind=None) -> str:
    """The message of a check made when the graph runs, for `joined` (item, paths); `kind` the
    Python number's type on the other path (by default, paths' first)."""
    item, paths = joined
    kind = kind or next(u for u in paths.types if isinstance(u, TensorType) and u.weak)
    return (
        f"{where()}{op_name}: {what}, and {paths.name} is {describe(kind)} on some paths and "
        f"{describe(item.type)} on others (they meet at {paths.location.rstrip(': ')}): eagerly "
        f"{eagerly}, and the staged function does not know which path ran. Convert {paths.name} "
        f"explicitly where it is set (e.g. np.{item.type.dtype.name}(...)) so that every path has "
        f"the same type"
    )


# Python's integer operators whose result NumPy's fixed-width integers can wrap around.
_WRAPPING = frozenset(
    (
        "add",
        "subtract",
        "multiply",
        "mul",
        "power",
        "pow",
        "left_shift",
        "negative",
        "absolute",
        "floor_divide",
    )
)


def _python_on_some_path(inputs, in_types):
    """(item, paths) of a joined input when every input may be a Python number on one path (a
    joined value that is one on another path, or a Python number on every path), else None."""
    joined = None
    for item, t in zip(inputs, in_types):
        paths = getattr(item, "_weak_paths", None)
        if paths is not None and any(u.weak for u in paths.types if isinstance(u, TensorType)):
            joined = joined or (item, paths)
        elif not (type(t) in NUMBERS or isinstance(t, TensorType) and t.weak):
            return None  # a NumPy value on every path: NumPy's arithmetic everywhere
    return joined


def wraps(op_name, inputs, in_types, output_types):
    """For integer arithmetic whose operands may all be Python ints on some path while the staged
    op computes in a fixed-width dtype: the message of the run-time refusal when the result
    wrapped around (Python's int would not), or None when no path can differ."""
    if isinstance(output_types, (tuple, list)) and len(output_types) == 1:
        output_types = output_types[0]
    if (
        op_name not in _WRAPPING
        or in_explicit_call()
        or not isinstance(output_types, TensorType)
        or output_types.weak
        or output_types.dtype.kind not in "iu"
    ):
        return None
    if any(
        isinstance(t, TensorType)
        and t.weak
        and t.python_type not in (bool, int)
        or type(t) in (float, complex)
        for t in in_types
    ):
        return None
    joined = _python_on_some_path(inputs, in_types)
    if joined is None or not all(
        isinstance(u, TensorType) and u.weak and u.python_type in (bool, int)
        for u in joined[1].types
        if isinstance(u, TensorType) and u.weak
    ):
        return None
    dtype = output_types.dtype.name
    return _run_time_message(
        op_name,
        f"the result wrapped around in {dtype}",
        joined,
        f"Python's int does not wrap on the first, NumPy's {dtype} does on the second",
    )
