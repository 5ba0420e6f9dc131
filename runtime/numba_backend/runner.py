"""A graph compiled by numba, called with eager's answers (`jit_compile="numba"`).

NumbaGraph stands in for runtime.executor.CompiledGraph. The graph is written as one nopython
function (runtime.numba_backend.lowering); a graph it cannot write runs on the interpreter, with
one NumbaFallbackWarning naming what kept it there (`fallback`). The compiled function checks
the values it meets and raises `Rerun` where eager code would warn, raise or differ; the call
then runs on the interpreter, which gives eager's warnings, errors and results. Arguments
that are not what the compiled code was written for (a 0-d array for a NumPy scalar, a Python
int beyond int64, an array of another byte order) and calls under an error state where an
underflow warns or raises (`np.errstate(under=...)`, which the compiled code does not watch)
run on the interpreter too.

The first call of a process compiles (numba's own cache keeps the machine code, see
runtime.numba_backend.cache: never from a directory another user can write).
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Callable

import numpy as np

from .. import error_state
from ..executor import CompiledGraph
from ..graph import Graph, Value
from ..types import kinds
from . import cache
from .errors import NumbaFallbackWarning, Unsupported
from .lowering import Form, Lowering, form_of

_PYTHON = {"i": "int", "f": "float", "b": "bool"}

# The longest nopython source compiled: numba and LLVM take about 10 ms a line (a graph of
# 1,300 lines, a loop unrolled 42 times: 12 s); a longer graph runs on the interpreter
MAX_SOURCE_LINES = 400


def _box(form: Form) -> str:
    """The NumPy scalar type of a value of `form`, as the runner's code names it (a name of its
    scope: a global is read faster than `np.<name>`)."""
    return f"_b{form.dtype.name}"


class NumbaGraph:
    """A graph compiled by numba on its first call; `run` and `__call__` as CompiledGraph's.
    `fallback`: why the graph runs on the interpreter (None when numba compiles it);
    `compile_seconds`: what the first call spent compiling (or loading from the cache)."""

    def __init__(self, graph: Graph, options=None, single: bool = False):
        self.graph = graph
        self.single = single
        self.interpreter = CompiledGraph(graph, options, single=single)
        self.fallback: str | None = None
        self.compile_seconds: float | None = None
        self._source = ""
        self._lock = threading.RLock()  # (the first call may fall back while it holds it)
        self._runner: Callable | None = None  # the compiled call, once the first call made it
        # the call for arguments whose arrays are known to be of the traced dtypes and ranks
        # (Function's fast path looks them up so); None after a fallback
        self.keyed_run: Callable | None = None
        try:
            import numba  # noqa: F401  (the extra)
        except ImportError as error:
            self._fall_back(
                f"numba is not installed ({error}): pip install 'autograph-numpy[numba]'"
            )
            return
        lowering = Lowering(graph)
        try:
            self._source = lowering.function()
        except Unsupported as why:
            self._fall_back(str(why))
            return
        lines = self._source.count("\n")
        if lines > MAX_SOURCE_LINES:
            self._fall_back(
                f"its nopython source has {lines} lines, more than {MAX_SOURCE_LINES}: numba "
                f"would take many seconds to compile it. A loop over a range whose length is "
                f"known while tracing (a static shape: `range(len(a))`) is unrolled into the "
                f"graph; give the function an input_signature with unknown dims "
                f"(staging.TensorSpec([None], ...)) to keep such a loop one loop"
            )
            return
        self._floats = lowering.floats
        # the call itself from the start (a ConcreteFunction keeps it): numba compiles the
        # function on its first call, which the first `_compiled` of the runner's scope times
        self.run = self._runner = self._make_runner(cache.compile_source(self._source))  # type: ignore[method-assign]

    def _fall_back(self, why: str) -> None:
        self.fallback = why
        self.keyed_run = None
        warnings.warn(
            f"staged graph {self.graph.name!r} runs on the interpreter, not compiled by numba "
            f"(jit_compile='numba'): {why}",
            NumbaFallbackWarning,
            stacklevel=4,
        )
        self.run = self.interpreter.run  # type: ignore[method-assign]

    @property
    def source(self) -> str:
        """The nopython source numba compiles (or the interpreter's, after a fallback)."""
        if self.fallback is not None:
            return self.interpreter.source
        return self._source

    def __call__(self, *inputs):
        out = self.run(*inputs)
        return (out,) if self.single else out

    def run(self, *inputs):  # (replaced per instance: see __init__)
        return self.interpreter.run(*inputs)

    def _timed(self, dispatcher, scope: dict):
        """The runner's first `_compiled`: calls (so compiles) `dispatcher`, keeps the time
        that took, and leaves the dispatcher itself in the runner's scope."""

        def first(*inputs):
            with self._lock:
                start = time.perf_counter()
                try:
                    return dispatcher(*inputs)
                finally:
                    if self.compile_seconds is None:
                        self.compile_seconds = time.perf_counter() - start
                    if scope["_compiled"] is first:
                        scope["_compiled"] = dispatcher

        return first

    def _not_compiled(self, error, *inputs):
        """numba refused the source for these arguments (numba compiles per argument types,
        on their first call): the graph runs on the interpreter from now on, with the note."""
        with self._lock:
            if self.fallback is None:
                reason = str(error).strip().splitlines()[0]
                self._fall_back(f"numba could not compile it: {reason}")
                self._scope["_compiled"] = _refused(error)  # (a caller may keep the runner)
        return self.interpreter.run(*inputs)

    def _make_runner(self, compiled):
        """The call: arguments checked, the compiled function, the outputs boxed as eager's."""
        names = [f"a{k}" for k in range(len(self.graph.inputs))]
        forms = [form_of(v.type) for v in self.graph.inputs]
        tests = [_argument_test(n, form) for n, form in zip(names, forms)]
        # (Function's fast path looks an array up by its exact type, dtype and shape: what its
        # test checks; a NumPy scalar's key may be a 0-d array's too, a Python number's range
        # it does not check)
        keyed = [test for test, form in zip(tests, forms) if form is not None and not form.ndim]
        if self._floats:
            tests.append("(_state() is _ignoring[0] or _under_ignored())")
            keyed.append(tests[-1])
        positions = {id(v): k for k, v in enumerate(self.graph.inputs)}
        returned = [
            form_of(v.type)
            for v in self.graph.outputs
            if isinstance(v, Value) and id(v) not in positions
        ]
        items = sum(1 + (form.weak is None) for form in returned if form is not None)
        item = (lambda j: "r") if items == 1 else (lambda j: f"r{j}")  # (a tuple: unpacked)
        outs, k = [], 0
        boxed: dict[int, str] = {}
        for v in self.graph.outputs:
            if not isinstance(v, Value):
                outs.append(repr(v))  # (a literal: a Python number)
            elif id(v) in positions:
                outs.append(names[positions[id(v)]])  # (the argument itself, as eagerly)
            else:
                form = form_of(v.type)
                assert form is not None  # (Lowering.function refused others)
                # (a value returned twice is one object, as eagerly: an array numba gives twice
                # is two objects over one buffer)
                outs.append(boxed.setdefault(id(v), _boxed(item(k), item(k + 1), form)))
                k += 2 if form.weak is None else 1
        result = outs[0] if self.single else f"({', '.join(outs)}{',' if len(outs) == 1 else ''})"
        args = ", ".join(names)
        targets = "r" if items <= 1 else ", ".join(item(j) for j in range(items))
        text = _runner_text("run", args, tests, targets, result) + _runner_text(
            "run_keyed", args, keyed, targets, result
        )
        scope = {
            "np": np,
            "_ndarray": np.ndarray,
            **{f"_b{t.dtype.name}": t.dtype.type for t in _scalar_types(self.graph)},
            **{f"_z{t.dtype.name}": t.dtype.type(0) for t in _scalar_types(self.graph)},
            "_TRUE": np.True_,
            "_FALSE": np.False_,
            "_interpret": self.interpreter.run,
            "_Rerun": cache.rerun_class(),
            "_CompileError": _compile_error_class(),
            "_not_compiled": self._not_compiled,
            "_state": error_state.current,
            "_ignoring": _IGNORING,
            "_under_ignored": _under_ignored,
            "_INT_MIN": -(2**63),
            "_INT_MAX": 2**63 - 1,
            **{f"_dt{k}": v.type.dtype for k, v in enumerate(self.graph.inputs)},
        }
        scope["_compiled"] = self._timed(compiled, scope)
        self._scope = scope
        exec(compile(text, f"<numba runner of {self.graph.name}>", "exec"), scope)  # noqa: S102
        self.keyed_run = scope["run_keyed"]
        return scope["run"]


def _runner_text(name: str, args: str, tests: list[str], targets: str, result: str) -> str:
    """The source of a runner: the tests of its arguments (else the interpreter), the compiled
    call into `targets` (a rerun: the interpreter), the result as eager's."""
    test = " and ".join(tests) or "True"
    return (
        f"def {name}({args}):\n"
        f"    if not ({test}):\n"
        f"        return _interpret({args})\n"
        f"    try:\n"
        f"        {targets} = _compiled({args})\n"
        f"    except _Rerun:\n"
        f"        return _interpret({args})\n"
        f"    except _CompileError as error:\n"
        f"        return _not_compiled(error, {args})\n"
        f"    return {result}\n"
    )


_IGNORING: list = [object()]  # the last error state seen to ignore underflows (held: its identity)


def _under_ignored() -> bool:
    """Whether NumPy ignores underflows now (the compiled code does not watch them)."""
    if np.geterr()["under"] != "ignore":
        return False
    state = error_state.current()
    if state is not None:
        _IGNORING[0] = state
    return True


def _scalar_types(graph: Graph) -> list:
    """The types of the graph's inputs and outputs: their dtypes' scalar types."""
    values = [v for v in [*graph.inputs, *graph.outputs] if isinstance(v, Value)]
    return [t for v in values for t in kinds(v.type) if hasattr(t, "dtype")]


def _refused(error):
    """The runner's `_compiled` once numba refused the function: raises numba's error again (the
    runner then calls the interpreter)."""

    def refused(*inputs):
        raise error

    return refused


def _compile_error_class() -> type:
    """What numba raises when it cannot compile a function for the arguments it was called
    with (typing and lowering errors; code it compiled raises Python's own exceptions)."""
    from numba.core.errors import NumbaError

    return NumbaError


def _argument_test(name: str, form: Form | None) -> str:
    """A test that argument `name` is what the compiled code was written for."""
    assert form is not None and form.weak is not None  # (Lowering.function refused others)
    if form.ndim:
        k = name[1:]
        return f"type({name}) is _ndarray and {name}.dtype is _dt{k}"
    if form.weak:
        test = f"type({name}) is {_PYTHON[form.kind]}"
        return f"{test} and _INT_MIN <= {name} <= _INT_MAX" if form.kind == "i" else test
    return f"type({name}) is {_box(form)}"


def _boxed(value: str, flag: str, form: Form | None) -> str:
    """An output as eager code has it: a NumPy scalar, a Python number (numba gives those), or
    either by its flag; an array as it is."""
    assert form is not None
    if form.ndim or form.weak:
        return value
    if form.weak is None:
        return f"({_scalar(value, form)} if {flag} else {value})"
    return _scalar(value, form)


def _scalar(value: str, form: Form) -> str:
    """The NumPy scalar of `form` holding the Python number `value` that numba returned (within
    the dtype): an integer as its dtype's zero plus the number (NEP 50: the same value, several
    times faster than calling the type), a bool as NumPy's own."""
    if form.kind in "iu":
        return f"(_z{form.dtype.name} + {value})"
    if form.kind == "b":
        return f"(_TRUE if {value} else _FALSE)"
    return f"{_box(form)}({value})"
