"""Vector-Jacobian products of np.fft (OpDef.vjp; the rule convention, and JAX's for complex
values, is runtime.ops.ufunc_derivatives').

Every transform is linear, so its rule is its transpose (not its conjugate transpose: JAX's
convention), written with the transforms themselves (a gradient is differentiable again):
- fft, ifft: the DFT matrix is symmetric, so the transpose of a transform is the same
  transform, with the same `norm`. `n=` crops or zero-pads the input first; the transpose of
  that zero-pads or crops the cotangent back to the input's length.
- rfft: the first n // 2 + 1 rows of the fft of a real input: the fft of the cotangent
  zero-padded to n, its real part (the input is real).
- irfft (a Hermitian spectrum to n real points): the ifft of the cotangent, its first
  n // 2 + 1 points, doubled except the first (and the last for an even n), whose mirror
  images are not in the input. (The imaginary parts irfft ignores get a zero cotangent.)
- hfft is irfft(conj(a)) and ihfft conj(rfft(a)), each with the other direction's `norm`.
- fftn, ifftn, rfftn, irfftn and the 2-d ones are 1-d transforms along their axes, one after
  the other; their transpose applies the 1-d rules in the reverse order.
- fftshift and ifftshift are permutations: each one's transpose is the other.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

_SWAP = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def _known(ctx, d, what: str) -> int:
    """A length the rule needs while tracing (d: None where known only when the graph runs)."""
    if d is None:
        ctx.unsupported(f"{what} along an axis whose length is known only when the graph runs")
    return d


def _resized(ctx, g, axis: int, length: int):
    """g cropped, or zero-padded at the end, along `axis` to `length` points (the transpose of
    the cropping or padding `n=` made forward)."""
    shape = tuple(_known(ctx, ctx.static_dim(g, i), "np.fft with n=") for i in range(ctx.ndim(g)))
    have = shape[axis]
    if have == length:
        return g
    if have > length:
        return g[(slice(None),) * axis + (slice(0, length),)]
    pad = shape[:axis] + (length - have,) + shape[axis + 1 :]
    return np.concatenate([g, np.zeros(pad, ctx.gradient_dtype(g))], axis=axis)


def _c2c_vjp(ctx, name: str, g, d, n, axis: int, norm):
    """fft / ifft along `axis` of d points cropped or padded to n: the same transform of g,
    back to d points."""
    ct = getattr(np.fft, name)(g, axis=axis, norm=norm)
    if n is None:
        return ct
    return _resized(ctx, ct, axis, _known(ctx, d, f"np.fft.{name}"))


def _rfft_vjp(ctx, g, d, n, axis: int, norm):
    d = _known(ctx, d, "np.fft.rfft")
    points = d if n is None else n
    ct = np.real(np.fft.fft(g, n=points, axis=axis, norm=norm))  # (g zero-padded to n points)
    return _resized(ctx, ct, axis, d)


def _irfft_vjp(ctx, g, m, n, axis: int, norm):
    m = _known(ctx, m, "np.fft.irfft")
    points = 2 * (m - 1) if n is None else n
    half = points // 2 + 1
    ct = np.fft.ifft(g, axis=axis, norm=norm)[(slice(None),) * axis + (slice(0, half),)]
    weight = np.full(half, 2.0)
    weight[0] = 1.0
    if points % 2 == 0:
        weight[-1] = 1.0
    ct = ct * weight.reshape((half,) + (1,) * (ctx.ndim(g) - 1 - axis))
    return _resized(ctx, ct, axis, m)


def _one_axis_vjp(ctx, name: str, g, d, n, axis: int, norm):
    """The transpose of the 1-d transform `name` (of d points along `axis`, n= n) applied to
    g."""
    if name in ("fft", "ifft"):
        return _c2c_vjp(ctx, name, g, d, n, axis, norm)
    if name == "rfft":
        return _rfft_vjp(ctx, g, d, n, axis, norm)
    if name == "irfft":
        return _irfft_vjp(ctx, g, d, n, axis, norm)
    if name == "hfft":  # irfft(conj(x), n, swapped norm)
        return np.conjugate(_irfft_vjp(ctx, g, d, n, axis, _SWAP[norm]))
    # ihfft: conj(rfft(x, n, swapped norm))
    return _rfft_vjp(ctx, np.conjugate(g), d, n, axis, _SWAP[norm])


def _one_axis(name: str) -> Callable:
    def vjp(ctx, g, out, x, n=None, axis=-1, norm=None):
        axis = axis % ctx.ndim(x)
        return (_one_axis_vjp(ctx, name, g, ctx.static_dim(x, axis), n, axis, norm),)

    return vjp


def _planned(ctx, x, s, axes, inverse_real: bool) -> list:
    """The (axis, n) of each 1-d transform of fftn-style transforms, in NumPy's order of
    arguments (numpy.fft's _cook_nd_args): the axes given, or the last len(s), or all."""
    nd = ctx.ndim(x)
    if axes is None:
        axes = tuple(range(nd - len(s), nd)) if s is not None else tuple(range(nd))
    axes = [a % nd for a in axes]
    if s is None:
        sizes: list = [None] * len(axes)
    else:
        sizes = [ctx.static_dim(x, a) if d == -1 else d for d, a in zip(s, axes)]
    if inverse_real and s is None and axes:
        sizes[-1] = 2 * (_known(ctx, ctx.static_dim(x, axes[-1]), "np.fft.irfftn") - 1)
    return list(zip(axes, sizes))


def _many_axes(kind: str, default_axes=None) -> Callable:
    """fftn ("fft"), ifftn ("ifft"), rfftn ("rfft": rfft along the last axis first, then
    fft), irfftn ("irfft": ifft along the others first, then irfft along the last)."""

    def vjp(ctx, g, out, x, s=None, axes=None, norm=None):
        plan = _planned(ctx, x, s, axes if axes is not None else default_axes, kind == "irfft")
        if kind == "rfft":  # forward: rfft of the last axis, then fft of the others
            steps = [("rfft", *plan[-1])] + [("fft", *p) for p in reversed(plan[:-1])]
        elif kind == "irfft":  # forward: ifft of the others, then irfft of the last axis
            steps = [("ifft", *p) for p in plan[:-1]] + [("irfft", *plan[-1])]
        else:
            steps = [(kind, *p) for p in reversed(plan)]
        lengths = _lengths_given(ctx, x, steps)
        for (name, axis, n), d in reversed(list(zip(steps, lengths))):
            g = _one_axis_vjp(ctx, name, g, d, n, axis, norm)
        return (g,)

    return vjp


def _lengths_given(ctx, x, steps: list) -> list:
    """The length along its axis of what each 1-d transform of a multi-axis one was given
    (None where known only when the graph runs)."""
    shape = [ctx.static_dim(x, i) for i in range(ctx.ndim(x))]
    found = []
    for name, axis, n in steps:
        d = shape[axis]
        found.append(d)
        if name == "rfft":
            shape[axis] = None if n is None and d is None else (d if n is None else n) // 2 + 1
        elif name == "irfft":
            shape[axis] = n if n is not None else (None if d is None else 2 * (d - 1))
        else:
            shape[axis] = d if n is None else n
    return found


def _shift(inverse: str) -> Callable:
    def vjp(ctx, g, out, x, axes=None):
        return (getattr(np.fft, inverse)(g, axes=axes),)

    return vjp


RULES: dict[str, Callable] = {
    **{
        f"fft.{name}": _one_axis(name) for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
    },
    "fft.fftn": _many_axes("fft"),
    "fft.ifftn": _many_axes("ifft"),
    "fft.rfftn": _many_axes("rfft"),
    "fft.irfftn": _many_axes("irfft"),
    "fft.fft2": _many_axes("fft", (-2, -1)),
    "fft.ifft2": _many_axes("ifft", (-2, -1)),
    "fft.rfft2": _many_axes("rfft", (-2, -1)),
    "fft.irfft2": _many_axes("irfft", (-2, -1)),
    "fft.fftshift": _shift("ifftshift"),
    "fft.ifftshift": _shift("fftshift"),
}
