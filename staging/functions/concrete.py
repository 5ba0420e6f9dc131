"""ConcreteFunction: one traced graph with a fixed input signature, and the `call` op that runs
one from inside another trace."""

from __future__ import annotations

import collections
import operator

import numpy as np

from runtime import CompiledGraph, ListType, TensorType, Value
from runtime.registry import register_op
from runtime.types import StrType, UnionType
from staging import errors
from staging.core import nest
from staging.core.recording import FuncGraph, current_graph, record
from staging.core.source_map import where
from staging.core.tensor import Tensor
from staging.errors import LeakedTensorError
from staging.functions import argument_writes
from staging.functions.trace_key import (
    TensorSpec,
    bind,
    flat_tensors,
    plain_structure,
    tensor_type_of,
    trace_key,
)
from staging.kinds import forms as array0d
from staging.kinds.undefined import MaybeMissing, MaybeUndefined
from staging.state.tensor_array import holds_tuple_lists, zip_tuple_lists
from staging.state.variables import Variable


def check_jit_compile(jit_compile):
    """jit_compile as given, after checking it is None, a bool, "device" or "numba"."""
    if jit_compile not in (None, True, False, "device", "numba"):
        raise ValueError(
            f"jit_compile must be None, True, False, 'device' or 'numba', not {jit_compile!r}"
        )
    return jit_compile


def inlined_form(compiled, jit_compile):
    """What a `call` node of an interpreted graph calling this one writes in place
    (runtime.call_inlining): the interpreter's CompiledGraph; for "numba", the one it falls
    back on (numba compiles no `call`, so a caller runs on the interpreter); nothing for JAX,
    whose calls are inlined by its own lowering."""
    if jit_compile == "numba":
        return compiled.interpreter
    return None if jit_compile else compiled


def compiled_backend(graph, options, single: bool, jit_compile, lazy: bool = False):
    """What runs `graph` for `jit_compile`: the interpreter's CompiledGraph (None, False), the
    numba backend ("numba": runtime.numba_backend, which falls back on the interpreter itself),
    or JAX's (True, "device")."""
    if jit_compile == "numba":
        from runtime.numba_backend.runner import NumbaGraph

        return NumbaGraph(graph, options, single=single)
    if jit_compile:
        return jax_backend(graph, single, jit_compile)
    return CompiledGraph(graph, options, single=single, lazy=lazy)


def jax_backend(graph, single: bool, jit_compile):
    """The graph compiled by JAX (runtime.jax_lowering), as CompiledGraph's stand-in."""
    try:
        from runtime.jax_lowering.runner import JaxGraph
    except ImportError as error:
        raise ImportError(
            f"jit_compile={jit_compile!r} needs jax: pip install 'autograph-numpy[jax]' ({error})"
        ) from None
    return JaxGraph(graph, single=single, keep_on_device=jit_compile == "device")


class ConcreteFunction:
    """One traced graph with a fixed input signature; calling it runs the graph."""

    def __init__(  # noqa: PLR0913
        self,
        name,
        graph,
        structure,
        arg_types,
        bound_template,
        output_template,
        output_kinds,
        signature,
        python_function,
        options=None,
        jit_compile=None,
        lazy=False,
    ):
        self.name = name
        self.graph = graph
        self._structure = plain_structure(structure)
        # (whether the trace asked if an argument is a 0-d array: staging.kinds.forms)
        self.kinds_asked = any(v in array0d.ASKED for v in graph.inputs)
        self._arg_types = arg_types  # TensorTypes of the flat tensor inputs
        self._bound_template = bound_template  # (args, kwargs) with TensorSpecs for tensors
        self._pack_structure, self._output_specs = output_template
        self._output_kinds = output_kinds
        self._signature = signature
        self._python_function = python_function
        single = output_kinds == "single"
        self._compiled = compiled_backend(graph, options, single, jit_compile, lazy)
        # what a `call` node of a graph calling this one writes in place (runtime.call_inlining)
        self.compiled_graph = inlined_form(self._compiled, jit_compile)
        run = self._compiled.run
        # _run_packed(*flat inputs) is the call's result (packed as the function returned it);
        # _execute(*flat inputs) is the tuple of the graph's outputs. A failure in either is
        # re-raised naming the failing node and the user's line that created it.
        self._execute = self._compiled.__call__ if single else run
        self.output_types = tuple(v.type for v in graph.outputs if isinstance(v, Value))
        self._pack = self._make_packer()
        if single or output_kinds == "tuple":
            self._run_packed = run
        elif output_kinds == "none":
            self._run_packed = self._run_none
        else:
            pack = self._pack
            self._run_packed = lambda *tensors: pack(run(*tensors))

    # -- outputs ---------------------------------------------------------
    def _make_packer(self):
        kinds = self._output_kinds
        template = self._pack_structure
        if kinds == "single":
            return lambda outs: outs[0]
        if kinds == "tuple":
            return lambda outs: outs
        if kinds == "none":
            return lambda outs: None
        leaves_static = kinds  # list: for each leaf, ("dyn", None) or ("static", obj)
        if len(kinds) == 1 and kinds[0][0] == "static" and nest.is_leaf(template):
            static = kinds[0][1]
            return lambda outs: static

        def pack(outs):
            it = iter(outs)
            leaves = [next(it) if kind == "dyn" else obj for kind, obj in leaves_static]
            return nest.pack_as(template, leaves)

        if holds_tuple_lists(template):
            return lambda outs: zip_tuple_lists(pack(outs))
        return pack

    def fast_runner(self, positions):
        """Function's fast-path callable for one argument layout: the call's arguments in, the
        packed result out (`positions`: which arguments are graph inputs, None for all)."""
        run = self._run_packed
        if positions is None:
            keyed = getattr(self._compiled, "keyed_run", None)  # (numba's: see its runner)
            return keyed if keyed is not None and run is self._compiled.run else run
        if not positions:
            return lambda *args: run()
        pick = operator.itemgetter(*positions)
        if len(positions) == 1:
            return lambda *args: run(pick(args))
        return lambda *args: run(*pick(args))

    def _run_none(self, *tensors):
        self._execute(*tensors)

    # -- calling ---------------------------------------------------------
    def _call_flat(self, tensors):
        return self._run_packed(*tensors)

    def __call__(self, *args, **kwargs):
        bound = bind(self._signature, args, kwargs, self.name)
        structure, types, _ = trace_key(bound)
        if structure != self._structure or not all(
            spec.is_supertype_of(t) for spec, t in zip(self._arg_types, types)
        ):
            raise TypeError(
                f"{self.name}(): arguments {_describe_args(bound, self._signature)} do not "
                f"match the concrete function's signature\n{self.pretty_printed_signature()}"
            )
        if current_graph() is not None:
            return record_call(self, bound)
        return self._call_flat(flat_tensors(bound))

    # -- introspection -----------------------------------------------------
    @property
    def structured_input_signature(self):
        return self._bound_template

    @property
    def executable_source(self) -> str:
        """The Python source the graph was lowered to (what actually runs on a call)."""
        return self._compiled.source

    @property
    def backend_fallback(self) -> str | None:
        """With jit_compile="numba": why this graph runs on the interpreter (the op and its line
        that numba's lowering does not take yet), or None when numba compiles it."""
        return getattr(self._compiled, "fallback", None)

    @property
    def structured_outputs(self):
        return self._output_specs

    @property
    def inputs(self):
        return [
            TensorSpec.of_type(t)
            if type(t) in (UnionType, StrType)
            else TensorSpec(t.shape, t.dtype)
            for t in self._arg_types
        ]

    def pretty_printed_signature(self, verbose: bool = True) -> str:
        """The signature as text: one line per argument and the outputs (verbose), or one line
        `name(x: f64[?], n: 3) -> f64[?]`."""
        return signature_text(
            self.name, self._signature, self._bound_template, self._output_specs, verbose
        )

    def __graph_repr__(self):
        return self.name

    def __repr__(self):
        return f"<ConcreteFunction {self.name}{tuple(str(t) for t in self._arg_types)}>"


def signature_text(name, signature, bound_template, output_specs, verbose: bool = True) -> str:
    """A concrete signature as text (see ConcreteFunction.pretty_printed_signature)."""
    args, kwargs = bound_template
    params = list(signature.parameters)
    values = list(args) + [kwargs.get(p) for p in params[len(args) :]]
    if not verbose:
        described = ", ".join(f"{p}: {_describe_spec(value)}" for p, value in zip(params, values))
        return f"{name}({described}) -> {_describe_spec(output_specs)}"
    lines = [f"{name}({', '.join(params)})", "  Args:"]
    lines += [f"    {p}: {_describe_spec(value)}" for p, value in zip(params, values)]
    lines += ["  Returns:", f"    {_describe_spec(output_specs)}"]
    return "\n".join(lines)


def _describe_spec(value) -> str:
    if isinstance(value, TensorSpec):
        return str(value.type)
    if isinstance(value, (list, tuple)) and not nest.is_namedtuple(value):
        inner = ", ".join(_describe_spec(v) for v in value)
        return (
            f"[{inner}]"
            if isinstance(value, list)
            else f"({inner}{',' if len(value) == 1 else ''})"
        )
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_describe_spec(v)}" for k, v in value.items()) + "}"
    if isinstance(value, ListType):
        return str(value)
    if isinstance(value, Variable):
        return f"Variable {value.name!r} {TensorType(value.dtype, value.shape)}"
    return repr(value)


def _describe_args(bound, signature) -> str:
    args, kwargs = bound
    parts = []
    for name, value in zip(signature.parameters, args):
        t = tensor_type_of(value)
        parts.append(f"{name}={t if t is not None else repr(value)}")
    return "(" + ", ".join(parts) + ")"


# -- calls of a Function from another trace ---------------------------------


def _call_infer(*types, fn):
    return fn.output_types


def _call_kernel(fn):
    return fn._execute  # a failure names the node of the called graph, not the call


register_op(
    "call",
    takes_none=True,
    infer=_call_infer,
    num_outputs=None,
    stateful=True,
    make_kernel=_call_kernel,
    weak_results=True,
)(lambda *args, fn: fn._execute(*args))


def record_call(cf: ConcreteFunction, bound):
    if argument_writes.writes_arguments(cf.graph):
        raise errors.MutationError(
            f"{where()}the staged function {cf.name!r} writes into its arguments in place, which a "
            f"call from another staged function cannot show: pass it copies, or call the Python "
            f"function (`.python_function`), which is then traced into this one"
        )
    outs = record("call", flat_tensors(bound), {"fn": cf})
    return cf._pack(tuple(outs))


def collect_outputs(fg: FuncGraph, result, location: str = ""):
    """Graph outputs for the tensor leaves of `result`, plus how to rebuild it. `location`
    ('file:line: ' of the function) prefixes the refusal of a result holding tensors it cannot
    return (the user's line when empty).

    Returns (values, kinds, structure, specs): kinds is "none", "single",
    "tuple" (a flat tuple of tensors) or a list of ("dyn", None) / ("static", obj)
    per leaf; structure is what leaves are packed into; specs shows it with
    TensorSpecs in place of tensors (structured_outputs).
    """
    from staging.state.tensor_array import TensorArray

    if result is None:
        return [], "none", None, None
    leaves = nest.flatten(result)
    values, kinds = [], []
    for leaf in leaves:
        if isinstance(leaf, (Variable, MaybeMissing)):
            leaf = leaf._staged_value()
        if isinstance(leaf, TensorArray):
            if not leaf._staged:
                kinds.append(("static", leaf.to_list()))
                continue
            leaf = leaf._handle
        if isinstance(leaf, Tensor):
            values.append(fg.value_of(leaf))
            kinds.append(("dyn", None))
        elif isinstance(leaf, (np.ndarray, np.generic)):
            values.append(record("const", [], {"value": leaf})._value)
            kinds.append(("dyn", None))
        else:
            _check_no_symbolic_inside(fg, leaf, location or where())
            kinds.append(("static", leaf))
    specs = iter([_spec(v) for v in values])
    spec_leaves = [next(specs) if kind == "dyn" else obj for kind, obj in kinds]
    if len(leaves) == 1 and leaves[0] is result and kinds[0][0] == "dyn":
        return values, "single", None, spec_leaves[0]
    spec_structure = nest.pack_as(result, spec_leaves)
    if (
        type(result) is tuple
        and len(result) == len(leaves)
        and all(k == "dyn" for k, _ in kinds)
        and all(not isinstance(r, (tuple, list, dict)) for r in result)
    ):
        return values, "tuple", None, spec_structure
    return values, kinds, result, spec_structure


def _check_no_symbolic_inside(fg: FuncGraph, obj, location: str) -> None:
    """Refuses an object returned as it is (a Python object the trace made or was given) whose
    attributes, or items of a deque or set, hold symbolic values: its caller would get tensors
    of a finished trace."""
    if isinstance(obj, (collections.deque, set, frozenset)):
        if any(isinstance(leaf, (Tensor, MaybeUndefined)) for leaf in nest.flatten(list(obj))):
            raise LeakedTensorError(
                f"{location}{fg.function_name or 'the staged function'!s} returns a "
                f"{type(obj).__name__} holding a value computed while the graph runs; it would "
                f"be returned as it was when traced. Return a list of its items (`list(q)`)"
            )
        return
    attributes = getattr(obj, "__dict__", None)
    if type(attributes) is not dict:
        return
    for name, value in attributes.items():
        if any(isinstance(leaf, (Tensor, MaybeUndefined)) for leaf in nest.flatten(value)):
            raise LeakedTensorError(
                f"{location}{fg.function_name or 'the staged function'!s} returns a "
                f"{type(obj).__name__} object whose attribute {name!r} holds a value computed "
                f"while the graph runs; such an object is returned as it was when traced. Return "
                f"the value itself (tensors, numbers, and tuples, lists, dicts of them)"
            )


def _spec(value: Value):
    return value.type if isinstance(value.type, ListType) else TensorSpec.of_type(value.type)


def _lists_to_python(result):
    from staging.state.tensor_array import TensorArray

    if isinstance(result, TensorArray):
        return result.to_list()
    if isinstance(result, (list, tuple)) and any(
        isinstance(r, TensorArray) for r in nest.flatten(result)
    ):
        return zip_tuple_lists(
            nest.pack_as(
                result,
                [r.to_list() if isinstance(r, TensorArray) else r for r in nest.flatten(result)],
            )
        )
    return result
