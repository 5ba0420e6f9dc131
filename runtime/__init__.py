"""Graph IR, op registry with NumPy kernels, and the executor that runs graphs."""

from . import control_ops, core_ops  # noqa: F401  (register cond, while_loop, const, print, variables...)
from .executor import CompiledGraph, GraphExecutionError, execute
from .graph import Graph, ListType, Node, Value, format_graph
from .registry import OpDef, UnknownOpError, all_ops, get_op, has_op, register_op
from .types import TensorType, broadcast_shapes
from .verify import InvalidGraphError, verify

import importlib.util as _util

if _util.find_spec(__name__ + ".ops") is not None:
    from . import ops  # noqa: F401  (NumPy ops, one module per family)
core_ops._register_bool_exprs()

__all__ = [
    "CompiledGraph", "Graph", "GraphExecutionError", "InvalidGraphError", "ListType", "Node", "OpDef",
    "TensorType", "UnknownOpError", "Value", "all_ops", "broadcast_shapes", "execute", "format_graph",
    "get_op", "has_op", "register_op", "verify",
]
