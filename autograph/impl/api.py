"""The public API (convert, to_code, do_not_convert, set_loop_options) and the `ag__` namespace
that converted code calls: the operators plus `ag__.call`, which converts user functions on
their way in."""

from __future__ import annotations

import functools
import types

import numpy as np

from autograph import operators
from autograph.impl import conversion
from autograph.impl.conversion import DO_NOT_CONVERT
from autograph.operators import (
    container_calls,
    control_flow,
    data_structures,
    exceptions,
    py_builtins,
    py_functional,
    strings,
)
from autograph.operators.variables import Undefined
from staging import errors, numpy_api
from staging.core import source_map
from staging.core.recording import current_graph
from staging.core.strings import StagedStr
from staging.core.tensor import Tensor
from staging.core.tracebacks import filtered
from staging.effects import random_ops
from staging.kinds import decisions as kinds
from staging.kinds.undefined import MaybeUndefined, read_all
from staging.state import keyed
from staging.state.containers import StagedContainer

# -- ag__.call ----------------------------------------------------------------


def converted_call(func, *args, **kwargs):  # noqa: C901, PLR0912
    """`func(*args, **kwargs)` from converted code: user functions are converted first (cached);
    builtins that act differently on symbolic values are replaced by their staged versions;
    NumPy functions given symbolic arguments are staged; inside a trace, random draws and
    clocks are staged to run when the graph runs (staging.effects.random_ops)."""
    for a in args:
        if type(a) is Undefined:
            a._fail()
        if isinstance(a, MaybeUndefined):  # read here, as Python reads the name at the call
            args = read_all(args)
            break
    if current_graph() is not None:
        container_calls.refuse_in_staged_control_flow(func, args)
        run_time = random_ops.run_time_call(func)
        if run_time is not None:
            return run_time(*args, **kwargs)
    if func is list and len(args) == 1 and not kwargs and py_builtins.run_time_length(args[0]):
        return control_flow.listed_by_loop(args[0])
    override = py_builtins.OVERRIDES.get(func) if not isinstance(func, (list, dict)) else None
    if override is not None:
        return override(*args, **kwargs)
    if strings.is_str_method(func) and current_graph() is not None:
        staged = strings.str_method(func, args, kwargs)
        if staged is not None:
            return staged
    if type(func) is types.BuiltinMethodType and isinstance(func.__self__, (set, dict)):
        staged = keyed.read_with_key(func, args)
        if staged is not None:
            return staged
    if type(func) is functools.partial:  # convert the function, keep the bound arguments
        return converted_call(func.func, *func.args, *args, **{**func.keywords, **kwargs})
    if isinstance(func, types.MethodType) and isinstance(func.__func__, types.FunctionType):
        if conversion.is_user_code(func.__func__):
            return conversion.converted_raw(func.__func__, AG)(func.__self__, *args, **kwargs)
        if type(func.__self__) is Tensor:  # `(2).astype` of a Python number: no such method
            kinds.require_attribute(func.__self__, func.__name__)
        return _library_call(func, args, kwargs)
    if type(func) is types.FunctionType:
        if conversion.is_user_code(func):
            return conversion.converted_raw(func, AG)(*args, **kwargs)
        if not _is_numpy(func):
            return _library_call(func, args, kwargs)
    if callable(func) and _is_numpy(func) and _needs_staging(args, kwargs):
        return _numpy_call(func, args, kwargs)
    return func(*args, **kwargs)


def _is_numpy(func) -> bool:
    return (getattr(func, "__module__", "") or "").startswith("numpy")


def _library_call(func, args, kwargs):
    """Library code (not converted) runs as it is. When it fails on a symbolic argument, the
    error names the line of user code that called it."""
    try:
        return func(*args, **kwargs)
    except Exception as error:
        if not _needs_staging(args, kwargs):
            raise
        raise _at_call_site(func, error) from error


def _at_call_site(func, error):
    where = source_map.where()
    if not where or str(error).startswith(where):
        return error
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", repr(func))
    module = getattr(func, "__module__", None)
    called = f"{module}.{name}" if module else name
    if isinstance(error, errors.StagingError):
        try:
            return type(error)(f"{where}in {called}(), called here: {error}")
        except TypeError:  # pragma: no cover - an error type with another constructor
            return error
    if isinstance(error, (TypeError, AttributeError)):
        return errors.SymbolicValueError(
            f"{where}{called}() is library code, run as it is (not converted), and it cannot take "
            f"a symbolic tensor: {type(error).__name__}: {error}. Pass it concrete values, or run it "
            f"at run time with staging.py_function"
        )
    return error


def _symbolic_leaf(x, depth=0) -> bool:
    """x is symbolic or a staged list, or a (nested) tuple/list holding one: a shape such as
    `(n, 2)` with a symbolic `n`."""
    if py_builtins.is_symbolic(x) or isinstance(x, data_structures.StagedList):
        return True
    if depth < 3 and type(x) in (tuple, list):
        return any(_symbolic_leaf(v, depth + 1) for v in x)
    return False


def _needs_staging(args, kwargs) -> bool:
    """A NumPy function called with symbolic arguments (possibly inside a shape) is recorded
    by staging.numpy_api instead of running."""
    return any(_symbolic_leaf(a) for a in args) or any(_symbolic_leaf(v) for v in kwargs.values())


def _numpy_call(func, args, kwargs):
    args, kwargs = read_all(args), read_all(kwargs)  # a name set on some paths: its run-time check
    for a in (*args, *kwargs.values()):
        if isinstance(a, StagedStr):
            a.__array_function__(func, (), args, kwargs)  # (refused, naming the line)
    for a in args:
        if isinstance(a, StagedContainer):  # (a list or deque: its items, as NumPy reads them)
            return a.__array_function__(func, (type(a),), args, kwargs)
    if (
        func in (np.stack, np.asarray, np.array)
        and args
        and isinstance(args[0], data_structures.StagedList)
    ):
        return args[0].to_array(func, *args[1:], **kwargs)
    # Any other NumPy function reads a list as np.asarray(list) (an empty one: float64, (0,)).
    args = tuple(
        a.to_array(np.asarray) if isinstance(a, data_structures.StagedList) else a for a in args
    )
    if numpy_api.has_function(func):
        return numpy_api.apply_function(func, args, kwargs)
    return func(*args, **kwargs)


def _ag_namespace() -> types.ModuleType:
    namespace = types.ModuleType(
        "ag__", "What converted code calls: autograph.operators and ag__.call."
    )
    for name in operators.__all__:
        setattr(namespace, name, getattr(operators, name))
    namespace.call = converted_call
    exceptions.install_call(converted_call)  # (`raise f(x)` of a function making the exception)
    return namespace


AG = _ag_namespace()
# what map(), sorted(key=), functools.reduce ... call a user function with in converted code
py_functional.set_user_call(converted_call)


# -- public API -------------------------------------------------------------------


def converted_raw(fn):
    """The converted version of plain function `fn` (cached), without the return handling of
    convert()."""
    return conversion.converted_raw(fn, AG)


def _finish(result):
    _check_defined(result)
    return data_structures.unwrap_output(result)


def _check_defined(value, depth=0):
    """A converted function's result holds no Undefined marker, also inside a tuple, list or
    dict (a name read before it was assigned raises, as in Python)."""
    if isinstance(value, Undefined):
        value._fail()
    if depth < 8:
        if type(value) in (tuple, list):
            for v in value:
                _check_defined(v, depth + 1)
        elif type(value) is dict:
            for v in value.values():
                _check_defined(v, depth + 1)


def convert(func):
    """The converted version of `func`: Python control flow on concrete values, staged
    control flow on symbolic ones. Functions, methods, nested functions, lambdas, callable
    objects and functools.partial objects (the function is converted, the arguments kept)."""
    try:
        return _convert(func)
    except Exception as error:
        raise filtered(error)  # frames hidden: staging.disable_traceback_filtering()


def _convert(func):
    if getattr(func, DO_NOT_CONVERT, False) or getattr(func, "__autograph_converted__", False):
        return func
    if isinstance(func, types.MethodType):
        return types.MethodType(_convert(func.__func__), func.__self__)
    if isinstance(func, functools.partial):
        return functools.partial(_convert(func.func), *func.args, **func.keywords)
    if not isinstance(func, types.FunctionType):
        call = getattr(type(func), "__call__", None)
        if isinstance(call, types.FunctionType):
            return types.MethodType(_convert(call), func)
        return func
    raw = converted_raw(func)

    @functools.wraps(func)
    def converted(*args, **kwargs):
        try:
            return _finish(raw(*args, **kwargs))
        except Exception as error:
            raise filtered(error)  # frames hidden: staging.disable_traceback_filtering()

    converted.__autograph_converted__ = True
    return converted


def to_code(func) -> str:
    """The converted source of `func`: deterministic, compilable, readable. `func` is a Python
    function, a method, a staging.Function (a staged function or method: its Python function is
    shown), a functools.partial of one of these, or what autograph.convert returned."""
    try:
        return conversion.converted_source(_source_function(func))
    except Exception as error:
        raise filtered(error)  # frames hidden: staging.disable_traceback_filtering()


def _source_function(func):
    """The plain Python function whose converted source to_code shows for `func`."""
    for _ in range(8):  # unwrap layers: a partial of a bound staged method ...
        if isinstance(func, functools.partial):
            func = func.func
        elif isinstance(func, types.MethodType):
            func = func.__func__
        elif getattr(func, "__autograph_converted__", False):
            func = getattr(func, "__wrapped__", func)
        elif not isinstance(func, types.FunctionType) and _staged_python_function(func) is not None:
            func = _staged_python_function(func)  # staging.Function (this layer does not import it)
        else:
            break
    if not isinstance(func, types.FunctionType):
        raise TypeError(
            f"to_code() expects a Python function, a method or a staging.Function, "
            f"got {type(func).__name__}"
        )
    return func


def _staged_python_function(obj):
    """The Python function of a staging.Function (plain or bound to an instance), else None."""
    python_function = getattr(obj, "python_function", None)
    if callable(getattr(obj, "get_concrete_function", None)) and callable(python_function):
        return python_function
    return None


def do_not_convert(func=None):
    """Marks `func` so converted code calls it as it is (usable as a decorator)."""
    if func is None:
        return do_not_convert
    try:
        setattr(func, DO_NOT_CONVERT, True)
        return func
    except (AttributeError, TypeError):

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)

        setattr(wrapper, DO_NOT_CONVERT, True)
        return wrapper


def set_loop_options(maximum_iterations=None, shape_invariants=None):
    """Inside a loop body of converted code: options for that loop (the converter moves
    this call onto the loop). Called as plain Python it does nothing."""
    return None
