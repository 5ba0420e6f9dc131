"""Staging: trace Python + NumPy functions into graphs and run them (tf.function for NumPy).

Subpackages by role, each building on the ones before it (tests/test_architecture.py):
core (the symbolic tensor, recording nodes, source locations), kinds (what a value may be on
each path), state (writes into Python objects, arrays, Variables, staged lists), control_flow
(cond, while_loop), effects (random draws, staged print, py_function), numpy_api (NumPy on
symbolic tensors), functions (the Function layer), saving. `errors` holds every error type.
Nothing here imports autograph at module level; the Function layer asks autograph to convert
the functions it traces.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import (
    TYPE_CHECKING,
    Any,
    Concatenate,
    Generic,
    Literal,
    ParamSpec,
    TypeVar,
    overload,
)

from runtime.options import get_options as get_optimizer_options
from runtime.options import options as optimizer_options
from runtime.options import set_options as set_optimizer_options
from staging import errors, numpy_api  # noqa: F401  (numpy_api installs Tensor's operators)
from staging.control_flow import cond, while_loop
from staging.core.tensor import Tensor, is_symbolic
from staging.core.tracebacks import (
    disable_traceback_filtering,
    enable_traceback_filtering,
    is_traceback_filtering_enabled,
)
from staging.effects import random_ops  # noqa: F401  (installs symbolic generators' methods)
from staging.effects.debugging import assert_true, constant, print, py_function  # noqa: A004
from staging.effects.trace_effects import TraceStateWarning
from staging.functions.function import (
    AutographWarning,
    ConcreteFunction,
    TensorSpec,
    functions_run_eagerly,
    run_functions_eagerly,
)
from staging.functions.retracing import RetracingWarning
from staging.gradients import (
    GradientTape,
    custom_gradient,
    grad,
    stop_gradient,
    value_and_grad,
)
from staging.saving import LoadedFunction, load, save
from staging.state.tensor_array import TensorArray
from staging.state.variables import Variable

if TYPE_CHECKING:
    # What type checkers and editors see: a decorated function keeps its parameters and return
    # type (Function is generic in them), and a staged method, read from an instance, drops
    # `self` as a bound method does. At run time these are staging.functions.function's.
    _P = ParamSpec("_P")
    _Q = ParamSpec("_Q")
    _R = TypeVar("_R")
    _JitCompile = bool | Literal["device"] | None

    class Function(Generic[_P, _R]):
        """A Python function staged into graphs, one per input signature (see docs/guide.md)."""

        python_function: Callable[_P, _R]

        def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R: ...
        @overload
        def __get__(self, instance: None, owner: type | None = None) -> Function[_P, _R]: ...
        @overload
        def __get__(
            self: Function[Concatenate[Any, _Q], _R], instance: object, owner: type | None = None
        ) -> Function[_Q, _R]: ...
        def __get__(self, instance: Any, owner: type | None = None) -> Any: ...
        def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction: ...
        @property
        def tracing_count(self) -> int: ...
        @property
        def input_signature(self) -> tuple[TensorSpec, ...] | None: ...
        def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str: ...
        def experimental_get_tracing_count(self) -> int: ...

    @overload
    def function(
        func: Callable[_P, _R],
        *,
        input_signature: Sequence[TensorSpec] | None = None,
        autograph: bool = True,
        reduce_retracing: bool = False,
        jit_compile: _JitCompile = None,
    ) -> Function[_P, _R]: ...
    @overload
    def function(
        func: None = None,
        *,
        input_signature: Sequence[TensorSpec] | None = None,
        autograph: bool = True,
        reduce_retracing: bool = False,
        jit_compile: _JitCompile = None,
    ) -> Callable[[Callable[_P, _R]], Function[_P, _R]]: ...
    def function(func: Any = None, **options: Any) -> Any:
        """Stages `func` into graphs, one per input signature (`@function` or `@function(...)`)."""
else:
    from staging.functions.function import Function, function

__all__ = [
    "AutographWarning",
    "ConcreteFunction",
    "GradientTape",
    "Function",
    "LoadedFunction",
    "RetracingWarning",
    "Tensor",
    "TensorArray",
    "TensorSpec",
    "TraceStateWarning",
    "Variable",
    "assert_true",
    "cond",
    "constant",
    "custom_gradient",
    "disable_traceback_filtering",
    "enable_traceback_filtering",
    "errors",
    "function",
    "grad",
    "functions_run_eagerly",
    "get_optimizer_options",
    "is_symbolic",
    "is_traceback_filtering_enabled",
    "optimizer_options",
    "print",
    "py_function",
    "run_functions_eagerly",
    "save",
    "load",
    "set_optimizer_options",
    "stop_gradient",
    "value_and_grad",
    "while_loop",
]
