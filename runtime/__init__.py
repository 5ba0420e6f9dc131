"""Graph IR, op registry with NumPy kernels, and the executor that runs graphs."""

from . import (  # noqa: F401  (register the ops: control flow, core, NumPy)
    control_ops,
    core_ops,
    dot,  # noqa: F401  (adds Graph.to_dot and the notebook displays)
    ops,
)
from .executor import CompiledGraph, execute
from .graph import Graph, ListType, Node, Value, format_graph
from .registry import OpDef, UnknownOpError, all_ops, get_op, has_op, register_op
from .types import StrType, TensorType, broadcast_shapes
from .verify import InvalidGraphError, verify

__all__ = [
    "CompiledGraph",
    "Graph",
    "InvalidGraphError",
    "ListType",
    "Node",
    "OpDef",
    "StrType",
    "TensorType",
    "UnknownOpError",
    "Value",
    "all_ops",
    "broadcast_shapes",
    "execute",
    "format_graph",
    "get_op",
    "has_op",
    "register_op",
    "verify",
]
