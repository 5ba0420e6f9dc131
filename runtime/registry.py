"""The op registry: each op's NumPy kernel and its dtype/shape rule, in one entry."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from .types import TensorType


@dataclass(frozen=True)
class OpDef:
    """One op.

    impl(*inputs, **attrs) computes the op on NumPy values. `inputs` are
    NumPy arrays / scalars or Python scalars (weak, NEP 50).
    infer(*input_types, **attrs) gives the output TensorType (or a tuple of
    them when `num_outputs` != 1) from the input types: each is a TensorType,
    or the Python scalar itself for a literal Python number input.
    make_kernel(**attrs), when given, returns a specialised callable(*inputs)
    used by the executor instead of binding attrs on every call.
    expr, when given, is a Python expression template over the inputs
    (`"{0} + {1}"`) that the executor inlines instead of calling `impl`; it
    must compute exactly what `impl` computes. Only for ops without attrs.
    make_expr(*input_types, **attrs), when given, returns such a template for
    a node with those input types and attrs, or None when it needs the kernel.
    stateful ops are never folded, deduplicated or removed and keep program order.
    num_outputs: 1 for a single output; n for a tuple of n outputs; None when
    the count depends on attrs (infer and impl then always give tuples).
    """

    name: str
    impl: Callable
    infer: Callable
    stateful: bool = False
    num_outputs: int | None = 1
    make_kernel: Callable | None = None
    expr: str | None = None
    doc: str = ""
    make_expr: Callable | None = None

    def kernel(self, attrs: dict) -> Callable:
        if self.make_kernel is not None:
            return self.make_kernel(**attrs)
        if not attrs:
            return self.impl
        impl = self.impl
        frozen = dict(attrs)
        return lambda *xs: impl(*xs, **frozen)


_REGISTRY: dict[str, OpDef] = {}


class UnknownOpError(LookupError):
    pass


def register_op(name: str, *, infer: Callable, stateful: bool = False, num_outputs: int | None = 1,
                make_kernel: Callable | None = None, expr: str | None = None, doc: str = "",
                make_expr: Callable | None = None):
    """Decorator registering `impl` under `name`."""
    def decorate(impl):
        if name in _REGISTRY:
            raise ValueError(f"op {name!r} registered twice")
        _REGISTRY[name] = OpDef(name, impl, infer, stateful, num_outputs, make_kernel, expr, doc, make_expr)
        return impl
    return decorate


def add_op(op: OpDef) -> OpDef:
    if op.name in _REGISTRY:
        raise ValueError(f"op {op.name!r} registered twice")
    _REGISTRY[op.name] = op
    return op


def set_expr_rule(name: str, make_expr: Callable) -> None:
    """Gives an already registered op an inlining rule (see OpDef.make_expr)."""
    _REGISTRY[name] = replace(get_op(name), make_expr=make_expr)


def get_op(name: str) -> OpDef:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownOpError(f"no op named {name!r} is registered") from None


def has_op(name: str) -> bool:
    return name in _REGISTRY


def all_ops() -> dict[str, OpDef]:
    return dict(_REGISTRY)


def infer_types(op: OpDef, input_types, attrs) -> tuple[TensorType, ...]:
    """Runs the op's rule and always returns a tuple of output types."""
    out = op.infer(*input_types, **attrs)
    if op.num_outputs == 1:
        return (out,)
    return tuple(out)
