"""`staging.function`: Function (trace cache, dispatch) and ConcreteFunction (one traced graph)."""

from __future__ import annotations

import collections
import dataclasses
import functools
import inspect
import os
import sys
import threading
import warnings
import weakref

import numpy as np

from runtime import CompiledGraph, GraphExecutionError, ListType, TensorType, Value
from runtime.registry import register_op

from . import errors, nest
from .graph_building import FuncGraph, building, current_graph, record
from .optimize import get_optimizer_options, optimize
from .tensor import Tensor
from .variables import Variable, creation_scope

_NP_SCALAR_TYPES = frozenset(
    t for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128,
                np.longdouble, np.clongdouble))
_PY_VALUE_TYPES = (int, float, complex, str, bytes, type(None))
_FAST_PY_TYPES = frozenset((int, float, bool, str, type(None)))
_STRONG_BOUND_MAX = 64  # methods of non-weak-referenceable instances cached per Function (LRU)

_eager = threading.local()
# One lock for all tracing: a trace may call other Functions (which may call back), and
# per-Function locks taken in different orders by two threads would deadlock.
_TRACE_LOCK = threading.RLock()
_weakref = weakref.ref  # a global: Function.__get__ makes one per bound object it hands out
_RUN_EAGERLY = [False]


def run_functions_eagerly(enabled: bool) -> None:
    """When True, every staging.function runs its Python function directly (for debugging)."""
    _RUN_EAGERLY[0] = bool(enabled)


def functions_run_eagerly() -> bool:
    return _RUN_EAGERLY[0]


class AutographWarning(UserWarning):
    """A function could not be converted and is traced as written."""


class RetracingWarning(UserWarning):
    """A Function keeps tracing new graphs; each trace is slow."""


# ---------------------------------------------------------------------------
# TensorSpec and trace keys


class TensorSpec:
    """Describes a tensor argument: shape (dims int or None) and dtype."""

    __slots__ = ("type", "name")

    def __init__(self, shape, dtype=np.float64, name=None):
        self.type = TensorType(np.dtype(dtype), shape)
        self.name = name

    @classmethod
    def from_value(cls, value, name=None) -> "TensorSpec":
        if isinstance(value, Tensor):
            return cls(value.type.shape, value.dtype, name)
        arr = np.asarray(value)
        return cls(arr.shape, arr.dtype, name)

    @property
    def shape(self):
        return self.type.shape

    @property
    def dtype(self):
        return self.type.dtype

    def is_compatible_with(self, value) -> bool:
        t = _tensor_type_of(value)
        return t is not None and self.type.is_supertype_of(t)

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and self.type == other.type and self.name == other.name

    def __hash__(self):
        return hash((self.type, self.name))

    def __repr__(self):
        name = f", name={self.name!r}" if self.name else ""
        return f"TensorSpec(shape={self.type.shape}, dtype={self.type.dtype.name}{name})"


def _tensor_type_of(value):
    if isinstance(value, Tensor):
        return value.type
    if isinstance(value, TensorSpec):
        return value.type
    if type(value) is np.ndarray or type(value) in _NP_SCALAR_TYPES:
        if value.dtype.hasobject:
            return None
        return TensorType(value.dtype, value.shape)
    return None


class _WeakIdKey:
    """Trace-key part for an object compared by identity, held weakly."""

    __slots__ = ("ref", "ident")

    def __init__(self, obj):
        self.ident = id(obj)
        try:
            self.ref = weakref.ref(obj)
        except TypeError:
            self.ref = lambda obj=obj: obj  # not weak-referenceable: hold it

    def __eq__(self, other):
        return isinstance(other, _WeakIdKey) and self.ident == other.ident and \
            self.ref() is not None and self.ref() is other.ref()

    def __hash__(self):
        return self.ident

    def __repr__(self):
        obj = self.ref()
        return f"<{type(obj).__name__} object>" if obj is not None else "<dead object>"


_TENSOR = "T"


def _trace_structure(value, types: list, path: str, tensor_paths: list):
    """The hashable part of a trace key; appends each tensor leaf's type to `types`."""
    t = _tensor_type_of(value)
    if t is not None:
        types.append(t)
        tensor_paths.append(path)
        return _TENSOR
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, _PY_VALUE_TYPES):
        return value  # 1 == 1.0: no retrace
    if isinstance(value, Variable):
        return ("Variable", _WeakIdKey(value))
    tracing_type = getattr(type(value), "__tracing_type__", None)
    if tracing_type is not None:
        return ("custom", type(value), tracing_type(value))
    if nest.is_namedtuple(value):
        return (type(value), tuple(_trace_structure(v, types, f"{path}.{f}", tensor_paths)
                                   for f, v in zip(type(value)._fields, value)))
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(_trace_structure(v, types, f"{path}[{i}]", tensor_paths)
                                   for i, v in enumerate(value)))
    if isinstance(value, dict):
        keys = nest._sorted_keys(value)
        return (type(value), tuple((k, _trace_structure(value[k], types, f"{path}[{k!r}]", tensor_paths))
                                   for k in keys))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value), tuple((f.name, _trace_structure(getattr(value, f.name), types,
                                                             f"{path}.{f.name}", tensor_paths))
                                   for f in dataclasses.fields(value)))
    if isinstance(value, Tensor) or isinstance(value, np.ndarray):
        raise TypeError(f"cannot use {value!r} as a staged argument")
    if type(value).__hash__ is object.__hash__ or type(value).__hash__ is None:
        return ("id", _WeakIdKey(value))
    try:
        hash(value)
    except TypeError:
        return ("id", _WeakIdKey(value))
    return ("eq", type(value), value)


_NOT_FAST = object()  # _fast_key of an argument the fast path does not handle


def _fast_key(a):
    """The fast path's key of one argument: (dtype, shape) of a NumPy array or scalar (a graph
    input), the value of a simple Python value (part of the trace key; bools apart, since
    True == 1), or _NOT_FAST."""
    t = type(a)
    if t is np.ndarray or t in _NP_SCALAR_TYPES:
        return (a.dtype, a.shape)
    if t in _FAST_PY_TYPES:
        return a if t is not bool else ("bool", a)
    return _NOT_FAST


def _stable_key(value) -> bool:
    """Whether `value`'s trace-key part is fixed for the object's lifetime (mutating a list, a
    dict or a dataclass held in a default changes its key; a __tracing_type__ may depend on
    state). Tensors count as stable: they are graph inputs, never baked into the trace."""
    if _tensor_type_of(value) is not None or isinstance(value, (bool, Variable) + _PY_VALUE_TYPES):
        return True
    if getattr(type(value), "__tracing_type__", None) is not None:
        return False
    if isinstance(value, tuple):  # tuples and namedtuples: stable if their elements are
        return all(_stable_key(v) for v in value)
    if isinstance(value, (list, dict)) or (dataclasses.is_dataclass(value) and not isinstance(value, type)):
        return False
    return True  # keyed by identity, or by == on a hashable object


def _replace_tensors(value, leaves):
    """`value` with each tensor leaf (in trace order) replaced by next(leaves)."""
    if _tensor_type_of(value) is not None:
        return next(leaves)
    if isinstance(value, (bool,) + _PY_VALUE_TYPES) or isinstance(value, Variable):
        return value
    if getattr(type(value), "__tracing_type__", None) is not None:
        return value
    if nest.is_namedtuple(value):
        return type(value)(*[_replace_tensors(v, leaves) for v in value])
    if isinstance(value, (list, tuple)):
        return type(value)(_replace_tensors(v, leaves) for v in value)
    if isinstance(value, dict):
        replaced = {k: _replace_tensors(value[k], leaves) for k in nest._sorted_keys(value)}
        return {k: replaced[k] for k in value}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(value, **{f.name: _replace_tensors(getattr(value, f.name), leaves)
                                             for f in dataclasses.fields(value) if f.init})
    return value


def _weaken(value):
    """A signature template with each object keyed by (weakly held) identity replaced by its
    weak key, so that a ConcreteFunction does not keep such arguments alive."""
    if isinstance(value, (TensorSpec, bool, Variable) + _PY_VALUE_TYPES):
        return value
    if getattr(type(value), "__tracing_type__", None) is not None:
        return value
    if nest.is_namedtuple(value):
        return type(value)(*[_weaken(v) for v in value])
    if isinstance(value, (list, tuple)):
        return type(value)(_weaken(v) for v in value)
    if isinstance(value, dict):
        return {k: _weaken(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return value
    key = _trace_structure(value, [], "", [])
    return key[1] if isinstance(key, tuple) and key[:1] == ("id",) else value


def _flat_tensors(value, out: list):
    if _tensor_type_of(value) is not None:
        out.append(value)
    elif isinstance(value, (bool,) + _PY_VALUE_TYPES) or isinstance(value, Variable):
        return
    elif getattr(type(value), "__tracing_type__", None) is not None:
        return
    elif isinstance(value, (list, tuple)):
        for v in value:
            _flat_tensors(v, out)
    elif isinstance(value, dict):
        for k in nest._sorted_keys(value):
            _flat_tensors(value[k], out)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _flat_tensors(getattr(value, f.name), out)


# ---------------------------------------------------------------------------
# ConcreteFunction


_tracing = threading.local()
# Traces in progress in all threads (changed only under _TRACE_LOCK, which every trace holds):
# while it is 0, no thread is tracing, so a call's fast path can skip the thread-local stack.
_TRACES_RUNNING = [0]


def _tracing_stack() -> list:
    stack = getattr(_tracing, "stack", None)
    if stack is None:
        stack = _tracing.stack = []
    return stack


class ConcreteFunction:
    """One traced graph with a fixed input signature; calling it runs the graph."""

    def __init__(self, name, graph, structure, arg_types, arg_paths, bound_template, output_template,
                 output_kinds, signature, python_function, options=None):
        self.name = name
        self.graph = graph
        self._structure = structure
        self._arg_types = arg_types          # TensorTypes of the flat tensor inputs
        self._arg_paths = arg_paths
        self._bound_template = bound_template  # (args, kwargs) with TensorSpecs for tensors
        self._pack_structure, self._output_specs = output_template
        self._output_kinds = output_kinds
        self._signature = signature
        self._python_function = python_function
        self._compiled = CompiledGraph(graph, errors.ExecutionError, options)
        self._run = self._compiled.run
        shared = _outputs_sharing_state(graph)
        if shared:  # the caller owns its results: never hand out a Variable's own buffer
            self._run = _copying(self._run, shared)
        self.output_types = tuple(v.type for v in graph.outputs if isinstance(v, Value))
        self._pack = self._make_packer()

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

        def pack(outs):
            it = iter(outs)
            leaves = [next(it) if kind == "dyn" else obj for kind, obj in leaves_static]
            return nest.pack_as(template, leaves)
        return pack

    # -- calling ---------------------------------------------------------
    def _call_flat(self, tensors):
        try:
            outs = self._run(*tensors)
        except errors.ExecutionError:
            raise
        except Exception as exc:
            raise self._compiled.wrap_error(exc, errors.ExecutionError) from exc
        return self._pack(outs)

    def __call__(self, *args, **kwargs):
        bound = _bind(self._signature, args, kwargs, self.name)
        types: list = []
        paths: list = []
        structure = _trace_structure(bound, types, "", paths)
        if structure != self._structure or not all(
                spec.is_supertype_of(t) for spec, t in zip(self._arg_types, types)):
            raise TypeError(f"{self.name}(): arguments {_describe_args(bound, self._signature)} do not "
                            f"match the concrete function's signature\n{self.pretty_printed_signature()}")
        if current_graph() is not None:
            return _record_call(self, bound)
        flat: list = []
        _flat_tensors(bound, flat)
        return self._call_flat(flat)

    # -- introspection -----------------------------------------------------
    @property
    def structured_input_signature(self):
        return self._bound_template

    @property
    def executable_source(self) -> str:
        """The Python source the graph was lowered to (what actually runs on a call)."""
        return self._compiled.source

    @property
    def structured_outputs(self):
        return self._output_specs

    @property
    def inputs(self):
        return [TensorSpec(t.shape, t.dtype) for t in self._arg_types]

    def pretty_printed_signature(self, verbose: bool = True) -> str:
        args, kwargs = self._bound_template
        params = list(self._signature.parameters)
        lines = [f"{self.name}({', '.join(params)})"]
        lines.append("  Args:")
        for name, value in zip(params, list(args) + [kwargs.get(p) for p in params[len(args):]]):
            lines.append(f"    {name}: {_describe_spec(value)}")
        lines.append("  Returns:")
        lines.append(f"    {_describe_spec(self._output_specs)}")
        return "\n".join(lines)

    def __graph_repr__(self):
        return self.name

    def __repr__(self):
        return f"<ConcreteFunction {self.name}{tuple(str(t) for t in self._arg_types)}>"


# Ops whose result may be a view of their first input.
_VIEW_OPS = frozenset({"getitem", "reshape", "transpose", "squeeze", "expand_dims"})


def _outputs_sharing_state(graph) -> tuple:
    """Indices of graph outputs (arrays) that may be a Variable's buffer or a view of it."""
    return tuple(i for i, v in enumerate(graph.outputs)
                 if isinstance(v, Value) and getattr(v.type, "ndim", 0) > 0 and _shares_state(v, {}))


def _shares_state(value, outer: dict) -> bool:
    """`outer` maps id(subgraph input) -> the Value it stands for in the enclosing graph."""
    while isinstance(value, Value):
        if value.producer is None:
            value = outer.get(id(value))
            continue
        node = value.producer
        if node.op == "read_variable":
            return True
        if node.op == "cond":
            for sub in node.subgraphs.values():
                inner = dict(outer)
                inner.update((id(a), b) for a, b in zip(sub.inputs, node.inputs[1:]))
                if _shares_state(sub.outputs[value.index], inner):
                    return True
            return False
        if node.op == "while_loop":  # the initial value (no iteration) or the body's result
            body = node.subgraphs["body"]
            nvars = node.attrs["num_loop_vars"]
            inner = dict(outer)
            inner.update((id(a), b) for a, b in zip(body.inputs[nvars:], node.inputs[nvars:]))
            return _shares_state(node.inputs[value.index], outer) or \
                _shares_state(body.outputs[value.index], inner)
        if node.op not in _VIEW_OPS or not node.inputs:
            return False
        value = node.inputs[0]
    return False


def _copying(run, indices):
    def run_and_copy(*args):
        outs = list(run(*args))
        for i in indices:
            outs[i] = outs[i].copy()
        return tuple(outs)
    return run_and_copy


def _describe_spec(value) -> str:
    if isinstance(value, TensorSpec):
        return str(value.type)
    if isinstance(value, (list, tuple)) and not nest.is_namedtuple(value):
        inner = ", ".join(_describe_spec(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
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
        t = _tensor_type_of(value)
        parts.append(f"{name}={t if t is not None else repr(value)}")
    return "(" + ", ".join(parts) + ")"


def _bind(signature, args, kwargs, name):
    """Canonical (args tuple, kwargs dict): positional parameters in order, defaults applied."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"{name}(): {exc}") from None
    bound.apply_defaults()
    return (tuple(bound.args), dict(bound.kwargs))


# -- calls of a Function from another trace ---------------------------------

def _call_infer(*types, fn):
    return fn.output_types


def _call_kernel(fn):
    run = fn._run
    compiled = fn._compiled

    def call(*args):
        try:
            return run(*args)
        except GraphExecutionError:
            raise
        except Exception as exc:  # name the failing node of the called graph, not the call
            raise compiled.wrap_error(exc, errors.ExecutionError) from exc
    return call


register_op("call", infer=_call_infer, num_outputs=None, stateful=True, make_kernel=_call_kernel)(
    lambda *args, fn: fn._run(*args))


def _record_call(cf: ConcreteFunction, bound):
    flat: list = []
    _flat_tensors(bound, flat)
    outs = record("call", flat, {"fn": cf})
    return cf._pack(tuple(outs))


# ---------------------------------------------------------------------------
# Function


class Function:
    """A Python function staged into graphs, one per input signature (see DESIGN.md)."""

    def __init__(self, python_function, input_signature=None, autograph=True, reduce_retracing=False,
                 name=None, _instance_ref=None):
        functools.update_wrapper(self, python_function)
        self.python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self._autograph = autograph
        self._reduce_retracing = reduce_retracing
        self._instance_ref = _instance_ref
        target = python_function
        try:
            self._signature = inspect.signature(target)
        except (TypeError, ValueError):
            self._signature = inspect.Signature([inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL)])
        if _instance_ref is not None:
            params = list(self._signature.parameters.values())[1:]
            self._signature = self._signature.replace(parameters=params)
        self._input_signature = None
        if input_signature is not None:
            self._input_signature = tuple(_as_spec(s) for s in input_signature)
        self._lock = _TRACE_LOCK
        self._cache: dict = {}          # exact trace key -> ConcreteFunction
        self._fast: dict = {}           # tuple of per-arg keys (positional NumPy args only) -> ConcreteFunction
        self._concretes: list[tuple] = []  # (structure, arg_types, ConcreteFunction)
        self.tracing_count = 0
        self._created_variables: list = []
        self._variables_initialized = False
        self._recent = collections.deque(maxlen=5)  # 1 per call that traced, 0 per call that did not
        self._warned_retracing = False
        self._fast_kw: dict = {}        # (positional keys, ((name, key), ...)) -> (ConcreteFunction, order)
        # Parameters whose default's trace key depends on mutable contents (a list, a dict, ...):
        # a fast entry made while such a default was applied could go stale, so none is made.
        self._unstable_defaults = frozenset(
            p.name for p in self._signature.parameters.values()
            if p.default is not inspect.Parameter.empty and not _stable_key(p.default))
        self._positional_params = tuple(
            p.name for p in self._signature.parameters.values()
            if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD))
        # Methods: id(instance) -> [weakref to instance, per-instance Function's __dict__, weakref
        # to the last _BoundFunction handed out] (see __get__); nothing here holds the instance.
        self._bound_functions: dict = {}
        # Methods of instances that cannot be weakly referenced (e.g. __slots__ without
        # __weakref__): id(instance) -> (instance, _BoundFunction), least recently used first. These
        # entries hold their instance strongly, so at most _STRONG_BOUND_MAX such instances are
        # kept alive by this Function (until evicted); see __get__.
        self._strong_bound: collections.OrderedDict = collections.OrderedDict()
        self._strong_bound_lock = threading.Lock()
        self._converted = None

    # -- descriptors: methods trace per instance ---------------------------
    def __get__(self, instance, owner):
        """This method bound to `instance`, like a bound method: it holds `instance` strongly.

        Each instance has one per-instance Function (its traces), created on the first access
        and reused by every later one; the object returned is a _BoundFunction that shares that
        Function's state and holds the instance for as long as it is alive, so
        `Model(3.0).apply(x)` and `m = Model(2.0).apply; m(x)` work. The per-instance cache
        itself does not keep instances alive:

        Weak-referenceable instances: cached by id with a weak reference (and a weak reference
        to the live bound object, so `obj.apply is obj.apply`); the entry goes away when the
        instance dies. Other instances (e.g. a class with __slots__ and no __weakref__) are
        cached in a small LRU (_STRONG_BOUND_MAX entries) that holds them strongly: such an
        instance stays alive while it is in that cache, and a method of an instance evicted
        from it is bound (and traced) anew on its next access.
        """
        if instance is None:
            return self
        key = id(instance)
        entry = self._bound_functions.get(key)
        if entry is not None:
            # entry: [weak ref to the instance, the per-instance Function's __dict__ (its
            # state), weak ref to the last bound object handed out]. While that bound object
            # is alive, return it again (`obj.apply is obj.apply`); otherwise make another.
            bound = entry[2]()
            if bound is not None and bound.__self__ is instance:
                return bound
            if entry[0]() is instance:
                bound = _BoundFunction()
                bound.__dict__ = entry[1]
                bound.__self__ = instance
                entry[2] = _weakref(bound)
                return bound
        strong = self._strong_bound
        if strong:
            with self._strong_bound_lock:
                hit = strong.get(key)
                if hit is not None and hit[0] is instance:  # identity, not just a reused id
                    strong.move_to_end(key)
                    return hit[1]
        cache = self._bound_functions

        def forget(ref, key=key, cache=cache):
            entry = cache.get(key)
            if entry is not None and entry[0] is ref:
                del cache[key]
        try:
            ref = weakref.ref(instance, forget)
        except TypeError:  # not weak-referenceable: keep it (bounded) in the strong LRU
            ref = None
        # The per-instance Function reaches its instance through a weak reference (or, for
        # an instance held by the strong LRU, a strong one): the cache must not keep it alive.
        state = Function(self.python_function, self._input_signature, self._autograph,
                         self._reduce_retracing, self._name,
                         _instance_ref=ref if ref is not None else _instance_ref(instance))
        bound = _BoundFunction()
        bound.__dict__ = state.__dict__
        bound.__self__ = instance
        if ref is None:
            with self._strong_bound_lock:
                hit = strong.get(key)
                if hit is not None and hit[0] is instance:  # another thread bound it meanwhile
                    strong.move_to_end(key)
                    return hit[1]
                strong[key] = (instance, bound)
                strong.move_to_end(key)
                while len(strong) > _STRONG_BOUND_MAX:
                    strong.popitem(last=False)
            return bound
        entry = cache.get(key)
        if entry is not None and entry[0]() is instance:  # another thread bound it meanwhile
            other = entry[2]()
            if other is not None and other.__self__ is instance:
                return other
            bound.__dict__ = entry[1]
            entry[2] = _weakref(bound)
            return bound
        cache[key] = [ref, state.__dict__, _weakref(bound)]
        return bound

    @property
    def input_signature(self):
        return self._input_signature

    def __repr__(self):
        return f"<staging.Function {self._name}>"

    # -- calling -----------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if not _RUN_EAGERLY[0]:
            # Fast path: NumPy arrays/scalars and Python values in a layout seen before. The
            # per-argument key is _fast_key's, written out here for the positional arguments
            # (a function call per argument would cost more than the rest of the lookup).
            key = []
            for a in args:
                t = type(a)
                if t is np.ndarray or t in _NP_SCALAR_TYPES:
                    key.append((a.dtype, a.shape))
                elif t in _FAST_PY_TYPES:
                    key.append(a if t is not bool else ("bool", a))
                else:
                    break
            else:
                if not kwargs:
                    hit = self._fast.get(tuple(key))
                    if hit is not None and (not _TRACES_RUNNING[0] or not _tracing_stack()):
                        cf, positions = hit
                        return self._run_fast(cf, args if positions is None else [args[i] for i in positions])
                else:
                    # Keyword call: the key adds (name, key) per keyword in call order; the entry
                    # says which of args + kwargs values (in call order) feed the graph, in order.
                    kw = tuple((name, _fast_key(a)) for name, a in kwargs.items())
                    hit = self._fast_kw.get((tuple(key), kw))
                    if hit is not None and (not _TRACES_RUNNING[0] or not _tracing_stack()):
                        cf, order = hit
                        values = args + tuple(kwargs.values())
                        return self._run_fast(cf, [values[i] for i in order])
        return self._call_slow(args, kwargs)

    def _run_fast(self, cf, inputs):
        """Runs a fast-path hit: `inputs` are exactly the graph's inputs."""
        if self._recent:
            self._recent.append(0)
        try:
            return cf._pack(cf._run(*inputs))
        except errors.ExecutionError:
            raise
        except Exception as exc:
            raise cf._compiled.wrap_error(exc, errors.ExecutionError) from exc

    def _call_slow(self, args, kwargs):
        if _RUN_EAGERLY[0]:
            return _lists_to_python(self._callable()(*args, **kwargs))
        cf, bound = self._lookup(args, kwargs, allow_trace=True)
        if current_graph() is not None:
            return _record_call(cf, bound)
        flat: list = []
        _flat_tensors(bound, flat)
        return cf._call_flat(flat)

    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        if not args and not kwargs and self._input_signature is not None:
            args = self._input_signature
        cf, _ = self._lookup(args, kwargs, allow_trace=True)
        return cf

    def _callable(self):
        return self._bound_to_instance(self.python_function)

    def _bound_to_instance(self, func):
        """`func` bound to this method's instance (as is for a plain function)."""
        if self._instance_ref is not None:
            instance = self._instance_ref()
            if instance is None:
                raise ReferenceError(f"the object of method {self._name!r} no longer exists")
            return func.__get__(instance)
        return func

    # -- trace keys and dispatch ---------------------------------------------
    def _lookup(self, args, kwargs, allow_trace):
        bound = _bind(self._signature, args, kwargs, self._name)
        key_source = bound
        if self._input_signature is not None:
            bound = self._apply_input_signature(bound)
            # The key (and so the trace) uses the signature's types: one trace accepts every
            # input the signature accepts ([None] takes any length).
            n = len(self._input_signature)
            key_source = (tuple(self._input_signature) + bound[0][n:], bound[1])
        types: list = []
        paths: list = []
        structure = _trace_structure(key_source, types, "", paths)
        context = bool(_tracing_stack())
        key = (structure, tuple(types), context)
        try:
            cf = self._cache.get(key)
        except TypeError as exc:  # an unhashable __tracing_type__ result
            raise TypeError(f"{self._name}(): cannot build a trace key: {exc}") from None
        if cf is None:
            with self._lock:
                cf = self._cache.get(key)
                if cf is None:
                    cf = self._most_specific(structure, types, context)
                    traced = cf is None
                    if traced:
                        trace_types = types
                        if self._reduce_retracing:
                            trace_types = self._relaxed(structure, types, context)
                        cf = self._trace(bound, structure, trace_types, paths, context)
                        self._note_call(traced=True)
                    self._cache[key] = cf
                    self._remember_fast(args, kwargs, bound, types, cf, context)
        else:
            if self._recent:
                self._recent.append(0)
            # A layout not seen before can still hit an existing trace (e.g. f(x, y=y) after
            # f(x, y)): make it fast too.
            self._remember_fast(args, kwargs, bound, types, cf, context)
        return cf, bound

    def _remember_fast(self, args, kwargs, bound, types, cf, context):
        """Lets later calls with the same argument layout (positional and keyword) skip binding
        and trace keys.

        An entry is made only when the fast key determines the slow path's trace key and its
        graph inputs: every argument is a NumPy array/scalar (a graph input, passed as is) or a
        simple Python value (part of the key; not with input_signature, which may convert it);
        the graph's inputs are exactly the caller's arrays (none from defaults, none converted
        by input_signature); and no default whose key depends on mutable contents was applied.
        """
        if context:
            return
        if self._unstable_defaults:
            supplied = set(self._positional_params[:len(args)])
            supplied.update(kwargs)
            if not self._unstable_defaults <= supplied:
                return
        values = args + tuple(kwargs.values()) if kwargs else args
        positions, key = [], []
        for i, a in enumerate(values):
            k = _fast_key(a)
            if k is _NOT_FAST or (type(a) in _FAST_PY_TYPES and self._input_signature is not None):
                return
            if type(a) not in _FAST_PY_TYPES:
                positions.append(i)
            key.append(k)
        flat: list = []
        _flat_tensors(bound, flat)
        if len(flat) != len(positions):
            return  # tensors in defaults
        if not kwargs:
            if any(f is not args[i] for f, i in zip(flat, positions)):
                return  # converted by input_signature
            self._fast[tuple(key)] = (cf, None if len(positions) == len(args) else tuple(positions))
            return
        # Keyword call: the graph takes its inputs in bound order (parameters in signature order,
        # keyword-only and **kwargs entries sorted by name); find each one among the call's
        # values by identity. An array passed twice is ambiguous: no entry (the slow path works).
        order = []
        for f in flat:
            found = [i for i in positions if values[i] is f]
            if len(found) != 1:
                return  # converted by input_signature, or the same object passed twice
            order.append(found[0])
        if sorted(order) != positions:
            return
        n = len(args)
        names = tuple(kwargs)
        self._fast_kw[(tuple(key[:n]), tuple(zip(names, key[n:])))] = (cf, tuple(order))

    def _most_specific(self, structure, types, context):
        best = None
        for s, arg_types, ctx, cf in self._concretes:
            if s != structure or ctx != context or len(arg_types) != len(types):
                continue
            if all(a.is_supertype_of(t) for a, t in zip(arg_types, types)):
                if best is None or all(b.is_supertype_of(a) for b, a in zip(best[0], arg_types)):
                    best = (arg_types, cf)
        return best[1] if best else None

    def _relaxed(self, structure, types, context):
        for s, arg_types, ctx, _ in reversed(self._concretes):
            if s == structure and ctx == context and len(arg_types) == len(types):
                joined = [a.most_specific_common_supertype(t) for a, t in zip(arg_types, types)]
                if all(j is not None for j in joined):
                    return joined
        return types

    def _apply_input_signature(self, bound):
        args, kwargs = bound
        specs = self._input_signature
        params = list(self._signature.parameters)
        if len(args) < len(specs):
            missing = params[len(args):len(specs)]
            raise TypeError(f"{self._name}(): missing argument(s) {', '.join(map(repr, missing))} "
                            f"declared by input_signature")
        out = list(args)
        for i, spec in enumerate(specs):
            name = params[i] if i < len(params) else f"args[{i}]"
            out[i] = _conform(args[i], spec, name, self._name)
        return (tuple(out), kwargs)

    def _note_call(self, traced: bool):
        self._recent.append(1 if traced else 0)
        if (len(self._recent) == 5 and all(self._recent) and self.tracing_count > 5
                and not self._warned_retracing):
            self._warned_retracing = True
            warnings.warn(
                f"5 out of the last 5 calls to {self._name!r} ({_where_defined(self.python_function)}) "
                f"triggered a retrace. Tracing is slow; likely causes: calling it with Python numbers "
                f"or new shapes each time (pass NumPy arrays, use input_signature=... or "
                f"reduce_retracing=True), or defining the function inside a loop.",
                RetracingWarning, stacklevel=_user_stacklevel())

    # -- tracing -----------------------------------------------------------
    def _trace(self, bound, structure, types, paths, context):
        stack = _tracing_stack()
        if self in stack or (self._instance_ref is None and any(
                f.python_function is self.python_function for f in stack)) or (
                type(self) is _BoundFunction and _bound_in(self, stack)):
            raise errors.RecursionInTraceError(
                f"{_where_variable()}staged function {self._name!r} (defined at "
                f"{_where_defined(self.python_function)}) calls itself "
                f"while being traced; recursion cannot be staged. Write it as a loop (while / for), "
                f"or recurse on Python values only")
        stack.append(self)
        _TRACES_RUNNING[0] += 1
        try:
            first = not self._variables_initialized
            created: list = []
            retracing = []

            def on_create(var):
                if first and not retracing:
                    created.append(var)
                    return
                again = (" (it was traced again after its first trace created Variables, and created "
                         "new ones: it creates a Variable on every call)") if retracing else ""
                raise ValueError(
                    f"{_where_variable()}staged function {self._name!r} created a staging.Variable "
                    f"on a trace other than its first{again}. Variables may only be created on the "
                    f"first call: create them outside the function, or once (e.g. `if self.v is None: "
                    f"self.v = staging.Variable(...)`)")

            cf = self._trace_once(bound, structure, types, paths, on_create)
            if first:
                self._variables_initialized = True
                if created:
                    self._created_variables.extend(weakref.ref(v) for v in created)
                    # Trace again now that the variables exist: the graph must not re-create them.
                    retracing.append(True)
                    cf = self._trace_once(bound, structure, types, paths, on_create)
            self._concretes.append((structure, tuple(types), context, cf))
            return cf
        finally:
            _TRACES_RUNNING[0] -= 1
            stack.pop()

    def _trace_once(self, bound, structure, types, paths, on_create):
        fg = FuncGraph(self._name)
        args, kwargs = bound
        names = [p.replace("[", "_").replace("]", "").replace("'", "").replace(".", "_") for p in paths]
        placeholders = iter([fg.add_input(t, n) for t, n in zip(types, names)])
        call_args = _replace_tensors(args, placeholders)
        call_kwargs = _replace_tensors(kwargs, placeholders)
        func = self._traceable()
        try:
            with creation_scope(on_create), building(fg):
                result = func(*call_args, **call_kwargs)
                out_values, output_kinds, pack_structure, specs = _collect_outputs(fg, result)
        finally:
            fg.closed = True
        fg.graph.outputs = out_values
        options = get_optimizer_options()  # one snapshot for the passes and the executor
        optimize(fg.graph, options)
        self.tracing_count += 1
        arg_specs = iter([TensorSpec(t.shape, t.dtype) for t in types])
        bound_template = (_weaken(_replace_tensors(args, arg_specs)), _weaken(_replace_tensors(kwargs, arg_specs)))
        return ConcreteFunction(self._name, fg.graph, structure, tuple(types), paths, bound_template,
                                (pack_structure, specs), output_kinds, self._signature, self.python_function,
                                options)

    def _traceable(self):
        func = self.python_function
        if self._autograph:
            if self._converted is None:
                self._converted = _convert(func)
            func = self._converted
        return self._bound_to_instance(func)

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        return "\n\n".join(cf.pretty_printed_signature(verbose) for _, _, _, cf in self._concretes)

    def experimental_get_tracing_count(self) -> int:
        return self.tracing_count


class _BoundFunction(Function):
    """A staged method bound to its instance (what `instance.method` returns), like a bound method.

    It holds the instance strongly (`__self__`) for as long as it is alive, so a method of a
    temporary instance (`Model(3.0).apply(x)`) or a method kept after its instance was dropped
    (`m = Model(2.0).apply; m(x)`) works. Its state (traces, tracing_count, python_function,
    ...) is the per-instance Function's: it uses that Function's __dict__ as its own, so every
    bound object of one instance shares one set of traces and the call path is Function's
    own, with no forwarding. The per-instance cache holds only that state and weak references,
    so it does not keep the instance alive (see Function.__get__).
    """

    __slots__ = ("__self__",)
    __init__ = object.__init__  # Function.__get__ makes it empty (cheaply), then sets its state

    def __get__(self, instance, owner):
        return self  # already bound, as a bound method stays bound to its instance

    def __repr__(self):
        return f"<bound staging.Function {self._name} of {self.__self__!r}>"


def _bound_in(bound, stack) -> bool:
    """Whether a bound object of the same method and instance as `bound` is on `stack` (bound
    objects of one instance share their state, their __dict__, but need not be one object)."""
    state = bound.__dict__
    return any(type(f) is _BoundFunction and f.__dict__ is state for f in stack)


def _instance_ref(instance):
    try:
        return weakref.ref(instance)
    except TypeError:
        return lambda: instance


def _convert(func):
    try:
        import autograph
    except ImportError:  # pragma: no cover - autograph ships with staging
        return func
    convert = getattr(autograph, "convert", None)
    if convert is None:
        return func
    try:
        return convert(func)
    except errors.UnsupportedConstructError:
        raise
    except errors.ConversionError as exc:
        # e.g. no source (defined with exec or in the REPL): trace the function as written,
        # as TF does; Python control flow on symbolic values will then raise a clear error.
        warnings.warn(f"{exc}; tracing {getattr(func, '__qualname__', func)!r} without conversion",
                      AutographWarning, stacklevel=5)
        return func


def _user_stacklevel() -> int:
    """warnings.warn stacklevel of the innermost frame outside staging/ (as seen from the caller)."""
    frame, level = sys._getframe(2), 2
    own = os.path.dirname(os.path.abspath(__file__)) + os.sep
    while frame is not None and frame.f_code.co_filename.startswith(own):
        frame, level = frame.f_back, level + 1
    return level


def _where_defined(func) -> str:
    code = getattr(func, "__code__", None)
    if code is None:
        return getattr(func, "__qualname__", repr(func))
    return f"{code.co_filename}:{code.co_firstlineno}"


def _where_variable() -> str:
    from .graph_building import _where
    return _where()


def _as_spec(spec):
    if isinstance(spec, TensorSpec):
        return spec
    if isinstance(spec, (list, tuple)):
        return type(spec)(_as_spec(s) for s in spec)
    raise TypeError(f"input_signature entries must be staging.TensorSpec, got {spec!r}")


def _conform(value, spec, name, fname):
    """`value` checked against `spec` (nested), converted to a NumPy value; TypeError names the argument."""
    if isinstance(spec, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(spec):
            raise TypeError(f"{fname}(): argument {name!r} must be a sequence of {len(spec)} tensors "
                            f"matching input_signature, got {value!r:.60}")
        return type(spec)(_conform(v, s, f"{name}[{i}]", fname) for i, (v, s) in enumerate(zip(value, spec)))
    if isinstance(value, TensorSpec):
        t = value.type
        if not spec.type.is_supertype_of(t):
            raise TypeError(f"{fname}(): argument {name!r} is {t}, which input_signature "
                            f"{spec.type} does not accept")
        return TensorSpec(spec.shape, spec.dtype)
    if isinstance(value, Tensor):
        t = value.type
        if not spec.type.is_supertype_of(t):
            raise TypeError(f"{fname}(): argument {name!r} is {t}, which input_signature "
                            f"{spec.type} does not accept")
        return value
    arr = np.asarray(value)
    if not isinstance(value, (np.ndarray, np.generic)) and arr.dtype != spec.dtype:  # Python numbers, lists
        if np.can_cast(arr.dtype, spec.dtype, "same_kind") or (arr.dtype.kind in "biu" and spec.dtype.kind in "fc"):
            arr = arr.astype(spec.dtype)
    if arr.dtype != spec.dtype or not spec.type.accepts_shape(arr.shape):
        raise TypeError(f"{fname}(): argument {name!r} is {TensorType(arr.dtype, arr.shape)}, which "
                        f"input_signature {spec.type} does not accept")
    if isinstance(value, (np.ndarray, np.generic)):
        return value  # already conforming: the caller's object, unchanged
    return arr[()] if arr.ndim == 0 else arr


def _collect_outputs(fg: FuncGraph, result):
    """Graph outputs for the tensor leaves of `result`, plus how to rebuild it.

    Returns (values, kinds, structure, specs): kinds is "none", "single",
    "tuple" (a flat tuple of tensors) or a list of ("dyn", None) / ("static", obj)
    per leaf; structure is what leaves are packed into; specs shows it with
    TensorSpecs in place of tensors (structured_outputs).
    """
    from .tensor_array import TensorArray
    if result is None:
        return [], "none", None, None
    leaves = nest.flatten(result)
    values, kinds = [], []
    for leaf in leaves:
        if isinstance(leaf, Variable):
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
            kinds.append(("static", leaf))
    specs = iter([_spec(v) for v in values])
    spec_leaves = [next(specs) if kind == "dyn" else obj for kind, obj in kinds]
    if len(leaves) == 1 and leaves[0] is result and kinds[0][0] == "dyn":
        return values, "single", None, spec_leaves[0]
    spec_structure = nest.pack_as(result, spec_leaves)
    if type(result) is tuple and len(result) == len(leaves) and all(k == "dyn" for k, _ in kinds) and \
            all(not isinstance(r, (tuple, list, dict)) for r in result):
        return values, "tuple", None, spec_structure
    return values, kinds, result, spec_structure


def _spec(value: Value):
    return value.type if isinstance(value.type, ListType) else TensorSpec(value.type.shape, value.type.dtype)


def _lists_to_python(result):
    from .tensor_array import TensorArray
    if isinstance(result, TensorArray):
        return result.to_list()
    if isinstance(result, (list, tuple)) and any(isinstance(r, TensorArray) for r in nest.flatten(result)):
        return nest.pack_as(result, [r.to_list() if isinstance(r, TensorArray) else r
                                     for r in nest.flatten(result)])
    return result


def function(func=None, *, input_signature=None, autograph=True, reduce_retracing=False):
    """Stages `func` into graphs, one per input signature. Usable as `@function` or `@function(...)`."""
    def decorate(f):
        if isinstance(f, Function):
            f = f.python_function
        return Function(f, input_signature=input_signature, autograph=autograph,
                        reduce_retracing=reduce_retracing)
    if func is None:
        return decorate
    return decorate(func)

