"""The symbolic tensor: a graph value with static dtype and shape, alive only while tracing.

This module is a leaf of the tracing core: it knows neither how nodes are recorded nor how
NumPy calls are dispatched. staging.numpy_api installs Tensor's operators, indexing, methods
and NumPy protocols (as a NumPy layer installs methods on its tracer type).
"""

from __future__ import annotations

import sys

import numpy as np

from runtime import TensorType
from runtime._compat import add_note
from runtime.types import optional_tuple_kind
from staging import errors
from staging.core.conversion_hints import hint
from staging.core.source_map import where


class Tensor:
    """A symbolic value recorded in a graph being traced.

    Operators, indexing, the common ndarray methods and NumPy functions
    (through `__array_ufunc__` / `__array_function__`) record nodes instead of
    computing. Python needs concrete values for `bool()`, `int()`, `len()` and
    iteration: those raise SymbolicValueError.

    A Tensor object is a mutable reference to a graph value: an in-place write
    (`x[i] = v`, `x += v`) records a node computing the new array and points the
    object, and every view of the same data, at its output (staging.state.aliasing).
    """

    __slots__ = (
        "_graph",
        "_value",
        "_alias",
        "_views",
        "_stored",
        "_written",
        "__weakref__",
    )
    __array_priority__ = 1000

    def __init__(self, graph, value):
        self._graph = graph
        self._value = value
        self._alias = None  # a staging.state.aliasing.View when this tensor is a view of another
        self._views = (
            None  # weak references to the views of this tensor (see staging.state.aliasing)
        )
        self._stored = None  # where the data went into (or came from) a staged list, if it did
        self._written = False  # written in place: True, or "carried" for a staged loop's variable

    # -- static information --------------------------------------------
    # `type` is the value's graph type (runtime.types). What eager Python would read (`dtype`,
    # `ndim`, `shape`, `size`, the methods) and what this project's own code reads of a value
    # that may be of several kinds (`static_shape`, `static_dtype`, `static_ndim`) are installed
    # by staging.kinds.decisions and staging.numpy_api, which build on this module.
    @property
    def type(self) -> TensorType:
        return self._value.type

    @property
    def graph(self):
        return self._graph.graph

    def _describe(self) -> str:
        return f"<{self._value.type}>"

    def __repr__(self):
        return f"<staging.Tensor {self._value.type} in trace of {self._graph.function_name!r}>"

    def __str__(self):
        if called_by_own_code() or not self._in_open_trace():
            return repr(self)  # (an error raised while tracing shows it in its message)
        raise self._symbolic_error(
            "str() in code that is not converted (a library function, `%` with a template that "
            "is not a literal)",
            " (converted code formats symbolic values when the graph runs: f-strings, str(), "
            "repr(), format() and `%` with a literal template)",
        )

    def _in_open_trace(self) -> bool:
        """Whether the trace this value belongs to is still being made."""
        graph = self._graph
        while graph.outer is not None:
            graph = graph.outer
        return not graph.closed

    def __format__(self, spec):
        if called_by_own_code():
            return repr(self)
        raise self._symbolic_error(
            "formatting (format(), str.format, an f-string in code that is not converted)",
            " (converted code formats symbolic values when the graph runs: f-strings, str(), "
            "repr(), format() and `%` with a literal template)",
        )

    def __hash__(self):
        """A NumPy scalar or a Python number hashes by its value, which is only known when the
        graph runs: a symbolic one is no dict key or set member (an identity hash would make
        equal values distinct keys). An array with dims is unhashable, as eagerly."""
        t = self._value.type
        if all(getattr(k, "shape", ()) != () for k in getattr(t, "alternatives", (t,))):
            raise TypeError("unhashable type: 'numpy.ndarray'")
        raise self._symbolic_error(
            "hash() (as a dict key, a set member, in Counter(), ...)",
            " (its hash is its value's); keep such values in arrays and count or look them up "
            "with NumPy (np.unique, np.bincount, a mask), or pass concrete keys",
        )

    # -- things Python needs concrete values for -------------------------
    def _symbolic_error(self, what: str, detail: str = "") -> errors.StagingError:
        if self._graph.closed:
            return leaked_error(self)
        return errors.SymbolicValueError(
            f"{where()}{what} of a symbolic tensor {self._describe()} needs its value, which is only "
            f"known when the staged graph runs{detail}. {hint(2)}"
        )

    def __bool__(self):
        raise self._symbolic_error(
            "using the truth value (`if`, `while`, `and`, `or`, `not`, bool())"
        )

    def __index__(self):
        raise self._symbolic_error("using as a Python int (index, range(), int())")

    def __int__(self):
        raise self._symbolic_error("int()")

    def __float__(self):
        raise self._symbolic_error("float()")

    def __complex__(self):
        raise self._symbolic_error("complex()")

    def __getattr__(self, name):
        """An ndarray attribute symbolic tensors do not stage: refused naming the line (the
        attributes they stage are installed by staging.numpy_api)."""
        python_type = getattr(self._value.type, "python_type", None)  # (a staged str: `str`)
        if python_type is str:
            error = AttributeError(f"'str' object has no attribute {name!r}")  # (eager's)
            add_note(error, f"{where().rstrip(': ')}: raised while tracing")
            raise error
        descriptor = getattr(type(self), name, None)
        if isinstance(descriptor, property):  # one that raised AttributeError (`.dtype` of a
            return descriptor.__get__(self, type(self))  # Python number): its error again
        if name.startswith("_") or not hasattr(np.ndarray, name):
            raise AttributeError(f"'Tensor' object has no attribute {name!r}")
        raise errors.UnstagedAttributeError(
            f"{where()}`.{name}` of a symbolic tensor {self._describe()} is not staged: its value "
            f"exists only when the graph runs. Use NumPy functions on it (docs/ops.md), or "
            f"staging.py_function"
        )

    def __len__(self):
        if optional_tuple_kind(self._value.type) is not None:
            raise errors.BranchMismatchError(
                f"{where()}len() of a value that is a tuple on some paths and None on others "
                f"is not staged (len(None) raises); test it with `is None` first, or give it one "
                f"type on every path"
            )
        shape = self.static_shape  # (of every kind the value may be: staging.kinds.decisions)
        if not shape:
            raise TypeError(f"{where()}len() of a 0-d tensor {self._describe()}")
        if shape[0] is None:
            raise self._symbolic_error(
                "len()", " (its first dim is unknown); use x.shape[0] for a symbolic length"
            )
        return shape[0]

    def __iter__(self):
        raise self._symbolic_error(
            "iterating (a Python `for` loop, unpacking, list(), ...)",
            " (a `for` loop over a symbolic tensor is staged only in converted code; elsewhere "
            "index it with x[i])",
        )

    def __contains__(self, item):
        raise self._symbolic_error("`in`")

    def __array__(self, dtype=None, copy=None):
        raise self._symbolic_error(
            "converting to a NumPy array (np.asarray / np.array)",
            " (converted code stages np.array / np.asarray of tensors and of lists of them; unconverted "
            "code can use np.stack)",
        )

    def item(self, *args):
        raise self._symbolic_error(".item()")

    def tolist(self):
        raise self._symbolic_error(".tolist()")

    def numpy(self):
        raise self._symbolic_error(".numpy()")


def called_by_own_code() -> bool:
    """Whether the code formatting a tensor (the caller of `__format__`, which calls this) is a
    module of this project, whose messages show a tensor's placeholder text."""
    module = sys._getframe(2).f_globals.get("__name__", "")
    return module.split(".", 1)[0] in ("staging", "autograph", "runtime")


# The Tensor subclass standing for the values of a graph type that is not an array's (a
# staged string: staging.core.strings), filled in by the module defining it.
SYMBOLIC_CLASSES: dict = {}


def symbolic(graph, value) -> Tensor:
    """The symbolic object for graph value `value` of `graph` (a FuncGraph)."""
    return SYMBOLIC_CLASSES.get(type(value.type), Tensor)(graph, value)


def is_symbolic(x) -> bool:
    """True for a symbolic tensor (only exists while tracing)."""
    return isinstance(x, Tensor)


def leaked_error(tensor: Tensor) -> errors.LeakedTensorError:
    """The error for `tensor` used after the trace that created it has finished."""
    made = ""
    if tensor._value.producer is not None and tensor._value.producer.location:
        file, line = tensor._value.producer.location
        made = f" (created at {file}:{line})"
    return errors.LeakedTensorError(
        f"{where()}symbolic tensor {tensor._describe()}{made} was used outside the trace of "
        f"{tensor._graph.function_name!r} that created it; it has no value here. Return it from "
        f"the staged function instead of storing it in a global or an attribute"
    )


# -- values read where they are used ------------------------------------------
# An object whose type defines `_staged_value(self) -> Tensor` stands for a value that is read
# at the point where it is used as an op input: a staging.Variable (a `read_variable` node, so
# every use sees the value current at that point of the program) and autograph's staged list
# (stacked). The protocol is looked up on the type: markers that raise on any attribute access
# (autograph's Undefined) are never asked.


def has_staged_value(x) -> bool:
    """True for objects read as a symbolic value where they are used (Variables, staged lists)."""
    return hasattr(type(x), "_staged_value")


def staged_value(x):
    """`x`'s symbolic read if it has one (see has_staged_value), else `x` itself."""
    return x._staged_value() if hasattr(type(x), "_staged_value") else x
