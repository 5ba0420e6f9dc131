"""What an op's gradient rule (OpDef.vjp) is given besides the values: `RuleContext`.

A rule computes with NumPy on symbolic tensors (so a gradient is an ordinary graph); the
context adds what NumPy cannot say on them: the static rank and dims of a value, which inputs
want a cotangent, and the gradient ops that read shapes when the graph runs (undoing a
broadcast, a reduction, a reshape).
"""

from __future__ import annotations

import numpy as np

from runtime import TensorType
from runtime.registry import get_op
from runtime.types import kinds
from staging import errors
from staging.core.recording import record
from staging.core.tensor import Tensor


def type_of(x):
    """The graph type of a rule's operand: a tensor's, a NumPy value's, or a Python number
    itself."""
    if isinstance(x, Tensor):
        return x._value.type
    if isinstance(x, (np.ndarray, np.generic)):
        return TensorType.of(x)
    return x


def _array_kind(x) -> TensorType | None:
    t = type_of(x)
    if isinstance(t, (bool, int, float, complex)):
        return None
    for k in kinds(t):
        if isinstance(k, TensorType):
            return k
    return None


def shape_of(x) -> tuple | None:
    """x's static shape (dims None where known only when the graph runs); () for a number."""
    kind = _array_kind(x)
    if kind is None:
        return ()
    return () if kind.weak else kind.shape


def gradient_dtype(x) -> np.dtype:
    """The dtype of x's gradient: its own when it is a float or complex array, complex128 for a
    Python complex, else float64."""
    if is_complex(x):
        kind = _array_kind(x)
        return np.dtype(np.complex128) if kind is None or kind.weak else kind.dtype
    kind = _array_kind(x)
    if kind is None or kind.weak or kind.dtype.kind != "f":
        return np.dtype(np.float64)
    return kind.dtype


def is_complex(x) -> bool:
    """Whether x is complex (on some path): its cotangent is then complex too, and a real x's
    is the real part of what a rule computes (JAX's convention, docs/gradients.md)."""
    t = type_of(x)
    if isinstance(t, (bool, int, float, complex)):
        return isinstance(t, complex)
    return any(isinstance(k, TensorType) and k.dtype.kind == "c" for k in kinds(t))


def _static(shape) -> bool:
    return shape is not None and all(d is not None for d in shape)


def sum_to(g, x):
    """g summed back to x's shape (over the axes x was broadcast along): read from the types
    where they say it, else when the graph runs (the forward value x is then kept)."""
    shape, g_shape = shape_of(x), shape_of(g)
    if g is None or (_static(shape) and shape == g_shape):
        return g
    if _static(shape) and _static(g_shape):
        lead = len(g_shape) - len(shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, d in enumerate(shape) if d == 1 and g_shape[lead + i] != 1
        )
        return np.reshape(np.sum(g, axis=axes, keepdims=True) if axes else g, shape)
    return record("sum_to_like", [g, x])


class RuleContext:
    """The context of one node's rule: `wants(i)`, shapes, and gradient ops."""

    def __init__(self, node, wanted: list[bool]):
        self.node = node
        self._wanted = wanted

    def wants(self, i: int) -> bool:
        return self._wanted[i]

    # -- static facts ------------------------------------------------------------
    def ndim(self, x) -> int:
        return len(shape_of(x))

    def dim(self, x, axis: int):
        """x.shape[axis]: an int when known while tracing, else a symbolic int."""
        d = shape_of(x)[axis]
        return d if d is not None else np.shape(x)[axis]

    def static_dim(self, x, axis: int):
        """x.shape[axis] when known while tracing, else None."""
        return shape_of(x)[axis]

    def gradient_dtype(self, x) -> np.dtype:
        return gradient_dtype(x)

    def size(self, x):
        shape = shape_of(x)
        return int(np.prod(shape, dtype=np.int64)) if _static(shape) else np.size(x)

    def count(self, x, out):
        """How many elements of x each element of `out` (a reduction of x) stands for."""
        return self.size(x) / self.size(out)

    # -- gradient ops ----------------------------------------------------------------
    def op(self, name: str, *inputs, **attrs):
        return record(name, list(inputs), attrs)

    def _same_shape(self, g, x) -> bool:
        a, b = shape_of(g), shape_of(x)
        return _static(a) and a == b

    # (Where x's shape is known while tracing, these read only g: the forward value x is not
    # kept alive, and not computed, for its shape alone.)
    def sum_to(self, g, x):
        """g summed back to x's shape (over the axes x was broadcast along)."""
        return sum_to(g, x)

    def broadcast_like(self, g, x):
        if self._same_shape(g, x):
            return g
        shape = shape_of(x)
        if _static(shape) and _static(shape_of(g)):
            return np.broadcast_to(g, shape)
        return self.op("broadcast_like", g, x)

    def reshape_like(self, g, x):
        if self._same_shape(g, x):
            return g
        shape = shape_of(x)
        if _static(shape):
            return np.reshape(g, shape)
        return self.op("reshape_like", g, x)

    def zeros_like(self, x):
        shape = shape_of(x)
        if _static(shape):
            return np.zeros(shape, gradient_dtype(x))
        return np.zeros_like(x, dtype=gradient_dtype(x))

    def cast_like(self, g, x):
        """g as a gradient of x: of x's float dtype; None for an integer or bool x."""
        kind = _array_kind(x)
        if kind is not None and not kind.weak and kind.dtype.kind not in "fc":
            return None
        return g

    def is_complex(self, x) -> bool:
        return is_complex(x)

    def real_only(self, x, what: str) -> None:
        """Refuses a complex x: `what` orders or compares values, which has no derivative on
        the complex plane."""
        if is_complex(x):
            self.unsupported(f"{what} of complex values")

    def rule_of(self, op_name: str):
        return get_op(op_name).vjp

    def unsupported(self, what: str):
        raise errors.GradientError(f"{where_of(self.node)}no gradient of {what} ({self.node.op})")


def where_of(node) -> str:
    """`file:line: ` of the user's code that made `node`, or ''."""
    if node.location is None:
        return ""
    return f"{node.location[0]}:{node.location[1]}: "
