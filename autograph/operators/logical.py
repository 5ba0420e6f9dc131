"""and_, or_, not_: Python's short-circuit logic on concrete values, staged on symbolic ones.

With a symbolic left operand, `x and y` / `x or y` become one staging.cond that
traces the right operand in its own branch (so it runs only when Python would
run it, e.g. `i < n and x[i] > 0` never reads x[n]). The result is the chosen
operand, as in Python (`x or y` is x if x is true, else y), when both operands
have the same dtype and shape, booleans included (a Python number of the same
kind counts).

Otherwise (say an int tensor `or` a float) Python's result would be an int or a
float depending on the value. Where converted code only uses the truth value
(the test of an `if`, `while`, `assert`...), the result is then the truth value
of the chosen operand, a boolean tensor (for `or` the right operand is traced a
second time). Where the value is used (`value=True`), it is refused with a
SymbolicValueError naming the line.
"""

from __future__ import annotations

import numpy as np

from autograph.operators import data_structures
from autograph.operators.contexts import mark_staged_region
from runtime.types import TensorType, UnionType, kinds, may_be_none
from staging import errors
from staging.control_flow import cond
from staging.core import strings
from staging.core.recording import record
from staging.core.source_map import where as _where
from staging.core.strings import is_staged_str
from staging.core.tensor import is_symbolic
from staging.numpy_api import complex_operand
from staging.state import python_state
from staging.state.containers import is_staged_container


def and_(a, b_fn, value=False):
    """`a and b`; b_fn runs only when a is true (in a staged cond when a is symbolic).
    `value`: the result's value is used, not only its truth."""
    if is_symbolic(a):
        return _staged(a, b_fn, when_true=True, value=value)
    return b_fn() if a else a


def or_(a, b_fn, value=False):
    """`a or b`; b_fn runs only when a is false (in a staged cond when a is symbolic).
    `value`: the result's value is used, not only its truth."""
    if is_symbolic(a):
        return _staged(a, b_fn, when_true=False, value=value)
    return a if a else b_fn()


def not_(a):
    """`not a`; a logical_not node when a is symbolic. For a Python number known at run time
    (a weak value) `not a` is `a == 0`, which stays a Python bool, as eagerly; for a value that
    is one on some paths, the Python bool of `a == 0` on every path."""
    if is_staged_str(a):  # an empty string is false
        return strings.call_method(a, "__len__", ()) == 0
    if is_staged_container(a):  # an empty container is false
        return a._length() == 0
    if data_structures.is_staged_value(a):  # (a staged list)
        return not_(a._truth_value())
    if is_symbolic(a):
        t = a.type
        if type(t) is TensorType and not t.weak:
            return np.logical_not(a)
        if may_be_none(t):  # (`None == 0` is False, but None is false)
            return record("python_number", [np.logical_not(record("truth", [a]))], {"kind": bool})
        equal = a == 0
        return equal if type(t) is TensorType else record("python_number", [equal], {"kind": bool})
    return not a


def eq(a, b):
    """`a == b` where the value is used. A Python complex `a` against a symbolic float64 scalar
    `b`: complex's own == takes np.float64 (a float subclass) and gives a Python bool, which
    the reflected `b == a` would not (on a NumPy scalar `b`; on a 0-d array NumPy's == runs);
    otherwise Python's ==."""
    if _python_complex_meets_float64(a, b):
        a = complex_operand(a, b)  # (NumPy's complex128 where b is a 0-d array)
        if type(a) is complex:
            return record("python_number", [np.equal(b, a)], {"kind": bool})
    if _python_complex_meets_several_kinds(a, b):
        return record("equal", [a, b])  # (in this order: Python's operator, kind by kind)
    return a == b


def not_eq(a, b):
    """`a != b` where the value is used; see eq."""
    if _python_complex_meets_float64(a, b):
        a = complex_operand(a, b)
        if type(a) is complex:
            return record("python_number", [np.not_equal(b, a)], {"kind": bool})
    if _python_complex_meets_several_kinds(a, b):
        return record("not_equal", [a, b])
    return a != b


def _python_complex_meets_float64(a, b) -> bool:
    return type(a) is complex and is_symbolic(b) and b.type == _FLOAT64_SCALAR


_FLOAT64_SCALAR = TensorType(np.float64, ())


def _python_complex_meets_several_kinds(a, b) -> bool:
    """A Python complex `a` against a value of several kinds by path (one may be a float64
    scalar, which complex's own operator takes): the op keeps the operand order, and each kind
    gives what Python's operator gives it (the reflected `b == a` would be NumPy's on every
    path)."""
    return type(a) is complex and is_symbolic(b) and type(b.type) is UnionType


def is_none(x):
    """`x is None`: staged (a Python bool when the graph runs) for a value that is None on some
    paths; False for any other staged value; Python's `is` otherwise."""
    if is_symbolic(x):
        return record("is_none", [x]) if may_be_none(x.type) else False
    return x is None


def is_not_none(x):
    """`x is not None`; see is_none."""
    if is_symbolic(x):
        return record("is_not_none", [x]) if may_be_none(x.type) else True
    return x is not None


def in_(item, container):
    """`item in container`. For a symbolic array `container`, NumPy's `ndarray.__contains__`,
    `(container == item).any()`, staged; the result is a Python bool, as Python makes the result
    of `__contains__` one. Otherwise Python's `in`."""
    if is_staged_str(container) or is_staged_str(item):
        return strings.contains(container, item)
    if is_staged_container(container):
        return container._contains(item)
    if is_symbolic(container):
        return record("python_number", [np.any(container == item)], {"kind": bool})
    if _number_in_numbers(item, container):
        return _staged_membership(item, container)
    return item in container


_PYTHON_NUMBERS = (bool, int, float, complex)
_NUMPY_NUMBERS = (np.bool_, np.number)
_COLLECTIONS = (tuple, list, set, frozenset, dict)


def _number_in_numbers(item, collection) -> bool:
    """A symbolic number `in` a tuple, list, set or dict of numbers (`c in (10, 32, 9)`):
    Python's `in` compares the item with each element (`is` first, never true for a value made
    when the graph runs; then `==`, whose truth it takes), which staged is the `or` of the
    comparisons. (Hashing finds the same element: equal numbers hash alike.) An array item is
    left to Python, which asks the truth of an array."""
    return (
        is_symbolic(item)
        and all(kind.shape == () for kind in kinds(item.type) if isinstance(kind, TensorType))
        and not may_be_none(item.type)
        and type(collection) in _COLLECTIONS
        and all(type(e) in _PYTHON_NUMBERS or isinstance(e, _NUMPY_NUMBERS) for e in collection)
    )


def _staged_membership(item, collection):
    """`item in collection` for _number_in_numbers: a Python bool known when the graph runs."""
    found = False
    for element in collection:
        equal = item == element
        found = equal if found is False else found | equal
    if found is False:  # (an empty collection)
        return False
    return record("python_number", [found], {"kind": bool})


def not_in(item, container):
    """`item not in container`: the negation of in_."""
    if is_symbolic(container) or is_staged_str(item) or _number_in_numbers(item, container):
        return not_(in_(item, container))
    return item not in container


def _staged(a, b_fn, when_true, value):
    """One staged cond giving b when a's truth is `when_true`, else a: the chosen operand, as it
    is on its path (the result's type is the join of both: a bool tensor `or` a Python int is
    either). Operands that cannot be one value (a tensor `or` a list) are joined by their truth
    values where only the truth is used (`value` False), and refused where the value is."""
    op = "and" if when_true else "or"
    where = _where()
    try:
        try:
            return _choose(a, b_fn, when_true, as_truth=False)
        except errors.BranchMismatchError as mismatch:
            if value:
                raise _mixed_error(op, a, mismatch) from None
            return _choose(a, b_fn, when_true, as_truth=True)
    except BaseException as error:
        mark_staged_region(error, where, f"`{op}`")
        raise


def _choose(a, b_fn, when_true, as_truth):
    def b_branch():
        b = b_fn()
        return _as_bool(b) if as_truth else b

    def a_branch():
        return _as_bool(a) if as_truth else a

    watch = python_state.Snapshot((b_fn,))
    if when_true:
        return cond(a, b_branch, a_branch, watch=watch)
    return cond(a, a_branch, b_branch, watch=watch)


def _mixed_error(op, a, mismatch):
    return errors.SymbolicValueError(
        f"{_where()}`x {op} y` with a symbolic x gives x or y as it is, and here they cannot be "
        f"one value ({mismatch}); the result would depend on x's value, known only when the "
        f"graph runs: give both operands one type (or use only the truth value, e.g. in an `if`)"
    )


def _as_bool(x):
    """The truth value of an operand, as a boolean (tensor or NumPy bool)."""
    if is_staged_str(x):
        return strings.truth(x)
    if is_staged_container(x) or data_structures.is_staged_value(x):
        return x._truth_value()
    if is_symbolic(x):
        # (the op itself: `x.astype` is the user's method, which a Python number lacks)
        if all(k.dtype == np.bool_ and not k.weak for k in kinds(x.type)):
            return x
        return record("astype", [x], {"dtype": np.dtype(np.bool_)})
    return np.bool_(bool(x))
