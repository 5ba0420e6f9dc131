"""The builtins that behave differently on symbolic values (print, len, range, enumerate, zip,
min, max, sum, isinstance and type of a caught exception), and the staged iterables for loops."""

from __future__ import annotations

import builtins
import operator
import warnings

import numpy as np

from autograph.operators import data_structures, py_reductions
from staging import errors
from staging.core.exceptions import is_caught_exception
from staging.core.recording import record
from staging.core.source_map import where as _where
from staging.core.tensor import is_symbolic
from staging.effects.debugging import print as staged_print
from staging.kinds.undefined import MaybeMissing

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


def staged_length(x, clamp=True):  # noqa: C901
    """Number of items of a staged iterable (an int or a symbolic scalar). clamp=False: for a
    range with a literal step, the count may be negative where it is 0 (a loop bound)."""
    clamped = np.maximum if clamp else (lambda n, _zero: n)
    if isinstance(x, StagedRange):
        if isinstance(x.step, int) and x.step > 0:
            return clamped((x.stop - x.start + (x.step - 1)) // x.step, 0)
        if isinstance(x.step, int) and x.step < 0:
            return clamped((x.start - x.stop + (-x.step - 1)) // -x.step, 0)
        if isinstance(x.step, int):
            raise ValueError("range() arg 3 must not be zero")
        up = (x.stop - x.start + x.step - 1) // x.step
        down = (x.start - x.stop - x.step - 1) // -x.step
        return np.maximum(np.where(x.step > 0, up, down), 0)
    if isinstance(x, StagedEnumerate):
        return staged_length(x.iterable, clamp)
    if isinstance(x, StagedZip):
        lengths = [staged_length(i, clamp) for i in x.iterables]
        result = lengths[0]
        for n in lengths[1:]:
            result = np.minimum(result, n)
        return result
    if isinstance(x, data_structures.StagedList):
        return x.tensor_array.length()
    if is_symbolic(x):
        if x.ndim == 0:
            raise errors.SymbolicValueError(f"{_where()}cannot iterate over a scalar tensor")
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


def _bool_is_index() -> bool:
    """Whether this NumPy's bool scalars are integers to range() (NumPy 2.2: yes, deprecated)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            operator.index(np.True_)
        except TypeError:
            return False
    return True


_BOOL_IS_INDEX = _bool_is_index()


def _range_bound(x):
    """A symbolic range() argument as the Python int range() takes (through __index__): a
    uint8 0 is the int 0, so `range(1, n)` counts in Python ints, not in wrapping uint8."""
    if not is_symbolic(x):
        return x
    t = x.type
    if t.weak and t.python_type is int:
        return x
    if t.shape != () or t.dtype.kind not in ("iub" if _BOOL_IS_INDEX else "iu") or t.weak:
        what = (
            "bool"
            if t.dtype.kind == "b"
            else t.dtype.name
            if not t.weak
            else t.python_type.__name__
        )
        raise TypeError(
            f"{_where()}range(): a {what} value {'array ' if t.shape != () else ''}cannot be "
            f"interpreted as an integer"
        )
    return record("python_number", [x], {"kind": int})


def range_(*args):
    if _any_symbolic(args):
        args = [_range_bound(a) for a in args]
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
        size = obj.tensor_array.length()
        return size if is_symbolic(size) else int(size)
    if is_symbolic(obj) and obj.ndim > 0 and obj.static_shape[0] is None:
        return obj.shape[0]  # a Python int known when the graph runs
    return len(obj)


def print_(*args, **kwargs):
    args = tuple(a.read() if isinstance(a, MaybeMissing) else a for a in args)
    if any(is_symbolic(a) or isinstance(a, data_structures.StagedList) for a in args):
        if set(kwargs) - {"sep", "end"}:
            raise TypeError(f"{_where()}staged print() supports only sep= and end=")
        return staged_print(*args, **kwargs)
    return print(*args, **kwargs)


def hasattr_(obj, name):
    """hasattr(); an attribute set on only some paths of staged control flow: its flag (a
    symbolic bool telling at run time whether the path taken set it)."""
    value = getattr(obj, name, None) if type(name) is str else None
    if isinstance(value, MaybeMissing):
        flag = value.defined
        return record("python_number", [flag], {"kind": bool}) if is_symbolic(flag) else bool(flag)
    return hasattr(obj, name)


def getattr_(obj, name, *default):
    """getattr(); with a default, an attribute set on only some paths of staged control flow
    gives its value where the path taken set it and the default elsewhere."""
    value = getattr(obj, name, *default)
    if default and isinstance(value, MaybeMissing):
        from staging.control_flow.branches import cond

        return cond(value.defined, lambda: value.value, lambda: default[0])
    return value


def _python_number(kind):
    """int(x), float(x), bool(x), complex(x): on a symbolic scalar, a Python number known when the
    graph runs (what the builtin gives eagerly)."""

    def convert(*args, **kwargs):
        if len(args) == 1 and not kwargs and is_symbolic(args[0]):
            x = args[0]
            if x.ndim != 0:
                raise errors.SymbolicValueError(
                    f"{_where()}{kind.__name__}() of a symbolic array of shape {x.static_shape}: only a "
                    f"0-d value converts to a Python {kind.__name__}; reduce it or index it first"
                )
            return record("python_number", [x], {"kind": kind})
        return kind(*args, **kwargs)

    convert.__name__ = f"{kind.__name__}_"
    return convert


def isinstance_(obj, classinfo):
    """isinstance(); of an exception a staged `try` caught when the graph runs, staged (a Python
    bool known when the graph runs) unless its classes answer it now."""
    if not is_caught_exception(obj):
        return builtins.isinstance(obj, classinfo)
    flat = classinfo if builtins.isinstance(classinfo, tuple) else (classinfo,)
    if all(issubclass(c, flat) for c in obj.classes):
        return True
    return record("exception_matches", [obj], {"classes": flat})


def type_(*args):
    """type(); of an exception a staged `try` caught when the graph runs, refused (its class is
    known only then)."""
    if len(args) == 1 and is_caught_exception(args[0]):
        raise args[0]._unknown("type()")
    return builtins.type(*args)


OVERRIDES = {
    builtins.int: _python_number(int),
    builtins.float: _python_number(float),
    builtins.bool: _python_number(bool),
    builtins.complex: _python_number(complex),
    builtins.print: print_,
    builtins.len: len_,
    builtins.range: range_,
    builtins.enumerate: enumerate_,
    builtins.zip: zip_,
    builtins.min: py_reductions.min_,
    builtins.max: py_reductions.max_,
    builtins.sum: py_reductions.sum_,
    builtins.hasattr: hasattr_,
    builtins.getattr: getattr_,
    builtins.isinstance: isinstance_,
    builtins.type: type_,
}
