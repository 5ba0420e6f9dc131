"""Vector-Jacobian products of NumPy's elementwise functions (OpDef.vjp of the ufunc ops).

A rule is `vjp(ctx, g, out, *inputs) -> one cotangent per input` (None: none flows there). It
computes with NumPy's functions and operators on whatever it is given: symbolic tensors while a
gradient is traced (so the gradient is a graph, and can be differentiated again). `ctx`
(staging.gradients.rules.RuleContext) undoes broadcasts (`ctx.sum_to`), records graph ops, and
says which inputs want a cotangent (`ctx.wants(i)`: a rule computes only those, so that no
term the gradient does not need can warn or make a NaN).

Functions that are piecewise constant (floor, sign, comparisons...) have a zero derivative
wherever they have one; their rule gives zeros, as JAX does. Ties of maximum/minimum split the
cotangent in two, as JAX does.

Complex values follow JAX's convention: the cotangent `g` of a complex value w stands for the
real linear form dw -> Re(g dw). So a holomorphic f (exp, log, sin, multiply, matmul...) has
the rule g * f'(z), the same formula as for reals (no conjugate); conj gives conj(g); real(z)
gives g, imag(z) gives -1j g, abs(z) gives g conj(z) / |z|; a real input's cotangent is the
real part of the complex one (staging.gradients takes it). Functions that order values
(maximum, sign, clip, max...) are refused on complex values (`ctx.real_only`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np


def _unary(derivative):
    """The rule of f(x) whose derivative is `derivative(x, out)`."""

    def vjp(ctx, g, out, x):
        return (g * derivative(x, out),)

    return vjp


def _guarded(derivative, safe_x, safe_out):
    """The rule of f(x) whose derivative is infinite somewhere f is finite (sqrt at 0, log at
    0): where the cotangent is exactly zero (the side of a `where` not taken), the derivative
    is taken at a harmless point instead, so that 0 * inf makes no NaN (and no warning)."""

    def vjp(ctx, g, out, x):
        unused = g == 0
        x = np.where(unused, safe_x, x)
        out = np.where(unused, safe_out, out)
        return (g * derivative(x, out),)

    return vjp


def _zero(ctx, g, out, *inputs):
    return tuple(ctx.zeros_like(x) if ctx.wants(i) else None for i, x in enumerate(inputs))


def _two(dx, dy):
    """The rule of f(x, y) with partial derivatives dx(x, y, out), dy(x, y, out), each
    computed only when its input wants a cotangent, and summed back over broadcast axes."""

    def vjp(ctx, g, out, x, y):
        gx = ctx.sum_to(g * dx(x, y, out), x) if ctx.wants(0) else None
        gy = ctx.sum_to(g * dy(x, y, out), y) if ctx.wants(1) else None
        return gx, gy

    return vjp


def _add(ctx, g, out, x, y):
    return (ctx.sum_to(g, x) if ctx.wants(0) else None, ctx.sum_to(g, y) if ctx.wants(1) else None)


def _subtract(ctx, g, out, x, y):
    return (ctx.sum_to(g, x) if ctx.wants(0) else None, ctx.sum_to(-g, y) if ctx.wants(1) else None)


def _multiply(ctx, g, out, x, y):
    return (
        ctx.sum_to(g * y, x) if ctx.wants(0) else None,
        ctx.sum_to(g * x, y) if ctx.wants(1) else None,
    )


def _divide(ctx, g, out, x, y):
    # (a zero cotangent against a zero divisor gives zero: the side of a `where` not taken)
    unused = g == 0
    divisor = np.where(unused, 1.0, y)
    return (
        ctx.sum_to(g / divisor, x) if ctx.wants(0) else None,
        ctx.sum_to(-g * np.where(unused, 0.0, out) / divisor, y) if ctx.wants(1) else None,
    )


def _power(ctx, g, out, x, y):
    gx = gy = None
    if ctx.wants(0):
        gx = ctx.sum_to(g * y * np.power(x, y - 1), x)
    if ctx.wants(1):
        # x ** y = exp(y log x): where x is 0 the derivative in y is 0 (JAX's convention)
        safe = np.where(x == 0, 1.0, x)
        if ctx.is_complex(out) and not ctx.is_complex(x):  # (a real x < 0: its complex log)
            safe = safe + 0j
        gy = ctx.sum_to(g * np.where(x == 0, 0.0, out * np.log(safe)), y)
    return gx, gy


def _split(pick_x):
    """maximum/minimum: the cotangent goes to the input chosen; a tie splits it in two."""

    def vjp(ctx, g, out, x, y):
        ctx.real_only(x, "a maximum or minimum")
        ctx.real_only(y, "a maximum or minimum")
        chosen_x = pick_x(x, y)
        tie = x == y
        weight = np.where(tie, 0.5, np.where(chosen_x, 1.0, 0.0))
        gx = ctx.sum_to(g * weight, x) if ctx.wants(0) else None
        gy = ctx.sum_to(g * (1.0 - weight), y) if ctx.wants(1) else None
        return gx, gy

    return vjp


def _matmul(ctx, g, out, x, y):
    """out = x @ y, with NumPy's rules for 1-d operands and broadcast batch dimensions."""
    xd, yd = ctx.ndim(x), ctx.ndim(y)
    gx = gy = None
    if xd == 1 and yd == 1:
        gx = g * y if ctx.wants(0) else None
        gy = g * x if ctx.wants(1) else None
        return gx, gy
    if ctx.wants(0):
        if yd == 1:
            gx = g[..., None] * y
        elif xd == 1:
            gx = ctx.sum_to(np.matmul(y, g[..., None])[..., 0], x)
        else:
            gx = ctx.sum_to(np.matmul(g, np.swapaxes(y, -1, -2)), x)
    if ctx.wants(1):
        if xd == 1:
            gy = ctx.sum_to(x[:, None] * g[..., None, :], y)
        elif yd == 1:
            gy = ctx.sum_to(np.matmul(np.swapaxes(x, -1, -2), g[..., None])[..., 0], y)
        else:
            gy = ctx.sum_to(np.matmul(np.swapaxes(x, -1, -2), g), y)
    return gx, gy


def _remainder(ctx, g, out, x, y):
    return (
        ctx.sum_to(g, x) if ctx.wants(0) else None,
        ctx.sum_to(-g * np.floor_divide(x, y), y) if ctx.wants(1) else None,
    )


def _fmod(ctx, g, out, x, y):
    return (
        ctx.sum_to(g, x) if ctx.wants(0) else None,
        ctx.sum_to(-g * np.trunc(x / y), y) if ctx.wants(1) else None,
    )


def _absolute(ctx, g, out, x):
    """|x|: sign(x) (0 at 0); for a complex z, conj(z) / |z| (0 at 0)."""
    if not ctx.is_complex(x):
        return (g * np.sign(x),)
    safe = np.where(out == 0, 1.0, out)
    # (each part divided by the real |z|: a complex division would round 3 / 5 otherwise)
    return (g * (np.real(x) / safe - 1j * (np.imag(x) / safe)),)


def _sign(ctx, g, out, x):
    ctx.real_only(x, "np.sign")  # (z / |z| is not constant: JAX's zero would be wrong)
    return _zero(ctx, g, out, x)


def _arccosh(ctx, g, out, x):
    if not ctx.is_complex(x):
        return _guarded(lambda x, out: 1.0 / np.sqrt(x * x - 1.0), 2.0, 1.0)(ctx, g, out, x)
    # (on the complex plane, 1 / sqrt(z^2 - 1) has the wrong sign where Re z < 0)
    unused = g == 0
    x = np.where(unused, 2.0, x)
    return (g / (np.sqrt(x - 1.0) * np.sqrt(x + 1.0)),)


def _real(ctx, g, out, x):
    return (g,)


def _imag(ctx, g, out, x):
    if not ctx.is_complex(x):
        return (ctx.zeros_like(x),)
    return (-1j * g,)


def _angle(ctx, g, out, x, deg=False):
    """arg z = Im log z: -1j g / z (0 at 0); piecewise constant on the reals."""
    if not ctx.is_complex(x):
        return (ctx.zeros_like(x),)
    unused = (g == 0) | (x == 0)
    scale = 180.0 / math.pi if deg else 1.0
    return (np.where(unused, 0.0, -1j * scale * g / np.where(unused, 1.0, x)),)


def _modf(ctx, g, out, x):
    fraction, _ = g
    return (fraction if fraction is not None else ctx.zeros_like(x),)


_LN2 = math.log(2.0)
_LN10 = math.log(10.0)

RULES: dict[str, Callable] = {
    "add": _add,
    "subtract": _subtract,
    "multiply": _multiply,
    "mul": _multiply,
    "divide": _divide,
    "power": _power,
    "pow": _power,
    "float_power": _power,
    "matmul": _matmul,
    "maximum": _split(lambda x, y: x > y),
    "minimum": _split(lambda x, y: x < y),
    "fmax": _split(lambda x, y: (x > y) | np.isnan(y)),
    "fmin": _split(lambda x, y: (x < y) | np.isnan(y)),
    "remainder": _remainder,
    "fmod": _fmod,
    "modf": _modf,
    "negative": lambda ctx, g, out, x: (-g,),
    "positive": lambda ctx, g, out, x: (g,),
    "conjugate": lambda ctx, g, out, x: (np.conjugate(g),),
    "absolute": _absolute,
    "fabs": _unary(lambda x, out: np.sign(x)),
    "exp": _unary(lambda x, out: out),
    "exp2": _unary(lambda x, out: out * _LN2),
    "expm1": _unary(lambda x, out: out + 1.0),
    "log": _guarded(lambda x, out: 1.0 / x, 1.0, 0.0),
    "log2": _guarded(lambda x, out: 1.0 / (x * _LN2), 1.0, 0.0),
    "log10": _guarded(lambda x, out: 1.0 / (x * _LN10), 1.0, 0.0),
    "log1p": _guarded(lambda x, out: 1.0 / (x + 1.0), 0.0, 0.0),
    "sqrt": _guarded(lambda x, out: 0.5 / out, 1.0, 1.0),
    "cbrt": _guarded(lambda x, out: 1.0 / (3.0 * out * out), 1.0, 1.0),
    "square": _unary(lambda x, out: 2.0 * x),
    "reciprocal": _guarded(lambda x, out: -(out * out), 1.0, 1.0),
    "sin": _unary(lambda x, out: np.cos(x)),
    "cos": _unary(lambda x, out: -np.sin(x)),
    "tan": _unary(lambda x, out: 1.0 + out * out),
    "arcsin": _guarded(lambda x, out: 1.0 / np.sqrt(1.0 - x * x), 0.0, 0.0),
    "arccos": _guarded(lambda x, out: -1.0 / np.sqrt(1.0 - x * x), 0.0, 0.0),
    "arctan": _unary(lambda x, out: 1.0 / (1.0 + x * x)),
    "sinh": _unary(lambda x, out: np.cosh(x)),
    "cosh": _unary(lambda x, out: np.sinh(x)),
    "tanh": _unary(lambda x, out: 1.0 - out * out),
    "arcsinh": _unary(lambda x, out: 1.0 / np.sqrt(x * x + 1.0)),
    "arccosh": _arccosh,
    "arctanh": _guarded(lambda x, out: 1.0 / (1.0 - x * x), 0.0, 0.0),
    "deg2rad": _unary(lambda x, out: math.pi / 180.0),
    "radians": _unary(lambda x, out: math.pi / 180.0),
    "rad2deg": _unary(lambda x, out: 180.0 / math.pi),
    "degrees": _unary(lambda x, out: 180.0 / math.pi),
    "arctan2": _two(lambda y, x, out: x / (x * x + y * y), lambda y, x, out: -y / (x * x + y * y)),
    "hypot": _two(lambda x, y, out: x / out, lambda x, y, out: y / out),
    "logaddexp": _two(lambda x, y, out: np.exp(x - out), lambda x, y, out: np.exp(y - out)),
    "logaddexp2": _two(lambda x, y, out: np.exp2(x - out), lambda x, y, out: np.exp2(y - out)),
    "copysign": _two(lambda x, y, out: np.sign(x) * np.sign(out), lambda x, y, out: 0.0 * x),
    "ldexp": _two(lambda x, y, out: np.exp2(y), lambda x, y, out: 0.0 * x),
}
for _name in (
    "floor ceil rint trunc fix heaviside nextafter spacing floor_divide "
    "isfinite isinf isnan signbit"
).split():
    RULES[_name] = _zero
del _name
RULES["sign"] = _sign
# np.real, np.imag (ops of their own) and np.angle
PART_RULES: dict[str, Callable] = {"real": _real, "imag": _imag}
ANGLE_RULES: dict[str, Callable] = {"angle": _angle}
