"""Values on which eager NumPy warns or raises while XLA computes on silently, and what the JAX
backend does about them: it runs that call again on the interpreter.

NumPy reports a float operation that overflows, divides by zero or is invalid (a RuntimeWarning,
or FloatingPointError under `np.seterr(all="raise")`), an integer division by zero, a singular
matrix given to `np.linalg.inv` or `solve` (LinAlgError). XLA gives inf, NaN or an arbitrary
integer and says nothing. Each op that can meet such values says how to recognise them in its
OpDef (`lower_suspect`: a JAX bool computed beside the result, e.g. a result that is not finite
where every operand is). The lowering gathers them per graph into one flag:

- the top graph's is one more output of the compiled function when the graph has no host
  callbacks (the call then reads it: one small transfer);
- otherwise, and in subgraphs (branches, loop bodies, called graphs: traced inside JAX's control
  flow), a callback run only when the flag holds leaves a `Rerun` in the runner's failure slot,
  so that the later callbacks of the call do nothing.

When the flag holds, the runner discards the compiled call's results (and its Variable writes)
and runs the call again on the interpreter, which gives eager's warnings, exceptions and values.
A call whose prints or `py_function` calls have already run (OpDef.host_effect) cannot run
again without doing them twice: it raises `RerunRefused`, naming the lines of the suspect ops.
False alarms (a flag raised where NumPy says nothing) cost the time of the rerun, never a
different result.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..graph import node_text
from .values import untag


class Rerun(Exception):  # noqa: N818 - a marker, not an error the user sees
    """Left in the runner's failure slot by a callback: run this call on the interpreter."""

    def __init__(self, nodes):
        super().__init__("run again on the interpreter")
        self.nodes = tuple(nodes)


class RerunRefused(RuntimeError):
    """A call compiled with jit_compile=True met values on which eager NumPy warns or raises,
    after its prints or Python calls had run: it cannot be run again to give eager's outcome."""


def suspect(node, inputs, outputs):
    """The node's flag (OpDef.lower_suspect) on JAX values, or None when it has none."""
    check = node.opdef.lower_suspect
    if check is None:
        return None
    values = [untag(x) for x in inputs]
    return check(jnp, node, [untag(o) for o in outputs], *values)


def rerun_if(ctx, flag, nodes) -> None:
    """A callback marking the call for a rerun when `flag` holds as the computation runs."""
    runner = ctx.runner

    def mark():
        if runner.failed is None:
            runner.failed = Rerun(nodes)

    jax.lax.cond(
        jnp.asarray(flag, dtype=bool),
        lambda: jax.debug.callback(mark, ordered=True),
        lambda: None,
    )


def refused(nodes, graph_name: str) -> RerunRefused:
    """The error of a call that cannot be run again: its host effects have run."""
    places = []
    for node in nodes[:3]:
        where = f"{node.location[0]}:{node.location[1]}: " if node.location else ""
        places.append(f"{where}`{node_text(node)}`")
    more = f" (and {len(nodes) - 3} more)" if len(nodes) > 3 else ""
    return RerunRefused(
        f"staged graph {graph_name!r} compiled with jit_compile=True met values on which eager "
        f"NumPy warns or raises (a result that is not finite where its operands are, an integer "
        f"division by zero, a singular matrix) in {'; '.join(places)}{more}, which XLA computes "
        f"on silently. Such a call runs again on the interpreter to give eager's warning or "
        f"error, but this one has already printed or called Python (print, staging.py_function), "
        f"which a second run would do again. Call it with jit_compile=False for eager's outcome"
    )


__all__ = ["Rerun", "RerunRefused", "refused", "rerun_if", "suspect"]
