"""Ops reading run-time state: random draws, generators made at run time, and clocks.

Each node holds a `RunTimeCall`: what to call (a method of a generator the graph holds, a
method of the generator that is the node's first input, or a function such as
`np.random.seed` or `time.perf_counter`) and its arguments, with `_` slots filled from the
node's inputs when the graph runs. The call is the very NumPy / Python call the eager code
makes, on the very generator, so a staged function draws the same stream as the plain one.
All three ops are stateful: never folded, merged, removed or reordered.
"""

from __future__ import annotations

import functools
import math
import operator
import random as _py_random

import numpy as np

from ..core_ops import ARG
from ..graph import format_attr
from ..registry import register_op

# The classes whose instances are generator values of a graph (a graph input, or made by a
# `random_generator` node). Subclasses count as theirs.
GENERATOR_CLASSES = (
    np.random.Generator,
    np.random.RandomState,
    _py_random.Random,
    np.random.BitGenerator,
)


_METADATA_KEY = "random_generator"


def generator_class(dtype):
    """The generator class a GeneratorType's dtype stands for, else None."""
    metadata = getattr(dtype, "metadata", None)
    return metadata.get(_METADATA_KEY) if metadata else None


def generator_type_of(value):
    """The GeneratorType of a random generator object, else None."""
    return GeneratorType(type(value)) if isinstance(value, GENERATOR_CLASSES) else None


class GeneratorType:
    """The type of a graph value that is a random generator (np.random.Generator, RandomState,
    random.Random or a NumPy bit generator) of exactly class `cls`.

    `shape` and `dtype` say what an array type would (a 0-d object) so that code that asks
    every value for them works; nothing computes on a generator but the ops of this module.
    The dtype carries the class as metadata (`generator_class(dtype)`), so that a spec made
    from (shape, dtype) can stand for this type again.
    """

    __slots__ = ("cls", "dtype")
    cls: type
    dtype: np.dtype
    shape = ()
    weak = False

    def __init__(self, cls: type):
        object.__setattr__(self, "cls", cls)
        object.__setattr__(self, "dtype", np.dtype(object, metadata={_METADATA_KEY: cls}))

    def __setattr__(self, name, value):
        raise AttributeError("GeneratorType is immutable")

    def __eq__(self, other):
        return isinstance(other, GeneratorType) and self.cls is other.cls

    def __hash__(self):
        return hash(("generator", self.cls))

    def __repr__(self):
        return f"GeneratorType({self.cls.__module__}.{self.cls.__qualname__})"

    def __str__(self):
        return self.cls.__name__

    def strong(self):
        return self

    def is_supertype_of(self, other) -> bool:
        return self == other

    def most_specific_common_supertype(self, other):
        return self if self == other else None

    def accepts_shape(self, shape) -> bool:
        return shape == ()


def count_slots(template) -> int:
    """How many ARG slots a (nested) template has."""
    if template is ARG:
        return 1
    if type(template) in (tuple, list):
        return sum(count_slots(t) for t in template)
    return 0


def fill(template, values):
    """`template` (nested tuples/lists) with each ARG slot replaced by the next of `values`."""
    if template is ARG:
        return next(values)
    if type(template) in (tuple, list):
        return type(template)(fill(t, values) for t in template)
    return template


class RunTimeCall:
    """One call made when the graph runs.

    func: the callable (a bound method of a generator the graph holds, or a function), or None
    when the generator is the node's first input and `method` names what to call on it.
    label: how the graph text names the callee (`rng.normal`, `np.random.seed`, `_.normal`).
    args, kwargs: the arguments, ARG marking a slot filled by the next node input (kwargs: a
    tuple of (name, value) pairs). in_place: the index of the argument the call shuffles in
    place (the node returns a shuffled copy of it), or None. out_types: the output types
    (empty for a call whose result is None).
    """

    __slots__ = ("func", "method", "label", "args", "kwargs", "in_place", "out_types")

    def __init__(self, func, method, label, args, kwargs, in_place, out_types):
        self.func, self.method, self.label = func, method, label
        self.args, self.kwargs = tuple(args), tuple(kwargs)
        self.in_place, self.out_types = in_place, tuple(out_types)

    def __graph_repr__(self):
        parts = [format_attr(a) for a in self.args]
        parts += [f"{k}={format_attr(v)}" for k, v in self.kwargs]
        return f"{self.label}({', '.join(parts)})"

    __repr__ = __graph_repr__

    def expr(self) -> str | None:
        """The call as an expression the executor writes inline (`({0}.random(),)`: a 1-tuple
        like the kernel's result), for a method of the generator input with literal arguments
        only; None otherwise (the kernel runs)."""
        if self.func is not None or self.in_place is not None or not self.out_types:
            return None
        values = list(self.args) + [v for _, v in self.kwargs]
        if (
            not all(
                type(v) in (bool, int, str, type(None)) or (type(v) is float and math.isfinite(v))
                for v in values
            )
            or not self.method.isidentifier()
        ):
            return None
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs]
        text = f"({{0}}.{self.method}({', '.join(parts)}),)"
        return text.replace("{", "{{").replace("}", "}}").replace("{{0}}", "{0}")

    def kernel(self):
        """callable(*inputs) -> tuple of outputs (one, or none for a None result)."""
        func, method, args, kwargs = self.func, self.method, self.args, self.kwargs
        in_place, returns = self.in_place, bool(self.out_types)
        if in_place is None and returns and count_slots((args, kwargs)) == 0:
            # the common case, without filling: one call per run, as the eager code makes it
            if func is not None:
                call = functools.partial(func, *args, **dict(kwargs))
                return lambda: (call(),)
            call_method = operator.methodcaller(method, *args, **dict(kwargs))
            return lambda generator: (call_method(generator),)

        def run(*inputs):
            values = iter(inputs)
            callee = func if func is not None else getattr(next(values), method)
            call_args = fill(args, values)
            call_kwargs = {k: fill(v, values) for k, v in kwargs}
            if in_place is not None:
                call_args = list(call_args)
                target = call_args[in_place] = np.array(call_args[in_place])  # a copy, shuffled
                callee(*call_args, **call_kwargs)
                return (target,)
            result = callee(*call_args, **call_kwargs)
            return (result,) if returns else ()

        return run


def _infer(*input_types, call):
    return call.out_types


_DRAWS = (
    "it draws random numbers through Python objects (np.random, a Generator, Python's random) "
    "that cannot be saved: pass the random values in as arguments"
)
for _name, _doc, _unsaveable in (
    ("random", "a draw (or seed, or shuffle) from a random generator, when the graph runs", _DRAWS),
    ("random_generator", "a random generator (or bit generator) made when the graph runs", _DRAWS),
    (
        "clock",
        "a clock read when the graph runs (time.time, time.perf_counter, ...)",
        "it reads a clock through a Python function that cannot be saved: pass the time in as "
        "an argument",
    ),
):
    register_op(
        _name,
        infer=_infer,
        stateful=True,
        varies=True,
        num_outputs=None,
        weak_results=True,
        make_kernel=lambda call: call.kernel(),
        make_expr=lambda *types, call: call.expr(),
        unlowerable=(
            "it reads the state of a Python object (a random generator, a clock) in program "
            "order on every call; pass the values in as arguments, or call it through "
            "staging.py_function"
        ),
        unsaveable=_unsaveable,
        doc=_doc,
    )(lambda *inputs, call: call.kernel()(*inputs))
