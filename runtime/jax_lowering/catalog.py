"""Every op's JAX lowering: its own (OpDef.lower) or, for an op named like a jax.numpy function,
`jnp.<name>(*inputs, **attrs)`; an op marked OpDef.unlowerable has none."""

from __future__ import annotations

from ..registry import OpDef, get_op

_GENERIC: dict[str, object] = {}  # op name -> its generic lowering (None: jax.numpy has none)


def jnp_function(name: str):
    """jax.numpy's function of the same (dotted) name, or None."""
    import jax.numpy as jnp

    target: object = jnp
    for part in name.split("."):
        target = getattr(target, part, None)
        if target is None:
            return None
    return target if callable(target) else None


def _generic(name: str):
    func = jnp_function(name)
    if func is None:
        return None

    def lower(ctx, node, *inputs, **attrs):
        return func(*inputs, **attrs)

    lower.__name__ = f"lower_{name}"
    return lower


def lowering_for(op: OpDef):
    """The lowering of `op`, or None (OpDef.unlowerable says why)."""
    if op.lower is not None:
        return op.lower
    if op.unlowerable is not None:
        return None
    if op.name not in _GENERIC:
        _GENERIC[op.name] = _generic(op.name)
    return _GENERIC[op.name]


def lowering_status(name: str) -> str:
    """ "lowered", "unlowerable: <why>" or "missing" (a registered op nobody decided about)."""
    op = get_op(name)
    if op.lower is None and op.unlowerable is not None:
        return f"unlowerable: {op.unlowerable}"
    return "lowered" if lowering_for(op) is not None else "missing"
