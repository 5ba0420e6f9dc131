"""Whether a 0-d value is a 0-d ndarray or a NumPy scalar when the graph runs.

A graph types both as (dtype, ()): NumPy computes the same values from either, and a ufunc
gives a NumPy scalar for both. They differ where Python writes in place: `x += 1` writes into
a 0-d array (every name bound to it sees the change) but rebinds a name bound to a NumPy
scalar, which is immutable; `x[()] = v` works on the array only. So an in-place write on a 0-d
value asks `kind_of`, which follows the value back to the ops that make it: through staged
`if`s and loops to the values their outputs may be, through captures to the enclosing trace,
to the arguments (a 0-d array argument is part of the trace key, see staging.functions.trace_key). An
op's kind is found by running its kernel once on stand-ins of its inputs' kinds (np.where and
np.asarray give arrays, reductions scalars); the ops whose OpDef says what a 0-d result
of theirs is (zero_d_result: the NumPy ufuncs give scalars) skip that.
Nothing here runs unless a trace writes in place into a 0-d value.

A staged loop's variable is what it was before the loop on the first iteration and what the
body made of it afterwards: `LoopKinds` assumes the first while the body is traced, and the
loop is traced again (staging.control_flow) when the body's result is of another kind.
"""

from __future__ import annotations

import threading
import warnings
import weakref

import numpy as np

from runtime import TensorType
from runtime.graph import Value
from runtime.registry import get_op
from runtime.types import UnionType
from staging import errors
from staging.core.source_map import user_names, where

ARRAY = "a 0-d array"
SCALAR = "a NumPy scalar"
MIXED = "a 0-d array on some paths and a NumPy scalar on others"

# Graph inputs of a known kind: arguments that are 0-d arrays; loop variables (a callable
# giving the kind assumed for the trace of the body).
_KNOWN: "weakref.WeakKeyDictionary[Value, object]" = weakref.WeakKeyDictionary()
# Arguments whose kind a trace asked for: the trace serves only calls of the same kinds.
ASKED: "weakref.WeakSet[Value]" = weakref.WeakSet()
_MAX_PROBE_SIZE = 4096  # elements of all stand-ins of one probe; beyond, the op reduces: a scalar
_MAX_DEPTH = 64
_active = threading.local()


def join(a, b):
    """The kind of a value that is of kind `a` on some paths and `b` on others (None: no path)."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    return MIXED


def mark(tensor, kind) -> None:
    """Declares the kind of a graph input: ARRAY, SCALAR, or a callable giving it."""
    _KNOWN[tensor._value] = kind


def kind_of(tensor) -> str:
    """ARRAY, SCALAR or MIXED for the symbolic `tensor` (ARRAY when it has dims)."""
    return _kind(tensor._value, None, tensor._graph, 0) or SCALAR


def kind_of_leaf(leaf) -> str | None:
    """kind_of for a loop variable's value: a Tensor, a concrete NumPy value or a Python number."""
    value = getattr(leaf, "_value", None)
    if isinstance(value, Value):
        return kind_of(leaf)
    if isinstance(leaf, np.ndarray):
        return ARRAY
    return SCALAR if isinstance(leaf, (np.generic, bool, int, float, complex)) else None


def _kind(value, bound, fg, depth):
    """The kind of `value`: a Value of the graph being built (`fg`) when `bound` is None, else
    of a finished subgraph whose inputs `bound` maps to (value, bound, fg) outside it."""
    if not isinstance(value, Value):
        return SCALAR  # a Python literal
    t = value.type
    if type(t) is UnionType:  # (a Python number is immutable, as a NumPy scalar is)
        if all(k.weak for k in t.alternatives):
            return SCALAR
        if all(k.shape != () for k in t.alternatives):
            return ARRAY
    elif type(t) is not TensorType:
        return None
    elif t.shape != ():
        return ARRAY
    elif t.weak:
        return SCALAR
    busy = getattr(_active, "busy", None)
    if busy is None:
        busy = _active.busy = set()
    if id(value) in busy or depth > _MAX_DEPTH:
        return None  # a loop reached again from inside its body: its other paths decide
    busy.add(id(value))
    try:
        return _kind_of_value(value, bound, fg, depth + 1)
    finally:
        busy.discard(id(value))


def _kind_of_value(value, bound, fg, depth):  # noqa: C901, PLR0912
    node = value.producer
    if node is None:
        if bound is not None:
            outer = bound.get(id(value))
            return None if outer is None else _kind(*outer, depth)
        if fg.outer is None:
            ASKED.add(value)  # an argument: the trace depends on its kind (staging.function)
        known = _KNOWN.get(value)
        if known is not None:
            return known() if callable(known) else known
        for outer_value, inner in fg.captures.values():
            if inner is value:
                return _kind(outer_value, None, fg.outer, depth)
        return SCALAR  # an argument that is a NumPy scalar, a loop counter
    if node.subgraphs:
        op = get_op(node.op)
        kind = None
        for label, source in op.output_sources(node, value.index):
            if label is None:
                kind = join(kind, _kind(source, bound, fg, depth))
            else:
                sub = node.subgraphs[label]
                inner = {
                    id(a): (b, bound, fg) for a, b in zip(sub.inputs, op.bind_subgraph(node, label))
                }
                kind = join(kind, _kind(source, inner, fg, depth))
        return kind
    op = get_op(node.op)
    if op.constant is not None:
        return ARRAY if isinstance(op.constant(node), np.ndarray) else SCALAR
    if op.zero_d_result is not None:
        return ARRAY if op.zero_d_result == "array" else SCALAR
    if op.stateful or op.subgraphs:
        return SCALAR
    try:
        stand_ins = [_input_stand_ins(v, bound, fg, depth) for v in node.inputs]
    except _NoProbe:
        return SCALAR
    return _probe(op, node, value.index, stand_ins)


def _input_stand_ins(v, bound, fg, depth) -> list:
    """Concrete values standing for input `v` of a probed op: one per kind it may have."""
    if not isinstance(v, Value):
        return [v]
    t = v.type
    if type(t) is UnionType:
        return [s for k in t.alternatives for s in _kind_stand_ins(v, k, bound, fg, depth)]
    if type(t) is not TensorType:
        raise _NoProbe
    return _kind_stand_ins(v, t, bound, fg, depth)


def _kind_stand_ins(v, t: TensorType, bound, fg, depth) -> list:
    if t.weak:
        return [t.python_type(0 if t.dtype.kind in "iu" else 1)]
    shape = tuple(1 if d is None else d for d in t.shape)
    fill = np.zeros if t.dtype.kind in "iu" else np.ones
    array = fill(shape, t.dtype)
    if shape:
        return [array]
    kind = _kind(v, bound, fg, depth)
    return [array, array[()]] if kind == MIXED else [array] if kind == ARRAY else [array[()]]


class _NoProbe(Exception):
    pass


def _probe(op, node, index, stand_ins) -> str:
    """The kind of output `index` of `node`, from its kernel run on every choice of stand-ins."""
    if sum(np.size(s[0]) for s in stand_ins) > _MAX_PROBE_SIZE:
        return SCALAR
    kernel = op.kernel(dict(node.attrs))
    choices = [[]]
    for options in stand_ins:
        choices = [c + [o] for c in choices for o in options]
    kind = None
    for args in choices:
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = kernel(*args)
        except Exception:  # noqa: BLE001  (the stand-ins' values do not suit it: no answer)
            continue
        if op.num_outputs != 1:
            out = out[index]
        kind = join(kind, ARRAY if isinstance(out, np.ndarray) else SCALAR)
    return kind or SCALAR


class LoopKinds:
    """The kinds of a staged loop's 0-d variables while its body is traced: each one's kind
    before the loop, asked for only when the body writes into it (`assumed`). `settle` joins
    them with the body's results: True when one changed, and the body must be traced again."""

    def __init__(self):
        self.assumed: dict = {}

    def placeholder(self, tensor, index: int, init) -> None:
        mark(tensor, lambda: self._assume(index, init))

    def _assume(self, index, init):
        kind = self.assumed.get(index)
        if kind is None:
            kind = self.assumed[index] = kind_of_leaf(init) or SCALAR
        return kind

    def settle(self, outs) -> bool:
        changed = False
        for index, kind in list(self.assumed.items()):
            new = join(kind, kind_of_leaf(outs[index]))
            if new != kind:
                self.assumed[index] = new
                changed = True
        return changed


def written_as_array(tensor, what: str, operator: str | None = None) -> bool:
    """Whether an in-place write (`what`, a template naming `{name}`: "`{name}[...] = v`") into
    the 0-d `tensor` writes into a 0-d array (True) or meets an immutable NumPy scalar (False).
    Refused when it is one or the other depending on the path taken: one graph cannot both write
    in place and rebind. `operator`: the binary operator of an augmented assignment."""
    kind = kind_of(tensor)
    if kind != MIXED:
        return kind == ARRAY
    names = user_names(tensor)
    name = names[0] if names else "x"
    rebind = (
        f"write `{name} = {name} {operator} ...` to rebind it on every path, or "
        if operator
        else ""
    )
    raise errors.MutationError(
        f"{where()}{what.format(name=name)} writes in place into '{name}', which is {MIXED} (it "
        f"passed through a staged `if` or loop): eagerly the write changes the array on the first "
        f"and {'rebinds the name' if operator else 'fails'} on the others, which one staged graph "
        f"cannot do. To stage it, {rebind}make it an array on every path (`{name} = np.asarray({name})` "
        f"where it is set)"
    )
