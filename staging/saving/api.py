"""staging.save and staging.load: the saved document (format version 1) and its checks.

The document (`saved_function.json`) is:

    {"format": "staging.saved_function", "version": 1, "name": NAME,
     "variables": [{"name", "value": ARRAY}],
     "functions": [{"name", "graph": GRAPH, "single": bool}],   # callees before callers
     "signatures": [{"function": INDEX, "parameters": [{"name", "kind", "default"?}],
                     "inputs": VALUE (the [args, kwargs] template),
                     "output_kind": "none" | "single" | "tuple" | "structure",
                     "output_structure": VALUE | null}]}

GRAPH is described in staging.saving.graphs, VALUE in staging.saving.values.
"""

from __future__ import annotations

import inspect
import os

from runtime.jax_lowering import jax_available
from runtime.registry import get_op
from runtime.verify import verify
from staging.core import nest
from staging.errors import LoadError, SaveError
from staging.functions.concrete import check_jit_compile
from staging.saving import archive
from staging.saving.graphs import GraphDecoder, GraphEncoder, SaveRefusal
from staging.saving.loaded import LoadedConcreteFunction, LoadedFunction, LoadedGraphFunction
from staging.saving.values import (
    OUTPUT,
    Decoder,
    Encoder,
    FormatError,
    Refusal,
    expect,
    expect_dict,
    expect_int,
    expect_list,
    expect_str,
)

FORMAT = "staging.saved_function"
VERSION = 1
SUPPORTED_VERSIONS = (1,)
_KINDS = {
    k.name: k
    for k in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.VAR_POSITIONAL,
        inspect.Parameter.KEYWORD_ONLY,
        inspect.Parameter.VAR_KEYWORD,
    )
}
_OUTPUT_KINDS = ("none", "single", "tuple", "structure")


# -- saving ------------------------------------------------------------------------------------


def _concrete_functions(obj, signatures) -> list:  # noqa: C901
    from staging.functions.concrete import ConcreteFunction
    from staging.functions.function import Function

    if isinstance(obj, LoadedFunction):
        if signatures is None:
            return list(obj.signatures)
        return [obj.get_concrete_function(*_split(s)[0], **_split(s)[1]) for s in signatures]
    if isinstance(obj, (ConcreteFunction, LoadedConcreteFunction)):
        if signatures is not None:
            raise SaveError(
                "signatures= is for a Function: a ConcreteFunction has its one signature"
            )
        return [obj]
    if not isinstance(obj, Function):
        raise SaveError(
            f"staging.save saves a staging.Function, a ConcreteFunction or a loaded function, "
            f"not {type(obj).__name__}"
        )
    if signatures is not None:
        out = []
        for s in signatures:
            if isinstance(s, ConcreteFunction):
                out.append(s)
            else:
                args, kwargs = _split(s)
                out.append(obj.get_concrete_function(*args, **kwargs))
        return out
    seen, out = set(), []
    for structure, types, _, cf in obj._concretes:  # noqa: SLF001  (every trace, oldest first)
        if (structure, types) not in seen:
            seen.add((structure, types))
            out.append(cf)
    if not out:
        raise SaveError(
            f"{obj.python_function.__name__} has not been traced yet: call it, or pass "
            f"signatures=[(staging.TensorSpec(...), ...)] to staging.save"
        )
    return out


def _split(signature):
    """A `signatures=` entry: a tuple/list of positional arguments or a dict of keyword ones."""
    if isinstance(signature, dict):
        return (), dict(signature)
    if isinstance(signature, (tuple, list)):
        return tuple(signature), {}
    raise SaveError(
        f"each signatures= entry is a tuple of positional arguments (TensorSpecs or values) or a "
        f"dict of keyword ones, not {type(signature).__name__}"
    )


def _saved_function(fn):
    """What the file holds for a function a call node calls (a loaded signature: its graph's)."""
    return fn.function if isinstance(fn, LoadedConcreteFunction) else fn


class _Saver:
    def __init__(self):
        self.arrays: list = []
        self.variables: list = []
        self.variable_ids: dict[int, int] = {}
        self.functions: list = []
        self.function_ids: dict[int, int] = {}
        self.encoder = Encoder(self.arrays, self.variable_index, self.function_index)

    def variable_index(self, var) -> int:
        if id(var) not in self.variable_ids:
            self.variable_ids[id(var)] = len(self.variables)
            self.variables.append(
                {"name": var.name, "value": self.encoder.value(var.numpy()), "_var": var}
            )
        return self.variable_ids[id(var)]

    def function_index(self, fn) -> int:
        fn = _saved_function(fn)
        if id(fn) not in self.function_ids:
            # callees first (no cycles in the file), found without recursion: a chain of a
            # thousand staged functions each calling the next is saved as it is traced
            for callee in self._unsaved_callees_first(fn):
                self._add_function(callee)
        return self.function_ids[id(fn)]

    def _unsaved_callees_first(self, fn) -> list:
        """`fn` and the functions its graph calls, directly or not, not saved yet: each after
        the ones it calls."""
        order, stack, seen = [], [(fn, False)], set()
        while stack:
            f, expanded = stack.pop()
            if expanded:
                order.append(f)
                continue
            if id(f) in seen or id(f) in self.function_ids:
                continue
            seen.add(id(f))
            stack.append((f, True))
            callees = [
                _saved_function(node.attrs["fn"])
                for node in f.graph.walk()
                if get_op(node.op).called_graph is not None
            ]
            stack.extend((callee, False) for callee in reversed(callees))  # (in graph order)
        return order

    def _add_function(self, fn) -> None:
        single = getattr(fn, "single", None)
        if single is None:
            single = fn._output_kinds == "single"  # noqa: SLF001  (a ConcreteFunction)
        graph = GraphEncoder(self.encoder).graph(fn.graph)
        self.function_ids[id(fn)] = len(self.functions)
        self.functions.append({"name": fn.name, "graph": graph, "single": single, "_fn": fn})

    def signature(self, cf) -> dict:
        index = self.function_index(cf)
        params = []
        for p in cf._signature.parameters.values():  # noqa: SLF001
            entry = {"name": p.name, "kind": p.kind.name}
            if p.default is not inspect.Parameter.empty:
                try:
                    entry["default"] = self.encoder.value(p.default)
                except Refusal:
                    pass  # such a default is part of the template when a call used it
            params.append(entry)
        try:
            inputs = self.encoder.value(list(cf.structured_input_signature))
        except Refusal as exc:
            raise SaveError(
                f"cannot save {cf.name}: an argument of the signature is {exc}; saved "
                f"signatures hold arrays, Python numbers, strings, None, Variables and "
                f"tuples, lists and dicts of them"
            ) from None
        kind, structure = _output_layout(cf)
        try:
            structure = self.encoder.value(structure) if kind == "structure" else None
        except Refusal as exc:
            raise SaveError(
                f"cannot save {cf.name}: its result holds {exc}; saved results hold arrays, "
                f"Python numbers, strings, None and tuples, lists and dicts of them"
            ) from None
        return {
            "function": index,
            "parameters": params,
            "inputs": inputs,
            "output_kind": kind,
            "output_structure": structure,
        }


def _output_layout(cf):
    if isinstance(cf, LoadedConcreteFunction):
        return cf._output_kind, cf._output_structure  # noqa: SLF001
    kinds = cf._output_kinds  # noqa: SLF001
    if isinstance(kinds, str):
        return kinds, None
    leaves = [OUTPUT if kind == "dyn" else obj for kind, obj in kinds]
    return "structure", nest.pack_as(cf._pack_structure, leaves)  # noqa: SLF001


def save(obj, path, signatures=None) -> None:
    """Saves a Function (every concrete function it has traced, or those for `signatures`: a list
    of positional-argument tuples or keyword dicts of TensorSpecs and values), a ConcreteFunction
    or a loaded function to one file at `path`. See docs/saving.md."""
    cfs = _concrete_functions(obj, signatures)
    saver = _Saver()
    try:
        sigs = [saver.signature(cf) for cf in cfs]
    except SaveRefusal as exc:
        raise SaveError(str(exc)) from None
    except Refusal as exc:
        raise SaveError(f"cannot save: {exc}") from None
    except RecursionError:
        raise SaveError(_TOO_DEEP.format(cfs[0].name)) from None
    for table in (saver.variables, saver.functions):
        for entry in table:
            entry.pop("_var", None)
            entry.pop("_fn", None)
    document = {
        "format": FORMAT,
        "version": VERSION,
        "name": cfs[0].name,
        "variables": saver.variables,
        "functions": saver.functions,
        "signatures": sigs,
    }
    try:
        archive.write(path, document, saver.arrays)
    except RecursionError:
        raise SaveError(_TOO_DEEP.format(cfs[0].name)) from None


_TOO_DEEP = (
    "cannot save {!r}: its staged control flow is nested too deeply for the file (about 150 "
    "branches or loops, each inside the one before, can be saved); write a long chain of cases "
    "as a lookup (np.select, indexing into an array of results) or a loop"
)


# -- loading -----------------------------------------------------------------------------------


def load(path, jit_compile=None, *, max_bytes: int = archive.MAX_TOTAL_BYTES) -> LoadedFunction:
    """Loads a file written by staging.save. Everything in it is checked before anything runs;
    a file that is not a valid saved function raises staging.errors.LoadError saying why.
    `max_bytes` caps the uncompressed size of the file's entries. jit_compile as for
    staging.function: True (or "device") compiles the graphs with JAX (docs/jax.md), "numba"
    with numba (docs/performance.md)."""
    check_jit_compile(jit_compile)
    if jit_compile in (True, "device") and not jax_available():
        raise ImportError(
            f"load(..., jit_compile={jit_compile!r}) needs jax, which is not installed: "
            f"pip install 'autograph-numpy[jax]', or load without jit_compile to run on "
            f"the NumPy interpreter"
        )
    try:
        opened = archive.Archive(os.fspath(path), max_bytes)
    except OSError as exc:
        raise LoadError(f"cannot load {os.fspath(path)!s}: {exc}") from None
    except FormatError as exc:
        raise LoadError(f"cannot load {os.fspath(path)!s}: {exc}") from None
    try:
        return _Loader(opened, jit_compile).load()
    except FormatError as exc:
        raise LoadError(f"cannot load {os.fspath(path)!s}: {exc}") from None
    except RecursionError:
        raise LoadError(f"cannot load {os.fspath(path)!s}: the file is nested too deeply") from None
    finally:
        opened.close()


class _Loader:
    def __init__(self, opened: archive.Archive, jit_compile=None):
        self.archive = opened
        self.jit_compile = jit_compile
        self.variables: list = []
        self.functions: list = []
        self.decoder = Decoder(self._array, self._variable, self._function)

    def _array(self, entry):
        return self.archive.array(entry)

    def _variable(self, index):
        expect(index < len(self.variables), f"variable {index} is not in the variable table")
        return self.variables[index]

    def _function(self, index):
        expect(index < len(self.functions), f"function {index} is not defined before its use")
        return self.functions[index]

    def load(self) -> LoadedFunction:
        from staging.state.variables import Variable

        doc = expect_dict(
            self.archive.document(),
            "the document",
            {"format", "version", "name", "variables", "functions", "signatures"},
        )
        expect(doc["format"] == FORMAT, f"not a saved function (format {doc['format']!r:.60})")
        version = doc["version"]
        expect(
            type(version) is int and version in SUPPORTED_VERSIONS,
            f"the file has format version {version!r:.20}; this version of staging reads versions "
            f"{', '.join(map(str, SUPPORTED_VERSIONS))} (a newer staging wrote it?)",
        )
        for i, entry in enumerate(expect_list(doc["variables"], "variables", 1 << 16)):
            expect_dict(entry, f"variable {i}", {"name", "value"})
            value = self.decoder.value(entry["value"])
            expect(hasattr(value, "dtype"), f"the value of variable {i} must be an array")
            self.variables.append(
                Variable(value, dtype=value.dtype, name=expect_str(entry["name"], "a name"))
            )
        for i, entry in enumerate(expect_list(doc["functions"], "functions", 1 << 16)):
            self.functions.append(self._graph_function(entry, i))
        sigs = [
            self._signature(s, i)
            for i, s in enumerate(expect_list(doc["signatures"], "signatures", 1 << 16))
        ]
        expect(sigs, "the file has no signatures")
        return LoadedFunction(
            expect_str(doc["name"], "the name"), sigs, self.variables, version, self.jit_compile
        )

    def _graph_function(self, entry, i) -> LoadedGraphFunction:
        expect_dict(entry, f"function {i}", {"name", "graph", "single"})
        expect(type(entry["single"]) is bool, f"the single flag of function {i} must be a bool")
        graph = GraphDecoder(self.decoder).graph(
            entry["graph"], where_=f"the graph of function {i}"
        )
        try:
            verify(graph)
            _check_calls(graph)
        except FormatError:
            raise
        except Exception as exc:  # noqa: BLE001  (any failure of a check hook or a kernel factory)
            raise FormatError(
                f"function {i} is not a valid graph: {type(exc).__name__}: {exc}"
            ) from None
        name = expect_str(entry["name"], "a name")
        try:
            return LoadedGraphFunction(name, graph, entry["single"], self.jit_compile)
        except Exception as exc:  # noqa: BLE001  (a kernel factory or a lowering refusing the checked graph)
            if self.jit_compile and type(exc).__name__ == "LoweringError":
                raise  # a graph that loads but that JAX cannot compile: the backend's own error
            raise FormatError(
                f"function {i} cannot be compiled: {type(exc).__name__}: {exc}"
            ) from None

    def _signature(self, obj, i) -> LoadedConcreteFunction:
        what = f"signature {i}"
        expect_dict(
            obj, what, {"function", "parameters", "inputs", "output_kind", "output_structure"}
        )
        function = self._function(expect_int(obj["function"], f"the function of {what}"))
        params = []
        for p in expect_list(obj["parameters"], f"the parameters of {what}", 1024):
            expect_dict(p, f"a parameter of {what}", {"name", "kind"}, {"default"})
            name = expect_str(p["name"], "a parameter name")
            expect(name.isidentifier(), f"parameter name {name!r:.40} is not an identifier")
            expect(
                p["kind"] in _KINDS,
                f"parameter kind {p['kind']!r:.40} is not one of {sorted(_KINDS)}",
            )
            default = (
                self.decoder.value(p["default"]) if "default" in p else inspect.Parameter.empty
            )
            params.append(inspect.Parameter(name, _KINDS[p["kind"]], default=default))
        try:
            signature = inspect.Signature(params)
        except ValueError as exc:
            raise FormatError(f"the parameters of {what} are invalid: {exc}") from None
        inputs = self.decoder.value(obj["inputs"])
        expect(
            type(inputs) is list
            and len(inputs) == 2
            and type(inputs[0]) is tuple
            and type(inputs[1]) is dict,
            f"the inputs of {what} must be [args tuple, kwargs dict]",
        )
        inputs = (inputs[0], inputs[1])
        kind = obj["output_kind"]
        expect(kind in _OUTPUT_KINDS, f"the output kind of {what} is not one of {_OUTPUT_KINDS}")
        structure = self.decoder.value(obj["output_structure"]) if kind == "structure" else None
        cf = LoadedConcreteFunction(function, signature, inputs, kind, structure)
        _check_signature(cf, function, kind, structure, what)
        return cf


def _check_signature(cf, function, kind, structure, what):
    graph = function.graph
    expect(
        [v.type for v in graph.inputs] == list(cf._arg_types),  # noqa: SLF001
        f"the inputs of {what} do not match its graph's inputs",
    )
    expect(
        function.single == (kind == "single"),
        f"the output kind of {what} does not match its function",
    )
    outputs = len(graph.outputs)
    if kind == "none":
        expect(outputs == 0, f"{what} returns None but its graph has outputs")
    elif kind == "single":
        expect(outputs == 1, f"{what} returns one value but its graph has {outputs}")
    elif kind == "structure":
        slots = sum(1 for leaf in nest.flatten(structure) if leaf is OUTPUT)
        expect(
            slots == outputs,
            f"the result structure of {what} has {slots} outputs, its graph {outputs}",
        )


def _check_calls(graph):
    """A node calling another graph (OpDef.called_graph: a `call`, whose attribute is a function
    of the file, staging.saving.attrs) must pass what that graph takes (its op's rule does not
    look)."""
    for node in graph.walk():
        called_graph = get_op(node.op).called_graph
        if called_graph is not None:
            callee = called_graph(node)
            types = [v.type if hasattr(v, "type") else None for v in node.inputs]
            expect(
                types == [v.type for v in callee.inputs],
                f"a call of {callee.name} passes inputs of other types than it takes",
            )
