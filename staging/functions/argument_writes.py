"""Writes into the caller's arrays: a staged function that writes into an argument in place.

Eagerly `x[0] = 5`, `x += 1`, `x.sort()` or `np.add(a, b, out=x)` on an argument modify the
caller's array. While tracing, such a write rebinds the argument's Tensor to the written value
(staging.state.aliasing), so the rest of the function reads it; at the end of the trace `write_back`
records, for each argument whose Tensor was rebound, a `write_argument` node that copies the
final value into the argument array itself, and the results that are that value become the
array (`return x` gives the caller's array, as eagerly).

Two arguments may be one array, or views of one (`f(a, a)`, `f(a, a[1:])`): eagerly a write
into one shows through the other, which the graph reads as it was. So a graph that writes into
an argument starts with a `distinct_arrays` check, raising errors.MutationError when the call
passes an argument written in place that shares memory with another argument.

Writes through a value that may be an argument only on some paths (`y = x if c else z`, then
`y[0] = 1`) are refused while tracing (staging.state.aliasing.check_writable), and so is calling a
staged function that writes into its arguments from inside another trace.
"""

from __future__ import annotations

from runtime import TensorType
from runtime.core_ops import distinct_arrays_message
from runtime.graph import Node
from runtime.registry import get_op
from staging import errors
from staging.core.recording import record
from staging.core.source_map import where_defined
from staging.core.tensor import Tensor
from staging.functions.trace_key import argument_name, mark_arrays0d


def arguments(fg, placeholders: list, structure) -> list:
    """The graph inputs `placeholders` of a trace whose key has `structure`, marked as the
    arguments (the Tensor objects: a write into one, on whatever path, is a write into the
    caller's array) and as 0-d arrays where they are (staging.functions.trace_key.mark_arrays0d)."""
    fg.argument_tensors = frozenset(id(p) for p in placeholders)
    return mark_arrays0d(placeholders, structure)


def write_back(fg, placeholders: list, outputs: list, function, paths: list) -> list:
    """Records the write-back of every argument the trace of `function` (a staging.Function)
    wrote into (see the module doc); `paths` are the trace-key paths of the `placeholders`.
    Returns `outputs` with the written values replaced by the argument arrays."""
    inputs = fg.graph.inputs
    written = [
        (p, v) for p, v in zip(placeholders, inputs) if type(p) is Tensor and p._value is not v
    ]
    if not written:
        return outputs
    for placeholder, original in written:
        final = placeholder._value
        array = record("write_argument", [original, placeholder], graph=fg)._value
        outputs = [array if out is final else out for out in outputs]
    parameters = list(function._signature.parameters)
    names = [
        argument_name(path, parameters).replace("argument ", "", 1).strip("'") for path in paths
    ]
    index = {id(v): i for i, v in enumerate(inputs)}
    first = [original for _, original in written]
    others = [
        v for v in inputs if isinstance(v.type, TensorType) and all(v is not w for w in first)
    ]
    order = first + others
    check = Node(
        "distinct_arrays",
        order,
        {
            "written": len(first),
            "names": tuple(names[index[id(v)]] for v in order),
            "message": distinct_arrays_message(
                fg.function_name, where_defined(function.python_function)
            ),
            "error": errors.MutationError,
        },
        [],
        None,
    )
    fg.graph.nodes.insert(0, check)
    return outputs


def writes_arguments(graph) -> bool:
    """Whether a traced graph writes into its arguments (write_back recorded a write: a node
    whose op writes its input, OpDef.writes_input)."""
    return any(get_op(node.op).writes_input for node in graph.nodes)
