"""Values on which eager NumPy or Python raises, or gives another result, while XLA computes on
silently, and what the JAX backend does about them: it runs that call on the interpreter.

NumPy raises LinAlgError for a singular matrix given to `np.linalg.inv` or `solve` (and for
`cholesky` of a matrix that is not positive definite), IndexError for an index out of range,
OverflowError for a Python int an integer dtype does not hold (`300 + np.int8(1)`), and warns
and gives 0 for an integer division by zero or INT_MIN for a cast of NaN; Python's int grows
past 64 bits, and Python raises ZeroDivisionError for `1.0 / 0.0`. XLA gives inf, NaN, a
clamped index or a wrapped integer and says nothing. Each op that can meet such values says
how to recognise them in its OpDef (`lower_suspect`: a JAX bool computed beside the result;
shared checks in runtime/suspect_checks.py); a flag false whatever the values (a division by
the literal 2) costs nothing, and a loop's counter (`i += 1` from 0) and the indices it bounds
(`for x in xs`) are not checked (OpDef.lower_unchecked). Under an error state that raises
(`np.errstate(divide="raise")` around the call, `np.seterr`), a graph computing floats runs on
the interpreter from the start (XLA has no floating-point exceptions). The float warnings NumPy
gives under its default state (overflow, division by zero, invalid) are not reproduced:
checking every operation cost several times the computation (docs/jax.md).

The lowering ORs the flags of a call into one JAX bool, which control flow threads with the
Variables' values (context.Lowerer.state_values): an extra output of a `cond`'s branches, an
extra loop-carried bool of a `while_loop` (a loop stops once it holds: its values are no longer
eager's, and the loop they drive need not end), and one more output of the compiled function,
read once per call. Host callbacks take the flag as it stands at their point of the program
and do nothing when it holds: a print, a `py_function`, a failed assert after a suspect value
(XLA's values there are not eager's).

When the flag holds, the runner discards the compiled call's results (and its Variable writes)
and runs the call again on the interpreter, which gives eager's warnings, exceptions and values.
A call whose prints or `py_function` calls had already run before the flag was raised
(OpDef.host_effect) cannot run again without doing them twice: it raises `RerunRefused`,
naming the lines of the ops that may have raised it. False alarms (a flag raised where eager
says nothing) cost the time of the rerun, never a different result.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import error_state
from ..graph import Value, node_text
from ..types import TensorType
from .kinds import kind_cases, specialised, splits
from .values import untag


class RerunRefused(RuntimeError):
    """A call compiled with jit_compile=True met values on which eager NumPy warns or raises,
    after its prints or Python calls had run: it cannot be run again to give eager's outcome."""


def suspect(node, inputs, outputs):
    """The node's flag (OpDef.lower_suspect) on JAX values, or None when it has none or it is
    false whatever the values (a division by the literal 2). A node whose inputs are of several
    kinds (kinds.py) is checked as the node of the kinds the path taken made them: a Python int
    on one path, an int64 on another."""
    check = node.opdef.lower_suspect
    if check is None:
        return None
    values = [untag(x) for x in inputs]
    outs = [untag(o) for o in outputs]
    if splits(node, inputs):
        flag = _by_kinds(check, node, inputs, values, outs)
    else:
        flag = check(jnp, node, outs, *values)
    if flag is None or (not isinstance(flag, jax.core.Tracer) and not bool(jnp.any(flag))):
        return None
    return flag


def _by_kinds(check, node, inputs, values, outs):
    """The flag of the combination of kinds the inputs' tags name."""
    cases, which = kind_cases(node, inputs)
    flag = None
    for k, case in enumerate(cases):
        if case.error is not None:
            continue
        found = check(jnp, specialised(node, case), outs, *values)
        if found is None:
            continue
        found = jnp.any(found) & (jnp.asarray(which) == k)
        flag = found if flag is None else flag | found
    return flag


def may_be_suspect(node) -> bool:
    """Whether lowering `node` may give a flag (suspect), read from the graph before lowering:
    an op with a lower_suspect whose operands it reads (its `reads` positions, all by default)
    are not all literals (Python numbers written in the program: a division by the literal 2;
    a graph constant counts, its flag is decided while lowering)."""
    check = node.opdef.lower_suspect
    if check is None:
        return False
    may_apply = getattr(check, "may_apply", None)
    if may_apply is not None:
        return bool(may_apply(node))
    reads = getattr(check, "reads", range(len(node.inputs)))
    return any(isinstance(node.inputs[i], Value) for i in reads if i < len(node.inputs))


def computes_floats(graph) -> bool:
    """Whether `graph` (its subgraphs too) computes float or complex values, on which NumPy
    raises under np.seterr(...="raise") where XLA does not."""
    return any(
        isinstance(v.type, TensorType) and v.type.dtype.kind in "fc"
        for node in graph.walk()
        for v in node.outputs
    )


def errors_raise() -> bool:
    """Whether NumPy's error state in force raises on some floating-point error
    (np.errstate(divide="raise") around the call, np.seterr): XLA computes on silently, so
    such a call runs on the interpreter. (A cheap test while the state is NumPy's default.)"""
    if error_state.is_default():
        return False
    return "raise" in np.geterr().values()


def refused(nodes, graph_name: str) -> RerunRefused:
    """The error of a call that cannot be run again: its host effects have run. `nodes`: the
    graph's nodes that may have raised the flag (one flag says which held)."""
    places = []
    for node in nodes[:3]:
        where = f"{node.location[0]}:{node.location[1]}: " if node.location else ""
        places.append(f"{where}`{node_text(node)}`")
    more = f" (and {len(nodes) - 3} more)" if len(nodes) > 3 else ""
    among = "one of " if len(nodes) > 1 else ""
    return RerunRefused(
        f"staged graph {graph_name!r} compiled with jit_compile=True met values on which eager "
        f"NumPy or Python warns or raises (a result that is not finite where its operands are, "
        f"an integer division by zero, a Python int past 64 bits, an index out of range, a "
        f"singular matrix) in {among}{'; '.join(places)}{more}, which XLA computes "
        f"on silently. Such a call runs again on the interpreter to give eager's warning or "
        f"error, but this one has already printed or called Python (print, staging.py_function), "
        f"which a second run would do again. Call it with jit_compile=False for eager's outcome"
    )


__all__ = [
    "RerunRefused",
    "computes_floats",
    "errors_raise",
    "may_be_suspect",
    "refused",
    "suspect",
]
