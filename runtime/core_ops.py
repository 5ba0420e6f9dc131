"""Ops that are not NumPy functions: constants, print, assertions, Python calls,
variables and lists (TensorArrays)."""

from __future__ import annotations

import functools
import sys
import threading

import numpy as np

from . import suspect_checks
from .graph import ListType, Node, Value
from .registry import INT, STR, AttrKind, add_vjps, one_of, register_op
from .types import (
    NONE,
    PYTHON_SCALAR_DTYPES,
    TensorType,
    TupleType,
    TypeJoinError,
    UnionType,
    is_str,
    join_types,
    kinds,
    may_be_none,
    union_of,
)


class _ArgSlot:
    """Stands for "the next input" inside a print/assert format tuple."""

    def __repr__(self):
        return "_"

    def __graph_repr__(self):
        return "_"


ARG = _ArgSlot()
ARG_SLOT = AttrKind("an argument slot", lambda v: v is ARG)  # (an attribute's kind)


def _slots_fit(condition: int):
    """check_attrs of an op whose `parts` hold a slot per input after the first `condition`."""

    def check(attrs, n_inputs):
        slots = sum(1 for p in attrs["parts"] if p is ARG)
        if slots != n_inputs - condition:
            return f"its message has {slots} argument slots for {n_inputs - condition} inputs"
        return None

    return check


def _fill(parts, args):
    it = iter(args)
    return [next(it) if p is ARG else p for p in parts]


# -- constants ---------------------------------------------------------------


def _const_infer(*, value):
    if value is None:  # (one kind of a value that is None on some paths)
        return NONE
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
    attr_kinds=(
        (
            "value",
            AttrKind(
                "a number, an array or None",
                lambda v: (
                    v is None
                    or type(v) in (bool, int, float, complex)
                    or isinstance(v, (np.generic, np.ndarray))
                ),
            ),
        ),
    ),
    lower=lambda ctx, node, *, value: value,
    doc="a constant: a NumPy value, a Python number (of a weak type) or None",
)(lambda *, value: value)


def constant_node(value, type_, location=None):
    """A node of the constant `value`, of type `type_` (for passes that fold values)."""
    return Node("const", [], {"value": value}, [type_], location)


# -- print / assert ----------------------------------------------------------


def with_printoptions(printoptions, run):
    """`run` under NumPy print options `printoptions` ((name, value) pairs), when there are any."""
    if not printoptions:
        return run
    options = dict(printoptions)

    def run_with_options(*args):
        with np.printoptions(**options):
            return run(*args)

    return run_with_options


def _output(file):
    """A function giving the file a print writes to, when it runs: sys.stdout or sys.stderr as
    they are then ("stdout", "stderr"), or a file object the node holds."""
    if file == "stdout":
        return lambda: sys.stdout
    if file == "stderr":
        return lambda: sys.stderr
    return lambda: file


def _print_kernel(parts, sep, end, file="stdout", flush=False, printoptions=()):
    """print(*parts, sep=sep, end=end, file=file, flush=flush) with the values of the ARG parts
    filled in: the text print would write, written in one call (nothing when the file is None:
    no console), under the NumPy print options `printoptions` ((name, value) pairs) if any."""
    sep = " " if sep is None else sep
    end = "\n" if end is None else end
    output = _output(file)
    if type(sep) is not str or type(end) is not str:  # print's own error, when it runs
        return lambda *args: print(
            *_fill(parts, args), sep=sep, end=end, file=output(), flush=flush
        )

    def write(text):
        out = output()
        if out is not None:
            out.write(text)
            if flush:
                out.flush()

    if not any(p is ARG for p in parts):  # the whole text is known now
        text = sep.join([str(p) for p in parts]) + end
        return lambda: write(text)

    def run(*args):
        write(sep.join([str(p) for p in _fill(parts, args)]) + end)

    return with_printoptions(printoptions, run)


def _lower_print(ctx, node, *inputs, **attrs):
    """An ordered host callback printing exactly the interpreter's text."""
    ctx.host_call(node, node.opdef.kernel(node.attrs), inputs)
    return ()


register_op(
    "print",
    takes_none=True,
    infer=lambda *ts, parts, sep, end, file="stdout", flush=False, printoptions=(): (),
    num_outputs=0,
    stateful=True,
    make_kernel=_print_kernel,
    run_time_errors=lambda node: (),
    check_attrs=_slots_fit(0),
    lower=_lower_print,
    host_effect=True,
    doc="print(*parts, sep=, end=, file=, flush=): ARG parts are the inputs, formatted by str()",
)(
    lambda *args, parts, sep, end, file="stdout", flush=False, printoptions=(): _print_kernel(
        parts, sep, end, file, flush, printoptions
    )(*args)
)


def _assert_kernel(parts, error=AssertionError):
    """Raises `error` (AssertionError, or an error type of the staging layer's own checks) when
    the condition is false: with no message, as `assert c` does; with the one part itself
    (`assert c, m` raises AssertionError(m), a string or the run-time value), or the parts
    joined by spaces."""

    def run(condition, *args):
        if not condition:
            if not parts:
                raise error()
            if len(parts) == 1:
                raise error(_fill(parts, args)[0])
            raise error(" ".join(str(p) for p in _fill(parts, args)))

    return run


def _lower_assert(ctx, node, condition, *inputs, **attrs):
    """A host callback raising the interpreter's error, run only when the condition is false."""

    def fail():
        ctx.host_call(node, node.opdef.kernel(node.attrs), (condition, *inputs))

    if ctx.is_static(condition):
        if not condition:
            fail()
        return ()
    if ctx.jnp.ndim(condition) != 0:  # the interpreter's `not array` raises: the callback does too
        fail()
        return ()
    ctx.jax.lax.cond(ctx.jnp.asarray(condition, dtype=bool), lambda: None, fail)
    return ()


register_op(
    "assert",
    takes_none=True,
    infer=lambda *ts, parts, error=AssertionError: (),
    num_outputs=0,
    stateful=True,
    make_kernel=_assert_kernel,
    run_time_errors=lambda node: (("exactly", node.attrs.get("error", AssertionError)),),
    user_error=True,
    check_attrs=_slots_fit(1),
    lower=_lower_assert,
    lower_calls_back=True,
)(lambda c, *args, parts, error=AssertionError: _assert_kernel(parts, error)(c, *args))


# -- raise ---------------------------------------------------------------------------------


class _NoCause:
    """The `cause` of a raise without `from` (`from None` is a cause: it hides the context)."""

    def __repr__(self):
        return "<no cause>"

    def __graph_repr__(self):
        return "-"


NO_CAUSE = _NoCause()


def _fill_nested(template, args):
    """`template` (tuples, lists and dicts of constants) with each ARG slot the next of `args`."""
    if template is ARG:
        return next(args)
    kind = type(template)
    if kind is tuple or kind is list:
        return kind(_fill_nested(t, args) for t in template)
    if kind is dict:
        return {k: _fill_nested(t, args) for k, t in template.items()}
    return template


def _recreated(cls, args, state):
    """An exception of class `cls` with `args` and attributes `state`, made without calling its
    __init__ (which may take other arguments than the `args` it leaves): a copy of an exception
    raised while tracing."""
    try:
        exc = cls.__new__(cls, *args)
        exc.args = tuple(args)
    except Exception:  # noqa: BLE001 - a __new__ that wants other arguments
        exc = BaseException.__new__(cls)
        exc.args = tuple(args)
    for name, value in state:
        try:
            setattr(exc, name, value)
        except (AttributeError, TypeError):  # pragma: no cover - a read-only attribute
            pass
    return exc


def _raise_kernel(error=None, mode="call", args=(), kwargs=(), state=(), cause=NO_CAUSE):
    """Raises an exception when the graph runs: mode "call" makes it as the user's `raise
    error(*args, **kwargs)` does, by calling the class with the run-time values; "copy" remakes
    an exception raised while tracing (same class, args and attributes, without __init__);
    "value" raises the exception value it takes first (one a staged `try` caught). The ARG
    slots of the templates take the inputs in order; then `cause`, the `from` part."""

    def run(*inputs):
        values = iter(inputs)
        if mode == "value":
            exc = next(values)
        else:
            positional = _fill_nested(args, values)
            named = {name: _fill_nested(t, values) for name, t in kwargs}
            exc = (
                error(*positional, **named)
                if mode == "call"
                else _recreated(error, positional, state)
            )
        if cause is NO_CAUSE:
            raise exc
        raise exc from _fill_nested(cause, values)

    return run


def _raise_errors(node):
    """What a `raise` node raises: the user's class itself, or any of the classes the exception
    value it re-raises may be."""
    if node.attrs.get("mode") == "value":
        first = node.inputs[0]
        return tuple(("any", cls) for cls in getattr(first.type, "classes", (BaseException,)))
    return (("exactly", node.attrs["error"]),)


def _lower_raise(ctx, node, *inputs, **attrs):
    """A host callback raising the interpreter's exception (run only on the path that reaches
    the node)."""
    ctx.host_call(node, node.opdef.kernel(node.attrs), inputs)
    return ()


register_op(
    "raise",
    takes_none=True,
    infer=lambda *ts, **attrs: (),
    num_outputs=0,
    stateful=True,
    make_kernel=_raise_kernel,
    run_time_errors=_raise_errors,
    user_error=True,
    lower=_lower_raise,
    lower_calls_back=True,
    # (numba: the call runs again on the interpreter, which raises the user's exception)
    numba_lower=lambda ctx, node: ctx.emit("raise _h.Rerun()"),
    doc="raises the user's exception: error(*args, **kwargs), a copy, or a caught one",
)(lambda *inputs, **attrs: _raise_kernel(**attrs)(*inputs))


def _matches_kernel(classes):
    def run(exc):
        return isinstance(exc, classes)

    return run


register_op(
    "exception_matches",
    infer=lambda exc, classes: TensorType.python_scalar(bool),
    weak_results=True,
    make_kernel=_matches_kernel,
    run_time_errors=lambda node: (),
    unlowerable="XLA has no exceptions: a staged `try` that catches one runs on the interpreter",
    doc="isinstance(exc, classes) of an exception a staged `try` caught",
)(lambda exc, classes: isinstance(exc, classes))


# -- writes into the caller's arrays -------------------------------------------


def _write_argument(target, value):
    """The array a staged function wrote into in place (its argument, the caller's array) gets
    the written value, at the end of the graph; gives the array itself, for the results."""
    target[...] = value
    return target


_WRITES_ARGUMENT = (
    "the function writes into an argument in place, and XLA computes on copies of its inputs "
    "(copy the argument in the function, or use the interpreter)"
)
register_op(
    "write_argument",
    infer=lambda target, value: target,
    stateful=True,
    may_alias_input=True,
    writes_input=True,
    unlowerable=_WRITES_ARGUMENT,
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


def distinct_arrays_message(function: str, where_defined: str) -> str:
    """The distinct_arrays message of the staged function `function` defined at `where_defined`,
    with `{!r}` for the two argument names (its own text escaped: `str.format` fills only those)."""
    plain = f"{where_defined}: the staged function {function!r}".replace("{", "{{").replace(
        "}", "}}"
    )
    return (
        plain + " writes in place into argument {!r}, and argument {!r} shares memory with it (the "
        "same array, or a view of it): eagerly the write would show through both, while the "
        "graph reads the second as it was passed. Pass a copy of one of them"
    )


# the fixed part of the message, after the function's place and name
_DISTINCT_TAIL = distinct_arrays_message("NAME", "WHERE").split("'NAME'", 1)[1]


def _is_distinct_arrays_message(message: str) -> bool:
    """`message` is what distinct_arrays_message makes: escaped text ({{ and }} only), then the
    template with its two `{!r}` fields. (A message from a file is never a format of its own.)"""
    if not message.endswith(_DISTINCT_TAIL):
        return False
    head = message[: -len(_DISTINCT_TAIL)].replace("{{", "").replace("}}", "")
    return "{" not in head and "}" not in head


def _distinct_arrays_check(attrs, n_inputs) -> str | None:
    if not 0 <= attrs["written"] <= n_inputs:
        return f"it checks {attrs['written']} written arrays of {n_inputs} inputs"
    if len(attrs["names"]) != n_inputs:
        return f"it names {len(attrs['names'])} arguments for {n_inputs} inputs"
    if not _is_distinct_arrays_message(attrs["message"]):
        return "its message is not the message staging writes (a file's text is never a format)"
    return None


register_op(
    "distinct_arrays",
    infer=lambda *ts, written, names, message, error: (),
    num_outputs=0,
    stateful=True,
    make_kernel=_distinct_arrays_kernel,
    run_time_errors=lambda node: (("exactly", node.attrs["error"]),),
    attr_kinds=(("message", STR),),
    check_attrs=_distinct_arrays_check,
    unlowerable=_WRITES_ARGUMENT,
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


def _lower_py_function(ctx, node, *inputs, func, out_types):
    """An ordered io_callback; its results need fully known shapes."""
    types = out_types if isinstance(out_types, tuple) else (out_types,)
    if not all(t.is_fully_defined for t in types):
        raise ctx.cannot_lower(
            node,
            f"its Tout {', '.join(map(str, types))} has unknown dims, and XLA needs the "
            f"shape of what the Python function returns",
            "Give Tout a fully known shape",
        )
    return ctx.host_call(node, node.opdef.kernel(node.attrs), inputs, results=types)


register_op(
    "py_function",
    takes_none=True,
    infer=_py_function_infer,
    stateful=True,
    num_outputs=None,
    make_kernel=_py_function_kernel,
    run_time_errors=lambda node: (("any", Exception),),  # the Python function may raise anything
    unsaveable="it calls a Python function (staging.py_function), which cannot be saved: keep it "
    "out of the saved function or replace it with staged NumPy code",
    lower=_lower_py_function,
    lower_calls_back=True,
    host_effect=True,
)(lambda *args, func, out_types: _py_function_kernel(func, out_types)(*args))


# -- variables ---------------------------------------------------------------
# `var` is any object with `dtype`, `shape`, a `_value` attribute holding a NumPy value and a
# `_lock` that makes each update atomic: VARIABLE_LOCK, shared by every Variable, which a compiled
# graph that writes Variables holds for its whole call (runtime.executor), so that its reads and
# writes are inline (`var._value`) and one call's updates are never interleaved with another's.

VARIABLE_LOCK = threading.RLock()
# (an attribute's kind: loaded from a file, a Variable is one of the file's)
_VARIABLE = AttrKind("a Variable of the file", lambda v: getattr(v, "_lock", None) is VARIABLE_LOCK)


def _read_variable_emit(em, node, indent: int) -> None:
    var = em.bind(node.attrs["var"], "var")
    if em.holds_variable_lock:
        em.emit(indent, f"{em.fresh(node.outputs[0])} = {var}._value", node)
    else:
        em.simple(node, indent)


register_op(
    "read_variable",
    infer=lambda *, var: TensorType(var.dtype, var.shape),
    stateful=True,
    may_alias_state=True,
    make_kernel=lambda var: lambda: var._value,
    emit=_read_variable_emit,
    gradient="variable_read",
    attr_kinds=(("var", _VARIABLE),),
    lower=lambda ctx, node, *, var: ctx.state[id(var)],  # (Variables: threaded state)
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


_UPDATE_OPERATORS = {"add": "+", "sub": "-"}


def _assign_emit(em, node, indent: int) -> None:
    """`var += value` inline (`v._value = v._value + value`) where the graph's call holds the
    Variables' lock and the sum is of the variable's own dtype and shape (NumPy's rules, from
    the node's types); otherwise the update kernel (which takes the lock itself)."""
    var, mode = node.attrs["var"], node.attrs["mode"]
    value = node.inputs[0]
    if not em.holds_variable_lock or not _keeps_type(var, mode, value):
        em.simple(node, indent)
        return
    name = em.bind(var, "var")
    em.emit(
        indent, f"{name}._value = {name}._value {_UPDATE_OPERATORS[mode]} {em.ref(value)}", node
    )


def _keeps_type(var, mode: str, value) -> bool:
    """Whether `var._value op value` is of the variable's dtype and shape (an array's: a 0-d
    result would have to be made a NumPy scalar)."""
    if mode not in _UPDATE_OPERATORS or not var.shape:
        return False
    t = value.type if isinstance(value, Value) else value
    if isinstance(t, TensorType):
        dims = [d for d in t.shape if d is not None]
        if t.weak or len(dims) != len(t.shape):
            return False
        operand = np.zeros(dims, t.dtype)
    elif type(t) in (int, float):
        operand = t
    else:
        return False
    try:
        result = np.result_type(np.zeros((), var.dtype), operand)
        shape = np.broadcast_shapes(tuple(var.shape), np.shape(operand))
    except (TypeError, ValueError):
        return False
    return result == var.dtype and shape == tuple(var.shape)


def _lower_assign_variable(ctx, node, value, *, var, mode):
    from .ops.elementwise import loop_dtypes  # (the ops package imports this module)

    jnp = ctx.jnp
    if mode == "set":
        new = jnp.asarray(value).astype(var.dtype)
    else:
        ufunc = np.add if mode == "add" else np.subtract
        input_type = node.inputs[0].type if isinstance(node.inputs[0], Value) else node.inputs[0]
        loop = loop_dtypes(ufunc, [TensorType(var.dtype, var.shape), input_type])
        old = jnp.asarray(ctx.state[id(var)], dtype=loop[0])
        step = jnp.asarray(value, dtype=loop[1])
        new = (old + step if ufunc is np.add else old - step).astype(var.dtype)
    ctx.state[id(var)] = (
        jnp.broadcast_to(new, var.shape) if tuple(var.shape) != jnp.shape(new) else new
    )
    return ()


register_op(
    "assign_variable",
    infer=lambda t, *, var, mode: (),
    num_outputs=0,
    stateful=True,
    make_kernel=_assign_kernel,
    writes_variable=True,
    emit=_assign_emit,
    attr_kinds=(("mode", one_of("set", "add", "sub")), ("var", _VARIABLE)),
    lower=_lower_assign_variable,
)(lambda value, *, var, mode: _assign_kernel(var, mode)(value))


# numba (runtime.numba_backend): a list of numbers of one kind is a numba list, written in place
# as the interpreter's Python list; what the interpreter raises on (a negative index, a gap, a
# read past the end, a pop or np.stack of an empty list) sends the call back to it.


def _numba_list_new(ctx, node, *size):
    if size and ctx.range_of(size[0]) != (0, 0):
        ctx.unsupported(node, "a list made with a size has elements not yet written")
    value = node.outputs[0]
    ctx.new_list(node, value, ctx.list_element(node, value))


def _numba_list_index(ctx, node, index) -> str:
    form = ctx.form(node, index)
    if form.ndim or form.kind != "i":
        ctx.unsupported(node, "its index is not a signed integer")
    return ctx.ref(index)


def _numba_same_list(ctx, node, lst, out) -> None:
    """The list `out` of `node` is `lst` itself (written in place), of the same element form."""
    if ctx.slot(lst).form != ctx.form(node, out, lists=True):
        ctx.unsupported(node, "the list's elements change their kind")
    ctx.slots[id(out)] = ctx.slot(lst)


def _numba_list_write(ctx, node):
    lst, index, value = node.inputs
    element = ctx.form(node, node.outputs[0], lists=True)
    form = ctx.form(node, value)
    if form.ndim or (form.dtype, form.weak) != (element.dtype, element.weak):
        ctx.unsupported(node, f"it writes a {value.type} into a {node.outputs[0].type}")
    dynamic = node.attrs["dynamic_size"]
    size = index.producer if isinstance(index, Value) else None
    if dynamic and size is not None and size.op == "list_size" and size.inputs[0] is lst:
        ctx.emit(f"{ctx.ref(lst)}.append({ctx.ref(value)})")  # (what append records)
    else:
        i = _numba_list_index(ctx, node, index)
        ctx.emit(f"_h.list_write({ctx.ref(lst)}, {i}, {ctx.ref(value)}, {dynamic})")
    _numba_same_list(ctx, node, lst, node.outputs[0])


def _numba_element_flag(ctx, node, value) -> str:
    """The flag of an element read from a list: a NumPy value's or a Python number's."""
    return "False" if ctx.form(node, value).weak else "True"


def _numba_list_read(ctx, node):
    lst, index = node.inputs
    ctx.form(node, lst, lists=True)
    expr = f"_h.list_read({ctx.ref(lst)}, {_numba_list_index(ctx, node, index)})"
    ctx.define(node, node.outputs[0], expr, _numba_element_flag(ctx, node, node.outputs[0]))


def _numba_list_pop(ctx, node):
    (lst,) = node.inputs
    ctx.form(node, lst, lists=True)
    last = node.outputs[1]
    ctx.define(node, last, f"_h.list_pop({ctx.ref(lst)})", _numba_element_flag(ctx, node, last))
    _numba_same_list(ctx, node, lst, node.outputs[0])


def _numba_list_size(ctx, node):
    (lst,) = node.inputs
    ctx.form(node, lst, lists=True)
    ctx.define(node, node.outputs[0], f"len({ctx.ref(lst)})")


def _numba_list_stack(ctx, node):
    (lst,) = node.inputs
    element = ctx.form(node, lst, lists=True)
    dtype = np.dtype(node.attrs["dtype"])
    if tuple(node.attrs["element_shape"]) != () or element.dtype != dtype:
        ctx.unsupported(node, f"it stacks a {lst.type} as {dtype} (only numbers of that dtype)")
    scalar = "np.bool_" if dtype.kind == "b" else f"np.{dtype.name}"
    raises = node.attrs.get("empty", "zeros") != "zeros"
    ref = ctx.ref(lst)
    expr = f"_h.stack_numbers({ref}, np.empty(len({ref}), {scalar}), {raises})"
    ctx.define(node, node.outputs[0], expr, "True")


# -- lists (TensorArray) -----------------------------------------------------
# A list value is a Python list of NumPy values; writes happen in place.


def _list_new_infer(*size, element):
    return ListType(element)


def _list_new(*size, element):
    n = int(size[0]) if size else 0
    return [None] * n


# JAX (runtime.jax_lowering): a list whose indices are known while lowering is a Python list of
# JAX values; one carried through a staged loop a preallocated `ctx.lists.Buffer`.


def _static_index(ctx, node, index) -> int:
    known = ctx.known_int(node, 1, index)
    if known is not None:
        return known
    raise ctx.cannot_lower(
        node,
        "the list index is known only when the graph runs, outside a staged loop with a bound",
        ctx.lists.UNBOUNDED_FIX,
    )


def _lower_list_new(ctx, node, *size, element):
    n = ctx.known_int(node, 0, ctx.untag(size[0])) if size else 0
    if n is None:
        raise ctx.cannot_lower(
            node, "the list's size is known only when the graph runs", ctx.lists.UNBOUNDED_FIX
        )
    return [None] * n


register_op(
    "list_new",
    infer=_list_new_infer,
    stateful=True,
    lower=_lower_list_new,
    numba_lower=_numba_list_new,
)(_list_new)


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
    """The list's element type joined with the value's (a value of several kinds, `float |
    f64[]`, joins as its kinds: each element is what its path made it)."""
    if not isinstance(value, (TensorType, UnionType, TupleType)) and not is_str(value):
        value = TensorType.of(value)  # a Python number, stored as it is: a Python number
    if lst.element is None:
        return ListType(value)
    try:
        return ListType(join_types(lst.element, value))
    except TypeJoinError:
        raise TypeError(f"cannot write a {value} value into a list of {lst.element}") from None


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


def _lower_list_write(ctx, node, lst, index, value, *, dynamic_size):
    index = ctx.untag(index)  # (a list's elements keep their kinds: tagged where they have several)
    value = ctx.retag(value, ctx.item_type(node.inputs[2]), node.outputs[0].type.element)
    if not isinstance(lst, ctx.lists.Buffer):
        return _list_write(lst, _static_index(ctx, node, index), value, dynamic_size=dynamic_size)
    jax, jnp = ctx.jax, ctx.jnp
    index = jnp.asarray(index, dtype=np.int64)
    bad = (index >= lst.capacity) | (index < 0)
    if not dynamic_size:
        bad = bad | (index >= lst.length)
    capacity = lst.capacity
    ctx.fail_if(
        node,
        bad,
        lambda: IndexError(
            f"TensorArray index out of range: the list holds at most {capacity} elements "
            f"in this loop (its maximum_iterations)"
        ),
    )
    row = jnp.asarray(value, dtype=lst.element.dtype).reshape((1, *lst.element.shape))
    data = jax.lax.dynamic_update_slice(lst.data, row, (index,) + (0,) * len(lst.element.shape))
    return ctx.lists.Buffer(data, jnp.maximum(lst.length, index + 1), lst.element)


register_op(
    "list_write",
    gradient="list_write",
    takes_none=True,
    infer=_list_write_infer,
    stateful=True,
    emit=_list_write_emit,
    writes_list=True,
    lower=_lower_list_write,
    numba_lower=_numba_list_write,
    lower_calls_back=True,
)(_list_write)


def _list_read(lst, index):
    value = lst[int(index)]
    if value is None:
        raise ValueError(f"TensorArray element {int(index)} was read before it was written")
    return value


def _lower_list_read(ctx, node, lst, index):
    jnp = ctx.jnp
    index = ctx.untag(index)
    if isinstance(lst, ctx.lists.Buffer):
        index = jnp.asarray(index, dtype=np.int64)
        ctx.fail_if(
            node,
            (index >= lst.length) | (index < 0),
            lambda: IndexError(
                "TensorArray index out of range, or element read before it was written"
            ),
        )
        return ctx.jax.lax.dynamic_index_in_dim(lst.data, index, keepdims=False)
    value = lst[_static_index(ctx, node, index)]
    out = node.outputs[0].type
    if value is None:  # the interpreter's error, when (and if) the graph runs this read
        ctx.fail_if(
            node, True, lambda: ValueError("TensorArray element was read before it was written")
        )
        zero = kinds(out)[0]
        return ctx.retag(jnp.zeros(zero.shape, zero.dtype), zero, out)
    return ctx.retag(value, node.inputs[0].type.element, out)


register_op(
    "list_read",
    gradient="list_read",
    takes_none=True,
    infer=lambda lst, i: lst.element,
    stateful=True,
    weak_results=True,
    lower=_lower_list_read,
    numba_lower=_numba_list_read,
    lower_calls_back=True,
)(_list_read)


def _list_pop_infer(lst):
    return (lst, lst.element)


def _list_pop(lst):
    if not lst:
        raise IndexError("pop from empty list")
    return lst, lst.pop()


def _lower_list_pop(ctx, node, lst):
    if not isinstance(lst, ctx.lists.Buffer):
        lst, last = _list_pop(lst)
        return lst, ctx.retag(last, node.inputs[0].type.element, node.outputs[1].type)
    jnp = ctx.jnp
    ctx.fail_if(node, lst.length <= 0, lambda: IndexError("pop from empty list"))
    last = jnp.maximum(lst.length - 1, 0)
    return ctx.lists.Buffer(lst.data, last, lst.element), ctx.jax.lax.dynamic_index_in_dim(
        lst.data, last, keepdims=False
    )


register_op(
    "list_pop",
    takes_none=True,
    infer=_list_pop_infer,
    num_outputs=2,
    stateful=True,
    weak_results=True,
    lower=_lower_list_pop,
    numba_lower=_numba_list_pop,
    lower_calls_back=True,
)(_list_pop)


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


def _lower_list_stack(ctx, node, lst, *, dtype, element_shape, empty="zeros"):
    jnp = ctx.jnp
    if isinstance(lst, ctx.lists.Buffer):
        return ctx.lists.Stacked(lst.data.astype(dtype), lst.length)
    if not lst:
        return jnp.asarray(_list_stack_kernel(dtype, element_shape, empty)([]))
    if any(v is None for v in lst):
        raise ValueError("TensorArray.stack(): some elements were never written")
    return jnp.stack([jnp.asarray(ctx.untag(v)) for v in lst]).astype(dtype)


register_op(
    "list_stack",
    gradient="list_stack",
    infer=_list_stack_infer,
    stateful=True,
    make_kernel=_list_stack_kernel,
    lower=_lower_list_stack,
    numba_lower=_numba_list_stack,
    doc="np.stack of a list's elements; attr empty says what an empty list gives",
)(
    lambda lst, *, dtype, element_shape, empty="zeros": _list_stack_kernel(
        dtype, element_shape, empty
    )(lst)
)

register_op(
    "list_size",
    gradient="list_size",
    infer=lambda lst: TensorType.python_scalar(int),
    stateful=True,
    weak_results=True,
    lower=lambda ctx, node, lst: lst.length if isinstance(lst, ctx.lists.Buffer) else len(lst),
    numba_lower=_numba_list_size,
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
    attr_kinds=(("axis", INT),),
    lower=lambda ctx, node, x, *, axis: ctx.jnp.shape(x)[axis],
    doc="x.shape[axis]: a Python int",
)(lambda x, *, axis: np.shape(x)[axis])


# -- Python numbers --------------------------------------------------------------


def _python_number_infer(x, *, kind):
    """kind(x) of a scalar or a str: a Python number (as int(), float(), bool(), complex() give)."""
    if is_str(x):  # int("12"), float("1.5"): parsed when the graph runs
        return TensorType.python_scalar(kind)
    if type(x) not in (bool, int, float, complex) and not (
        isinstance(x, TensorType) and x.shape == ()
    ):
        raise TypeError(f"only 0-d values convert to a Python {kind.__name__}, not a {x}")
    if kind is not complex and isinstance(x, TensorType) and x.dtype.kind == "c":
        raise TypeError(
            f"{kind.__name__}() argument must be a string or a real number, not 'complex'"
        )
    return TensorType.python_scalar(kind)


def _lower_python_number(ctx, node, x, *, kind):
    if ctx.is_static(x):
        return kind(x)
    return ctx.jnp.asarray(x).astype(PYTHON_SCALAR_DTYPES[kind])


def _numba_python_number(ctx, node):
    """A number as a Python number: of its own kind the same number; a float of an integer or
    bool (rounded to nearest by both); an int of a float (truncated; NaN, an infinity or one
    past int64 by the interpreter: Python's error or big int) or of a bool; a bool of any."""
    kind = node.attrs["kind"]
    x = node.inputs[0]
    form = ctx.form(node, x)
    ref = ctx.ref(x)
    if form.ndim or kind not in (int, float, bool):
        ctx.unsupported(node, f"it makes a {kind.__name__} of a {x.type}")
    if PYTHON_SCALAR_DTYPES.get(kind) == form.dtype:
        expr = ref
    elif kind is float and form.kind == "b":
        expr = f"(1.0 if {ref} else 0.0)"  # (numba has no float() of a bool)
    elif kind is float and form.kind in "iu":
        expr = f"float({ref})"
    elif kind is int and form.kind == "b":
        expr = f"(1 if {ref} else 0)"
    elif kind is int and form.kind == "f":
        expr = f"_h.float_to_int({ref})"
    elif kind is bool:
        expr = f"({ref} != 0)"
    else:
        ctx.unsupported(node, f"it makes a {kind.__name__} of a {x.type}")
    ctx.define(node, node.outputs[0], expr, "False")


def _python_number_suspect(jnp, node, outputs, x):
    """(OpDef.lower_suspect) int(x) where the Python int is not XLA's int64: of NaN
    (ValueError), inf (OverflowError), a float or uint64 past int64 (a big int)."""
    if node.attrs["kind"] is not int:
        return None
    return suspect_checks.python_int_of(jnp, x)


_python_number_suspect.may_apply = lambda node: (  # type: ignore[attr-defined]
    node.attrs["kind"] is int
    and isinstance(node.inputs[0], Value)
    and any(
        isinstance(k, TensorType) and (k.dtype.kind in "fc" or k.dtype == np.uint64)
        for k in kinds(node.inputs[0].type)
    )
)


register_op(
    "python_number",
    infer=_python_number_infer,
    lower=_lower_python_number,
    lower_suspect=_python_number_suspect,
    numba_lower=_numba_python_number,
    weak_results=True,
    make_kernel=lambda kind: kind,
    attr_kinds=(
        (
            "kind",
            AttrKind(
                "bool, int, float or complex",
                lambda v: any(v is t for t in (bool, int, float, complex)),
            ),
        ),
    ),
    # int() of inf or NaN raises (OverflowError, ValueError), and so do int()/float()/complex()
    # of a str that is no number: eagerly also where nothing reads the result
    keep_unused=lambda node: node.attrs["kind"] is not bool,
    doc="kind(x) of a scalar: a Python bool, int, float or complex",
)(lambda x, *, kind: kind(x))


def _truth(x):
    return np.bool_(bool(x))


def _truth_infer(x):
    if x is NONE:
        return TensorType(np.bool_, ())
    if is_str(x):  # (`x != 0` is no str's truth: a staged string's is its length's)
        raise TypeError("truth: a str input; record the truth of its length")
    if x.shape != ():
        raise ValueError(
            f"the truth value of an array of shape {x.shape} is ambiguous; "
            f"reduce it first with .any() or .all()"
        )
    return TensorType(np.bool_, ())


# -- None on some paths (runtime.types.NONE) -----------------------------------


def _python_bool(x):
    return TensorType.python_scalar(bool)


register_op(
    "is_none",
    infer=_python_bool,
    expr="({0} is None)",
    weak_results=True,
    takes_none=True,
    takes_tuples=True,
    raises="never",
    excludes_none=lambda node: (node.inputs[0], False),
    unlowerable="a value that is None on some paths has no JAX form",
    doc="`x is None` of a value that is None on some paths: a Python bool",
)(lambda x: x is None)

register_op(
    "is_not_none",
    infer=_python_bool,
    expr="({0} is not None)",
    weak_results=True,
    takes_none=True,
    takes_tuples=True,
    raises="never",
    excludes_none=lambda node: (node.inputs[0], True),
    unlowerable="a value that is None on some paths has no JAX form",
    doc="`x is not None` of a value that is None on some paths: a Python bool",
)(lambda x: x is not None)


def _not_none_infer(x):
    left = [k for k in kinds(x) if k is not NONE]
    if not left:
        raise TypeError("not_none: the value is None on every path")
    return union_of(left)


register_op(
    "not_none",
    infer=_not_none_infer,
    expr="{0}",
    weak_results=True,
    takes_none=True,
    takes_tuples=True,
    raises="never",
    may_alias_input=True,
    lower=lambda ctx, node, x: x,
    doc="a value that is None on some paths, where a staged `if` has found it is not (its type "
    "without the None kind)",
)(lambda x: x)


def _truth_expr(x):
    """`x != 0` is a number's truth, not None's (`None != 0` is True): None takes the kernel."""
    return None if may_be_none(x) else "({0} != 0)"


register_op(
    "truth",
    infer=_truth_infer,
    make_expr=_truth_expr,
    takes_none=True,
    excludes_none=lambda node: (node.inputs[0], True),  # (None is false)
    lower=lambda ctx, node, x: ctx.jnp.asarray(x) != 0,
)(_truth)


def _pass_through(ctx, g, out, x, *rest, **attrs):
    return (g,) + (None,) * len(rest)


# a value seen without its None kind, or as the Python number it is: the same number
add_vjps({"not_none": _pass_through, "python_number": _pass_through})
