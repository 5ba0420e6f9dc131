"""Ops that are not NumPy functions: constants, print, assertions, Python calls,
variables and lists (TensorArrays)."""

from __future__ import annotations

import functools
import sys

import numpy as np

from .graph import ListType, Node, Value
from .registry import register_op
from .types import TensorType


class _ArgSlot:
    """Stands for "the next input" inside a print/assert format tuple."""

    def __repr__(self):
        return "_"

    def __graph_repr__(self):
        return "_"


ARG = _ArgSlot()


def _fill(parts, args):
    it = iter(args)
    return [next(it) if p is ARG else p for p in parts]


# -- constants ---------------------------------------------------------------


def _const_infer(*, value):
    return TensorType.of(value)


def _constant_value(node):
    return node.attrs["value"]


register_op(
    "const",
    infer=_const_infer,
    make_kernel=lambda value: lambda: value,
    weak_results=True,
    constant=_constant_value,
    raises="never",
    doc="a constant: a NumPy value, or a Python number (of a weak type)",
)(lambda *, value: value)


def constant_node(value, type_, location=None):
    """A node of the constant `value`, of type `type_` (for passes that fold values)."""
    return Node("const", [], {"value": value}, [type_], location)


# -- print / assert ----------------------------------------------------------


def _print_kernel(parts, sep, end):
    """print(*parts, sep=sep, end=end) with the values of the ARG parts filled in: the text print
    would write, written to sys.stdout (as it is when the graph runs) in one call."""
    sep = " " if sep is None else sep
    end = "\n" if end is None else end
    if type(sep) is not str or type(end) is not str:  # print's own error, when it runs
        return lambda *args: print(*_fill(parts, args), sep=sep, end=end, file=sys.stdout)
    if not any(p is ARG for p in parts):  # the whole text is known now
        text = sep.join([str(p) for p in parts]) + end

        def run():
            out = sys.stdout
            if out is not None:  # (no console: print writes nothing)
                out.write(text)

        return run

    def run(*args):
        out = sys.stdout
        if out is not None:
            out.write(sep.join([str(p) for p in _fill(parts, args)]) + end)

    return run


register_op(
    "print",
    infer=lambda *ts, parts, sep, end: (),
    num_outputs=0,
    stateful=True,
    make_kernel=_print_kernel,
)(lambda *args, parts, sep, end: _print_kernel(parts, sep, end)(*args))


def _assert_kernel(parts, error=AssertionError):
    """Raises `error` (AssertionError, or an error type of the staging layer's own checks) with
    the parts as its message when the condition is false."""

    def run(condition, *args):
        if not condition:
            raise error(" ".join(str(p) for p in _fill(parts, args)) if parts else "")

    return run


register_op(
    "assert",
    infer=lambda *ts, parts, error=AssertionError: (),
    num_outputs=0,
    stateful=True,
    make_kernel=_assert_kernel,
)(lambda c, *args, parts, error=AssertionError: _assert_kernel(parts, error)(c, *args))


# -- writes into the caller's arrays -------------------------------------------


def _write_argument(target, value):
    """The array a staged function wrote into in place (its argument, the caller's array) gets
    the written value, at the end of the graph; gives the array itself, for the results."""
    target[...] = value
    return target


register_op(
    "write_argument",
    infer=lambda target, value: target,
    stateful=True,
    may_alias_input=True,
    doc="target[...] = value into an argument array; returns target",
)(_write_argument)


def _distinct_arrays_kernel(written, names, message, error):
    """Raises `error` when one of the first `written` arrays shares memory with another input."""

    def run(*arrays):
        for i in range(written):
            for j, other in enumerate(arrays):
                if (
                    j != i
                    and isinstance(other, np.ndarray)
                    and np.may_share_memory(arrays[i], other)
                ):
                    raise error(message.format(names[i], names[j]))

    return run


register_op(
    "distinct_arrays",
    infer=lambda *ts, written, names, message, error: (),
    num_outputs=0,
    stateful=True,
    make_kernel=_distinct_arrays_kernel,
    doc="raises when an array written in place shares memory with another input",
)(
    lambda *arrays, written, names, message, error: _distinct_arrays_kernel(
        written, names, message, error
    )(*arrays)
)


# -- Python escape hatch -----------------------------------------------------


def _py_function_kernel(func, out_types):
    single = not isinstance(out_types, tuple)
    types = (out_types,) if single else out_types

    def run(*args):
        result = func(*args)
        results = (result,) if single else tuple(result)
        if len(results) != len(types):
            raise ValueError(
                f"py_function {getattr(func, '__name__', func)!r} returned "
                f"{len(results)} values, Tout declares {len(types)}"
            )
        converted = []
        for value, t in zip(results, types):
            arr = np.asarray(value)
            if arr.dtype != t.dtype:
                arr = arr.astype(t.dtype)
            if not t.accepts_shape(arr.shape):
                raise ValueError(
                    f"py_function {getattr(func, '__name__', func)!r} returned shape "
                    f"{arr.shape}, Tout declares {t}"
                )
            converted.append(arr[()] if arr.ndim == 0 else arr)
        return tuple(converted)

    return run


def _py_function_infer(*ts, func, out_types):
    return out_types if isinstance(out_types, tuple) else (out_types,)


register_op(
    "py_function",
    infer=_py_function_infer,
    stateful=True,
    num_outputs=None,
    make_kernel=_py_function_kernel,
)(lambda *args, func, out_types: _py_function_kernel(func, out_types)(*args))


# -- variables ---------------------------------------------------------------
# `var` is any object with `dtype`, `shape`, a `_value` attribute holding a NumPy value and a
# `_lock` (a threading.Lock) that makes each update atomic.

register_op(
    "read_variable",
    infer=lambda *, var: TensorType(var.dtype, var.shape),
    stateful=True,
    may_alias_state=True,
    make_kernel=lambda var: lambda: var._value,
)(lambda *, var: var._value)


def update_variable(var, mode: str, value) -> None:
    """`var = value` (mode "set"), `var += value` ("add") or `var -= value` ("sub"), atomically:
    concurrent updates of one variable from several threads never lose one another."""
    _UPDATES[mode](var, value)


def _stored(new, dtype):
    """`new` as the variable holds it: its dtype, and a NumPy scalar when it is 0-d."""
    if new.dtype != dtype:
        new = new.astype(dtype)
    if type(new) is np.ndarray and new.ndim == 0:
        return new[()]
    return new


def _set(var, value):
    dtype = var.dtype
    if type(value) is dtype.type:  # a NumPy scalar of the variable's dtype: stored as it is
        new = value
    else:
        new = np.array(value, dtype=dtype)
        new = new[()] if new.ndim == 0 else new
    with var._lock:
        var._value = new


def _add(var, value):
    with var._lock:
        var._value = _stored(var._value + value, var.dtype)


def _sub(var, value):
    with var._lock:
        var._value = _stored(var._value - value, var.dtype)


_UPDATES = {"set": _set, "add": _add, "sub": _sub}


def _assign_kernel(var, mode):
    return functools.partial(_UPDATES[mode], var)


register_op(
    "assign_variable",
    infer=lambda t, *, var, mode: (),
    num_outputs=0,
    stateful=True,
    make_kernel=_assign_kernel,
    writes_variable=True,
)(lambda value, *, var, mode: _assign_kernel(var, mode)(value))


# -- lists (TensorArray) -----------------------------------------------------
# A list value is a Python list of NumPy values; writes happen in place.


def _list_new_infer(*size, element):
    return ListType(element)


def _list_new(*size, element):
    n = int(size[0]) if size else 0
    return [None] * n


register_op("list_new", infer=_list_new_infer, stateful=True)(_list_new)


def _list_write(lst, index, value, *, dynamic_size):
    n = len(lst)
    index = int(index)
    if index < 0:
        raise IndexError(f"TensorArray index {index} is negative")
    if index == n and dynamic_size:
        lst.append(value)
    elif index < n:
        lst[index] = value
    elif dynamic_size:
        lst.extend([None] * (index - n))
        lst.append(value)
    else:
        raise IndexError(
            f"TensorArray index {index} out of range for size {n} (dynamic_size=False)"
        )
    return lst


def _list_write_infer(lst, index, value, *, dynamic_size):
    if not isinstance(value, TensorType):  # a Python number, stored as it is: a Python number
        value = TensorType.of(value)
    if lst.element is None:
        return ListType(value)
    joined = lst.element.most_specific_common_supertype(value)
    if joined is None:
        raise TypeError(f"cannot write a {value} value into a list of {lst.element}")
    return ListType(joined)


def _list_write_emit(em, node, indent: int) -> None:
    """`lst.append(value)` inline for a write at len(lst) of a growing list (what append
    records); a call of the kernel otherwise."""
    lst, index, value = node.inputs
    size = index.producer if isinstance(index, Value) else None
    out = em.fresh(node.outputs[0])
    if (
        node.attrs["dynamic_size"]
        and size is not None
        and size.op == "list_size"
        and size.inputs[0] is lst
    ):
        em.emit(indent, f"{em.ref(lst)}.append({em.ref(value)}); {out} = {em.ref(lst)}", node)
    else:
        kernel = em.bind(functools.partial(_list_write, dynamic_size=node.attrs["dynamic_size"]))
        em.emit(indent, f"{out} = {kernel}({em.ref(lst)}, {em.ref(index)}, {em.ref(value)})", node)


register_op(
    "list_write", infer=_list_write_infer, stateful=True, emit=_list_write_emit, writes_list=True
)(_list_write)


def _list_read(lst, index):
    value = lst[int(index)]
    if value is None:
        raise ValueError(f"TensorArray element {int(index)} was read before it was written")
    return value


register_op("list_read", infer=lambda lst, i: lst.element, stateful=True, weak_results=True)(
    _list_read
)


def _list_pop_infer(lst):
    return (lst, lst.element)


def _list_pop(lst):
    if not lst:
        raise IndexError("pop from empty list")
    return lst, lst.pop()


register_op("list_pop", infer=_list_pop_infer, num_outputs=2, stateful=True, weak_results=True)(
    _list_pop
)


def _list_stack_kernel(dtype, element_shape, empty="zeros"):
    """Stacks a list. An empty list gives (0, *element_shape) zeros (TensorArray.stack, as in
    TensorFlow) with empty="zeros"; raises as np.stack does with empty="stack"; with
    empty="array" it is np.array() of an empty list, a float64 array of shape (0,), which the
    traced type of the result (another dtype or rank) cannot hold: an error."""
    zeros_shape = (0,) + tuple(0 if d is None else d for d in element_shape)
    traced = TensorType(dtype, (None,) + tuple(element_shape))

    # Elements of one fully known shape and a numeric dtype: np.array(lst, dtype) gives the
    # bits np.stack(lst).astype(dtype) gives (each element converted to dtype, stacked), without
    # np.stack's per-element Python work (25x faster for a list of scalars).
    direct = all(d is not None for d in element_shape) and np.dtype(dtype).kind in "biufc"
    unwritten = (
        (lambda lst: None in lst)
        if not element_shape
        else (lambda lst: any(v is None for v in lst))
    )  # `in` compares arrays elementwise: not for them

    def run(lst):
        if unwritten(lst):
            raise ValueError("TensorArray.stack(): some elements were never written")
        if direct and lst:
            return np.array(lst, dtype=dtype)
        if not lst:
            if empty == "stack":
                raise ValueError("need at least one array to stack")
            if empty == "array":
                raise ValueError(
                    f"an empty list converted to an array (np.array, or a NumPy function given the "
                    f"list) gives a float64 array of shape (0,), but the staged result was traced "
                    f"as {traced} from the elements appended while tracing; check for an empty "
                    f"list before converting it, or use np.stack (which raises on an empty list)"
                )
            return np.zeros(zeros_shape, dtype=dtype)
        return np.stack(lst).astype(dtype, copy=False)

    return run


def _list_stack_infer(lst, *, dtype, element_shape, empty="zeros"):
    if empty not in ("zeros", "stack", "array"):
        raise ValueError(f"list_stack: empty must be 'zeros', 'stack' or 'array', got {empty!r}")
    return TensorType(dtype, (None,) + tuple(element_shape))


register_op(
    "list_stack",
    infer=_list_stack_infer,
    stateful=True,
    make_kernel=_list_stack_kernel,
    doc="np.stack of a list's elements; attr empty says what an empty list gives",
)(
    lambda lst, *, dtype, element_shape, empty="zeros": _list_stack_kernel(
        dtype, element_shape, empty
    )(lst)
)

register_op(
    "list_size",
    infer=lambda lst: TensorType.python_scalar(int),
    stateful=True,
    weak_results=True,
    doc="len(lst): a Python int",
)(len)


# -- shapes and truth values -----------------------------------------------


def _dim_expr(x, *, axis):
    """`len(x)` / `x.shape[axis]` inline for an array (np.shape's dispatch costs more than the read)."""
    if not isinstance(x, TensorType) or not isinstance(axis, int) or not -x.ndim <= axis < x.ndim:
        return None
    return "len({0})" if axis in (0, -x.ndim) else f"{{0}}.shape[{axis}]"


register_op(
    "dim",
    infer=lambda x, *, axis: TensorType.python_scalar(int),
    weak_results=True,
    make_kernel=lambda axis: lambda x: np.shape(x)[axis],
    make_expr=_dim_expr,
    dimension=lambda node: (node.inputs[0], node.attrs["axis"]),
    doc="x.shape[axis]: a Python int",
)(lambda x, *, axis: np.shape(x)[axis])


# -- Python numbers --------------------------------------------------------------


def _python_number_infer(x, *, kind):
    """kind(x) of a scalar: a Python number (as int(), float(), bool(), complex() give)."""
    if type(x) not in (bool, int, float, complex) and not (
        isinstance(x, TensorType) and x.shape == ()
    ):
        raise TypeError(f"only 0-d values convert to a Python {kind.__name__}, not a {x}")
    if kind is not complex and isinstance(x, TensorType) and x.dtype.kind == "c":
        raise TypeError(
            f"{kind.__name__}() argument must be a string or a real number, not 'complex'"
        )
    return TensorType.python_scalar(kind)


register_op(
    "python_number",
    infer=_python_number_infer,
    weak_results=True,
    make_kernel=lambda kind: kind,
    doc="kind(x) of a scalar: a Python bool, int, float or complex",
)(lambda x, *, kind: kind(x))


def _truth(x):
    return np.bool_(bool(x))


def _truth_infer(x):
    if x.shape != ():
        raise ValueError(
            f"the truth value of an array of shape {x.shape} is ambiguous; "
            f"reduce it first with .any() or .all()"
        )
    return TensorType(np.bool_, ())


register_op("truth", infer=_truth_infer, expr="({0} != 0)")(_truth)
