"""The result type of a random draw (or clock read) recorded in staged code: the same call made
at trace time on a generator of the same class, never the user's own, with stand-ins for the
symbolic arguments. NumPy decides the dtype, the shape and whether the result is a Python
number, a NumPy scalar or an array, exactly as it will when the graph runs.

Shapes: a `size` argument gives the leading dims of the result (the call is probed with the
known ones shrunk to at most 1, so drawing 10**6 numbers costs nothing at trace time); any
other dim is probed twice, with the unknown dims of the arguments as 2 and as 3, and a dim of
the result that differs between the two is unknown (`None`).
"""

from __future__ import annotations

import copy
import inspect
import operator
import random as _py_random

import numpy as np

from runtime import TensorType
from runtime._compat import add_note
from runtime.core_ops import ARG
from runtime.ops.random import GENERATOR_CLASSES, GeneratorType, count_slots, fill
from staging import errors
from staging.core.source_map import where

_PY_NUMBERS = (bool, int, float, complex)

# Stand-in values of symbolic parameters that NumPy validates; the default is 1. Each pair
# below is valid for the method (low < high, left <= mode <= right, zipf's a > 1, ...).
_VALUES = {
    "p": 0.5,
    "low": 0,
    "high": 100,
    "left": 0,
    "mode": 0,
    "right": 100,
    "start": 1,
    "stop": 100,
    ("zipf", "a"): 2,
}
_DIM_PARAMS = {"choice": ("a",), "permutation": ("x",)}  # an integer here is a length


def probe_instance(cls: type, obj=None):
    """A generator of class `cls` to make probe calls on (`obj`, the user's, is only copied)."""
    try:
        if issubclass(cls, np.random.Generator):
            return cls(np.random.PCG64(0))
        if issubclass(cls, (np.random.RandomState, np.random.BitGenerator)):
            return cls(0)
        if issubclass(cls, _py_random.SystemRandom):
            return cls()
        return cls(0)
    except Exception:  # noqa: BLE001 - a subclass with another constructor
        if obj is None:
            raise errors.UnsupportedOpError(
                f"{where()}cannot make a {cls.__qualname__} to work out what its methods return; "
                f"draw from it in a staging.py_function"
            ) from None
        return copy.deepcopy(obj)


def parameters(callee):
    """(positional parameter names, name of *args or None) of a callable, ([], None) if unknown."""
    try:
        params = inspect.signature(callee).parameters.values()
    except (TypeError, ValueError):
        return [], None
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    star = next((p.name for p in params if p.kind is p.VAR_POSITIONAL), None)
    return positional, star


def _named_slots(args, kwargs, positional, star):
    """The template of each argument with the name of its parameter: [(name, template)]."""
    named = []
    for i, a in enumerate(args):
        named.append((positional[i] if i < len(positional) else (star or "?"), a))
    named.extend(kwargs)
    return named


def _size_dims(template):
    """The dims a `size` template gives (None for a symbolic one), or None for no size."""
    if template is None:
        return None
    if isinstance(template, np.ndarray):
        template = tuple(template.tolist())
    entries = template if type(template) in (tuple, list) else (template,)
    dims = []
    for d in entries:
        if d is ARG:
            dims.append(None)
            continue
        try:
            dims.append(operator.index(d))
        except TypeError:
            return None  # not a size NumPy accepts: the probe call says why
    return tuple(dims)


def _shrunk(template):
    """A size template with every known dim cut to at most 1 (symbolic ones stay slots)."""
    if type(template) in (tuple, list):
        return type(template)(_shrunk(d) for d in template)
    if template is ARG or not isinstance(template, (int, np.integer)) or isinstance(template, bool):
        return template
    return min(int(template), 1)


def _stand_in(t, name, method, variant, dim_value, shape_variant):
    """A concrete value of type `t` for a symbolic argument of parameter `name`: `variant` 0
    picks valid values for the parameter, None plain ones; unknown dims are 2 + shape_variant."""
    if isinstance(t, GeneratorType):
        return probe_instance(t.cls)
    if dim_value is not None:
        value = dim_value
    elif variant is None:
        value = 1
    else:
        value = _VALUES.get((method, name), _VALUES.get(name, 1))
    if t.weak:
        return t.python_type(value)
    shape = tuple(2 + shape_variant if d is None else d for d in t.shape)
    if name in ("p", "pvals") and shape and shape[-1]:
        value = 1.0 / shape[-1]  # probabilities that sum to 1
    if t.dtype.kind == "b":
        value = bool(value)
    array = np.full(shape, value, dtype=t.dtype)
    return array[()] if array.ndim == 0 else array


class Probe:
    """What is known of one call: its callee on a probe generator, method name, argument
    templates and the types of the node inputs that fill their slots."""

    def __init__(self, callee, method, args, kwargs, input_types, what):
        self.callee, self.method, self.what = callee, method, what
        self.args, self.kwargs = tuple(args), tuple(kwargs)
        self.input_types = list(input_types)
        positional, star = parameters(callee)
        self.slots = _named_slots(self.args, self.kwargs, positional, star)
        self.star = star
        size_params = {"size", star} if star else {"size"}
        sizes = [(i, t) for i, (name, t) in enumerate(self.slots) if name in size_params]
        if star and method in ("rand", "randn"):
            self.size = _size_dims(tuple(t for name, t in self.slots if name == star))
        else:
            self.size = _size_dims(sizes[0][1]) if sizes else None
        axis = dict(self.kwargs).get("axis", 0)
        self.shrink = self.size is not None and not (method == "choice" and axis not in (0, None))
        self.size_params = size_params

    def _inputs(self, values_variant, shape_variant):
        """Stand-in values for the node inputs, in slot order."""
        values, types = [], iter(self.input_types)
        for name, template in self.slots:
            for _ in range(count_slots(template)):
                t = next(types)
                dim = None
                if name in self.size_params:
                    dim = 1 if self.shrink else 2 + shape_variant
                elif (
                    name in _DIM_PARAMS.get(self.method, ())
                    and isinstance(t, TensorType)
                    and t.shape == ()
                    and t.dtype.kind in "iu"
                ):
                    dim = 2 + shape_variant
                values.append(_stand_in(t, name, self.method, values_variant, dim, shape_variant))
        return values

    def _call(self, values_variant, shape_variant):
        values = iter(self._inputs(values_variant, shape_variant))
        shrink = self.shrink
        args, kwargs = [], {}
        for name, template in self.slots[: len(self.args)]:
            t = _shrunk(template) if shrink and name in self.size_params else template
            args.append(fill(t, values))
        for name, template in self.slots[len(self.args) :]:
            t = _shrunk(template) if shrink and name in self.size_params else template
            kwargs[name] = fill(t, values)
        return self.callee(*args, **kwargs)

    def results(self):
        """Two probe results (the same one twice when no argument is symbolic)."""
        if not self.input_types:
            try:
                r = self._call(0, 0)
            except Exception as exc:  # noqa: BLE001 - the call fails eagerly too: say where
                raise _located(exc, f"{where()}{self.what}(): ") from None
            return r, r
        first = None
        for values_variant in (0, None):
            try:
                return self._call(values_variant, 0), self._call(values_variant, 1)
            except Exception as exc:  # noqa: BLE001 - stand-ins NumPy rejects: try others
                first = first or exc
        raise errors.UnsupportedOpError(
            f"{where()}cannot work out what {self.what}() returns for these symbolic arguments "
            f"({type(first).__name__}: {first}); pass the arguments NumPy validates as concrete "
            f"values, or make the call in a staging.py_function"
        )

    def output_types(self) -> tuple:
        r0, r1 = self.results()
        t0 = self._type(r0, r0, r1)
        return () if t0 is None else (t0,)

    def _type(self, r, r0, r1):
        if r is None:
            return None
        if type(r) in _PY_NUMBERS:
            if type(r1) is not type(r0):
                raise self._unsure(r0, r1)
            return TensorType.python_scalar(type(r))
        if isinstance(r, GENERATOR_CLASSES):
            return GeneratorType(type(r))
        if isinstance(r, (np.ndarray, np.generic)) and not r.dtype.hasobject:
            if type(r1) is not type(r0) or r1.dtype != r0.dtype or r1.ndim != r0.ndim:
                raise self._unsure(r0, r1)
            if isinstance(r, np.generic):
                return TensorType(r.dtype, ())
            if self.shrink and len(self.size) <= r0.ndim:
                n = len(self.size)
                rest = tuple(a if a == b else None for a, b in zip(r0.shape[n:], r1.shape[n:]))
                return TensorType(r.dtype, self.size + rest)
            return TensorType(
                r.dtype, tuple(a if a == b else None for a, b in zip(r0.shape, r1.shape))
            )
        raise errors.UnsupportedOpError(
            f"{where()}{self.what}() returns a {type(r).__name__}, which a staged graph cannot hold "
            f"(it holds arrays, numbers and random generators); call it outside the staged function "
            f"and pass the result in, or call it in a staging.py_function"
        )

    def _unsure(self, r0, r1):
        return errors.UnsupportedOpError(
            f"{where()}the type of what {self.what}() returns depends on the values of its symbolic "
            f"arguments ({type(r0).__name__} or {type(r1).__name__}); make the call in a "
            f"staging.py_function"
        )


def _located(exc: BaseException, prefix: str) -> BaseException:
    """`exc` with `prefix` (the user's file:line and the call) before its message."""
    if len(exc.args) <= 1 and type(exc).__str__ is BaseException.__str__ and not vars(exc):
        try:
            located = type(exc)(f"{prefix}{exc}")
        except Exception:  # noqa: BLE001 - a constructor that wants other arguments
            located = None
        if located is not None and type(located) is type(exc):
            return located
    add_note(exc, prefix.rstrip(": ") + ": raised while staging this call")
    return exc
