"""staging.grad, staging.value_and_grad and staging.stop_gradient.

`grad(f)` is a staging.Function like any other: each call traces, once per input signature,
a graph that runs f's graph forward and then its vector-Jacobian product
(staging.gradients.reverse), so it is inspectable, savable, compiled with jit_compile=True and
differentiable again (`grad(grad(f))`).
"""

from __future__ import annotations

import inspect

import numpy as np

from runtime import TensorType
from staging import errors
from staging.core import nest
from staging.core.recording import current_graph, record
from staging.core.source_map import where_defined
from staging.core.tensor import Tensor
from staging.functions.function import Function, function
from staging.functions.trace_key import bind, flat_tensors
from staging.gradients import signs
from staging.gradients.reverse import Reverse, calling_graph
from staging.gradients.rules import gradient_dtype, is_complex, shape_of, type_of
from staging.gradients.values import as_gradient, differentiable


def grad(f, argnums=0, has_aux=False, holomorphic=False):
    """The gradient of `f` (returning a float scalar) with respect to its argument(s) `argnums`.

    Returns a staging.Function; calling it returns one gradient per argument in `argnums` (an
    int: that argument's; a tuple: a tuple), each shaped as its argument (nested arguments:
    the same structure), of its float or complex dtype; None for an integer or bool argument.
    With `has_aux`, f returns (target, aux) and the result is (gradient, aux). A complex
    argument's gradient follows JAX's convention (df/dx - 1j df/dy of a real f); with
    `holomorphic`, f returns a complex scalar, its arguments are complex, and the result is
    the complex derivative f'(z)."""
    return _gradient_function(f, argnums, has_aux, with_value=False, holomorphic=holomorphic)


def value_and_grad(f, argnums=0, has_aux=False, holomorphic=False):
    """As `grad`, returning (f's value, gradient); with `has_aux`, ((target, aux), gradient)."""
    return _gradient_function(f, argnums, has_aux, with_value=True, holomorphic=holomorphic)


def custom_gradient(f):
    """A staged function with its own gradient: `f(*arrays)` returns (value, vjp) where
    `vjp(*cotangents of the value)` returns one gradient per array argument (a tuple when there
    are several). The value is computed by f's graph; its gradient, wherever the function is
    differentiated (staging.grad, GradientTape, called from other staged functions), by `vjp`,
    traced as a staged function of the arguments and the cotangents (so f runs again there)."""
    name = getattr(f, "__name__", "f")

    def forward(*args):
        return f(*args)[0]

    def vjp(args: tuple, cotangents: tuple):
        _, gradient = f(*args)
        return gradient(*cotangents)

    forward.__name__ = forward.__qualname__ = name
    forward.__wrapped__ = f  # type: ignore[attr-defined]  (errors name f's line)
    vjp.__name__ = vjp.__qualname__ = f"{name}_vjp"
    forward.__custom_vjp__ = function(vjp)
    return function(forward)


def stop_gradient(x):
    """x itself, through which no gradient flows (outside a trace: x)."""
    if isinstance(x, Tensor):
        return record("stop_gradient", [x])
    return x


_NUMBER_ARRAYS = {float: np.float64, int: np.float64, complex: np.complex128}


class GradientFunction(Function):
    """A gradient's Function: Python numbers passed as differentiated arguments become float64
    NumPy values (a gradient is taken with respect to a value the graph reads when it runs, and
    the trace is not made again for each number)."""

    def __init__(self, body, argnums: tuple, name: str):
        super().__init__(body, autograph=False, name=name)
        self._argnums = argnums

    def _as_arrays(self, args: tuple) -> tuple:
        return tuple(
            _NUMBER_ARRAYS[type(a)](a) if i in self._argnums and type(a) in _NUMBER_ARRAYS else a
            for i, a in enumerate(args)
        )

    def __call__(self, *args, **kwargs):
        return super().__call__(*self._as_arrays(args), **kwargs)

    def get_concrete_function(self, *args, **kwargs):
        return super().get_concrete_function(*self._as_arrays(args), **kwargs)

    def _traced(self, fg) -> None:
        start = fg.trace_state.get(_BACKWARD_FROM)
        if start is not None:
            signs.rewrite(fg.graph, start)

    def __reduce__(self):
        """Pickled as what it is the gradient of: made again in the receiving process (by
        reference when the differentiated function is found by name, as a plain one is)."""
        spec = self.python_function
        return (
            _gradient_function,
            (spec.forward, spec.argnums, spec.has_aux, spec.with_value, spec.holomorphic),
        )


# the trace_state key of the position of a gradient trace's first backward node
_BACKWARD_FROM = "gradient backward pass from"


def _argnum_tuple(argnums) -> tuple:
    if isinstance(argnums, int):
        return (argnums,)
    if isinstance(argnums, (tuple, list)) and all(isinstance(a, int) for a in argnums):
        return tuple(argnums)
    raise TypeError(f"argnums must be an int or a tuple of ints, got {argnums!r}")


def _gradient_function(
    f, argnums, has_aux: bool, with_value: bool, holomorphic: bool = False
) -> GradientFunction:
    """The gradient Function of f for these options, made once per function: `grad(f)(x)`
    written in a loop traces once, as `jax.grad(f)(x)` does."""
    holomorphic = bool(holomorphic)
    key = (argnums if isinstance(argnums, int) else tuple(argnums), has_aux, with_value)
    key += (holomorphic,) if holomorphic else ()
    made = getattr(f, "__staging_gradients__", None)
    if made is not None and key in made:
        return made[key]
    gradient = _make_gradient_function(f, argnums, has_aux, with_value, holomorphic)
    try:
        if made is None:
            made = {}
            f.__staging_gradients__ = made
        made[key] = gradient
    except (AttributeError, TypeError):  # (a builtin, a ufunc: made anew each time)
        pass
    return gradient


def _make_gradient_function(
    f, argnums, has_aux: bool, with_value: bool, holomorphic: bool
) -> GradientFunction:
    forward = f if isinstance(f, Function) else function(f)
    spec = _Gradient(forward, argnums, has_aux, with_value, holomorphic)
    return GradientFunction(spec, spec.positions, spec.__name__)


class _Gradient:
    """The Python function a gradient's Function traces (one object per differentiated
    function, each its own "function" for the retracing notes)."""

    def __init__(
        self, forward: Function, argnums, has_aux: bool, with_value: bool, holomorphic: bool
    ):
        self.forward, self.argnums = forward, argnums
        self.has_aux, self.with_value, self.holomorphic = has_aux, with_value, holomorphic
        self.positions = _argnum_tuple(argnums)
        self.name = getattr(forward, "__name__", "f")
        python_function = forward.python_function
        self.where = where_defined(getattr(python_function, "__wrapped__", python_function))
        self.__name__ = self.__qualname__ = f"grad_{self.name}"
        self.__doc__ = f"The gradient of {self.name} with respect to argument(s) {argnums!r}."
        self.__signature__ = inspect.signature(forward.python_function)

    def __call__(self, *args, **kwargs):
        self._check_argnums(args)
        cf = self.forward.get_concrete_function(*args, **kwargs)
        bound = bind(cf._signature, args, kwargs, cf.name)
        offsets = _offsets(bound[0])
        inputs = [cf.graph.inputs[offsets[i] : offsets[i + 1]] for i in self.positions]
        graph = calling_graph(cf)
        positions = {v: i for i, v in enumerate(cf.graph.inputs)}
        sources = {graph.inputs[positions[v]] for vs in inputs for v in vs}
        reverse = Reverse(graph, flat_tensors(bound), sources)
        result = cf._pack(tuple(reverse.outputs))
        target, aux = (result[0], result[1]) if self.has_aux else (result, None)
        seed = np.ones((), gradient_dtype(target))  # (a constant: no op of the target's value)
        if self.holomorphic:
            self._check_holomorphic(inputs)
        differentiated = self._target(graph, reverse, target)
        fg = current_graph()
        if fg is not None:  # (the backward pass's nodes follow: staging.gradients.signs)
            fg.trace_state.setdefault(_BACKWARD_FROM, len(fg.graph.nodes))
        found = reverse.backward({differentiated: seed})
        found = {v: found.get(w) for v, w in zip(cf.graph.inputs, graph.inputs)}
        grads = tuple(
            _argument_gradient(bound[0][i], values, found)
            for i, values in zip(self.positions, inputs)
        )
        grads_out = grads[0] if isinstance(self.argnums, int) else grads
        if self.with_value:
            return (result if self.has_aux else target), grads_out
        return (grads_out, aux) if self.has_aux else grads_out

    def _check_argnums(self, args: tuple) -> None:
        for i in self.positions:
            if i >= len(args):
                raise TypeError(
                    f"grad of {self.name} ({self.where}): argnums={self.argnums!r}, but it was "
                    f"called with {len(args)} positional argument(s)"
                )

    def _target(self, graph, reverse: Reverse, target):
        """The graph output differentiated: a float scalar a source reaches."""
        what = f"{self.where}: the target of grad({self.name})" + (
            " (the first of what it returns)" if self.has_aux else ""
        )
        if not isinstance(target, Tensor):
            raise errors.GradientError(
                f"{what} is {target!r}, a value known while tracing, which no argument reaches"
            )
        t = type_of(target)
        if not differentiable(t):
            raise errors.GradientError(f"{what} is {t}, not a float: it has no gradient")
        if is_complex(target) != self.holomorphic:
            raise errors.GradientError(f"{what} is {t}: " + _HOLOMORPHIC_ONLY[self.holomorphic])
        if shape_of(target) != ():
            raise errors.GradientError(
                f"{what} must be a scalar, not {t}; reduce it (np.sum, np.mean) first"
            )
        value = graph.outputs[0]
        if value not in reverse.active:
            raise errors.GradientError(
                f"{what} does not depend on the argument(s) {self.argnums!r} differentiated: no "
                f"gradient reaches it"
            )
        return value

    def _check_holomorphic(self, inputs: list) -> None:
        """holomorphic=True: every differentiated argument is complex (as jax.grad asks)."""
        for values in inputs:
            for v in values:
                if not isinstance(v.type, TensorType) or v.type.dtype.kind != "c":
                    raise errors.GradientError(
                        f"{self.where}: grad({self.name}, holomorphic=True) differentiates an "
                        f"argument that is {v.type}, not complex; pass complex arrays "
                        f"(x.astype(np.complex128))"
                    )


_HOLOMORPHIC_ONLY = {
    False: "a complex target needs grad(..., holomorphic=True) (for a holomorphic function), "
    "or a real scalar of it: np.real(...), np.abs(...) ** 2",
    True: "grad(..., holomorphic=True) needs a complex target (drop holomorphic=True for a "
    "real one)",
}


def _offsets(args: tuple) -> list:
    """offsets[i]: the position of positional argument i's first graph input."""
    out = [0]
    for a in args:
        out.append(out[-1] + len(flat_tensors(a)))
    return out


def _argument_gradient(arg, inputs, found: dict):
    """The gradient of one argument: its structure, a gradient per array leaf (zeros where the
    target does not depend on it; None for an integer or bool leaf or a Python value)."""
    leaves = nest.flatten(arg)
    values = iter(inputs)
    grads = []
    for leaf in leaves:
        if not isinstance(leaf, (Tensor, np.ndarray, np.generic)):
            grads.append(None)
            continue
        v = next(values)
        if not differentiable(v.type):
            grads.append(None)
            continue
        grads.append(as_gradient(found.get(v), leaf))
    return nest.pack_as(arg, grads) if not nest.is_leaf(arg) else grads[0]
