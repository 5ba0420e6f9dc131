"""What staging.load returns: concrete functions rebuilt from a file, and the callable that
dispatches a call to one of them by the types of its arguments, as a Function does."""

from __future__ import annotations

import inspect

from runtime import Value
from runtime.types import StrType, TensorType, UnionType
from staging.core import nest
from staging.core.recording import current_graph, record
from staging.functions.concrete import compiled_backend, inlined_form, signature_text
from staging.functions.trace_key import (
    TensorSpec,
    argument_name,
    bind,
    flat_tensors,
    tensor_type_of,
    trace_key,
)


class LoadedGraphFunction:
    """A graph and its compiled runner: what a `call` node of a loaded graph calls."""

    def __init__(self, name: str, graph, single: bool, jit_compile=None):
        self.name = name
        self.graph = graph
        self.single = single
        self._compiled = compiled_backend(graph, None, single, jit_compile)
        self._execute = self._compiled.__call__ if single else self._compiled.run
        self.output_types = tuple(v.type for v in graph.outputs if isinstance(v, Value))
        # what a `call` node of a graph calling this one writes in place (runtime.call_inlining)
        self.compiled_graph = inlined_form(self._compiled, jit_compile)

    def __graph_repr__(self):
        return self.name


class LoadedConcreteFunction:
    """One saved signature: a graph, the arguments it takes and how its results are packed.

    `inputs` is the (args, kwargs) template the function was traced for (TensorSpecs where
    graph inputs go); `output_kind` is "none", "single", "tuple" or "structure", in which case
    `output_structure` holds the result with OUTPUT marking each graph output."""

    def __init__(
        self,
        function: LoadedGraphFunction,
        signature: inspect.Signature,
        inputs,
        output_kind: str,
        output_structure=None,
    ):
        self.name = function.name
        self.function = function
        self.graph = function.graph
        self._signature = signature
        self._bound_template = inputs
        self._structure, self._arg_types, _ = trace_key(inputs)
        self._output_kind = output_kind
        self._output_structure = output_structure
        # what `call` nodes of graphs traced with this function need (see concrete_function)
        self._execute = function._execute
        self.compiled_graph = function.compiled_graph
        self.output_types = function.output_types
        specs = iter(
            [
                TensorSpec.of_type(t) if isinstance(t, (TensorType, UnionType, StrType)) else t
                for t in function.output_types
            ]
        )
        if output_kind == "none":
            self._output_specs = None
        elif output_kind == "single":
            self._output_specs = next(specs)
        elif output_kind == "tuple":
            self._output_specs = tuple(specs)
        else:
            self._output_specs = nest.pack_as(
                output_structure,
                [
                    next(specs) if _is_output(leaf) else leaf
                    for leaf in nest.flatten(output_structure)
                ],
            )

    def _pack(self, outs):
        kind = self._output_kind
        if kind == "none":
            return None
        if kind == "single":
            return outs[0]
        if kind == "tuple":
            return tuple(outs)
        it = iter(outs)
        return nest.pack_as(
            self._output_structure,
            [
                next(it) if _is_output(leaf) else leaf
                for leaf in nest.flatten(self._output_structure)
            ],
        )

    def _call_flat(self, tensors):
        run = self.function._compiled.run
        if self._output_kind == "single":
            return run(*tensors)
        outs = run(*tensors)
        return self._pack(outs)

    def _matches(self, structure, types) -> bool:
        return (
            structure == self._structure
            and len(types) == len(self._arg_types)
            and all(a.is_supertype_of(t) for a, t in zip(self._arg_types, types))
        )

    def __call__(self, *args, **kwargs):
        bound = bind(self._signature, args, kwargs, self.name)
        structure, types, _ = trace_key(bound)
        if not self._matches(structure, types):
            raise TypeError(
                f"{self.name}(): {mismatch(bound, [self])}\n{self.pretty_printed_signature()}"
            )
        return self._run(bound)

    def _run(self, bound):
        if current_graph() is not None:  # called while tracing another function: a `call` node
            return self._pack(tuple(record("call", flat_tensors(bound), {"fn": self})))
        return self._call_flat(flat_tensors(bound))

    @property
    def structured_input_signature(self):
        return self._bound_template

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
        return signature_text(
            self.name, self._signature, self._bound_template, self._output_specs, verbose
        )

    def __graph_repr__(self):
        return self.name

    def __repr__(self):
        return f"<LoadedConcreteFunction {self.name}{tuple(str(t) for t in self._arg_types)}>"


def _is_output(leaf) -> bool:
    from staging.saving.values import OUTPUT

    return leaf is OUTPUT


class LoadedFunction:
    """A saved function: call it like the Function it was saved from. A call runs the most
    specific saved signature that accepts the arguments; none accepting them is a TypeError
    naming the argument. `variables` are the Variables the graphs use (assign them; a later
    staging.save saves their new values)."""

    def __init__(
        self,
        name: str,
        concrete_functions: list,
        variables: list,
        format_version: int,
        jit_compile=None,
    ):
        self.name = name
        self.signatures = tuple(concrete_functions)
        self.variables = tuple(variables)
        self.format_version = format_version
        self.jit_compile = jit_compile

    @property
    def concrete_functions(self):
        return self.signatures

    def _select(self, bound):
        structure, types, _ = trace_key(bound)
        best = None
        for cf in self.signatures:
            if cf._matches(structure, types):
                if best is None or all(
                    b.is_supertype_of(a) for b, a in zip(best._arg_types, cf._arg_types)
                ):
                    best = cf
        return best

    def __call__(self, *args, **kwargs):
        signature = self.signatures[0]._signature
        bound = bind(signature, args, kwargs, self.name)
        cf = self._select(bound)
        if cf is None:
            raise TypeError(
                f"{self.name}(): {mismatch(bound, self.signatures)}; the saved signatures are:\n"
                f"{self.pretty_printed_concrete_signatures(verbose=False)}"
            )
        return cf._run(bound)

    def get_concrete_function(self, *args, **kwargs) -> LoadedConcreteFunction:
        """The saved signature a call with these arguments (values or TensorSpecs) runs."""
        bound = bind(self.signatures[0]._signature, args, kwargs, self.name)
        cf = self._select(bound)
        if cf is None:
            raise TypeError(f"{self.name}(): {mismatch(bound, self.signatures)}")
        return cf

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        return "\n\n".join(cf.pretty_printed_signature(verbose) for cf in self.signatures)

    def __repr__(self):
        return f"<LoadedFunction {self.name}: {len(self.signatures)} signature(s)>"


def mismatch(bound, signatures) -> str:
    """Names the first argument no saved signature accepts and says what it is."""
    params = list(signatures[0]._signature.parameters)
    leaves = nest.flatten_with_paths(bound, "")
    for path, leaf in leaves:
        t = tensor_type_of(leaf)
        fits = []
        for cf in signatures:
            template = dict(nest.flatten_with_paths(cf._bound_template, ""))
            if path not in template:
                continue
            expected = template[path]
            if t is not None and isinstance(expected, TensorSpec):
                fits.append((expected.type.is_supertype_of(t), str(expected.type)))
            elif t is None and not isinstance(expected, TensorSpec):
                same = trace_key(leaf)[0] == trace_key(expected)[0]
                fits.append((same, repr(expected)))
            else:
                fits.append(
                    (
                        False,
                        str(expected.type) if isinstance(expected, TensorSpec) else repr(expected),
                    )
                )
        if fits and not any(ok for ok, _ in fits):
            what = str(t) if t is not None else f"{leaf!r:.40}"
            wanted = " or ".join(dict.fromkeys(text for _, text in fits))
            return f"{argument_name(path, params)} is {what}, which no saved signature accepts (saved: {wanted})"
    return "the arguments' structure (containers, keywords) matches no saved signature"
