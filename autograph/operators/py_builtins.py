"""The builtins and library functions that behave differently on symbolic values (print, len,
range, enumerate, zip, min, max, sum, any, all, sorted, map, filter, functools.reduce, int,
float, round, pow, math.*, str/repr/format, isinstance and type of a caught exception), and the
staged iterables for loops."""

from __future__ import annotations

import builtins
import functools
import operator
import warnings

import numpy as np

from autograph.operators import data_structures, py_functional, py_reductions, strings
from runtime import TensorType
from runtime.types import kinds
from staging import errors
from staging.core.exceptions import is_caught_exception
from staging.core.recording import current_graph, record
from staging.core.source_map import where as _where
from staging.core.strings import call_method, is_staged_str
from staging.core.tensor import is_symbolic
from staging.effects.debugging import print as staged_print
from staging.kinds import forms
from staging.kinds.undefined import MaybeMissing, MaybeUndefined, read_all
from staging.numpy_api import python_calls, python_items
from staging.state import concrete_arrays, keyed
from staging.state import containers as staged_containers
from staging.state.containers import StagedContainer

# -- staged iterables ------------------------------------------------------


class StagedRange:
    """range(start, stop, step) with a symbolic bound: iterated by a staged loop."""

    __slots__ = ("start", "stop", "step")

    def __init__(self, start, stop, step=1):
        self.start, self.stop, self.step = start, stop, step

    def __repr__(self):
        return f"range({self.start}, {self.stop}, {self.step})"

    def __iter__(self):
        """Python code iterating the range (a generator expression read lazily, a library call): the number of
        items is only known when the graph runs, so there is nothing to give it now."""
        raise errors.SymbolicValueError(
            f"{_where()}iterating {self!r}, whose bounds are known only when the staged graph "
            f"runs, in Python code that autograph does not convert (a generator expression read "
            f"lazily, unpacking, list(), a library call): the number of items is unknown while "
            f"tracing. Write the loop as a `for` statement or a comprehension (a staged loop)"
        )


class StagedEnumerate:
    """enumerate() of a staged iterable: a staged loop in a converted `for`; elsewhere (a
    generator expression read lazily, a library call) Python's enumerate of the items, where their number is known
    while tracing (a tensor of known first dim)."""

    __slots__ = ("iterable", "start")

    def __init__(self, iterable, start=0):
        self.iterable, self.start = iterable, start

    def __iter__(self):
        if not is_symbolic(self.start):
            return iter(enumerate(self.iterable, self.start))
        start = _range_bound(self.start)  # (enumerate takes its start as a Python int)
        return ((start + i, item) for i, item in enumerate(self.iterable))


class StagedZip:
    """zip() with a staged iterable: as StagedEnumerate."""

    __slots__ = ("iterables",)

    def __init__(self, iterables):
        self.iterables = iterables

    def __iter__(self):
        return iter(zip(*self.iterables))


_STAGED_ITERABLES = (
    StagedRange,
    StagedEnumerate,
    StagedZip,
    data_structures.StagedList,
    StagedContainer,
)


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
    if is_staged_str(x):
        return call_method(x, "__len__", ())
    if isinstance(x, StagedContainer):
        return x._length()
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
    if isinstance(x, StagedContainer):
        return x[i] if x._kind == "list" else x._call("list")[i]
    if concrete_arrays.is_concrete_array(x) and is_symbolic(i):
        return concrete_arrays.promote(x)[i]  # a NumPy array zipped with a tensor
    if is_symbolic(i) and not is_symbolic(x):  # (a Python list zipped with a tensor)
        staged = python_items.item(x, i)
        if staged is not None:
            return staged
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
    if is_staged_str(obj):
        return call_method(obj, "__len__", ())
    if isinstance(obj, StagedContainer):
        return obj._length()
    if isinstance(obj, data_structures.StagedList):
        size = obj.tensor_array.length()
        return size if is_symbolic(size) else int(size)
    if is_symbolic(obj) and obj.static_ndim > 0 and obj.static_shape[0] is None:
        return obj.shape[0]  # a Python int known when the graph runs
    return len(obj)


def print_(*args, **kwargs):
    """print(): inside a trace a staged print, printing on every call (Python values' text fixed
    now, staged values' when the graph runs); otherwise Python's."""
    if current_graph() is None:
        return print(*args, **kwargs)
    args = tuple(_printed(a) for a in args)
    return staged_print(*args, **read_all(kwargs))


def _printed(a):
    """An argument of print as it prints: a name or attribute set on some paths read (checked),
    a staged list as the list it is when the graph runs."""
    a = a.read() if isinstance(a, MaybeUndefined) else a
    if isinstance(a, data_structures.StagedList):
        return a.tensor_array._handle
    return a


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
        if (
            kind is bool
            and len(args) == 1
            and not kwargs
            and hasattr(type(args[0]), "_truth_value")
        ):
            truth = args[0]._truth_value()  # (a staged list or container: not empty)
            if not is_symbolic(truth):
                return bool(truth)
            return record("python_number", [truth], {"kind": bool})
        if len(args) == 1 and not kwargs and is_symbolic(args[0]):
            x = args[0]
            if is_staged_str(x):  # int("12"): parsed when the graph runs, as eagerly
                return record("python_number", [x], {"kind": kind})
            if x.static_ndim != 0:  # (its static facts: `.ndim` is eager's, none for a number)
                raise errors.SymbolicValueError(
                    f"{_where()}{kind.__name__}() of a symbolic array of shape {x.static_shape}: only a "
                    f"0-d value converts to a Python {kind.__name__}; reduce it or index it first"
                )
            if kind in (int, float) and _numpy_complex_scalar(x):
                x = np.real(x)  # what np.complex128's __int__ / __float__ convert
            return record("python_number", [x], {"kind": kind})
        return kind(*args, **kwargs)

    convert.__name__ = f"{kind.__name__}_"
    return convert


def _numpy_complex_scalar(x) -> bool:
    """Whether the 0-d `x` is a NumPy complex scalar on every path: int() and float() of one
    convert its real part (with a ComplexWarning), where those of a Python complex number or a
    0-d complex array raise TypeError (the python_number op's rule)."""
    alternatives = kinds(x.type)
    if not all(isinstance(k, TensorType) and not k.weak for k in alternatives):
        return False
    if not all(k.dtype.kind == "c" for k in alternatives):
        return False
    return forms.kind_of(x) == forms.SCALAR


# -- library calls over staged iterables ------------------------------------------------------

MAX_ITEMS = 10_000  # the most items Python code may take out of one staged iterable while tracing


def static_items(x, what: str) -> list:
    """The items of a staged iterable whose length is known while tracing, as a Python list (one
    graph value each); where it is known only when the graph runs, a refusal naming the line."""
    n = staged_length(x)
    if is_symbolic(n):
        raise errors.SymbolicValueError(
            f"{_where()}{what} of {_described(x)}, whose length is known only when the staged "
            f"graph runs: the number of Python values it gives would be too. Write the loop as a "
            f"`for` statement (a staged loop), or use NumPy on the whole array"
        )
    if n > MAX_ITEMS:
        raise errors.SymbolicValueError(
            f"{_where()}{what} of {_described(x)} would take {n} Python values out of it while "
            f"tracing (at most {MAX_ITEMS}); use a `for` statement (a staged loop) or NumPy"
        )
    return [staged_item(x, i) for i in range(int(n))]


def _described(x) -> str:
    if is_symbolic(x):
        return f"a symbolic tensor <{x.type}>"
    if isinstance(x, data_structures.StagedList):
        return "a list built by a staged loop"
    return f"{type(x).__name__.replace('Staged', '').lower()}() of symbolic values"


def reduce_(function, iterable, *initial):
    """functools.reduce: Python's left fold, the function called through converted code; over a
    staged iterable of unknown length, a staged loop."""
    if len(initial) > 1:
        return functools.reduce(function, iterable, *initial)  # Python's TypeError
    start = initial[0] if initial else py_functional.MISSING
    if is_staged_iterable(iterable):
        n = staged_length(iterable)
        if is_symbolic(n):
            item = functools.partial(staged_item, iterable)
            return py_functional.staged_fold(function, n, item, start)
        return py_functional.fold(function, static_items(iterable, "functools.reduce()"), start)
    try:
        items = iter(iterable)
    except TypeError:
        return functools.reduce(function, iterable, *initial)  # Python's TypeError
    return py_functional.fold(function, items, start)


def _listed(iterable, what):
    return static_items(iterable, what) if is_staged_iterable(iterable) else iterable


def as_staged_list(x):
    """A staged container as a staged list of its items (for the builtins that take a list
    built by a staged loop: sum, min, max, sorted, any, all); anything else as it is."""
    if isinstance(x, StagedContainer):
        return data_structures.StagedList(x._tensor_array())
    return x


def _container_aware(builtin):
    """`builtin` taking a staged container as the staged list of its items."""

    def call(*args, **kwargs):
        if args and isinstance(args[0], StagedContainer):
            args = (as_staged_list(args[0]), *args[1:])
        return builtin(*args, **kwargs)

    call.__name__ = getattr(builtin, "__name__", "builtin")
    return call


def _copied(kind, builtin):
    """list() / set() of a staged container: a new one of its items, made when the graph runs.
    (list() of a staged iterable of a length known only when the graph runs: see
    autograph.operators.control_flow.listed_by_loop.)"""

    def call(*args, **kwargs):
        if len(args) == 1 and not kwargs and isinstance(args[0], StagedContainer):
            return args[0]._copy_as(kind)
        return builtin(*args, **kwargs)

    call.__name__ = f"{kind}_"
    return call


def _keyed(kind, builtin):
    """set() / dict() / Counter() / OrderedDict() of one iterable: made when the graph runs
    where its keys hash only then, or it is a staged container or list (staging.state.keyed);
    otherwise Python's."""

    def call(*args, **kwargs):
        if len(args) != 1 or kwargs or current_graph() is None:
            return builtin(*args, **kwargs)
        items = args[0]
        if not isinstance(items, (dict, StagedContainer, data_structures.StagedList)):
            items = list(_listed(items, f"{kind}()"))
        staged = keyed.build(kind, items)
        return builtin(items) if staged is None else staged

    call.__name__ = f"{kind}_"
    return call


def run_time_length(x) -> bool:
    """Whether `x` is a staged iterable (not a staged list or container, which list() copies
    as they are) whose number of items is known only when the graph runs."""
    if isinstance(x, (data_structures.StagedList, StagedContainer)) or is_staged_str(x):
        return False
    if not is_staged_iterable(x) or current_graph() is None:
        return False
    if is_symbolic(x) and (not isinstance(x.type, TensorType) or x.type.shape == ()):
        return False  # (a 0-d tensor: Python's TypeError; a union: refused where it is read)
    return is_symbolic(staged_length(x))


def map_(function, *iterables):
    """map(): Python's lazy map over the items (a staged iterable's, listed), the function
    called through converted code."""
    if not iterables:
        return map(function)  # Python's TypeError
    return py_functional.mapped(function, [_listed(it, "map()") for it in iterables])


def filter_(function, iterable):
    return py_functional.filtered(function, _listed(iterable, "filter()"))


def sorted_(iterable, /, *, key=None, reverse=False):
    """sorted(): Python's stable sort; where the items or keys are symbolic, of the run-time
    keys (one python_sort node) giving the list of the items in that order. A staged container
    (without a key of the user's code) is sorted when the graph runs."""
    if isinstance(iterable, StagedContainer):
        if key is None or not callable(getattr(key, "__code__", None) and key):
            return iterable._call("sorted", key=key, reverse=reverse)
        iterable = as_staged_list(iterable)
    if isinstance(iterable, data_structures.StagedList) and is_symbolic(staged_length(iterable)):
        return py_functional.sort_staged_list(iterable, key, reverse)
    items = list(_listed(iterable, "sorted()"))
    keys = items if key is None else [py_functional.call_user(key, item) for item in items]
    if not (py_reductions._has_symbolic(items) or py_reductions._has_symbolic(keys)):
        order = sorted(range(len(items)), key=keys.__getitem__, reverse=reverse)
        return [items[i] for i in order]
    return py_functional.sort_items(items, keys, reverse)


def _extreme_over(reduction, name):
    """min() / max(): a staged iterable with key= (or a zip/enumerate/range of one) gives its
    items; a tensor or staged list without key= is reduced by py_reductions."""

    def call(*args, **kwargs):
        if len(args) == 1 and is_staged_iterable(args[0]):
            sequence = is_symbolic(args[0]) or isinstance(args[0], data_structures.StagedList)
            if kwargs.get("key") is not None or not sequence:
                args = (static_items(args[0], f"{name}()"),)
        return reduction(*args, **kwargs)

    call.__name__ = f"{name}_"
    return call


def _truth_of(wanted):
    """any() (wanted True) / all() (wanted False): the first item whose truth is `wanted`
    decides, as Python's; staged where the items are symbolic."""

    def call(iterable):
        if is_symbolic(iterable):
            return py_functional.tensor_truth(iterable, wanted)
        if isinstance(iterable, data_structures.StagedList):
            return py_functional.tensor_truth(iterable.stack(), wanted)
        if is_staged_iterable(iterable):
            iterable = static_items(iterable, f"{'any' if wanted else 'all'}()")
        if type(iterable) in (list, tuple):  # computed already: no item is left to skip
            return py_functional.truth_of_all(iterable, wanted)
        return py_functional.short_circuit(iter(iterable), wanted)

    call.__name__ = "any_" if wanted else "all_"
    return call


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
    **python_calls.OVERRIDES,  # math.*, round, pow: staged on symbolic numbers
    builtins.int: _python_number(int),
    builtins.float: _python_number(float),
    builtins.bool: _python_number(bool),
    builtins.complex: _python_number(complex),
    builtins.print: print_,
    builtins.len: len_,
    builtins.range: range_,
    builtins.enumerate: enumerate_,
    builtins.zip: zip_,
    builtins.min: _container_aware(_extreme_over(py_reductions.min_, "min")),
    builtins.max: _container_aware(_extreme_over(py_reductions.max_, "max")),
    builtins.sum: _container_aware(py_reductions.sum_),
    builtins.list: _copied("list", builtins.list),
    **{builtin: _keyed(kind, builtin) for builtin, kind in keyed.KINDS.items()},
    **{
        f: staged_containers.call_function(f, name)
        for f, name in staged_containers.FUNCTIONS.items()
    },
    builtins.hasattr: hasattr_,
    builtins.getattr: getattr_,
    builtins.map: map_,
    builtins.filter: filter_,
    builtins.sorted: sorted_,
    builtins.any: _container_aware(_truth_of(True)),
    builtins.all: _container_aware(_truth_of(False)),
    functools.reduce: reduce_,
    **strings.OVERRIDES,
    builtins.isinstance: isinstance_,
    builtins.type: type_,
}


def is_overridden(func) -> bool:
    """Whether converted code calls `func` through OVERRIDES (the converter routes such calls
    through ag__.call)."""
    try:
        return func in OVERRIDES
    except TypeError:  # an unhashable callable
        return False
