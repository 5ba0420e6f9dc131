"""The lowering table: for each op name, how it becomes JAX code, or why it cannot.

A lowering is `lower(ctx, node, *inputs, **attrs)` -> the node's output (a tuple when the op's
num_outputs is not 1); `inputs` are JAX values, or Python numbers known while lowering
(literals, static dims). `ctx` is the `Lowerer` running the graph (runner.py). Ops without an
entry of their own that share their name with a `jax.numpy` function are lowered to it
generically (`jnp.<name>(*inputs, **attrs)`, catalog.py). Adding an op means adding its lowering here (or
in the modules beside this one) or an UNLOWERABLE entry saying why.
"""

from __future__ import annotations

from typing import Callable

LOWERINGS: dict[str, Callable] = {}

# op -> why it cannot be compiled, and what to write instead
_DYNAMIC_SHAPE = (
    "its result's shape depends on the values of its input, and XLA needs every shape when "
    "it compiles; compute it outside the staged function or keep the interpreter"
)
_RUN_TIME_STATE = (
    "it reads the state of a Python object (a random generator, a clock) in program order "
    "on every call; pass the values in as arguments, or call it through staging.py_function"
)
UNLOWERABLE: dict[str, str] = {
    "argwhere": _DYNAMIC_SHAPE,
    "unique": _DYNAMIC_SHAPE,
    "unique_all": _DYNAMIC_SHAPE,
    "unique_counts": _DYNAMIC_SHAPE,
    "unique_inverse": _DYNAMIC_SHAPE,
    "unique_values": _DYNAMIC_SHAPE,
    "repeat_counts": _DYNAMIC_SHAPE,
    "random": _RUN_TIME_STATE,
    "random_generator": _RUN_TIME_STATE,
    "clock": _RUN_TIME_STATE,
    "isnat": "JAX has no datetime types",
    "distinct_arrays": "the function writes into an argument in place, and XLA computes on copies of "
    "its inputs (copy the argument in the function, or use the interpreter)",
    "write_argument": "the function writes into an argument in place, and XLA computes on copies of "
    "its inputs (copy the argument in the function, or use the interpreter)",
    "histogram": "jax.numpy.histogram differs from NumPy's in its bin edges' rounding; keep the interpreter",
    "nextafter": "XLA's nextafter differs from NumPy's on subnormals",
    "spacing": "JAX has no spacing",
}


def lowers(*names: str):
    """Decorator: the lowering of the ops `names`."""

    def decorate(func):
        for name in names:
            if name in LOWERINGS:
                raise ValueError(f"op {name!r} has two JAX lowerings")
            LOWERINGS[name] = func
        return func

    return decorate


def jnp_function(name: str):
    """jax.numpy's function of the same (dotted) name, or None."""
    import jax.numpy as jnp

    target = jnp
    for part in name.split("."):
        target = getattr(target, part, None)
        if target is None:
            return None
    return target if callable(target) else None
