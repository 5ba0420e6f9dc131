"""Staging: trace Python + NumPy functions into graphs and run them (tf.function for NumPy).

Subpackages by role, each building on the ones before it (tests/test_architecture.py):
core (the symbolic tensor, recording nodes, source locations), kinds (what a value may be on
each path), state (writes into Python objects, arrays, Variables, staged lists), control_flow
(cond, while_loop), effects (random draws, staged print, py_function), numpy_api (NumPy on
symbolic tensors), functions (the Function layer), saving. `errors` holds every error type.
Nothing here imports autograph at module level; the Function layer asks autograph to convert
the functions it traces.
"""

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
    Function,
    TensorSpec,
    function,
    functions_run_eagerly,
    run_functions_eagerly,
)
from staging.functions.retracing import RetracingWarning
from staging.saving import LoadedFunction, load, save
from staging.state.tensor_array import TensorArray
from staging.state.variables import Variable

__all__ = [
    "AutographWarning",
    "ConcreteFunction",
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
    "disable_traceback_filtering",
    "enable_traceback_filtering",
    "errors",
    "function",
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
    "while_loop",
]
