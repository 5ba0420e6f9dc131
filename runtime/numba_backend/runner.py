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

import numpy as np

from ..executor import CompiledGraph
from ..graph import Graph, Value
from . import cache
from .errors import NumbaFallbackWarning, Unsupported
from .lowering import Form, Lowering, form_of

_PYTHON = {"i": "int", "f": "float", "b": "bool"}


def _box(form: Form) -> str:
    """The NumPy scalar type of a value of `form`, as the runner's code names it."""
    return f"np.{form.dtype.name}"


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
        self._runner = None  # the compiled call, once the first call made it
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
        self._floats = lowering.floats
        self.run = self._first_run  # type: ignore[method-assign]

    def _fall_back(self, why: str) -> None:
        self.fallback = why
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

    def _first_run(self, *inputs):
        """Compiles (numba compiles on the dispatcher's first call: the one made here). A caller
        may keep this method (a ConcreteFunction keeps `run`): once compiled, it goes straight
        to the runner, without the lock."""
        runner = self._runner
        if runner is not None:
            return runner(*inputs)
        with self._lock:
            if self.run != self._first_run:
                return self.run(*inputs)
            start = time.perf_counter()
            runner = self._make_runner(cache.compile_source(self._source))
            try:
                return runner(*inputs)
            finally:
                self.compile_seconds = time.perf_counter() - start
                self.run = self._runner = runner  # type: ignore[method-assign]

    def _not_compiled(self, error, *inputs):
        """numba refused the source for these arguments (numba compiles per argument types,
        on their first call): the graph runs on the interpreter from now on, with the note."""
        with self._lock:
            if self.fallback is None:
                reason = str(error).strip().splitlines()[0]
                self._fall_back(f"numba could not compile it: {reason}")
                self._runner = self.interpreter.run
        return self.interpreter.run(*inputs)

    def _make_runner(self, compiled):
        """The call: arguments checked, the compiled function, the outputs boxed as eager's."""
        names = [f"a{k}" for k in range(len(self.graph.inputs))]
        tests = [_argument_test(n, form_of(v.type)) for n, v in zip(names, self.graph.inputs)]
        if self._floats:
            tests.append("_geterr()['under'] == 'ignore'")
        positions = {id(v): k for k, v in enumerate(self.graph.inputs)}
        returned = [
            form_of(v.type)
            for v in self.graph.outputs
            if isinstance(v, Value) and id(v) not in positions
        ]
        items = sum(1 + (form.weak is None) for form in returned if form is not None)
        item = (lambda j: "r") if items == 1 else (lambda j: f"r[{j}]")
        outs, k = [], 0
        for v in self.graph.outputs:
            if not isinstance(v, Value):
                outs.append(repr(v))  # (a literal: a Python number)
            elif id(v) in positions:
                outs.append(names[positions[id(v)]])  # (the argument itself, as eagerly)
            else:
                form = form_of(v.type)
                assert form is not None  # (Lowering.function refused others)
                outs.append(_boxed(item(k), item(k + 1), form))
                k += 2 if form.weak is None else 1
        result = outs[0] if self.single else f"({', '.join(outs)}{',' if len(outs) == 1 else ''})"
        args = ", ".join(names)
        test = " and ".join(tests) or "True"
        text = (
            f"def run({args}):\n"
            f"    if not ({test}):\n"
            f"        return _interpret({args})\n"
            f"    try:\n"
            f"        r = _compiled({args})\n"
            f"    except _Rerun:\n"
            f"        return _interpret({args})\n"
            f"    except _CompileError as error:\n"
            f"        return _not_compiled(error, {args})\n"
            f"    return {result}\n"
        )
        scope = {
            "np": np,
            "_compiled": compiled,
            "_interpret": self.interpreter.run,
            "_Rerun": cache.rerun_class(),
            "_CompileError": _compile_error_class(),
            "_not_compiled": self._not_compiled,
            "_geterr": np.geterr,
            "_INT_MIN": -(2**63),
            "_INT_MAX": 2**63 - 1,
            **{f"_dt{k}": v.type.dtype for k, v in enumerate(self.graph.inputs)},
        }
        exec(compile(text, f"<numba runner of {self.graph.name}>", "exec"), scope)  # noqa: S102
        return scope["run"]


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
        return f"type({name}) is np.ndarray and {name}.dtype is _dt{k}"
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
        return f"({_box(form)}({value}) if {flag} else {value})"
    return f"{_box(form)}({value})"
