"""The error a graph that cannot be lowered to JAX raises, naming the op and the user's line."""

from __future__ import annotations

from ..graph import node_text


class LoweringError(NotImplementedError):
    """A node of a staged graph has no JAX lowering (jit_compile=True)."""


def where(node) -> str:
    return f"{node.location[0]}:{node.location[1]}: " if node.location else ""


def cannot_lower(node, why: str, fix: str = "") -> LoweringError:
    """`file:line: cannot compile `node` with jit_compile=True: why. fix`."""
    text = f"{where(node)}cannot compile `{node_text(node)}` (op {node.op!r}) with jit_compile=True: {why}"
    if fix:
        text += f". {fix}"
    return LoweringError(text)
