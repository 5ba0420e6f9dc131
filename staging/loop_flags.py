"""Whether a staged loop ran at least once, for checks made after it (staging.weak_paths).

A loop variable that was a Python number before a staged loop is, after it, the type its body
gives it (staging.joins); eagerly it is still that number when the loop ran zero times, and
reading an attribute a number lacks (`s.dtype`) raises AttributeError there. Such a read asks
for the loop's `ran` flag: a bool loop variable, False before the loop and True after any
iteration, added to the loop node when first asked for (most loops never need it, so none
carries it for nothing), and checked where the attribute is read.
"""

from __future__ import annotations

import numpy as np

from runtime import TensorType
from runtime.graph import Node, Value

from .debugging import check
from .tensor import Tensor

_BOOL = TensorType(np.bool_, ())


def check_ran(loop_outputs: tuple, message: str, error: type, unless=None) -> None:
    """A staged check, where this is called, that at least one of the loops making
    `loop_outputs` ran at least once (or that the bool `unless` holds): when the graph runs and
    none did, it raises `error(message)`."""
    ran = ran_flag(loop_outputs[0])
    for other in loop_outputs[1:]:
        ran = ran | ran_flag(other)
    check(ran if unless is None else ran | unless, message, error)


def ran_flag(loop_output: Tensor) -> Tensor:
    """The `ran` flag of the staged loop node whose output `loop_output` is (added once)."""
    fg = loop_output._graph
    node = loop_output._value.producer
    flags = fg.trace_state.setdefault("loop_ran", {})
    flag = flags.get(id(node))
    if flag is not None:
        return Tensor(fg, flag)
    nvars = node.attrs["num_loop_vars"]
    nodes = fg.graph.nodes
    false = Node("const", [], {"value": np.False_}, [_BOOL], node.location)
    nodes.insert(nodes.index(node), false)
    cond, body = node.subgraphs["cond"], node.subgraphs["body"]
    for g in (cond, body):
        g.inputs.insert(nvars, Value(_BOOL))
        g.input_names.insert(nvars, "ran")
    true = Node("const", [], {"value": np.True_}, [_BOOL], node.location)
    body.nodes.append(true)
    body.outputs.insert(nvars, true.outputs[0])
    node.inputs.insert(nvars, false.outputs[0])
    node.attrs = {**node.attrs, "num_loop_vars": nvars + 1}
    flag = Value(_BOOL, node, nvars)
    node.outputs.insert(nvars, flag)
    for i, v in enumerate(node.outputs):
        v.index = i
    flags[id(node)] = flag
    return Tensor(fg, flag)
