"""ag__.call and the builtins that behave differently on symbolic values (print, len, range,
enumerate, zip), plus the staged iterables for loops."""

from __future__ import annotations

import builtins
import inspect
import types

import numpy as np

from autograph.operators import data_structures
from autograph.operators.variables import Undefined
from staging import errors, numpy_api, source_map
from staging.debugging import print as staged_print
from staging.source_map import where as _where
from staging.tensor import is_symbolic


# -- staged iterables ------------------------------------------------------

class StagedRange:
    """range(start, stop, step) with a symbolic bound: iterated by a staged loop."""

    __slots__ = ("start", "stop", "step")

    def __init__(self, start, stop, step=1):
        self.start, self.stop, self.step = start, stop, step

    def __repr__(self):
        return f"range({self.start}, {self.stop}, {self.step})"


class StagedEnumerate:
    __slots__ = ("iterable", "start")

    def __init__(self, iterable, start=0):
        self.iterable, self.start = iterable, start


class StagedZip:
    __slots__ = ("iterables",)

    def __init__(self, iterables):
        self.iterables = iterables


_STAGED_ITERABLES = (StagedRange, StagedEnumerate, StagedZip, data_structures.StagedList)


def is_staged_iterable(x) -> bool:
    return isinstance(x, _STAGED_ITERABLES) or is_symbolic(x)


def staged_length(x):
    """Number of items of a staged iterable (an int or a symbolic scalar)."""
    if isinstance(x, StagedRange):
        if isinstance(x.step, int) and x.step > 0:
            return np.maximum((x.stop - x.start + (x.step - 1)) // x.step, 0)
        if isinstance(x.step, int) and x.step < 0:
            return np.maximum((x.start - x.stop + (-x.step - 1)) // -x.step, 0)
        if isinstance(x.step, int):
            raise ValueError("range() arg 3 must not be zero")
        up = (x.stop - x.start + x.step - 1) // x.step
        down = (x.start - x.stop - x.step - 1) // -x.step
        return np.maximum(np.where(x.step > 0, up, down), 0)
    if isinstance(x, StagedEnumerate):
        return staged_length(x.iterable)
    if isinstance(x, StagedZip):
        lengths = [staged_length(i) for i in x.iterables]
        result = lengths[0]
        for n in lengths[1:]:
            result = np.minimum(result, n)
        return result
    if isinstance(x, data_structures.StagedList):
        return x.tensor_array.size()
    if is_symbolic(x):
        if x.ndim == 0:
            raise errors.SymbolicValueError(
                f"{_where()}cannot iterate over a scalar tensor")
        n = x.shape[0]
        return n if n is not None else np.shape(x)[0]
    return len(x)


def staged_item(x, i):
    if isinstance(x, StagedRange):
        return x.start + i * x.step
    if isinstance(x, StagedEnumerate):
        return (i + x.start, staged_item(x.iterable, i))
    if isinstance(x, StagedZip):
        return tuple(staged_item(it, i) for it in x.iterables)
    if isinstance(x, data_structures.StagedList):
        return x.tensor_array.read(i)
    return x[i]


# -- builtins ---------------------------------------------------------------

def _any_symbolic(args) -> bool:
    return any(is_symbolic(a) for a in args)


def range_(*args):
    if _any_symbolic(args):
        if len(args) == 1:
            return StagedRange(0, args[0], 1)
        return StagedRange(*args)
    return range(*args)


def enumerate_(iterable, start=0):
    if is_staged_iterable(iterable) or is_symbolic(start):
        return StagedEnumerate(iterable, start)
    return enumerate(iterable, start)


def zip_(*iterables, **kwargs):
    if not kwargs and any(is_staged_iterable(i) for i in iterables):
        return StagedZip(iterables)
    return zip(*iterables, **kwargs)


def len_(obj):
    if isinstance(obj, data_structures.StagedList):
        size = obj.tensor_array.size()
        return size if is_symbolic(size) else int(size)
    if is_symbolic(obj) and obj.ndim > 0 and obj.shape[0] is None:
        return np.shape(obj)[0]
    return len(obj)


def print_(*args, **kwargs):
    if any(is_symbolic(a) or isinstance(a, data_structures.StagedList) for a in args):
        if set(kwargs) - {"sep", "end"}:
            raise TypeError(f"{_where()}staged print() supports only sep= and end=")
        return staged_print(*args, **kwargs)
    return print(*args, **kwargs)


_OVERRIDES = {builtins.print: print_, builtins.len: len_, builtins.range: range_,
              builtins.enumerate: enumerate_, builtins.zip: zip_}


# -- call -------------------------------------------------------------------

_DO_NOT_CONVERT = "__autograph_do_not_convert__"
_NATIVE_PREFIXES = ("numpy", "staging", "runtime", "autograph", "builtins", "math", "functools",
                    "itertools", "collections", "operator", "typing", "abc", "copy", "re", "inspect")


def _convertible(func) -> bool:
    if getattr(func, _DO_NOT_CONVERT, False):
        return False
    module = getattr(func, "__module__", None) or ""
    if module.split(".")[0] in _NATIVE_PREFIXES:
        return False
    code = func.__code__
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        return False
    return not source_map.is_generated(code.co_filename)


def call(func, *args, **kwargs):
    """Calls `func`, converting it first if it is user code (cached); builtins that act
    differently on symbolic values are replaced by their staged versions."""
    for a in args:
        if type(a) is Undefined:
            a._fail()
    override = _OVERRIDES.get(func) if not isinstance(func, (list, dict)) else None
    if override is not None:
        return override(*args, **kwargs)
    target = func
    if isinstance(func, types.MethodType) and isinstance(func.__func__, types.FunctionType):
        if _convertible(func.__func__):
            from autograph.impl import api
            return api.converted_raw(func.__func__)(func.__self__, *args, **kwargs)
        return func(*args, **kwargs)
    if type(target) is types.FunctionType:
        if _convertible(target):
            from autograph.impl import api
            return api.converted_raw(target)(*args, **kwargs)
        if (getattr(target, "__module__", "") or "").startswith("numpy") and _needs_staging(args, kwargs):
            return _numpy_call(target, args, kwargs)
        return target(*args, **kwargs)
    if (callable(target) and (getattr(target, "__module__", "") or "").startswith("numpy")
            and _needs_staging(args, kwargs)):
        return _numpy_call(target, args, kwargs)
    return target(*args, **kwargs)


def _symbolic_leaf(x, depth=0) -> bool:
    """x is symbolic or a staged list, or a (nested) tuple/list holding one: a shape such as
    `(n, 2)` with a symbolic `n`."""
    if is_symbolic(x) or isinstance(x, data_structures.StagedList):
        return True
    if depth < 3 and type(x) in (tuple, list):
        return any(_symbolic_leaf(v, depth + 1) for v in x)
    return False


def _needs_staging(args, kwargs) -> bool:
    """A NumPy function called with symbolic arguments (possibly inside a shape) is recorded
    by staging.numpy_api instead of running."""
    return any(_symbolic_leaf(a) for a in args) or any(_symbolic_leaf(v) for v in kwargs.values())


def _numpy_call(func, args, kwargs):
    if (func in (np.stack, np.asarray, np.array) and len(args) == 1 and not kwargs
            and isinstance(args[0], data_structures.StagedList)):
        return args[0].stack()
    args = tuple(a.stack() if isinstance(a, data_structures.StagedList) else a for a in args)
    if numpy_api.has_function(func):
        return numpy_api.apply_function(func, args, kwargs)
    return func(*args, **kwargs)
