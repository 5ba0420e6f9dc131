"""Every op's JAX lowering: those written out (ops, effects, structured) and, for the other
ops named like a jax.numpy function, `jnp.<name>(*inputs, **attrs)`."""

from __future__ import annotations

from . import effects, ops, structured  # noqa: F401  (they fill the table)
from .table import LOWERINGS, UNLOWERABLE, jnp_function


def _generic(name: str, func):
    def lower(ctx, node, *inputs, **attrs):
        return func(*inputs, **attrs)

    lower.__name__ = f"lower_{name}"
    return lower


def lowering_for(name: str):
    """The lowering of op `name`, or None (see UNLOWERABLE for why)."""
    found = LOWERINGS.get(name)
    if found is None and name not in UNLOWERABLE:
        func = jnp_function(name)
        if func is not None:
            found = LOWERINGS[name] = _generic(name, func)
    return found


def lowering_status(name: str) -> str:
    """ "lowered", "unlowerable: <why>" or "missing" (a registered op nobody decided about)."""
    if name in UNLOWERABLE:
        return f"unlowerable: {UNLOWERABLE[name]}"
    return "lowered" if lowering_for(name) is not None else "missing"
