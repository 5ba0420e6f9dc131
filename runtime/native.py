"""Native kernels: a fused elementwise run compiled to one machine-code loop.

A fused run (runtime.fusion) still makes one NumPy pass per op over each chunk: on a 150-op chain
each element is loaded and stored 150 times, and NumPy's loops cannot go faster than that. When a
C compiler is on the machine, a run of plain IEEE arithmetic on one float dtype is instead written
as a C function that applies every op to an element in registers before moving on, compiled once
(cached on disk by its source) and called through ctypes, which releases the GIL, so the parts of
a big run go to several threads as before.

The results are NumPy's, bit for bit, because every op admitted (an op whose OpDef has a C form,
`c_expr`) is one IEEE-754 correctly rounded operation or a sign-bit operation (`+ - * /`,
negation, square, reciprocal, `sqrt`, `abs`; and `np.maximum` / `np.minimum` where NumPy's loops
are seen to follow one rule for NaNs and zeros, `c_expr_agrees`), the
operands are of the run's dtype (no promotion, no cast), and the compiler is told not to contract
or reassociate anything (`-ffp-contract=off`, no fast-math). Python numbers enter as the value
NumPy's weak-scalar rule casts them to, written as exact hexadecimal literals.

NumPy reports floating-point exceptions (overflow, division by zero, invalid, underflow) after
each ufunc per `np.errstate`. The kernel clears the CPU's exception flags, runs, and returns the
flags raised; when one of them is not ignored by the caller's `np.errstate`, the run is done
again with NumPy's own loops (the kernel wrote only fresh output arrays, never an input), so the
warning or error is NumPy's, from the same op.

No compiler, a failed compile or `native_kernels=False` leave the run to NumPy's loops.

A kernel not in the cache is compiled on a thread of its own: the calls run on NumPy's loops
until it is loaded, and a compiler that takes longer than compile_timeout() is killed and not used
again in the process. A library is loaded only when it and every directory above it could have
been written by this user (or root) alone: the directories are opened one by one without
following links, the library is checked on the descriptor it is then loaded through, and kernels
are written with mode 0600 (docs/security.md).
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import math
import os
import platform
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from typing import Callable, Literal

import numpy as np

from .graph import Value
from .parallel import run_parts
from .registry import get_op

_C_TYPES = {
    np.dtype(np.float32): ("float", "f", ctypes.c_float),
    np.dtype(np.float64): ("double", "", ctypes.c_double),
}
# the flags the kernel returns, by np.errstate category
_FLAGS: tuple[tuple[Literal["divide", "over", "under", "invalid"], int], ...] = (
    ("divide", 1),
    ("over", 2),
    ("under", 4),
    ("invalid", 8),
)
_CFLAGS = [
    "-O3",
    "-march=native",
    "-ffp-contract=off",
    "-fno-fast-math",
    "-fno-math-errno",
    "-fPIC",
    "-shared",
    "-std=c99",
]


def _literal(value: float, suffix: str) -> str:
    return f"({float(value).hex()}{suffix})"


def source(run) -> tuple[str, list] | None:
    """The C source of `run`'s kernel and the Values it takes in order (array inputs, 0-d
    inputs, escaping outputs), or None when an op or an operand is not admitted."""
    if not hasattr(run, "_native_source"):
        run._native_source = _source(run)
    return run._native_source


def _source(run) -> tuple[str, list] | None:  # noqa: C901, PLR0912, PLR0915
    from .ops.elementwise import as_dtype

    if not run.nodes:
        return None
    dtype = run.nodes[0].outputs[0].type.dtype
    if dtype not in _C_TYPES:
        return None
    ctype, suffix, _ = _C_TYPES[dtype]
    consts = {}
    for node in run.consts:
        value = node.attrs.get("value")
        if node.outputs[0].type.dtype != dtype or not np.isfinite(value):
            return None
        consts[id(node.outputs[0])] = _literal(value, suffix)
    # "@" stands for the index within the loop: of the element (flat), or of the column in row r
    # (rows: the run's shape seen as R rows of C elements; rC = r * C)
    flat = run.mode == "flat"
    array_values = [*run.inputs, *run.sliced, *run.broadcast]
    arrays = {}
    for k, v in enumerate(array_values):
        if flat or k < len(run.inputs):
            arrays[id(v)] = f"a{k}[@]" if flat else f"a{k}[rC + @]"
            continue
        shape = (1,) * (len(run.shape) - v.type.ndim) + tuple(v.type.shape)
        if math.prod(shape) == 1:
            arrays[id(v)] = f"a{k}[0]"
        elif shape[0] == 1 and shape[1:] == tuple(run.shape[1:]):
            arrays[id(v)] = f"a{k}[@]"  # the same for every row
        elif shape[0] == run.shape[0] and math.prod(shape[1:]) == 1:
            arrays[id(v)] = f"a{k}[r]"  # one value per row
        else:
            return None  # broadcasts within a row: left to NumPy
    scalars: list[Value] = []
    fixed: dict[int, str] = {}  # 0-d arguments
    steps = []  # (expression template over the operands, operand ids or texts, output Value)
    made: set[int] = set()
    numbers: dict[tuple, str | None] = {}
    for node in run.nodes:
        y = node.outputs[0]
        op = get_op(node.op)
        template = op.c_expr
        if template is not None and op.c_expr_agrees is not None and not op.c_expr_agrees():
            template = None
        if template is None or y.type.dtype != dtype or node.scope:
            return None
        operands: list[str | int] = []  # (a text, or the id of a value made by a step before)
        for v in node.inputs:
            if isinstance(v, Value):
                if v.type.dtype != dtype or getattr(v.type, "python_type", None) is not None:
                    return None
                if id(v) in consts or id(v) in arrays or id(v) in fixed:
                    operands.append(consts.get(id(v)) or arrays.get(id(v)) or fixed[id(v)])
                elif id(v) in made:
                    operands.append(id(v))
                elif v.type.ndim == 0:  # a 0-d value made before the run: an argument
                    scalars.append(v)
                    fixed[id(v)] = f"s{len(scalars) - 1}"
                    operands.append(fixed[id(v)])
                else:
                    return None
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                key = (type(v), v, math.copysign(1.0, v))  # (-0.0 == 0.0 as a key)
                if key not in numbers:
                    exact = as_dtype(v, dtype)
                    numbers[key] = None if exact is None else _literal(exact, suffix)
                literal = numbers[key]
                if literal is None:
                    return None
                operands.append(literal)
            else:
                return None
        steps.append((template, operands, y))
        made.add(id(y))
    outputs = run.escaping
    group = 512 // dtype.itemsize  # elements a group takes through the ops together (ILP)
    params = (
        ["int64_t start", "int64_t stop"]
        + [f"const T *restrict a{k}" for k in range(len(array_values))]
        + [f"T s{k}" for k in range(len(scalars))]
        + [f"T *restrict o{k}" for k in range(len(outputs))]
    )
    out = "o{}[@]" if flat else "o{}[rC + @]"
    grouped, single = (_body(steps, outputs, out, suffix, grouped) for grouped in (True, False))
    if flat:  # start, stop: elements
        loop = [
            "    int64_t i = start;",
            "    for (; i + G <= stop; i += G) {  /* a group: each op over G elements in turn */",
            *[line.replace("@", "i + l") for line in grouped],
            "    }",
            "    for (; i < stop; i++) {  /* the last elements, one by one */",
            *[line.replace("@", "i") for line in single],
            "    }",
        ]
    else:  # start, stop: rows
        loop = [
            "    for (int64_t r = start; r < stop; r++) {",
            f"    const int64_t rC = r * {math.prod(run.shape[1:])};",
            "    int64_t j = 0;",
            f"    for (; j + G <= {math.prod(run.shape[1:])}; j += G) {{",
            *[line.replace("@", "j + l") for line in grouped],
            "    }",
            f"    for (; j < {math.prod(run.shape[1:])}; j++) {{",
            *[line.replace("@", "j") for line in single],
            "    }",
            "    }",
        ]
    text = "\n".join(
        [
            "#include <fenv.h>",
            "#include <math.h>",
            "#include <stdint.h>",
            f"typedef {ctype} T;",
            f"#define G {group}",
            f"int kernel({', '.join(params)}) {{",
            "    feclearexcept(FE_ALL_EXCEPT);",
            *loop,
            "    int f = fetestexcept(FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID);",
            "    return ((f & FE_DIVBYZERO) ? 1 : 0) | ((f & FE_OVERFLOW) ? 2 : 0)"
            " | ((f & FE_UNDERFLOW) ? 4 : 0) | ((f & FE_INVALID) ? 8 : 0);",
            "}",
            "",
        ]
    )
    return text, [*array_values, *scalars, *outputs]


def _body(steps, outputs, out: str, suffix: str, grouped: bool) -> list[str]:  # noqa: C901
    """The statements of one group of elements (grouped: `G` elements per op, in arrays that
    share slots as values die), or of one element; "@" is the element's index. out: the
    output array's element, a format of its number."""
    store = {id(y): k for k, y in enumerate(outputs)}
    last_read = {}
    for j, (_, operands, _) in enumerate(steps):
        for v in operands:
            if isinstance(v, int):
                last_read[v] = j
    slot_of: dict[int, int] = {}
    free: list[int] = []
    slots = 0
    lines = []
    for j, (template, operands, y) in enumerate(steps):
        texts = []
        for v in operands:
            if isinstance(v, int):
                texts.append(f"t{slot_of[v]}[l]" if grouped else f"t{slot_of[v]}")
            else:
                texts.append(v)
        for v in operands:  # in place over an operand read for the last time here
            if isinstance(v, int) and last_read[v] == j and v in slot_of:
                free.append(slot_of.pop(v))
        slot = free.pop() if free else slots
        slots = max(slots, slot + 1)
        slot_of[id(y)] = slot
        expression = template.format(*texts, f=suffix)
        value = f"t{slot}[l]" if grouped else f"t{slot}"
        store_it = f" {out.format(store[id(y)])} = {value};" if id(y) in store else ""
        if grouped:
            lines.append(
                f"        for (int l = 0; l < G; l++) {{ {value} = {expression};{store_it} }}"
            )
        else:
            lines.append(f"        {value} = {expression};{store_it}")
        if id(y) not in last_read:
            free.append(slot_of.pop(id(y)))
    names = ", ".join(f"t{k}[G]" if grouped else f"t{k}" for k in range(slots))
    return [f"        T {names};", *lines]


class Kernel:
    """A compiled run: `kernel(n, *operands)` computes its n elements into the output arrays and
    returns False when NumPy would warn or raise on the flags raised (the caller then runs the
    ufuncs), True otherwise. operands: the arrays, 0-d values and output arrays of source().

    The library may still be compiling (in the background, see _Build): until it is loaded the
    kernel answers False at once, so the run goes to NumPy's loops."""

    def __init__(
        self,
        build,
        argtypes: list,
        n_arrays: int,
        n_scalars: int,
        threads: int,
        split_min: int,
        checked_from: int,
    ):
        self.build, self.argtypes = build, argtypes
        # the library's `kernel` once loaded (a pointer of our own)
        self.function: Callable[..., int] | None = None
        self.n_arrays, self.n_scalars = n_arrays, n_scalars
        self.scalar_type = argtypes[2 + n_arrays] if n_scalars else None
        self.threads, self.split_min = threads, split_min
        self.checked_from = checked_from  # the arrays from here on are not in the caller's guard

    def _loaded(self):
        """The kernel function when its library is loaded, else None (still compiling, or the
        compile failed: NumPy's loops)."""
        library = self.build.library()
        if library is None:
            return None
        function = library["kernel"]  # (a pointer object of our own: argtypes are per kernel)
        function.restype = ctypes.c_int
        function.argtypes = self.argtypes
        self.function = function
        return function

    def __call__(self, n, *operands) -> bool:
        function = self.function
        if function is None:
            function = self._loaded()
            if function is None:
                return False
        for a in operands[self.checked_from : self.n_arrays]:
            if type(a) is not np.ndarray or not a.flags.c_contiguous:
                return False  # (NumPy's loops read any layout)
        args = [a.ctypes.data for a in operands[: self.n_arrays]]
        scalar_type = self.scalar_type
        if scalar_type is not None:  # (there are scalars)
            args += [
                scalar_type(float(s))
                for s in operands[self.n_arrays : self.n_arrays + self.n_scalars]
            ]
        args += [a.ctypes.data for a in operands[self.n_arrays + self.n_scalars :]]
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
        else:
            raised = function(0, n, *args)
        if not raised:
            return True
        state = np.geterr()
        return all(state[name] == "ignore" for name, bit in _FLAGS if raised & bit)


# -- the compiler --------------------------------------------------------------------------------

# Seconds a compile (or `$CC --version`) may take before the compiler is given up for the process;
# $STAGING_KERNEL_COMPILE_TIMEOUT sets it. Compiling a kernel takes 0.1-0.3 s; the calls run on
# NumPy's loops meanwhile, so this bounds only how long a hung compiler is waited for.
COMPILE_TIMEOUT = 20.0

_compiler: list | None = None  # [command, identity] once looked for; [] when there is none


def compile_timeout() -> float:
    """The compile timeout in seconds: $STAGING_KERNEL_COMPILE_TIMEOUT, else COMPILE_TIMEOUT."""
    text = os.environ.get("STAGING_KERNEL_COMPILE_TIMEOUT", "")
    try:
        value = float(text)
    except ValueError:
        return COMPILE_TIMEOUT
    return value if value > 0 and math.isfinite(value) else COMPILE_TIMEOUT


class _CompilerTimedOut(Exception):
    pass


def _run_compiler(command: list, timeout: float) -> tuple[int, str]:
    """(return code, output) of `command`, run in its own process group; the whole group is
    killed when it takes more than `timeout` seconds (_CompilerTimedOut)."""
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # (a compiler driver's children are killed with it)
    )
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        process.kill()
        process.communicate()
        raise _CompilerTimedOut from None
    return process.returncode, output or ""


def _find_compiler() -> list:
    global _compiler
    if _compiler is None:
        found = []
        for name in filter(None, (os.environ.get("CC"), "cc", "gcc", "clang")):
            path = shutil.which(name)
            if path is None or sys.platform == "win32":
                continue
            try:
                code, output = _run_compiler([path, "--version"], compile_timeout())
            except (OSError, subprocess.SubprocessError, _CompilerTimedOut):
                continue
            if code == 0:
                found = [path, output.splitlines()[0] if output else path]
                break
        _compiler = found
    return _compiler


def _give_up_compiler() -> None:
    """No kernel is compiled again in this process (a compiler that failed on plain C99, or hung)."""
    global _compiler
    _compiler = []


def _flags(text: str) -> list[str]:
    """The compiler flags of kernel source `text`: _CFLAGS, and -fsignaling-nans where the kernel
    does not test for NaNs. That flag keeps every multiplication and division as written: GCC
    otherwise makes `x * -1.0` and `x / -1.0` a negation, which gives a NaN operand the other
    sign than NumPy's multiplication (clang accepts the flag and ignores it). Under it GCC no
    longer vectorizes `isnan` (np.maximum / np.minimum), 30 times slower: those kernels go
    without it."""
    return _CFLAGS if "isnan(" in text else [*_CFLAGS, "-fsignaling-nans"]


def _cpu_identity() -> str:
    try:
        with open("/proc/cpuinfo") as info:
            return next((line for line in info if line.startswith(("flags", "Features"))), "")
    except OSError:
        return platform.processor()


# -- the cache: directories and libraries that nobody else can have written ---------------------


def cache_dir() -> str:
    """Where compiled kernels are kept: $STAGING_KERNEL_CACHE, else the user's cache directory."""
    explicit = os.environ.get("STAGING_KERNEL_CACHE")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "staging-kernels")


def _directories() -> list[str]:
    """The cache directory, then the private fallback under the temporary directory."""
    return [
        cache_dir(),
        os.path.join(tempfile.gettempdir(), f"staging-kernels-{os.getuid()}"),
    ]


class UnsafeCacheError(OSError):
    """A cache directory or library that another user could have written: not used."""


# (every flag looked up: the module imports on systems without them, where no kernel is built)
_FILE_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY_FLAGS = _FILE_FLAGS | getattr(os, "O_DIRECTORY", 0)


def _check_ancestor(fd: int, path: str) -> None:
    """A directory above the cache: owned by us or root; others may write to it only when it is
    sticky (/tmp: then they cannot rename or remove what we own in it)."""
    info = os.fstat(fd)
    if info.st_uid not in (os.getuid(), 0):
        raise UnsafeCacheError(f"{path} belongs to user {info.st_uid}")
    if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
        raise UnsafeCacheError(f"{path} may be written by other users")


def _check_private(fd: int, path: str, kind: str = "directory") -> None:
    """The cache directory or a library in it: ours, and written by nobody else."""
    info = os.fstat(fd)
    if kind != "directory" and not stat.S_ISREG(info.st_mode):
        raise UnsafeCacheError(f"{path} is not a regular file")
    if info.st_uid != os.getuid():
        raise UnsafeCacheError(f"{path} belongs to user {info.st_uid}, not to this user")
    if info.st_mode & 0o022:
        raise UnsafeCacheError(f"{path} may be written by other users")


def _open_directory(path: str) -> tuple[int, str]:
    """(descriptor, real path) of cache directory `path`, made (mode 0700) when missing. It is
    opened from the root one component at a time, never following a link, and each component is
    checked on the descriptor opened: what is checked is what is used, whoever renames what."""
    real = os.path.realpath(path)
    fd = os.open(os.sep, _DIRECTORY_FLAGS)
    try:
        _check_ancestor(fd, os.sep)
        parts = [p for p in real.split(os.sep) if p]
        for i, part in enumerate(parts):
            try:
                child = os.open(part, _DIRECTORY_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o700, dir_fd=fd)
                child = os.open(part, _DIRECTORY_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
            where = os.sep + os.sep.join(parts[: i + 1])
            (_check_private if i == len(parts) - 1 else _check_ancestor)(fd, where)
        return fd, real
    except BaseException:
        os.close(fd)
        raise


_PROC_FD = os.path.isdir("/proc/self/fd")
_fd_names_used: set[int] = set()  # descriptor numbers a library was loaded through (see _dlopen)


def _dlopen(fd: int, path: str) -> ctypes.CDLL:
    """Loads the library open on `fd` (checked) through the descriptor itself where the system
    allows it. The dynamic loader takes a library whose name it has loaded before for that one,
    so each load uses a descriptor number never used for a load before."""
    if not _PROC_FD:  # (no /proc: the checked path, in a directory only we can write to)
        return ctypes.CDLL(path)
    held = []
    try:
        number = fd
        while number in _fd_names_used:
            number = os.dup(fd)
            held.append(number)
        _fd_names_used.add(number)
        return ctypes.CDLL(f"/proc/self/fd/{number}")
    finally:
        for extra in held:
            os.close(extra)


def _load_cached(directory: str, name: str):
    """The library `name` from cache `directory` (a ctypes.CDLL), or None when it is not there.
    A library that does not load or lacks the kernel (corrupt, truncated) is removed: it is
    built again. UnsafeCacheError: the directory or the file is not private to this user."""
    dir_fd, real = _open_directory(directory)
    try:
        try:
            fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
        except FileNotFoundError:
            return None
        try:
            _check_private(fd, os.path.join(real, name), "library")
            try:
                library = _dlopen(fd, os.path.join(real, name))
                library["kernel"]
            except (OSError, AttributeError):
                with contextlib.suppress(OSError):
                    os.unlink(name, dir_fd=dir_fd)
                return None
            return library
        finally:
            os.close(fd)
    finally:
        os.close(dir_fd)


class _CompileFailed(Exception):
    pass


def _compile_into(directory: str, name: str, text: str, compiler: str, timeout: float):
    """Compiles `text` into library `name` of cache `directory` and loads it (a ctypes.CDLL).
    The library is written private (mode 0600 whatever the umask) in a scratch directory of our
    own, then renamed into place (atomic: another process may be making the same one).
    _CompileFailed: the compiler rejected it; OSError: the directory is unusable (full disk,
    not writable, not private: UnsafeCacheError); _CompilerTimedOut."""
    dir_fd, real = _open_directory(directory)
    scratch = f".build-{os.getpid()}-{threading.get_ident()}-{os.urandom(4).hex()}"
    os.mkdir(scratch, 0o700, dir_fd=dir_fd)
    try:
        scratch_fd = os.open(scratch, _DIRECTORY_FLAGS, dir_fd=dir_fd)
        try:
            _check_private(scratch_fd, os.path.join(real, scratch))
            source_fd = os.open(
                "k.c", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600, dir_fd=scratch_fd
            )
            with os.fdopen(source_fd, "w") as f:
                f.write(text)
            where = os.path.join(real, scratch)
            code, output = _run_compiler(
                [
                    compiler,
                    *_flags(text),
                    "-o",
                    os.path.join(where, "k.so"),
                    os.path.join(where, "k.c"),
                    "-lm",
                ],
                timeout,
            )
            if code != 0:
                raise _CompileFailed(output[-2000:])
            fd = os.open("k.so", _FILE_FLAGS, dir_fd=scratch_fd)
            try:
                os.fchmod(fd, 0o600)
                _check_private(fd, os.path.join(where, "k.so"), "library")
                os.replace("k.so", name, src_dir_fd=scratch_fd, dst_dir_fd=dir_fd)
                library = _dlopen(fd, os.path.join(real, name))
                library["kernel"]  # (AttributeError: not the library we compiled)
                return library
            finally:
                os.close(fd)
        finally:
            for leftover in ("k.c", "k.so"):
                with contextlib.suppress(OSError):
                    os.unlink(leftover, dir_fd=scratch_fd)
            os.close(scratch_fd)
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(scratch, dir_fd=dir_fd)
        os.close(dir_fd)


# -- builds: a library per kernel source, loaded from the cache or compiled in the background ----

_NEW, _PENDING, _READY, _FAILED = "new", "pending", "ready", "failed"
_lock = threading.Lock()  # guards _built and the builds' states (never held while compiling)
_built: dict[str, "_Build"] = {}


class _Build:
    """The library of one kernel source: loaded from the cache when it is there, else compiled on
    a thread of its own (the calls meanwhile run on NumPy's loops, see Kernel)."""

    def __init__(self, name: str, text: str, compiler: str):
        self.name, self.text, self.compiler = name, text, compiler
        self.state = _NEW
        self.loaded = None  # the ctypes.CDLL once ready
        self.done = threading.Event()
        self.problem = ""  # why it failed, for inspection

    def library(self):
        """The loaded library, or None (not yet, or never); starts the compile again in a child
        process whose parent forked while it was compiling."""
        if self.state == _READY:
            return self.loaded
        if self.state == _NEW:
            with _lock:
                if self.state == _NEW:
                    self._start()
        return None

    def _start(self) -> None:  # (under _lock)
        self.state = _PENDING
        thread = threading.Thread(target=self._compile, name="staging-kernel-compile", daemon=True)
        thread.start()

    def _from_cache(self) -> bool:  # (under _lock)
        for directory in _directories():
            try:
                library = _load_cached(directory, self.name)
            except OSError:  # (unusable or not private: the next)
                continue
            if library is not None:
                self.loaded, self.state = library, _READY
                self.done.set()
                return True
        return False

    def _compile(self) -> None:
        library, rejected = None, 0
        timeout = compile_timeout()
        directories = _directories()
        for directory in directories:
            try:
                library = _compile_into(directory, self.name, self.text, self.compiler, timeout)
                break
            except _CompilerTimedOut:
                self.problem = f"the compiler took more than {timeout:g} s"
                _give_up_compiler()
                break
            except _CompileFailed as exc:  # (a full disk fails the compiler too: the next)
                self.problem, rejected = str(exc), rejected + 1
            except (OSError, AttributeError) as exc:
                self.problem = str(exc)
        if rejected == len(directories):  # the compiler fails on plain C99 wherever it writes
            _give_up_compiler()
        with _lock:
            self.loaded = library
            self.state = _READY if library is not None else _FAILED
        self.done.set()


def _build(text: str):
    """The _Build of C source `text` (loaded, or compiling), or None: no compiler, or it failed."""
    compiler = _find_compiler()
    if not compiler:
        return None
    key = hashlib.sha256(
        "\0".join([text, *compiler, *_flags(text), platform.machine(), _cpu_identity()]).encode()
    ).hexdigest()[:32]
    with _lock:
        build = _built.get(key)
        if build is None:
            build = _built[key] = _Build(f"k{key}.so", text, compiler[0])
            if not build._from_cache():
                build._start()
        return None if build.state == _FAILED else build


def wait_for_kernels(timeout: float | None = None) -> bool:
    """Waits until no kernel is compiling (or `timeout` seconds); True when none is."""
    deadline = None if timeout is None else time.monotonic() + timeout
    for build in list(_built.values()):
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        if build.state != _NEW and not build.done.wait(left):
            return False
    return True


def _after_fork_in_child() -> None:
    """A compile thread does not survive fork(): the lock it may hold is made anew, and a build
    it was running starts again when a call asks for it."""
    global _lock
    _lock = threading.Lock()
    for build in _built.values():
        if build.state == _PENDING:
            build.state, build.done = _NEW, threading.Event()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def kernel(run, options: dict):
    """(Kernel, operand Values) for `run`, or None when it stays with NumPy's loops."""
    if not options["native_kernels"]:
        return None
    made = source(run)
    if made is None:
        return None
    text, operands = made
    build = _build(text)
    if build is None:
        return None
    n_arrays = len(run.inputs) + len(run.sliced) + len(run.broadcast)
    n_scalars = len(operands) - n_arrays - len(run.escaping)
    _, _, scalar_type = _C_TYPES[run.nodes[0].outputs[0].type.dtype]
    argtypes = (
        [ctypes.c_int64, ctypes.c_int64]
        + [ctypes.c_void_p] * n_arrays
        + [scalar_type] * n_scalars
        + [ctypes.c_void_p] * len(run.escaping)
    )
    row = 1 if run.mode == "flat" else math.prod(run.shape[1:])
    return Kernel(
        build,
        argtypes,
        n_arrays,
        n_scalars,
        options["threads"],
        -(-run.parallel_min_elements(options) // row),
        len(run.inputs),
    ), operands


def eligible(run, options: dict) -> bool:
    """`run` would be compiled (checked without compiling): worth fusing whatever its size."""
    return bool(options["native_kernels"]) and _find_compiler() != [] and source(run) is not None


__all__ = [
    "Kernel",
    "UnsafeCacheError",
    "cache_dir",
    "eligible",
    "kernel",
    "source",
    "wait_for_kernels",
]
