"""Random draws and clocks called from staged code, recorded to run when the graph runs.

Converted code asks `run_time_call(func)` before calling anything inside a trace. A draw from
NumPy's random state (the legacy `np.random.*` functions, the methods of an np.random.Generator,
a RandomState, a bit generator) or from Python's `random`, and a clock (`time.time`,
`time.perf_counter`, `time.monotonic`, ...) become stateful nodes (runtime.ops.random) that
make that very call, on that very generator, each time the graph runs and only when the code
holding them runs (inside a staged branch or loop too), in program order. So a staged function
draws the stream the plain function draws. A generator made inside the staged code
(`np.random.default_rng(seed)`) is made when the graph runs, as a graph value; one passed as an
argument is a graph input (staging.core.generators).
"""

from __future__ import annotations

import random as _py_random
import time

import numpy as np

from runtime.core_ops import ARG
from runtime.ops.random import GENERATOR_CLASSES, GeneratorType, RunTimeCall
from staging import errors
from staging.core.generators import SymbolicGenerator
from staging.core.recording import record
from staging.core.source_map import user_frame, where
from staging.core.tensor import Tensor, has_staged_value, staged_value
from staging.effects.random_probe import Probe, probe_instance
from staging.state import aliasing

_LEGACY = np.random.mtrand._rand  # the RandomState behind the np.random.* functions
_PYTHON = _py_random._inst  # the Random behind the random.* functions

CLOCKS = frozenset(
    {
        time.time,
        time.perf_counter,
        time.monotonic,
        time.process_time,
        time.thread_time,
        time.time_ns,
        time.perf_counter_ns,
        time.monotonic_ns,
        time.process_time_ns,
        time.thread_time_ns,
    }
)
# np.random.* functions that are not methods of the global RandomState: the RandomState method
# that returns what they return.
_LEGACY_FUNCTIONS = {
    np.random.seed: "seed",
    np.random.sample: "random_sample",
    np.random.ranf: "random_sample",
}
_CONSTRUCTORS = {np.random.default_rng: "np.random.default_rng"}


def _name(obj) -> str:
    module = obj.__module__ or ""
    if module.startswith("numpy.random"):
        return f"np.random.{obj.__name__}"
    return f"{module}.{obj.__name__}" if module else obj.__name__


def run_time_call(func):
    """What converted code calls instead of `func` inside a trace when `func` reads run-time
    state (a draw, a seed, a clock, a generator's constructor); None for anything else."""
    owner = getattr(func, "__self__", None)
    if owner is not None and isinstance(owner, GENERATOR_CLASSES):
        name = func.__name__
        return lambda *args, **kwargs: stage_method(owner, name, args, kwargs)
    try:
        if func in CLOCKS:
            return lambda *args, **kwargs: _stage_function(
                "clock", func, _name(func), None, args, kwargs
            )
        legacy = _LEGACY_FUNCTIONS.get(func)
        constructor = _CONSTRUCTORS.get(func)
    except TypeError:  # an unhashable callable
        return None
    if legacy is not None:
        probe = getattr(probe_instance(np.random.RandomState), legacy)
        return lambda *args, **kwargs: _stage_function(
            "random", func, f"np.random.{func.__name__}", probe, args, kwargs
        )
    if constructor is None and isinstance(func, type) and issubclass(func, GENERATOR_CLASSES):
        constructor = _name(func)
    if constructor is not None:
        return lambda *args, **kwargs: _stage_function(
            "random_generator", func, constructor, func, args, kwargs
        )
    return None


def is_run_time_call(func) -> bool:
    """Whether converted code must route a call of `func` through `ag__.call` (run_time_call)."""
    try:
        return run_time_call(func) is not None
    except Exception:  # noqa: BLE001 - an object whose attributes raise
        return False


# -- arguments ----------------------------------------------------------------------------------


def _template(value, inputs: list, depth: int = 0):
    """`value` with each symbolic leaf replaced by ARG (the leaf appended to `inputs`)."""
    if isinstance(value, Tensor):
        inputs.append(value)
        return ARG
    if has_staged_value(value):  # Variables, staged lists: their value where the call is
        inputs.append(staged_value(value))
        return ARG
    if type(value) in (tuple, list) and depth < 4:
        return type(value)(_template(v, inputs, depth + 1) for v in value)
    if type(value) is np.ndarray:  # captured now, as every constant of a trace
        value = value.copy()
        value.setflags(write=False)
    return value


def _templates(args, kwargs):
    inputs: list = []
    args_t = tuple(_template(a, inputs) for a in args)
    kwargs_t = tuple((k, _template(v, inputs)) for k, v in kwargs.items())
    return args_t, kwargs_t, inputs


def _record(  # noqa: PLR0913
    op, func, method, label, probe_callee, args, kwargs, generator=None, in_place=None, what=None
):
    """Records `op` making the call; `label` names the callee in the graph text, `what` in errors."""
    what = what or label
    args_t, kwargs_t, inputs = _templates(args, kwargs)
    if dict(kwargs_t).get("out") is not None:
        raise errors.UnsupportedOpError(
            f"{where()}{what}(..., out=...) is not staged; use the returned array"
        )
    types = [t.type for t in inputs]
    out_types = Probe(probe_callee, method, args_t, kwargs_t, types, what).output_types()
    if in_place is not None:  # the node gives the shuffled copy of the argument
        out_types = (types[0],)
    call = RunTimeCall(func, method, label, args_t, kwargs_t, in_place, out_types)
    outs = record(op, ([generator] if generator is not None else []) + inputs, {"call": call})
    if not outs:
        return None
    out = outs[0]
    if isinstance(out._value.type, GeneratorType):
        return SymbolicGenerator(out._graph, out._value)
    return out


def _label(owner) -> str:
    """How the graph text names a generator the graph holds: np.random, random, or the name
    the user's code gives it (`rng`)."""
    if owner is _LEGACY:
        return "np.random"
    if owner is _PYTHON:
        return "random"
    frame = user_frame(2)
    if frame is not None:
        scopes = (frame.f_locals, frame.f_globals)
        for scope in scopes:
            names = sorted(
                n for n, v in list(scope.items()) if v is owner and not n.startswith("ag__")
            )
            if names:
                return names[0]
        for name, value in list(scopes[0].items()):  # an attribute of a local: `self.rng`
            attrs = getattr(value, "__dict__", None)
            if isinstance(attrs, dict) and not isinstance(value, type):
                found = sorted(a for a, v in list(attrs.items()) if v is owner)
                if found:
                    return f"{name}.{found[0]}"
    if isinstance(owner, SymbolicGenerator):
        return f"<{owner.generator_class.__name__}>"
    return f"<{type(owner).__name__}>"


# -- calls --------------------------------------------------------------------------------------


def stage_method(owner, method, args, kwargs):
    """`owner.method(*args, **kwargs)` for a generator (concrete, or a SymbolicGenerator), drawn
    when the graph runs."""
    symbolic = isinstance(owner, SymbolicGenerator)
    cls = owner.generator_class if symbolic else type(owner)
    what = f"{_label(owner)}.{method}"
    label = f"_.{method}" if symbolic else what
    probe = getattr(probe_instance(cls, None if symbolic else owner), method, None)
    if probe is None:
        raise AttributeError(f"{where()}{cls.__name__!r} object has no attribute {method!r}")
    func = None if symbolic else getattr(owner, method)
    generator = owner if symbolic else None
    if method == "shuffle":
        return _shuffle(func, label, probe, args, kwargs, generator, what)
    return _record("random", func, method, label, probe, args, kwargs, generator, what=what)


def _shuffle(func, label, probe, args, kwargs, generator, what):
    """`g.shuffle(x)`: shuffles x in place, eagerly. Staged, a node shuffles a copy of x's
    value and x is rebound to it, as any in-place write of a symbolic array is."""
    kwargs = dict(kwargs)
    if not args and "x" in kwargs:
        args = (kwargs.pop("x"),)
    x = args[0] if args else None
    if not isinstance(x, Tensor) or isinstance(x, SymbolicGenerator):
        raise errors.UnsupportedOpError(
            f"{where()}{what}(x) with x of type {type(x).__name__} in a staged function: eagerly it shuffles "
            f"that object in place on every call, which the graph can do only to an array it "
            f"computes (one that depends on the function's array arguments); use permutation() "
            f"instead, which returns a shuffled copy: `x = np.random.permutation(x)` (or "
            f"rng.permutation(x))"
        )
    aliasing.check_writable(x, f"`{what}(x)`")
    new = _record(
        "random", func, "shuffle", label, probe, args, kwargs, generator, in_place=0, what=what
    )
    aliasing.write(x, new)
    return None


def _stage_function(op, func, label, probe, args, kwargs):
    """A call of a function that reads run-time state (np.random.seed, time.perf_counter,
    np.random.default_rng, a generator class), made when the graph runs."""
    return _record(op, func, getattr(func, "__name__", label), label, probe or func, args, kwargs)


SymbolicGenerator._stage_method = stage_method
