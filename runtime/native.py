"""Compiled kernels: a fused elementwise run compiled by numba to one machine-code loop.

A fused run (runtime.fusion) still makes one NumPy pass per op over each chunk: on a 150-op chain
each element is loaded and stored 150 times, and NumPy's loops cannot go faster than that. When
numba is installed, a run of plain IEEE arithmetic on one float dtype is instead written as a
nopython function that applies every op to an element in registers before moving on (LLVM
vectorizes the loop), compiled once into numba's cache on disk and called with the GIL
released (`nogil`), so the parts of a big run go to several threads as before (runtime.parallel:
the staging pool, not numba's threading layers, whose workqueue aborts under concurrent calls
and whose OpenMP hangs a forked child).

The results are NumPy's, bit for bit, because every op admitted (an op whose OpDef has a kernel
form, `kernel_expr`) is one IEEE-754 correctly rounded operation or a sign-bit operation (`+ - *
/`, negation, square, reciprocal, `sqrt`, `abs`; and `np.maximum` / `np.minimum` where NumPy's
loops are seen to follow one rule for NaNs and zeros, `kernel_expr_agrees`), written as one
LLVM instruction (runtime.numba_backend.kernel_ops), the operands are of the run's dtype (no
promotion, no cast), and nothing is contracted or reassociated (no fast-math). Python numbers
and constants enter as arguments holding the value NumPy's weak-scalar rule casts them to, so
LLVM folds nothing with them (`x * -1.0` stays a multiplication, which keeps a NaN's sign).

NumPy reports floating-point exceptions (overflow, division by zero, invalid, underflow) after
each ufunc per `np.errstate`. The kernel clears the CPU's exception flags, runs, and returns the
flags raised; when one of them is not ignored by the caller's `np.errstate`, the run is done
again with NumPy's own loops (the kernel wrote only fresh output arrays, never an input), so the
warning or error is NumPy's, from the same op.

No numba, a failed compile or `native_kernels=False` leave the run to NumPy's loops.

A kernel not in the cache is compiled in a process of its own (runtime.numba_backend.
build_kernel, kept for the next kernels while it has work), asked from a thread of its own: the
calls run on NumPy's loops until it is loaded, and a compile that takes longer than
compile_timeout() is killed and none is started again in the process. The kernel is then loaded from numba's cache, which is kept only in a
directory that nobody else can have written (runtime.cache_dirs, docs/security.md); a fork()
waits for a load in progress (numba's locks are then free in the child).
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import json
import math
import os
import select
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .graph import Value
from .parallel import run_parts
from .registry import get_op

_DTYPES = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64"}
# the flags the kernel returns, by np.errstate category (runtime.numba_backend.kernel_ops)
_FLAGS: tuple[tuple[Literal["divide", "over", "under", "invalid"], int], ...] = (
    ("divide", 1),
    ("over", 2),
    ("under", 4),
    ("invalid", 8),
)


@dataclass(frozen=True)
class Source:
    """A kernel: `text` defines `kernel(start, stop, arrays..., scalars..., constants...,
    outputs...)` (start, stop: elements, or rows of a run in rows mode); `operands` are the
    Values of the arrays, 0-d scalars and outputs in order; `constants` the values of the
    constants (the run's constant nodes, Python numbers as NumPy casts them), of `dtype`."""

    text: str
    operands: list
    n_arrays: int
    n_scalars: int
    constants: tuple
    dtype: np.dtype

    @property
    def interleave(self) -> int:
        """The vector iterations LLVM's vectorizer is told to interleave: 8 over a flat run (each
        element's ops are one long dependency chain, and independent chains side by side keep
        the floating-point units busy: 2.5x faster on the 150-op chain than LLVM's own choice);
        2 over the rows of a run in rows mode (a row's last elements, fewer than the vectors
        interleaved, go one by one: short rows pay for a wide interleave)."""
        return 8 if "for i in range(stop - start):" in self.text else 2

    @property
    def signature(self) -> str:
        t = _DTYPES[self.dtype]
        n_outputs = len(self.operands) - self.n_arrays - self.n_scalars
        params = (
            ["int64", "int64"]
            + [f"Array({t}, 1, 'C', readonly=True)"] * self.n_arrays  # (read-only ones too)
            + [t] * (self.n_scalars + len(self.constants))
            + [f"{t}[::1]"] * n_outputs
        )
        return f"int32({', '.join(params)})"


def source(run) -> Source | None:
    """The kernel of `run`, or None when an op or an operand is not admitted."""
    if not hasattr(run, "_native_source"):
        run._native_source = _Writer(run).source()
    return run._native_source


class _Unfit(Exception):
    """The run has an op or an operand a kernel does not take."""


class _Writer:
    """Writes the kernel of one run (see source())."""

    def __init__(self, run):
        self.run = run
        self.flat = run.mode == "flat"
        self.dtype = run.nodes[0].outputs[0].type.dtype if run.nodes else None
        self.arrays = [*run.inputs, *run.sliced, *run.broadcast]
        self.refs: dict[int, str] = {}  # value id -> its element's expression
        self.scalars: list[Value] = []  # 0-d values made before the run: arguments
        self.constants: list = []
        self.numbers: dict[tuple, str] = {}
        self.before_rows: list[str] = []  # (rows mode) statements before the row loop
        self.per_row: list[str] = []  # statements at the start of each row

    def source(self) -> Source | None:
        dtype = self.dtype
        if dtype is None or dtype not in _DTYPES:
            return None
        try:
            self._constants()
            self._arrays()
            body = self._body()
        except _Unfit:
            return None
        n_outputs = len(self.run.escaping)
        params = (
            ["start", "stop"]
            + [f"a{k}" for k in range(len(self.arrays))]
            + [f"s{k}" for k in range(len(self.scalars))]
            + [f"c{k}" for k in range(len(self.constants))]
            + [f"o{k}" for k in range(n_outputs)]
        )
        return Source(
            "\n".join([f"def kernel({', '.join(params)}):", *self._loop(body, n_outputs)]),
            [*self.arrays, *self.scalars, *self.run.escaping],
            len(self.arrays),
            len(self.scalars),
            tuple(self.constants),
            dtype,
        )

    def _constant(self, value) -> str:
        assert self.dtype is not None
        self.constants.append(self.dtype.type(value))
        return f"c{len(self.constants) - 1}"

    def _constants(self) -> None:
        for node in self.run.consts:
            value = node.attrs.get("value")
            if node.outputs[0].type.dtype != self.dtype or np.asarray(value).dtype != self.dtype:
                raise _Unfit
            self.refs[id(node.outputs[0])] = self._constant(value)

    def _arrays(self) -> None:
        """The element expressions of the array operands ("{i}": the index in the loop; in rows
        mode, of the column in the row)."""
        run = self.run
        for k, v in enumerate(self.arrays):
            if self.flat or k < len(run.inputs):
                self.refs[id(v)] = f"x{k}[{{i}}]"
                continue
            shape = (1,) * (len(run.shape) - v.type.ndim) + tuple(v.type.shape)
            if math.prod(shape) == 1:
                self.before_rows.append(f"x{k} = a{k}[0]")
                self.refs[id(v)] = f"x{k}"
            elif shape[0] == 1 and shape[1:] == tuple(run.shape[1:]):
                self.refs[id(v)] = f"a{k}[{{i}}]"  # the same for every row
            elif shape[0] == run.shape[0] and math.prod(shape[1:]) == 1:
                self.per_row.append(f"x{k} = a{k}[r]")  # one value per row
                self.refs[id(v)] = f"x{k}"
            else:
                raise _Unfit  # broadcasts within a row: left to NumPy

    def _operand(self, v) -> str:
        from .ops.elementwise import as_dtype

        if isinstance(v, Value):
            if v.type.dtype != self.dtype or getattr(v.type, "python_type", None) is not None:
                raise _Unfit
            if id(v) not in self.refs:
                if v.type.ndim != 0:
                    raise _Unfit
                self.scalars.append(v)  # a 0-d value made before the run: an argument
                self.refs[id(v)] = f"s{len(self.scalars) - 1}"
            return self.refs[id(v)]
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise _Unfit
        key = (type(v), v, math.copysign(1.0, v))  # (-0.0 == 0.0 as a key)
        if key not in self.numbers:
            exact = as_dtype(v, self.dtype)
            if exact is None:
                raise _Unfit
            self.numbers[key] = self._constant(exact)
        return self.numbers[key]

    def _body(self) -> list[str]:
        """The statements of one element: a variable per op, stored when it escapes."""
        run = self.run
        store = {id(y): k for k, y in enumerate(run.escaping)}
        lines = []
        for n, node in enumerate(run.nodes):
            y = node.outputs[0]
            op = get_op(node.op)
            template = op.kernel_expr
            if template is not None and op.kernel_expr_agrees is not None:
                template = template if op.kernel_expr_agrees() else None
            if template is None or y.type.dtype != self.dtype or node.scope:
                raise _Unfit
            if id(y) not in store and id(y) not in run.last_read:
                raise _Unfit  # (never read: LLVM would drop it, and its flags with it)
            operands = [self._operand(v) for v in node.inputs]
            extra = {"minus_zero": self._operand(-0.0)} if "{minus_zero}" in template else {}
            lines.append(f"v{n} = {template.format(*operands, **extra)}")
            self.refs[id(y)] = f"v{n}"
            if id(y) in store:
                lines.append(f"y{store[id(y)]}[{{i}}] = v{n}")
        return lines

    def _loop(self, body: list[str], n_outputs: int) -> list[str]:
        lines = ["    _k.clear_fp_flags()"]
        if self.flat:  # start, stop: elements
            lines += [f"    x{k} = a{k}[start:stop]" for k in range(len(self.arrays))]
            lines += [f"    y{k} = o{k}[start:stop]" for k in range(n_outputs)]
            lines += ["    for i in range(stop - start):"]
            lines += ["        " + line.format(i="i") for line in body]
        else:  # start, stop: rows of `width` elements
            width = math.prod(self.run.shape[1:])
            lines += ["    " + line for line in self.before_rows]
            lines += ["    for r in range(start, stop):"]
            lines += [
                f"        x{k} = a{k}[r * {width}:(r + 1) * {width}]"
                for k in range(len(self.run.inputs))
            ]
            lines += [
                f"        y{k} = o{k}[r * {width}:(r + 1) * {width}]" for k in range(n_outputs)
            ]
            lines += ["        " + line for line in self.per_row]
            lines += [f"        for j in range({width}):"]
            lines += ["            " + line.format(i="j") for line in body]
        return [*lines, "    return _k.fp_flags()"]


class Kernel:
    """A compiled run: `kernel(n, *operands)` computes its n units (elements, or rows) into the
    output arrays and returns False when NumPy would warn or raise on the flags raised (the
    caller then runs the ufuncs), True otherwise. operands: the arrays, 0-d values and output
    arrays of source().

    The kernel may still be compiling (in the background, see _Build): until it is loaded it
    answers False at once, so the run goes to NumPy's loops."""

    def __init__(self, build, made: Source, threads: int, split_min: int, checked_from: int):
        self.build = build
        self.function = None  # the numba dispatcher once loaded
        self.n_arrays, self.n_scalars = made.n_arrays, made.n_scalars
        self.scalar_type = made.dtype.type
        self.constants = list(made.constants)
        self.threads, self.split_min = threads, split_min
        self.checked_from = checked_from  # the arrays from here on are not in the caller's guard

    def __call__(self, n, *operands) -> bool:
        function = self.function
        if function is None:
            function = self.function = self.build.function()
            if function is None:
                return False
        arrays = operands[: self.n_arrays]
        for a in arrays[self.checked_from :]:
            if type(a) is not np.ndarray or not a.flags.c_contiguous:
                return False  # (NumPy's loops read any layout)
        to = self.scalar_type
        args = [a.reshape(-1) for a in arrays]
        args += [to(s) for s in operands[self.n_arrays : self.n_arrays + self.n_scalars]]
        args += self.constants
        args += [a.reshape(-1) for a in operands[self.n_arrays + self.n_scalars :]]
        try:
            raised = self._run(function, n, args)
        except TypeError:  # (an operand of another dtype than the trace's: NumPy's loops)
            return False
        if not raised:
            return True
        state = np.geterr()
        return all(state[name] == "ignore" for name, bit in _FLAGS if raised & bit)

    def _run(self, function, n: int, args: list) -> int:
        if self.threads > 1 and n >= 2 * self.split_min:
            parts = min(self.threads, n // self.split_min)
            cuts = [n * k // parts // 64 * 64 for k in range(parts)] + [n]
            flags = [0] * parts

            def work(k):
                flags[k] = function(cuts[k], cuts[k + 1], *args)

            run_parts(work, tuple(range(parts)))
            raised = 0
            for f in flags:
                raised |= f
            return raised
        return function(0, n, *args)


# -- builds: a kernel compiled in a process of its own, then loaded from numba's cache ---------

# Seconds the compile of a kernel may take before it is killed and no kernel is compiled again in
# the process; $STAGING_KERNEL_COMPILE_TIMEOUT sets it. A compile takes 1-3 s (starting Python
# and numba included); the calls run on NumPy's loops meanwhile, so this bounds only how long a
# hung compile is waited for.
COMPILE_TIMEOUT = 60.0


def compile_timeout() -> float:
    """The compile timeout in seconds: $STAGING_KERNEL_COMPILE_TIMEOUT, else COMPILE_TIMEOUT."""
    text = os.environ.get("STAGING_KERNEL_COMPILE_TIMEOUT", "")
    try:
        value = float(text)
    except ValueError:
        return COMPILE_TIMEOUT
    return value if value > 0 and math.isfinite(value) else COMPILE_TIMEOUT


class _CompileTimedOut(Exception):
    pass


class _CompileFailed(Exception):
    pass


class _Compiler:
    """The process that compiles kernels (runtime.numba_backend.build_kernel), started when a
    kernel needs it and kept for the next ones (it exits when idle, or when this process ends:
    its input closes). One compile at a time; a compile that takes longer than the timeout
    kills its whole process group (_CompileTimedOut)."""

    def __init__(self):
        self.process: subprocess.Popen | None = None
        self.lock = threading.Lock()

    def compile(  # noqa: PLR0913
        self, path: str, digest: str, signature: str, interleave: int, timeout: float
    ) -> None:
        request = {"path": path, "digest": digest, "signature": signature, "interleave": interleave}
        line = json.dumps(request) + "\n"
        with self.lock:
            for _ in range(2):  # (once more when the process had just exited, idle)
                process = self.process
                if process is None or process.poll() is not None:
                    process = self.process = self._start()
                assert process.stdin is not None and process.stdout is not None
                try:
                    process.stdin.write(line)
                    process.stdin.flush()
                    answer = self._answer(process, timeout)
                except (OSError, EOFError):
                    self.stop()
                    continue
                reply = json.loads(answer)
                if not reply.get("ok"):
                    raise _CompileFailed(str(reply.get("error", answer))[-2000:])
                return
            raise _CompileFailed("the compile process exited")

    @staticmethod
    def _start() -> subprocess.Popen:
        from .numba_backend import cache

        command, env = cache.compiler_command()
        return subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            start_new_session=True,  # (its children are killed with it)
        )

    def _answer(self, process: subprocess.Popen, timeout: float) -> str:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], timeout)
        if not ready:
            self.kill()
            raise _CompileTimedOut
        line = process.stdout.readline()
        if not line:
            raise EOFError
        return line

    def kill(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            with contextlib.suppress(OSError):
                os.killpg(process.pid, signal.SIGKILL)
            process.kill()
            process.communicate()

    def stop(self) -> None:
        """Ends the process (its input closes: it exits)."""
        process, self.process = self.process, None
        if process is not None:
            try:
                process.communicate(timeout=2)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                process.kill()
                process.wait()

    def forget(self) -> None:
        """In a child process after fork(): the pipes are closed here, the parent's process is
        left to the parent."""
        process, self.process = self.process, None
        if process is not None:
            for pipe in (process.stdin, process.stdout):
                with contextlib.suppress(OSError):
                    if pipe is not None:
                        pipe.close()
            process.returncode = 0  # (not ours to wait for)


_compiler = _Compiler()
atexit.register(lambda: _compiler.stop())


# None: not looked for yet; False: no numba, or kernels were given up in this process
_usable: bool | None = None


def _kernels_usable() -> bool:
    global _usable
    if _usable is None:
        try:
            _usable = importlib.util.find_spec("numba") is not None
        except (ImportError, ValueError):
            _usable = False
    return _usable


def _give_up() -> None:
    """No kernel is compiled again in this process (a compile that hung or failed)."""
    global _usable
    _usable = False


_NEW, _PENDING, _READY, _FAILED = "new", "pending", "ready", "failed"
_lock = threading.Lock()  # guards _built and the builds' states (never held while compiling)
# held while a kernel is loaded into this process (numba's and LLVM's locks are then taken):
# fork() waits for it, so a child never inherits them held
_load_lock = threading.Lock()
_built: dict[str, "_Build"] = {}


class _Build:
    """The kernel of one source: compiled into numba's cache by a process of its own when it is
    not there, then loaded, all on a thread of its own (the calls meanwhile run on NumPy's
    loops, see Kernel)."""

    def __init__(self, text: str, signature: str, interleave: int):
        self.text, self.signature, self.interleave = text, signature, interleave
        self.state = _NEW
        self.loaded = None  # the numba dispatcher once ready
        self.done = threading.Event()
        self.problem = ""  # why it failed, for inspection

    def function(self):
        """The loaded kernel, or None (not yet, or never); starts the build again in a child
        process whose parent forked while it was building."""
        if self.state == _READY:
            return self.loaded
        if self.state == _NEW:
            with _lock:
                if self.state == _NEW:
                    self._start()
        return None

    def _start(self) -> None:  # (under _lock)
        self.state = _PENDING
        thread = threading.Thread(target=self._build, name="staging-kernel-build", daemon=True)
        thread.start()

    def _build(self) -> None:
        loaded = None
        try:
            loaded = self._compile_and_load()
        except _CompileTimedOut:
            self.problem = f"the compile took more than {compile_timeout():g} s"
            _give_up()
        except _CompileFailed as exc:
            self.problem = str(exc)
            _give_up()
        except ImportError as exc:  # (numba, llvmlite or libm unusable here)
            self.problem = f"{type(exc).__name__}: {exc}"
            _give_up()
        except Exception as exc:  # noqa: BLE001 - (numba missing or broken, the cache unusable)
            self.problem = f"{type(exc).__name__}: {exc}"
        with _lock:
            self.loaded = loaded
            self.state = _READY if loaded is not None else _FAILED
        self.done.set()

    def _compile_and_load(self):
        from .numba_backend import cache

        made = cache.kernel_file(self.text, self.signature, self.interleave)
        if made is None:
            raise OSError("no cache directory passes the checks (docs/security.md)")
        path, digest = made
        if cache.is_built(path):
            try:
                with _load_lock:
                    return cache.kernel_dispatcher(path, digest, self.signature)
            except Exception:  # noqa: BLE001 - (numba's cache files corrupt: compiled again)
                cache.forget_kernel(path)
        # (numba starts up here meanwhile: the load then takes milliseconds)
        threading.Thread(target=_warm_up, name="staging-kernel-warm-up", daemon=True).start()
        _compiler.compile(path, digest, self.signature, self.interleave, compile_timeout())
        cache.mark_built(path)
        with _load_lock:
            return cache.kernel_dispatcher(path, digest, self.signature)


def _warm_up() -> None:
    from .numba_backend import cache

    with _load_lock, contextlib.suppress(Exception):  # (the load says what fails)
        cache.warm_up()


def _build(made: Source) -> _Build | None:
    """The _Build of kernel `made` (loaded, or building), or None: it failed."""
    key = made.text + "\0" + made.signature
    with _lock:
        build = _built.get(key)
        if build is None:
            build = _built[key] = _Build(made.text, made.signature, made.interleave)
            build._start()
        return None if build.state == _FAILED else build


def wait_for_kernels(timeout: float | None = None) -> bool:
    """Waits until no kernel is building (or `timeout` seconds); True when none is."""
    deadline = None if timeout is None else time.monotonic() + timeout
    for build in list(_built.values()):
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        if build.state != _NEW and not build.done.wait(left):
            return False
    return True


def _before_fork() -> None:
    _load_lock.acquire()


def _after_fork_in_parent() -> None:
    _load_lock.release()


def _after_fork_in_child() -> None:
    """A build thread does not survive fork(): the locks are made anew, and a build it was
    running starts again when a call asks for it."""
    global _lock, _load_lock, _compiler
    _lock, _load_lock = threading.Lock(), threading.Lock()
    _compiler.forget()
    _compiler = _Compiler()
    for build in _built.values():
        if build.state == _PENDING:
            build.state, build.done = _NEW, threading.Event()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(
        before=_before_fork,
        after_in_parent=_after_fork_in_parent,
        after_in_child=_after_fork_in_child,
    )


def kernel(run, options: dict):
    """(Kernel, operand Values) for `run`, or None when it stays with NumPy's loops."""
    if not options["native_kernels"] or not _kernels_usable():
        return None
    made = source(run)
    if made is None:
        return None
    build = _build(made)
    if build is None:
        return None
    row = 1 if run.mode == "flat" else math.prod(run.shape[1:])
    return Kernel(
        build,
        made,
        options["threads"],
        -(-run.parallel_min_elements(options) // row),
        len(run.inputs),
    ), made.operands


def eligible(run, options: dict) -> bool:
    """`run` would be compiled (checked without compiling): worth fusing whatever its size."""
    return bool(options["native_kernels"]) and _kernels_usable() and source(run) is not None


__all__ = [
    "Kernel",
    "Source",
    "compile_timeout",
    "eligible",
    "kernel",
    "source",
    "wait_for_kernels",
]
