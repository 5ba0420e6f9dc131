"""Staging: trace Python + NumPy functions into graphs and run them (tf.function for NumPy).

The tracing core (tensor, graph_building, aliasing, stale_values, numpy_api, control_flow,
variables, tensor_array, debugging, errors, source_map, conversion_hints, tracebacks, nest) never
imports autograph; `staging.function` (the Function layer) asks autograph to convert functions
it traces.
"""

from runtime.options import get_options as get_optimizer_options
from runtime.options import options as optimizer_options
from runtime.options import set_options as set_optimizer_options

from . import (  # noqa: F401  (numpy_api installs Tensor's operators)
    errors,
    numpy_api,
    random_ops,  # noqa: F401  (installs the methods of symbolic random generators)
)
from .control_flow import cond, while_loop
from .debugging import assert_true, constant, print, py_function  # noqa: A004
from .function import (
    AutographWarning,
    ConcreteFunction,
    Function,
    TensorSpec,
    function,
    functions_run_eagerly,
    run_functions_eagerly,
)
from .retracing import RetracingWarning
from .saving import LoadedFunction, load, save
from .tensor import Tensor, is_symbolic
from .tensor_array import TensorArray
from .trace_effects import TraceStateWarning
from .tracebacks import (
    disable_traceback_filtering,
    enable_traceback_filtering,
    is_traceback_filtering_enabled,
)
from .variables import Variable

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
