"""The JAX/XLA backend: a graph lowered once to a JAX function and compiled with jax.jit.

`JaxGraph(graph)` is the counterpart of `runtime.executor.CompiledGraph`; each op's lowering
lives in the table of `runtime.jax_lowering.table`, beside the registry. jax is optional: this
package imports it only when a graph is lowered.
"""

from .errors import LoweringError
from .table import UNLOWERABLE

__all__ = ["JaxGraph", "LoweringError", "UNLOWERABLE", "lowering_status", "jax_available"]


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
