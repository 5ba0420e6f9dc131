"""staging.GradientTape: gradients of the staged calls made while a tape records.

While a tape is active (`with staging.GradientTape() as tape:`), each call of a staged function
in its thread is recorded: its concrete function, the arrays it was given and the ones it
returned. `tape.gradient(target, sources)` links the recorded calls by the identity of those
arrays (an array one call returned and another was given) into one graph of `call` nodes, and
differentiates it (staging.gradients.reverse) in a staged function made once per shape of the
recording: a training loop that records the same calls at every step traces it once. Sources
are arrays given to recorded calls or staging.Variables the calls read.

NumPy run outside staged functions is not recorded (it is not staged): compute the loss inside
a staged function. The gradient's own staged call is recorded by an enclosing tape, so a tape
inside another gives second derivatives.
"""

from __future__ import annotations

import collections
import contextlib
import weakref

import numpy as np

from runtime import Graph, Node, Value
from runtime.registry import get_op
from staging import errors
from staging.core import nest
from staging.functions import function as function_layer
from staging.functions.function import Function
from staging.gradients.reverse import Reverse
from staging.gradients.rules import gradient_dtype, is_complex, type_of, where_of
from staging.gradients.values import as_gradient, differentiable
from staging.gradients.variable_values import nodes_in
from staging.state.variables import Variable

# recordings linked into graphs -> the staged function computing their gradient. Bounded.
_GRADIENTS: collections.OrderedDict = collections.OrderedDict()
_MAX_GRADIENTS = 64


class _Call:
    """One recorded call: its concrete function, flat inputs and flat outputs, and the values
    of the Variables its graph reads or assigns before and after it ran (references: an
    assignment replaces a Variable's value, it never writes into it)."""

    __slots__ = ("function", "inputs", "outputs", "before", "after")

    def __init__(self, function, inputs, outputs, before: dict):
        self.function, self.inputs, self.outputs = function, list(inputs), list(outputs)
        self.before = before
        self.after = {key: (var, var._value) for key, (var, _) in before.items()}


# concrete function -> {id(Variable): Variable} its graph reads or assigns
_TOUCHED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _touched(cf) -> dict:
    found = _TOUCHED.get(cf)
    if found is None:
        found = {}
        for node in cf.graph.nodes:
            for n in (node, *nodes_in(node)):
                opdef = get_op(n.op)
                if opdef.gradient == "variable_read" or opdef.writes_variable:
                    found[id(n.attrs["var"])] = n.attrs["var"]
        _TOUCHED[cf] = found
    return found


def _not_replayable(cf) -> str | None:
    """What in a recorded call's graph would not give the same values when run again for its
    gradient (a random draw, a clock, printed text, a Python call), or None."""
    for node in cf.graph.nodes:
        for n in (node, *nodes_in(node)):
            opdef = get_op(n.op)
            if opdef.varies or opdef.host_effect:
                return f"{where_of(n)}{n.op}"
    return None


class GradientTape:
    """Records staged calls; `gradient(target, sources)` differentiates them (see the module
    docstring). A tape that is not `persistent` gives one gradient() and drops its records."""

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self.persistent = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self._calls: list[_Call] = []
        self._watched: set = set()  # ids of the Variables watch() was given
        self._used = False
        self._recording = False

    def __enter__(self):
        function_layer.active_tapes().append(self)
        function_layer._TAPES[0] += 1
        self._recording = True
        return self

    def __exit__(self, *exc):
        function_layer.active_tapes().remove(self)
        function_layer._TAPES[0] -= 1
        self._recording = False
        return False

    def watch(self, tensor) -> None:
        """Marks a Variable (or nested Variables) as a source when the tape does not watch the
        Variables its calls read (`watch_accessed_variables=False`). Arrays need no watching:
        every array given to a recorded call can be a source."""
        for leaf in nest.flatten(tensor, lambda s: isinstance(s, Variable)):
            if isinstance(leaf, Variable):
                self._watched.add(id(leaf))

    def _unwatched(self, source) -> bool:
        """A Variable this tape gives no gradient to: not watched, where only watched ones are."""
        return (
            isinstance(source, Variable)
            and not self.watch_accessed_variables
            and id(source) not in self._watched
        )

    def before_call(self, function) -> dict:
        """The values of the Variables the call touches, before it runs."""
        return {key: (var, var._value) for key, var in _touched(function).items()}

    def record_call(self, function, inputs, outputs, before: dict) -> None:
        self._calls.append(_Call(function, inputs, outputs, before))

    def reset(self) -> None:
        self._calls.clear()
        self._used = False

    def gradient(self, target, sources, output_gradients=None):
        """d target / d sources, shaped as `sources` (nested): None for a source the target does
        not depend on, or that is not a float."""
        if self._used and not self.persistent:
            raise RuntimeError(
                "a GradientTape that is not persistent gives one gradient(); create it with "
                "GradientTape(persistent=True) to ask for more"
            )
        self._used = True
        flat_sources = nest.flatten(sources, lambda s: isinstance(s, Variable))
        linked = _Linked(self._calls, target, flat_sources)
        grads = [
            None if self._unwatched(source) else grad
            for source, grad in zip(flat_sources, linked.gradient(output_gradients))
        ]
        if not self.persistent and not self._recording:
            self._calls = []
        return nest.pack_as(sources, grads, lambda s: isinstance(s, Variable))


class _Linked:
    """The recorded calls that lead to `target`, linked by the identity of the arrays between
    them: leaves (arrays no recorded call made), and for each call where its inputs come from."""

    def __init__(self, calls: list[_Call], target, sources: list):
        self.sources = sources
        made: dict = {}  # id(array) -> (call position, output position)
        for k, call in enumerate(calls):
            for j, out in enumerate(call.outputs):
                made[id(out)] = (k, j)
        if id(target) not in made:
            raise errors.GradientError(
                "the target given to GradientTape.gradient() was not returned by a staged call "
                "recorded by this tape: compute it inside a staged function called while the "
                "tape records"
            )
        self.target = made[id(target)]
        self.calls = calls
        self.leaves: list = []  # the arrays read from outside the recording
        self.wiring: list = []  # per call kept: tuple of ("leaf", i) / ("out", call, j)
        self._link(made)
        self.entry = self._variables_on_entry()

    def _link(self, made: dict) -> None:
        needed = self._with_variable_writers(self._needed(made))
        leaf_of: dict = {}
        self.kept = [k for k in range(len(self.calls)) if k in needed]
        position = {k: i for i, k in enumerate(self.kept)}
        for k in self.kept:
            wires = []
            for x in self.calls[k].inputs:
                source = made.get(id(x))
                if source is not None and source[0] < k and source[0] in position:
                    wires.append(("out", position[source[0]], source[1]))
                    continue
                if id(x) not in leaf_of:
                    leaf_of[id(x)] = len(self.leaves)
                    self.leaves.append(x)
                wires.append(("leaf", leaf_of[id(x)]))
            self.wiring.append(tuple(wires))
        self.target = (position[self.target[0]], self.target[1])

    def _with_variable_writers(self, needed: set) -> set:
        """The calls needed, and every recorded call between them that touches a Variable they
        touch: the gradient runs them again in order, from the Variables' values on entry."""
        touched = set()
        for k in needed:
            touched |= set(self.calls[k].before)
        first, last = min(needed), max(needed)
        for k in range(first, last + 1):
            if touched & set(self.calls[k].before):
                needed.add(k)
        return needed

    def _variables_on_entry(self) -> dict:
        """{id(Variable): (Variable, value)} before the first kept call touching each. Refuses
        a recording the gradient could not run again: a Variable changed between kept calls by
        code the tape did not record, or a call whose values would differ when run again."""
        entry: dict = {}
        last: dict = {}
        for k in self.kept:
            call = self.calls[k]
            problem = _not_replayable(call.function)
            if problem is not None:
                raise errors.GradientError(
                    f"{problem}: a recorded call of {call.function.name!r} would run this again "
                    f"for its gradient and get other values (or print again); compute the value "
                    f"and its gradient in one call with staging.value_and_grad"
                )
            for key, (var, value) in call.before.items():
                if key in last and last[key] is not value:
                    raise errors.GradientError(
                        f"the Variable {var.name!r} changed between recorded calls, outside "
                        f"staged functions; the gradient would not see that change. Change it "
                        f"inside a staged function, or after tape.gradient()"
                    )
                entry.setdefault(key, (var, value))
            last.update({key: value for key, (_, value) in call.after.items()})
        return entry

    def _needed(self, made: dict) -> set:
        """The calls the target depends on, through the arrays they pass along."""
        needed, todo = set(), [self.target[0]]
        while todo:
            k = todo.pop()
            if k in needed:
                continue
            needed.add(k)
            for x in self.calls[k].inputs:
                source = made.get(id(x))
                if source is not None and source[0] < k:
                    todo.append(source[0])
        return needed

    def gradient(self, output_gradients):
        ids = {id(s): i for i, s in enumerate(self.sources)}
        for x in self.leaves:
            if id(x) in ids and isinstance(x, (np.ndarray, np.generic, complex)):
                _check_real(None, "a source", x)
        source_leaves = tuple(
            i for i, x in enumerate(self.leaves) if id(x) in ids and _is_float_array(x)
        )
        variables = tuple(s for s in self.sources if isinstance(s, Variable))
        key = (
            tuple(id(self.calls[k].function) for k in self.kept),
            tuple(self.wiring),
            self.target,
            source_leaves,
            tuple(id(v) for v in variables),
            output_gradients is not None,
        )
        staged = _GRADIENTS.get(key)
        if staged is None:
            staged = _gradient_function(
                self, source_leaves, variables, output_gradients is not None
            )
            _GRADIENTS[key] = staged
            if len(_GRADIENTS) > _MAX_GRADIENTS:
                _GRADIENTS.popitem(last=False)
        else:
            _GRADIENTS.move_to_end(key)
        leaves = [np.float64(x) if type(x) is float else x for x in self.leaves]
        extra = () if output_gradients is None else (output_gradients,)
        with _rewound(self.entry):
            leaf_grads, var_grads = staged(*leaves, *extra)
        by_leaf = dict(zip(source_leaves, leaf_grads))
        by_var = {id(v): g for v, g in zip(variables, var_grads)}
        position = {id(x): i for i, x in enumerate(self.leaves)}
        return [
            by_var.get(id(s)) if isinstance(s, Variable) else by_leaf.get(position.get(id(s), -1))
            for s in self.sources
        ]


@contextlib.contextmanager
def _rewound(entry: dict):
    """The Variables hold their values from before the recorded calls while the gradient runs
    those calls again; then what they hold now."""
    now = {key: (var, var._value) for key, (var, _) in entry.items()}
    try:
        for var, value in entry.values():
            var._value = value
        yield
    finally:
        for var, value in now.values():
            var._value = value


def _is_float_array(x) -> bool:
    return isinstance(x, (np.ndarray, np.generic, float)) and np.asarray(x).dtype.kind == "f"


def _graph_of(linked: _Linked) -> tuple[Graph, Value]:
    """The recorded calls as one graph of `call` nodes, and the target's value in it."""
    graph = Graph("tape")
    leaf_types: list = [None] * len(linked.leaves)
    for k, wires in zip(linked.kept, linked.wiring):
        for wire, expected in zip(wires, linked.calls[k].function.graph.inputs):
            if wire[0] == "leaf" and leaf_types[wire[1]] is None:
                leaf_types[wire[1]] = expected.type
    for t in leaf_types:
        graph.add_input(t)
    built: list = []
    for k, wires in zip(linked.kept, linked.wiring):
        cf = linked.calls[k].function
        values = [graph.inputs[w[1]] if w[0] == "leaf" else built[w[1]][w[2]] for w in wires]
        node = Node("call", values, {"fn": cf}, list(cf.output_types))
        graph.add_node(node)
        built.append(_call_outputs(cf, node))
    target = built[linked.target[0]][linked.target[1]]
    if not isinstance(target, Value):
        raise errors.GradientError(
            "the target given to GradientTape.gradient() is a value its staged function knew "
            "while tracing: it depends on no source"
        )
    graph.outputs = [target]
    return graph, target


def _check_real(t, what: str, value) -> None:
    """GradientTape differentiates real values: TF gives a complex source the conjugate of the
    gradient staging.grad gives (JAX's convention), so a complex one is refused, not given
    either silently."""
    if is_complex(value):
        raise errors.GradientError(
            f"{what} given to GradientTape.gradient() is complex ({t or type_of(value)}): the "
            f"tape differentiates real values only (TF's convention for complex gradients is "
            f"the conjugate of JAX's); use staging.grad, which follows JAX's"
        )


def _call_outputs(cf, node: Node) -> list:
    """The call's outputs in the order of its graph's outputs (a literal output is itself)."""
    values = iter(node.outputs)
    return [next(values) if isinstance(v, Value) else v for v in cf.graph.outputs]


def _gradient_function(linked: _Linked, source_leaves: tuple, variables: tuple, seeded: bool):
    graph, target = _graph_of(linked)

    def tape_gradient(*args):
        leaves = args[: len(graph.inputs)]
        active = {graph.inputs[i] for i in source_leaves}
        reverse = Reverse(graph, list(leaves), active, variables)
        value = reverse.env[target]
        if not differentiable(target.type):
            raise errors.GradientError(
                f"the target given to GradientTape.gradient() is {target.type}, not a float"
            )
        _check_real(target.type, "the target", value)
        for var in variables:
            _check_real(np.dtype(var.dtype), "a source", np.zeros((), var.dtype))
        seed = args[-1] if seeded else np.ones_like(value, dtype=gradient_dtype(value))
        found = reverse.backward({target: seed})
        leaf_grads = tuple(
            as_gradient(found.get(graph.inputs[i]), leaves[i]) for i in source_leaves
        )
        var_grads = tuple(reverse.var_cts.get(id(v)) for v in variables)
        return leaf_grads, var_grads

    return Function(tape_gradient, autograph=False, name="tape_gradient")
