"""The JAX/XLA backend: a graph lowered once to a JAX function and compiled with jax.jit.

`JaxGraph(graph)` is the counterpart of `runtime.executor.CompiledGraph`. Each op's lowering is
its OpDef's `lower` (beside its kernel, in the module registering the op), called with the
backend's `Lowerer` (context.py), which gives it the jax modules; an op without one is lowered to
the `jax.numpy` function of its name, unless its OpDef says why it is `unlowerable`. jax is
optional: this package imports it only when a graph is lowered.
"""

from .errors import LoweringError

__all__ = ["JaxGraph", "LoweringError", "lowering_status", "jax_available"]


def jax_available() -> bool:
    try:
        import jax  # noqa: F401
    except ImportError:
        return False
    return True


def lowering_status(name: str) -> str:
    """ "lowered", "unlowerable: <why>" or "missing" for op `name` (imports jax)."""
    from .catalog import lowering_status as status

    return status(name)


def __getattr__(name):
    if name == "JaxGraph":  # imports jax: only when a graph is lowered
        from .runner import JaxGraph

        return JaxGraph
    raise AttributeError(name)
