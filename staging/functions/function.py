"""`staging.function`: Function, a Python function staged into graphs (one per input signature).

Calls are dispatched by trace key (staging.functions.trace_key) to ConcreteFunctions
(staging.functions.concrete); a cache miss converts the function with autograph, traces it into
a graph, optimises it and compiles it. Staged methods trace per instance
(staging.functions.method_binding).
"""

from __future__ import annotations

import collections
import copyreg
import functools
import inspect
import linecache
import sys
import threading
import types
import warnings
import weakref

import numpy as np

from runtime.headroom import frames_for_graph, more_frames
from runtime.optimize import optimize
from runtime.options import get_options as get_optimizer_options
from runtime.types import StrType, TensorType, UnionType
from staging import errors
from staging.control_flow import raising as branch_errors
from staging.core.recording import FuncGraph, building, current_graph
from staging.core.source_map import where, where_defined
from staging.core.tracebacks import filtered
from staging.effects import trace_effects
from staging.functions import argument_writes
from staging.functions.concrete import (
    ConcreteFunction,
    _lists_to_python,
    check_jit_compile,
    collect_outputs,
    record_call,
)
from staging.functions.method_binding import MethodBinder
from staging.functions.retracing import note_trace
from staging.functions.trace_key import (
    FAST_PY_TYPES,
    NOT_FAST,
    ArgumentError,
    ArrayLayout,
    TensorSpec,
    as_spec,
    bind,
    conform_arguments,
    fast_key,
    flat_tensors,
    plain_structure,
    replace_tensors,
    signature_text,
    spec_key,
    stable_key,
    trace_key,
    weaken,
)
from staging.functions.trace_lock import TraceLock
from staging.state.variables import creation_scope

# Frames granted to each staged function traced inside another's trace (runtime.headroom): what
# tracing and converted code add per nested call (about 15: the Function's call and trace, the
# converted function's wrapper, an `if` expression's branches), with room to spare. The user's
# own code at each level then has the room it has when it runs eagerly.
NESTED_TRACE_FRAMES = 40
# Staged functions each traced inside the trace of the one that calls it: deeper is refused (the
# frames granted per level would use more stack than a thread has).
MAX_NESTED_TRACES = 1000

_RUN_EAGERLY = [False]
_NDARRAY = np.ndarray


def run_functions_eagerly(enabled: bool) -> None:
    """When True, every staging.function runs its Python function directly (for debugging)."""
    _RUN_EAGERLY[0] = bool(enabled)


def functions_run_eagerly() -> bool:
    return _RUN_EAGERLY[0]


class AutographWarning(UserWarning):
    """A function could not be converted and is traced as written."""


# ---------------------------------------------------------------------------
# Traces in progress


_tracing = threading.local()
# Traces in progress in all threads (changed under _TRACES_RUNNING_LOCK): while it is 0, no
# thread is tracing, so a call's fast path can skip the thread-local stack.
_TRACES_RUNNING = [0]
_TRACES_RUNNING_LOCK = threading.Lock()


def _tracing_stack() -> list:
    stack = getattr(_tracing, "stack", None)
    if stack is None:
        stack = _tracing.stack = []
    return stack


# Gradient tapes recording (staging.gradients.tape), in all threads: while it is 0 no call needs
# recording, and the fast paths stay on. The tapes themselves are per thread (as TF's).
_TAPES = [0]
_taping = threading.local()


def active_tapes() -> list:
    """The tapes recording this thread's staged calls, innermost last (the tape module pushes
    and pops them and keeps _TAPES in step)."""
    tapes = getattr(_taping, "tapes", None)
    if tapes is None:
        tapes = _taping.tapes = []
    return tapes


def _call_taped(cf, bound):
    """A call made while tapes record: shown to each tape before it runs (`before_call`: what
    the tape needs of the state then) and after (`record_call`: its concrete function, flat
    inputs, flat outputs and what before_call gave)."""
    flat = flat_tensors(bound)
    tapes = list(active_tapes())
    tokens = [tape.before_call(cf) for tape in tapes]
    outputs = cf._execute(*flat)
    for tape, token in zip(tapes, tokens):
        tape.record_call(cf, flat, outputs, token)
    return cf._pack(tuple(outputs))


# ---------------------------------------------------------------------------
# Function


class Function:
    """A Python function staged into graphs, one per input signature (see docs/guide.md)."""

    def __init__(
        self,
        python_function,
        input_signature=None,
        autograph=True,
        reduce_retracing=False,
        name=None,
        _instance_ref=None,
        _all_traces=None,
        jit_compile=None,
    ):
        functools.update_wrapper(self, python_function)
        self.python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self._autograph = autograph
        self._reduce_retracing = reduce_retracing
        self._jit_compile = check_jit_compile(jit_compile)
        self._instance_ref = _instance_ref
        target = python_function
        try:
            # A builtin or ufunc takes what it is given: the defaults its signature reports are
            # not Python values to pass (np.add's signature=None, dtype=None conflict)
            self._signature = _ANY_ARGUMENTS if _without_python_code(target) else None
            self._signature = self._signature or inspect.signature(target)
        except (TypeError, ValueError):
            self._signature = inspect.Signature(
                [inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL)]
            )
        if _instance_ref is not None:
            params = list(self._signature.parameters.values())[1:]
            self._signature = self._signature.replace(parameters=params)
        self._input_signature = None
        if input_signature is not None:
            self._input_signature = tuple(as_spec(s) for s in input_signature)
        self._lock = TraceLock()  # held while tracing (staging.functions.trace_lock)
        self._cache: dict = {}  # exact trace key -> ConcreteFunction
        self._fast: dict = {}  # tuple of per-arg keys (positional calls) -> runner(*args)
        self._fast1: dict = {}  # the same for calls of one argument, keyed by its key
        self._layouts: dict = {}  # tuple of argument types -> trace_key.ArrayLayout (arrays among them)
        self._concretes: list[tuple] = []  # (structure, arg_types, ConcreteFunction)
        self._traces = 0  # traces of this Function (for a staged method: of one instance)
        self._all_traces = [0] if _all_traces is None else _all_traces  # shared by all instances
        self._created_variables: list = []
        self._variables_initialized = False
        self._recent = collections.deque(
            maxlen=5
        )  # 1 per call that traced, 0 per call that did not
        self._warned_retracing = False
        self._last_cause = "its arguments changed"
        self._fast_kw: dict = {}  # (positional keys, ((name, key), ...)) -> (ConcreteFunction, order)
        # Parameters whose default's trace key depends on mutable contents (a list, a dict, ...):
        # a fast entry made while such a default was applied could go stale, so none is made.
        self._unstable_defaults = frozenset(
            p.name
            for p in self._signature.parameters.values()
            if p.default is not inspect.Parameter.empty and not stable_key(p.default)
        )
        self._positional_params = tuple(
            p.name
            for p in self._signature.parameters.values()
            if p.kind
            in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        )
        # A staged method's per-instance traces (staging.functions.method_binding); a per-instance
        # Function is reached through its bound objects, never bound again.
        self._binder = (
            MethodBinder(self._instance_state, _BoundFunction) if _instance_ref is None else None
        )
        self._bound_functions = (
            self._binder.weak if self._binder else {}
        )  # id(instance) -> [ref, state, bound]
        self._strong_bound = (
            self._binder.strong if self._binder else {}
        )  # instances not weakly referenceable
        self._converted = None

    # -- descriptors: methods trace per instance ---------------------------
    def __get__(self, instance, owner):
        """This method bound to `instance`, like a bound method (see staging.functions.method_binding)."""
        if instance is None:
            return self
        entry = self._bound_functions.get(id(instance))
        if entry is not None:  # the common case, inline: the live bound object of this instance
            bound = entry[2]()
            if bound is not None and bound.__self__ is instance:
                return bound
        return self._binder.bind(instance)

    def _instance_state(self, ref) -> dict:
        """The state (traces) of this method for the instance `ref()` refers to."""
        return Function(
            self.python_function,
            self._input_signature,
            self._autograph,
            self._reduce_retracing,
            self._name,
            _instance_ref=ref,
            _all_traces=self._all_traces,
            jit_compile=self._jit_compile,
        ).__dict__

    @property
    def tracing_count(self) -> int:
        """Traces so far; of a staged method: per instance, or via the class all (docs/reference.md)."""
        return self._all_traces[0] if self._instance_ref is None else self._traces

    @property
    def input_signature(self):
        return self._input_signature

    def __repr__(self):
        return f"<staging.Function {self._name}>"

    # `staging.Function[[np.ndarray], float]` in annotations (staging/__init__.py types it)
    __class_getitem__ = classmethod(types.GenericAlias)

    # -- pickling (docs/reference.md, "Pickling") -----------------------------
    def __reduce__(self):
        """By reference (module and qualified name), as a plain function pickles, when that name
        finds this object; otherwise by value: the Python function, options and input signature,
        traced again where unpickled (locks, caches and compiled graphs are never pickled). A
        bound staged method pickles as a bound method does: its instance and name."""
        if self._instance_ref is not None:
            instance = self._instance_ref()
            if instance is None:
                raise ReferenceError(f"the object of method {self._name!r} no longer exists")
            return getattr, (instance, self.python_function.__name__)
        if _found_by_reference(self):
            return self.__qualname__
        options = {
            "input_signature": self._input_signature,
            "autograph": self._autograph,
            "reduce_retracing": self._reduce_retracing,
            "name": self._name,
            "jit_compile": self._jit_compile,
        }
        return _function_by_value, (self.python_function, options, _source_of(self.python_function))

    # -- calling -----------------------------------------------------------
    def __call__(self, *args, **kwargs):  # noqa: C901
        try:  # (free unless it raises: the except clause hides our frames, staging.core.tracebacks)
            if not kwargs and not _RUN_EAGERLY[0] and not _TRACES_RUNNING[0] and not _TAPES[0]:
                # Fast path: a positional layout seen before (_remember_fast) goes straight to its
                # packed runner. (A key holding NOT_FAST is never an entry.)
                if len(args) == 1:  # fast_key inline (a NumPy scalar's key is its type)
                    a = args[0]
                    run = (
                        self._fast1.get((a.dtype, a.shape))
                        if type(a) is _NDARRAY
                        else (self._fast1.get(type(a)) or self._fast1.get(fast_key(a)))
                    )
                else:  # NumPy scalars first: their key is their type (a tuple of classes equals
                    # no key holding an array's or a Python value's part)
                    types = tuple(map(type, args))
                    run = self._fast.get(types)
                    if (
                        run is None
                    ):  # arrays among them: their layout's table (or a Python value's key)
                        layout = self._layouts.get(types)
                        run = (
                            layout.lookup(*args)
                            if layout is not None
                            else self._fast.get(tuple(map(fast_key, args)))
                        )
                if run is not None:
                    if self._recent:  # a call that did not trace (retracing.note_trace)
                        self._recent.clear()
                    return run(*args)
            elif (
                kwargs
                and not _RUN_EAGERLY[0]
                and not _TAPES[0]
                and (not _TRACES_RUNNING[0] or not _tracing_stack())
            ):
                # Keyword call: the key adds (name, key) per keyword in call order; the entry says
                # which of args + kwargs values (in call order) feed the graph, in order.
                hit = self._fast_kw.get(
                    (
                        tuple(map(fast_key, args)),
                        tuple((name, fast_key(a)) for name, a in kwargs.items()),
                    )
                )
                if hit is not None:
                    cf, order = hit
                    if self._recent:
                        self._recent.clear()
                    values = args + tuple(kwargs.values())
                    return cf._run_packed(*[values[i] for i in order])
            elif (
                not _RUN_EAGERLY[0] and not _TAPES[0] and not _tracing_stack()
            ):  # (other threads trace)
                key = tuple(map(fast_key, args))
                run = self._fast1.get(key[0]) if len(key) == 1 else self._fast.get(key)
                if run is not None:
                    return run(*args)
            return self._call_slow(args, kwargs)
        except Exception as error:
            raise filtered(error)  # frames hidden: staging.disable_traceback_filtering()

    def _call_slow(self, args, kwargs):
        if _RUN_EAGERLY[0]:
            return _lists_to_python(self._callable()(*args, **kwargs))
        cf, bound = self._lookup(args, kwargs)
        if current_graph() is not None:
            return record_call(cf, bound)
        if _TAPES[0] and active_tapes():
            return _call_taped(cf, bound)
        return cf._call_flat(flat_tensors(bound))

    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        if not args and not kwargs and self._input_signature is not None:
            args = self._input_signature
        try:
            cf, _ = self._lookup(args, kwargs)
        except Exception as error:
            raise filtered(error)  # frames hidden: staging.disable_traceback_filtering()
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
    def _lookup(self, args, kwargs):
        bound = bind(self._signature, args, kwargs, self._name)
        key_source = bound
        if self._input_signature is not None:
            bound = self._apply_input_signature(bound)
            # The key (and so the trace) uses the signature's types: one trace accepts every
            # input the signature accepts ([None] takes any length).
            n = len(self._input_signature)
            key_source = (spec_key(self._input_signature, key_source[0]) + bound[0][n:], bound[1])
        try:
            structure, types, paths = trace_key(key_source, arrays0d=True)
        except ArgumentError as exc:
            raise TypeError(
                f"{where()}{self._name}(): {exc.naming(list(self._signature.parameters))}"
            ) from None
        context = bool(_tracing_stack())
        key = (structure, tuple(types), context)
        try:
            cf = self._cache.get(key)
        except TypeError as exc:  # an unhashable __tracing_type__ result
            raise TypeError(f"{self._name}(): cannot build a trace key: {exc}") from None
        if cf is None:
            with self._lock.hold():
                cf = self._cache.get(key)
                if cf is None:
                    cf = self._most_specific(structure, types, context)
                    traced = cf is None
                    if traced:
                        trace_types = types
                        if self._reduce_retracing:
                            trace_types = self._relaxed(structure, types, context)
                        previous = self._concretes[-1][:2] if self._concretes else None
                        cf = self._trace(bound, structure, trace_types, paths, context)
                        note_trace(self, previous, (structure, tuple(types)), key_source)
                    self._cache[key] = cf
                    self._remember_fast(args, kwargs, bound, types, cf, context)
        else:
            if self._recent:  # a call that did not trace (retracing.note_trace)
                self._recent.clear()
            # A layout not seen before can still hit an existing trace (e.g. f(x, y=y) after
            # f(x, y)): make it fast too.
            self._remember_fast(args, kwargs, bound, types, cf, context)
        return cf, bound

    def _remember_fast(self, args, kwargs, bound, types, cf, context):  # noqa: C901, PLR0912
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
            supplied = set(self._positional_params[: len(args)])
            supplied.update(kwargs)
            if not self._unstable_defaults <= supplied:
                return
        values = args + tuple(kwargs.values()) if kwargs else args
        positions, key = [], []
        for i, a in enumerate(values):
            k = fast_key(a)
            if k is NOT_FAST or (type(a) in FAST_PY_TYPES and self._input_signature is not None):
                return
            if type(a) not in FAST_PY_TYPES:
                positions.append(i)
            key.append(k)
        flat = flat_tensors(bound)
        if len(flat) != len(positions):
            return  # tensors in defaults
        if not kwargs:
            if any(f is not args[i] for f, i in zip(flat, positions)):
                return  # converted by input_signature
            runner = cf.fast_runner(None if len(positions) == len(args) else positions)
            if len(key) == 1:
                self._fast1[key[0]] = runner
            else:
                self._fast[tuple(key)] = runner
                types = tuple(map(type, args))
                if ArrayLayout.applies(types):
                    self._layouts.setdefault(types, ArrayLayout(types)).remember(args, runner)
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
            if (
                s not in (structure, plain_structure(structure, "*"))
                or ctx != context
                or len(arg_types) != len(types)
            ):
                continue
            if all(a.is_supertype_of(t) for a, t in zip(arg_types, types)):
                if best is None or all(b.is_supertype_of(a) for b, a in zip(best[0], arg_types)):
                    best = (arg_types, cf)
        return best[1] if best else None

    def _relaxed(self, structure, types, context):
        for s, arg_types, ctx, _ in reversed(self._concretes):
            if (
                s in (structure, plain_structure(structure, "*"))
                and ctx == context
                and len(arg_types) == len(types)
            ):
                joined = [a.most_specific_common_supertype(t) for a, t in zip(arg_types, types)]
                if all(j is not None for j in joined):
                    return joined
        return types

    def _apply_input_signature(self, bound):
        args, kwargs = bound
        specs = self._input_signature
        params = list(self._signature.parameters)
        if len(args) < len(specs):
            missing = params[len(args) : len(specs)]
            raise TypeError(
                f"{where()}{self._name}(): missing argument(s) {', '.join(map(repr, missing))} "
                f"declared by input_signature; it is {signature_text(self._name, params, specs)}"
            )
        return (conform_arguments(args, specs, params, self._name), kwargs)

    # -- tracing -----------------------------------------------------------
    def _trace(self, bound, structure, types, paths, context):
        stack = _tracing_stack()
        if (
            self in stack
            or (
                self._instance_ref is None
                and any(f.python_function is self.python_function for f in stack)
            )
            or (type(self) is _BoundFunction and _bound_in(self, stack))
        ):
            raise errors.RecursionInTraceError(
                f"{where()}staged function {self._name!r} (defined at "
                f"{where_defined(self.python_function)}) calls itself "
                f"while being traced; recursion cannot be staged. Write it as a loop (while / for), "
                f"or recurse on Python values only"
            )
        if len(stack) >= MAX_NESTED_TRACES:
            raise errors.NestingTooDeepError(
                f"{where()}cannot trace {self._name!r} (defined at "
                f"{where_defined(self.python_function)}): staged functions are nested too deeply "
                f"({len(stack) + 1} levels, each traced inside the one that calls it; the limit is "
                f"{MAX_NESTED_TRACES}). Call some of them one after another instead of each from "
                f"the next, or write the chain as a loop"
            )
        stack.append(self)
        with _TRACES_RUNNING_LOCK:
            _TRACES_RUNNING[0] += 1
        try:
            first = not self._variables_initialized
            created: list = []
            retracing = []

            def on_create(var):
                if first and not retracing:
                    created.append(var)
                    return
                again = (
                    (
                        " (it was traced again after its first trace created Variables, and created "
                        "new ones: it creates a Variable on every call)"
                    )
                    if retracing
                    else ""
                )
                raise ValueError(
                    f"{where()}staged function {self._name!r} created a staging.Variable "
                    f"on a trace other than its first{again}. Variables may only be created on the "
                    f"first call: create them outside the function, or once (e.g. `if self.v is None: "
                    f"self.v = staging.Variable(...)`)"
                )

            cf = self._trace_once(bound, structure, types, paths, on_create)
            if first:
                self._variables_initialized = True
                if created:
                    self._created_variables.extend(weakref.ref(v) for v in created)
                    # Trace again now that the variables exist: the graph must not re-create them.
                    retracing.append(True)
                    cf = self._trace_once(bound, structure, types, paths, on_create)
            self._concretes.append(
                (
                    structure if cf.kinds_asked else plain_structure(structure, "*"),
                    tuple(types),
                    context,
                    cf,
                )
            )
            return cf
        finally:
            with _TRACES_RUNNING_LOCK:
                _TRACES_RUNNING[0] -= 1
            stack.pop()

    def _traced(self, fg) -> None:
        """Called with each finished trace (its outputs set) before the graph passes: a kind
        of staged function may rewrite its own graph here (a gradient's backward pass)."""

    def _trace_once(self, bound, structure, types, paths, on_create):
        fg = FuncGraph(self._name)
        args, kwargs = bound
        names = [
            p.replace("[", "_").replace("]", "").replace("'", "").replace(".", "_") for p in paths
        ]
        placeholders = iter(
            inputs := argument_writes.arguments(
                fg, [fg.add_input(t, n) for t, n in zip(types, names)], structure
            )
        )
        call_args = replace_tensors(args, placeholders)
        call_kwargs = replace_tensors(kwargs, placeholders)
        func = self._traceable()
        instance = self._instance_ref() if self._instance_ref is not None else None
        before = trace_effects.snapshot(
            self.python_function, self._signature.parameters, args, kwargs, instance
        )
        containers = trace_effects.argument_containers(
            self._signature.parameters, call_args, call_kwargs
        )
        # A trace inside another's trace gets the frames tracing adds per level: a chain of
        # staged functions traces as deep as it runs eagerly.
        nested = len(_tracing_stack()) > 1
        try:
            with (
                creation_scope(on_create),
                building(fg),
                more_frames(nested and NESTED_TRACE_FRAMES),
            ):
                result = branch_errors.call_deferring(fg, func, call_args, call_kwargs)
                out_values, output_kinds, pack_structure, specs = collect_outputs(
                    fg, result, f"{where_defined(self.python_function)}: "
                )
        finally:
            fg.closed = True
        trace_effects.warn_changes(before, self.python_function, self._name)
        trace_effects.refuse_changed_arguments(containers, self.python_function, self._name)
        fg.graph.outputs = argument_writes.write_back(fg, inputs, out_values, self, paths)
        self._traced(fg)
        options = get_optimizer_options()  # one snapshot for the passes and the executor
        # (the graph passes walk subgraphs nested in one another recursively: a long elif chain)
        frames = frames_for_graph(fg.graph)
        with more_frames(frames):
            optimize(fg.graph, options)
        self._traces += 1
        self._all_traces[0] += 1
        arg_specs = iter(
            [
                TensorSpec.of_type(t)
                if type(t) in (UnionType, StrType)
                else TensorSpec(t.shape, t.dtype)
                for t in types
            ]
        )
        bound_template = (
            weaken(replace_tensors(args, arg_specs)),
            weaken(replace_tensors(kwargs, arg_specs)),
        )
        with more_frames(frames):  # (calls written in place, verified, lowered: walks too)
            return ConcreteFunction(
                self._name,
                fg.graph,
                structure,
                tuple(types),
                bound_template,
                (pack_structure, specs),
                output_kinds,
                self._signature,
                self.python_function,
                options,
                jit_compile=self._jit_compile,
                lazy=nested,  # (traced for a call from another trace: usually written in place)
            )

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
        """tracing_count, under TensorFlow's name."""
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


def _convert(func):
    import autograph  # the layer above: staging's core never imports it

    if _without_python_code(func):  # a builtin or ufunc: called as converted code calls it
        from autograph.impl.api import converted_call

        return functools.partial(converted_call, func)
    try:
        return autograph.convert(func)
    except (errors.UnsupportedConstructError, errors.SourceChangedError):
        raise  # (a file edited after import: the code there is not the code that runs)
    except errors.ConversionError as exc:
        # e.g. no source (defined with exec or in the REPL): trace the function as written,
        # as TF does; Python control flow on symbolic values will then raise a clear error.
        warnings.warn(
            f"{exc}; tracing {getattr(func, '__qualname__', func)!r} without conversion",
            AutographWarning,
            stacklevel=5,
        )
        return func


_ANY_ARGUMENTS = inspect.Signature(
    [
        inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
        inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD),
    ]
)


def _without_python_code(func) -> bool:
    """`func` (or what a functools.partial wraps) is a callable without Python code of its own:
    a builtin, a ufunc, a C function."""
    while isinstance(func, functools.partial):
        func = func.func
    if isinstance(func, (types.FunctionType, types.MethodType)):
        return False
    return not isinstance(getattr(type(func), "__call__", None), types.FunctionType)


def _check_stageable(func) -> None:
    """Refuses, when decorating, what cannot be staged: a value that is not callable, and
    `async def` functions (a call makes a coroutine, which runs only when awaited)."""
    if not callable(func):
        raise TypeError(
            f"staging.function stages a function (or another callable), not "
            f"{type(func).__name__} {func!r:.60}"
        )
    inner = func
    while isinstance(inner, functools.partial):
        inner = inner.func
    if inspect.iscoroutinefunction(inner) or inspect.isasyncgenfunction(inner):
        name = getattr(inner, "__qualname__", repr(inner))
        raise errors.UnsupportedConstructError(
            f"{where_defined(inner)}: cannot stage {name!r}: it is an `async def` function; a "
            f"call of it only makes a coroutine, which runs when awaited, while a staged "
            f"function runs at once (every call would return the coroutine of its trace). "
            f"Stage a synchronous function, such as the code it awaits"
        )


def function(
    func=None, *, input_signature=None, autograph=True, reduce_retracing=False, jit_compile=None
):
    """Stages `func` into graphs, one per input signature. Usable as `@function` or `@function(...)`.

    jit_compile=True runs each graph compiled by JAX/XLA instead of the interpreter (docs/jax.md);
    jit_compile="device" does too, and returns jax.Arrays left on their device."""

    def decorate(f):
        if isinstance(f, Function):
            f = f.python_function
        try:
            _check_stageable(f)
        except Exception as error:
            raise filtered(error)  # frames hidden: staging.disable_traceback_filtering()
        return Function(
            f,
            input_signature=input_signature,
            autograph=autograph,
            reduce_retracing=reduce_retracing,
            jit_compile=jit_compile,
        )

    if func is None:
        return decorate
    return decorate(func)


# ---------------------------------------------------------------------------
# Pickling (Function.__reduce__)


def _function_by_value(python_function, options, source=None) -> Function:
    """A Function unpickled by value: no traces yet (made again on its first calls). `source`
    is its file's name and lines, for autograph to convert it where the file is not there, or
    when the pickler (cloudpickle) renamed the code's file."""
    if source is not None:
        _restore_source(python_function, *source)
    return Function(python_function, **options)


def _reduce_tensor_type(t):
    return TensorType, (t.dtype, t.shape, t.weak)


def _reduce_union_type(t):
    return UnionType, (t.alternatives,)


# An input signature's TensorSpecs hold graph types, immutable objects with a cached hash:
# they pickle as their constructor's arguments (the hash is computed again where unpickled).
copyreg.pickle(TensorType, _reduce_tensor_type)
copyreg.pickle(UnionType, _reduce_union_type)


def _source_of(func):
    """(file name, lines) of a Python function's file, or None (no file: nothing to ship)."""
    code = getattr(func, "__code__", None)
    if not isinstance(code, types.CodeType):
        return None
    lines = linecache.getlines(code.co_filename)
    return (code.co_filename, tuple(lines)) if lines else None


def _restore_source(func, filename, lines) -> None:
    """Gives the unpickled `func` its file's name back and, where this process reads other lines
    under that name (no such file here), the lines it was pickled with (in linecache, where
    autograph and tracebacks read them)."""
    code = getattr(func, "__code__", None)
    if not isinstance(code, types.CodeType):
        return
    if code.co_filename != filename:
        func.__code__ = code.replace(co_filename=filename)
    if linecache.getlines(filename) != list(lines):
        linecache.cache[filename] = (sum(map(len, lines)), None, list(lines), filename)


def _found_by_reference(fn) -> bool:
    """Whether `fn` pickles by reference: its module, imported, holds it under its qualified
    name, and cloudpickle (when it is the pickler) would pickle its Python function by reference
    too (cloudpickle ships functions of `__main__` and of modules registered with
    register_pickle_by_value by value)."""
    module = sys.modules.get(getattr(fn, "__module__", None) or "")
    qualname = getattr(fn, "__qualname__", None)
    if module is None or not qualname or "<locals>" in qualname:
        return False
    found = module
    for part in qualname.split("."):
        found = getattr(found, part, None)
    if found is not fn:
        return False
    cloudpickler = _active_cloudpickler()
    if cloudpickler is None:
        return True
    if module.__name__ == "__main__":
        return False
    by_value = getattr(cloudpickler, "_is_registered_pickle_by_value", None)
    return by_value is None or not by_value(module)


def _active_cloudpickler():
    """cloudpickle's module when one of its picklers is running in this thread, else None: a
    Python-level `dump` of a cloudpickle Pickler is then on the stack."""
    cloudpickle = sys.modules.get("cloudpickle")
    pickler = getattr(cloudpickle, "Pickler", None)
    if pickler is None:
        return None
    frame = sys._getframe(2)
    while frame is not None:
        if isinstance(frame.f_locals.get("self"), pickler):
            return sys.modules.get("cloudpickle.cloudpickle", cloudpickle)
        frame = frame.f_back
    return None
