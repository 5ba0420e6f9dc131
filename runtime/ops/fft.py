"""Discrete Fourier transforms (np.fft): one op per function, NumPy's kernel, dtypes and sizes."""

from __future__ import annotations

import numpy as np

from ..registry import add_vjps
from . import fft_derivatives
from ._calls import register_call, same_shape, stand_in
from ._rules import as_index, normalize_axis


def _probe(*types, **attrs):
    # length-2 stand-ins: irfft/hfft of a length-1 axis would ask for 0 output points
    return [stand_in(t, dim=2) for t in types]


def _points(n, what="n"):
    n = as_index(n, what)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return n


def _half(d):
    return None if d is None else d // 2 + 1


def _back(d):
    return None if d is None else 2 * (d - 1)


# output length along the transformed axis from (input length, n) for each 1-d transform
_LENGTH = {
    "fft": lambda d, n: d if n is None else n,
    "ifft": lambda d, n: d if n is None else n,
    "rfft": lambda d, n: _half(d if n is None else n),
    "ihfft": lambda d, n: _half(d if n is None else n),
    "irfft": lambda d, n: _back(d) if n is None else n,
    "hfft": lambda d, n: _back(d) if n is None else n,
}


def _one_axis_shape(kind):
    def shape(a, n=None, axis=-1, norm=None):
        if not a:
            raise ValueError("Invalid number of FFT data points (0) specified.")  # a 0-d input
        axis = normalize_axis(axis, len(a))
        if n is not None:
            n = _points(n)
        out = list(a)
        out[axis] = _LENGTH[kind](a[axis], n)
        if out[axis] is not None and out[axis] < 1:
            raise ValueError(f"Invalid number of FFT data points ({out[axis]}) specified.")
        return tuple(out)

    return shape


def _many_axes_shape(kind, default_axes=None):
    """fftn-style transforms over `axes` (all, or the last len(s), or `default_axes`)."""

    def shape(a, s=None, axes=None, norm=None):
        ndim = len(a)
        if axes is None:
            if s is not None:
                axes = tuple(range(ndim - len(s), ndim))
            else:
                axes = default_axes if default_axes is not None else tuple(range(ndim))
        axes = tuple(normalize_axis(ax, ndim) for ax in axes)
        if s is not None and len(s) != len(axes):
            raise ValueError("Shape and axes have different lengths.")
        # (s[i] == -1: the input's length along the axis, for irfftn's last axis too)
        sizes = [
            None if s is None else a[axes[i]] if s[i] == -1 else _points(s[i], "s")
            for i in range(len(axes))
        ]
        out = list(a)
        for i, ax in enumerate(axes):
            last = i == len(axes) - 1
            if kind == "r" and last:
                out[ax] = _half(a[ax] if sizes[i] is None else sizes[i])
            elif kind == "ir" and last:
                out[ax] = _back(a[ax]) if s is None else sizes[i]
            else:
                out[ax] = a[ax] if sizes[i] is None else sizes[i]
        return tuple(out)

    return shape


for _name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
    register_call(f"fft.{_name}", getattr(np.fft, _name), _one_axis_shape(_name), probe=_probe)

for _name, _kind in (("fftn", "c"), ("ifftn", "c"), ("rfftn", "r"), ("irfftn", "ir")):
    register_call(f"fft.{_name}", getattr(np.fft, _name), _many_axes_shape(_kind), probe=_probe)
    _two = _name[:-1] + "2"
    register_call(
        f"fft.{_two}", getattr(np.fft, _two), _many_axes_shape(_kind, (-2, -1)), probe=_probe
    )

for _name in ("fftshift", "ifftshift"):
    register_call(f"fft.{_name}", getattr(np.fft, _name), same_shape)
del _name
add_vjps(fft_derivatives.RULES)
