"""The operations compiled fused-run kernels are written with (runtime.native): each is one LLVM
instruction on numbers of one float type, so the kernel computes exactly the IEEE-754 operation
NumPy's loop computes, and nothing numba's typing of Python operators could add (a promotion to
float64, a division-by-zero check). And the CPU's floating-point exception flags, cleared
before a kernel's loop and read after it (libm's feclearexcept / fetestexcept, called from the
compiled code by name).

The generated kernels import this module as `_k` (the ops' `kernel_expr` templates name its
functions), in the compile process and in the process that loads them from numba's cache."""

from __future__ import annotations

import ctypes
import ctypes.util
import platform

import llvmlite.binding  # type: ignore[import-untyped]
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

# The <fenv.h> exception bits of the machines kernels are built for: (divide, over, under,
# invalid). What `fp_flags` returns is this machine's flags in one encoding: 1 divide by zero,
# 2 overflow, 4 underflow, 8 invalid (runtime.native reads them so).
_FE_BITS = {
    "x86_64": (0x04, 0x08, 0x10, 0x01),
    "amd64": (0x04, 0x08, 0x10, 0x01),
    "i386": (0x04, 0x08, 0x10, 0x01),
    "i686": (0x04, 0x08, 0x10, 0x01),
    "aarch64": (0x02, 0x04, 0x08, 0x01),
    "arm64": (0x02, 0x04, 0x08, 0x01),
}
if platform.machine().lower() not in _FE_BITS:
    raise ImportError(f"no floating-point flag layout known for {platform.machine()!r}")
FE_BITS = _FE_BITS[platform.machine().lower()]


def _register_fenv() -> None:
    """Makes feclearexcept / fetestexcept known to numba's JIT linker by name: the machine code
    (freshly compiled or loaded from the cache) calls them through the process's libm."""
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    for name in ("feclearexcept", "fetestexcept"):
        address = ctypes.cast(getattr(libm, name), ctypes.c_void_p).value
        llvmlite.binding.add_symbol(name, address)


_register_fenv()

_I32 = ir.IntType(32)


def _fenv_call(builder, name: str, mask: int):
    function = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_I32, [_I32]), name)
    return builder.call(function, [ir.Constant(_I32, mask)])


@intrinsic
def clear_fp_flags(typingctx):
    """Clears this thread's floating-point exception flags."""

    def codegen(context, builder, signature, args):
        return _fenv_call(builder, "feclearexcept", sum(FE_BITS))

    return types.int32(), codegen


@intrinsic
def fp_flags(typingctx):
    """This thread's floating-point exception flags raised since clear_fp_flags(): 1 divide by
    zero, 2 overflow, 4 underflow, 8 invalid."""

    def codegen(context, builder, signature, args):
        raised = _fenv_call(builder, "fetestexcept", sum(FE_BITS))
        result = ir.Constant(_I32, 0)
        for ours, bit in zip((1, 2, 4, 8), FE_BITS):
            hit = builder.icmp_unsigned("!=", builder.and_(raised, ir.Constant(_I32, bit)), _I32(0))
            result = builder.or_(result, builder.select(hit, _I32(ours), _I32(0)))
        return result

    return types.int32(), codegen


def _binary(instruction: str):
    def typer(typingctx, a, b):
        if not isinstance(a, types.Float) or a != b:
            return None

        def codegen(context, builder, signature, args):
            return getattr(builder, instruction)(args[0], args[1])

        return a(a, b), codegen

    return intrinsic(typer)


add = _binary("fadd")
subtract = _binary("fsub")
multiply = _binary("fmul")
divide = _binary("fdiv")


def _unary(make):
    def typer(typingctx, a):
        if not isinstance(a, types.Float):
            return None

        def codegen(context, builder, signature, args):
            return make(builder, args[0])

        return a(a), codegen

    return intrinsic(typer)


def _llvm_intrinsic(name: str):
    def make(builder, x):
        return builder.call(builder.module.declare_intrinsic(name, [x.type]), [x])

    return make


@intrinsic
def negative(typingctx, a, minus_zero):
    """-a, NaNs included (the sign bit flipped), as an exclusive or with the sign bit of
    `minus_zero` (-0.0, a kernel argument): LLVM does not see a negation, which it would fold
    into the next op (`-x + y` into `y - x`, which keeps a NaN x's sign)."""
    if not isinstance(a, types.Float) or a != minus_zero:
        return None

    def codegen(context, builder, signature, args):
        bits = ir.IntType(a.bitwidth)
        flipped = builder.xor(builder.bitcast(args[0], bits), builder.bitcast(args[1], bits))
        return builder.bitcast(flipped, args[0].type)

    return a(a, a), codegen


sqrt = _unary(_llvm_intrinsic("llvm.sqrt"))
absolute = _unary(_llvm_intrinsic("llvm.fabs"))
reciprocal = _unary(lambda builder, x: builder.fdiv(ir.Constant(x.type, 1.0), x))


def _pick(order: str):
    """NumPy's maximum / minimum on two numbers: the first where it is NaN or strictly beyond
    the second (`order`: ">" or "<"), else the second (a NaN of either comes out, and of two
    equal zeros the second). Written without an ordered float comparison, which x86 makes a
    signalling one (raising "invalid" on a NaN operand, where NumPy's loop raises nothing): the
    order is that of the integers whose bits are the floats' with the magnitude's bits flipped
    for negative numbers, and the quiet tests `uno` and `une` take out NaNs and equal values
    (0.0 and -0.0 are ordered so, but are equal)."""

    def typer(typingctx, a, b):
        if not isinstance(a, types.Float) or a != b:
            return None

        def codegen(context, builder, signature, args):
            x, y = args
            bits = ir.IntType(a.bitwidth)
            magnitude = ir.Constant(bits, (1 << (a.bitwidth - 1)) - 1)

            def key(v):
                raw = builder.bitcast(v, bits)
                sign = builder.ashr(raw, ir.Constant(bits, a.bitwidth - 1))
                return builder.xor(raw, builder.and_(sign, magnitude))

            beyond = builder.and_(
                builder.icmp_signed(order, key(x), key(y)),
                builder.and_(
                    builder.fcmp_unordered("!=", x, y),
                    builder.not_(builder.fcmp_unordered("uno", y, y)),
                ),
            )
            nan = builder.fcmp_unordered("uno", x, x)
            return builder.select(builder.or_(nan, beyond), x, y)

        return a(a, b), codegen

    return intrinsic(typer)


maximum = _pick(">")
minimum = _pick("<")
