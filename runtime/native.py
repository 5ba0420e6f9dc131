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
"""

from __future__ import annotations

import ctypes
import hashlib
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading

import numpy as np

from .graph import Value
from .parallel import run_parts
from .registry import get_op

_C_TYPES = {
    np.dtype(np.float32): ("float", "f", ctypes.c_float),
    np.dtype(np.float64): ("double", "", ctypes.c_double),
}
# the flags the kernel returns, by np.errstate category
_FLAGS = (("divide", 1), ("over", 2), ("under", 4), ("invalid", 8))
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
        operands = []
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
                if numbers[key] is None:
                    return None
                operands.append(numbers[key])
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
    ufuncs), True otherwise. operands: the arrays, 0-d values and output arrays of source()."""

    def __init__(
        self,
        function,
        n_arrays: int,
        scalar_type,
        n_scalars: int,
        threads: int,
        split_min: int,
        checked_from: int,
    ):
        self.function = function
        self.n_arrays, self.scalar_type, self.n_scalars = n_arrays, scalar_type, n_scalars
        self.threads, self.split_min = threads, split_min
        self.checked_from = checked_from  # the arrays from here on are not in the caller's guard

    def __call__(self, n, *operands) -> bool:
        for a in operands[self.checked_from : self.n_arrays]:
            if type(a) is not np.ndarray or not a.flags.c_contiguous:
                return False  # (NumPy's loops read any layout)
        args = [a.ctypes.data for a in operands[: self.n_arrays]]
        args += [
            self.scalar_type(float(s))
            for s in operands[self.n_arrays : self.n_arrays + self.n_scalars]
        ]
        args += [a.ctypes.data for a in operands[self.n_arrays + self.n_scalars :]]
        function = self.function
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


_lock = threading.Lock()
_compiler: list | None = None  # [command, identity] once looked for; [] when there is none
_built: dict[str, object] = {}


def _find_compiler() -> list:
    global _compiler
    if _compiler is None:
        found = []
        for name in filter(None, (os.environ.get("CC"), "cc", "gcc", "clang")):
            path = shutil.which(name)
            if path is None or sys.platform == "win32":
                continue
            try:
                version = subprocess.run(
                    [path, "--version"], capture_output=True, text=True, timeout=30
                )
            except (OSError, subprocess.SubprocessError):
                continue
            if version.returncode == 0:
                found = [path, version.stdout.splitlines()[0] if version.stdout else path]
                break
        _compiler = found
    return _compiler


def _cpu_identity() -> str:
    try:
        with open("/proc/cpuinfo") as info:
            return next((line for line in info if line.startswith(("flags", "Features"))), "")
    except OSError:
        return platform.processor()


def cache_dir() -> str:
    """Where compiled kernels are kept: $STAGING_KERNEL_CACHE, else the user's cache directory."""
    explicit = os.environ.get("STAGING_KERNEL_CACHE")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "staging-kernels")


def _build(text: str):
    """The kernel function compiled from C source `text`, or None (no compiler, or it failed)."""
    compiler = _find_compiler()
    if not compiler:
        return None
    key = hashlib.sha256(
        "\0".join([text, *compiler, *_CFLAGS, platform.machine(), _cpu_identity()]).encode()
    ).hexdigest()[:32]
    with _lock:
        if key in _built:
            return _built[key]
        function = None
        for directory in (
            cache_dir(),
            os.path.join(tempfile.gettempdir(), f"staging-kernels-{os.getuid()}"),
        ):
            try:
                function = _load(directory, f"k{key}", text, compiler[0])
                break
            except (OSError, subprocess.SubprocessError):  # (an unwritable cache: the next)
                continue
        else:
            function = None
        if function is None:  # the compiler failed on plain C99: do not try it again
            global _compiler
            _compiler = []
        _built[key] = function
        return function


def _load(directory: str, name: str, text: str, compiler: str):
    """The kernel of library `name` in `directory`, compiled from `text` first when missing;
    None when the compiler rejects it."""
    os.makedirs(directory, mode=0o700, exist_ok=True)
    info = os.stat(directory)
    if info.st_uid != os.getuid() or info.st_mode & 0o022:  # nobody else may plant a library
        raise PermissionError(f"{directory} is not private to this user")
    library = os.path.join(directory, f"{name}.so")
    if not os.path.exists(library):
        with tempfile.TemporaryDirectory(dir=directory) as scratch:
            src, out = os.path.join(scratch, "k.c"), os.path.join(scratch, "k.so")
            with open(src, "w") as f:
                f.write(text)
            done = subprocess.run(
                [compiler, *_CFLAGS, "-o", out, src, "-lm"],
                capture_output=True,
                text=True,
                timeout=300,
            )
            if done.returncode != 0:
                return None
            os.replace(out, library)  # atomic: another process may be making the same one
    function = ctypes.CDLL(library).kernel
    function.restype = ctypes.c_int
    return function


def kernel(run, options: dict):
    """(Kernel, operand Values) for `run`, or None when it stays with NumPy's loops."""
    if not options["native_kernels"]:
        return None
    made = source(run)
    if made is None:
        return None
    text, operands = made
    function = _build(text)
    if function is None:
        return None
    n_arrays = len(run.inputs) + len(run.sliced) + len(run.broadcast)
    n_scalars = len(operands) - n_arrays - len(run.escaping)
    _, _, scalar_type = _C_TYPES[run.nodes[0].outputs[0].type.dtype]
    function.argtypes = (
        [ctypes.c_int64, ctypes.c_int64]
        + [ctypes.c_void_p] * n_arrays
        + [scalar_type] * n_scalars
        + [ctypes.c_void_p] * len(run.escaping)
    )
    row = 1 if run.mode == "flat" else math.prod(run.shape[1:])
    return Kernel(
        function,
        n_arrays,
        scalar_type,
        n_scalars,
        options["threads"],
        -(-run.parallel_min_elements(options) // row),
        len(run.inputs),
    ), operands


def eligible(run, options: dict) -> bool:
    """`run` would be compiled (checked without compiling): worth fusing whatever its size."""
    return bool(options["native_kernels"]) and _find_compiler() != [] and source(run) is not None


__all__ = ["Kernel", "cache_dir", "eligible", "kernel", "source"]
