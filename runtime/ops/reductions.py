"""Reductions (sum, mean, max, argmax, std, ...), scans (cumsum, cumprod) and sorting."""

from __future__ import annotations

import functools

import numpy as np

from ..registry import add_vjps, register_op
from ..types import TensorType
from . import _jax_forms, reduction_derivatives
from ._rules import (
    check_type,
    dummy,
    known_prod,
    normalize_axes,
    normalize_axis,
    result_dtype,
    shape_of,
    zero_of_either_sign,
)

# op name -> (NumPy function, accepts dtype=, accepts ddof=, needs a non-empty reduced axis)
REDUCTIONS = {
    "sum": (np.sum, True, False, False),
    "prod": (np.prod, True, False, False),
    "mean": (np.mean, True, False, False),
    "max": (np.max, False, False, True),
    "min": (np.min, False, False, True),
    "argmax": (np.argmax, False, False, True),
    "argmin": (np.argmin, False, False, True),
    "any": (np.any, False, False, False),
    "all": (np.all, False, False, False),
    "std": (np.std, True, True, False),
    "var": (np.var, True, True, False),
}

# op name -> (its nopython form, the dtype kinds on which numba computes NumPy's result bit for
# bit: OpDef.numba_expr, numba_kinds): not a float sum (NumPy's is pairwise); a float max or min
# of a zero (whose sign NumPy's loops may pick otherwise) the numba backend reruns
_NUMBA = {
    "sum": ("np.sum({0})", "iub"),
    "max": ("np.max({0})", "iubf"),
    "min": ("np.min({0})", "iubf"),
    "any": ("np.any({0})", "iubf"),
    "all": ("np.all({0})", "iubf"),
}

_EMPTY_MESSAGES = {
    "max": "zero-size array to reduction operation maximum which has no identity",
    "min": "zero-size array to reduction operation minimum which has no identity",
    "argmax": "attempt to get argmax of an empty sequence",
    "argmin": "attempt to get argmin of an empty sequence",
}


def reduced_shape(shape: tuple, axes: tuple, keepdims: bool) -> tuple:
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _out_dtype(node):
    return getattr(node.outputs[0].type, "dtype", None)


def _lower_sum(ctx, node, x, axis=None, dtype=None, keepdims=False):
    return _jax_forms.accumulated(
        ctx.jnp, ctx.jnp.sum, x, _out_dtype(node), axis=axis, keepdims=keepdims
    )


def _lower_prod(ctx, node, x, axis=None, dtype=None, keepdims=False):
    return _jax_forms.accumulated(
        ctx.jnp, ctx.jnp.prod, x, _out_dtype(node), axis=axis, keepdims=keepdims
    )


def _lower_mean(ctx, node, x, **attrs):
    return _jax_forms.mean(ctx.jnp, x, **attrs).astype(_out_dtype(node))


def _lower_var(ctx, node, x, **attrs):
    return _jax_forms.var(ctx.jnp, x, **attrs).astype(_out_dtype(node))


def _lower_std(ctx, node, x, **attrs):
    return ctx.jnp.sqrt(_jax_forms.var(ctx.jnp, x, **attrs)).astype(_out_dtype(node))


# the JAX lowerings that compute as NumPy's functions do (runtime/ops/_jax_forms.py); the other
# reductions are jax.numpy's function of their name
_LOWERINGS = {
    "sum": _lower_sum,
    "prod": _lower_prod,
    "mean": _lower_mean,
    "var": _lower_var,
    "std": _lower_std,
}


def _make_reduction(name, func, takes_dtype, takes_ddof, needs_elements):  # noqa: C901
    allowed = (
        {"axis", "keepdims"}
        | ({"dtype"} if takes_dtype else set())
        | ({"ddof"} if takes_ddof else set())
    )
    single_axis = name in ("argmax", "argmin")

    def check_attrs(attrs):
        unknown = set(attrs) - allowed
        if unknown:
            raise TypeError(
                f"{name} got unexpected attribute(s) {sorted(unknown)}; allowed: {sorted(allowed)}"
            )

    def infer(x, **attrs):
        check_attrs(attrs)
        check_type(x, f"{name} input")
        shape = shape_of(x)
        axis = attrs.get("axis")
        if single_axis and isinstance(axis, (tuple, list)):
            raise TypeError(f"{name}: axis must be an int or None, got {axis!r}")
        axes = normalize_axes(axis, len(shape))
        if needs_elements and any(shape[a] == 0 for a in axes):
            raise ValueError(_EMPTY_MESSAGES[name])
        keepdims = bool(attrs.get("keepdims", False))
        if single_axis and axis is None and keepdims:
            out_shape = (1,) * len(shape)
        else:
            out_shape = reduced_shape(shape, axes, keepdims)
        dtype = result_dtype(func, dummy(x, fill=1), **attrs)
        return TensorType(dtype, out_shape)

    def impl(x, **attrs):
        return func(x, **attrs)

    def make_kernel(**attrs):
        check_attrs(attrs)
        direct = _ufunc_reduction(name, attrs)
        if direct is not None:
            return direct
        if not attrs:
            return func
        return lambda x: func(x, **attrs)

    impl.__name__ = infer.__name__ = name
    register_op(
        name,
        infer=infer,
        make_kernel=make_kernel,
        numba_expr=_NUMBA.get(name, (None, ""))[0],
        numba_kinds=_NUMBA.get(name, (None, ""))[1],
        lower=_LOWERINGS.get(name),
        lower_suspect=zero_of_either_sign if name in ("max", "min") else None,
        doc=f"np.{func.__name__}",
    )(impl)


# Reductions that NumPy's function computes as ufunc.reduce(x, axis, dtype, keepdims=...) for
# an array, a NumPy scalar or a Python number alike (np.any/np.all with dtype=bool): the kernel
# calls that directly, skipping the function's Python-level dispatch (2x faster on small arrays).
_UFUNC_REDUCTIONS = {
    "sum": (np.add, None),
    "prod": (np.multiply, None),
    "max": (np.maximum, None),
    "min": (np.minimum, None),
    "any": (np.logical_or, bool),
    "all": (np.logical_and, bool),
}


def _ufunc_reduction(name, attrs):
    spec = _UFUNC_REDUCTIONS.get(name)
    if spec is None or not set(attrs) <= {"axis", "dtype", "keepdims"}:
        return None
    ufunc, dtype = spec
    return functools.partial(
        ufunc.reduce,
        axis=attrs.get("axis"),
        dtype=attrs.get("dtype", dtype),
        keepdims=bool(attrs.get("keepdims", False)),
    )


for _name, _spec in REDUCTIONS.items():
    _make_reduction(_name, *_spec)


# --- scans -----------------------------------------------------------------------------------


def _scan_infer(func):
    def infer(x, axis=None, dtype=None):
        check_type(x)
        shape = shape_of(x)
        if axis is None:
            out_shape = (known_prod(shape),)
        else:
            normalize_axis(axis, len(shape))
            out_shape = shape
        return TensorType(result_dtype(func, dummy(x, fill=1), axis=axis, dtype=dtype), out_shape)

    return infer


def _lower_scan(reduce_name):
    def lower(ctx, node, x, axis=None, dtype=None):
        jnp = ctx.jnp
        x = jnp.asarray(x).astype(_out_dtype(node))
        if axis is None:
            x, axis = jnp.ravel(x), 0
        if not jnp.issubdtype(x.dtype, jnp.inexact):
            return getattr(jnp, reduce_name)(x, axis=axis)  # (integers: exact in any order)
        combine = jnp.add if reduce_name == "cumsum" else jnp.multiply
        return _jax_forms.sequential_scan(jnp, ctx.jax.lax, combine, x, axis)

    lower.__name__ = f"lower_{reduce_name}"
    return lower


@register_op(
    "cumsum",
    infer=_scan_infer(np.cumsum),
    lower=_lower_scan("cumsum"),
    doc="np.cumsum(x, axis, dtype)",
)
def cumsum(x, axis=None, dtype=None):
    return np.cumsum(x, axis=axis, dtype=dtype)


@register_op(
    "cumprod",
    infer=_scan_infer(np.cumprod),
    lower=_lower_scan("cumprod"),
    doc="np.cumprod(x, axis, dtype)",
)
def cumprod(x, axis=None, dtype=None):
    return np.cumprod(x, axis=axis, dtype=dtype)


# --- sorting ---------------------------------------------------------------------------------

_SORT_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _sort_infer(func):
    def infer(x, axis=-1, kind=None, stable=None):
        check_type(x)
        if kind not in _SORT_KINDS:
            raise ValueError(f"sort kind must be one of {_SORT_KINDS[1:]}, got {kind!r}")
        shape = shape_of(x)
        if axis is None:
            out_shape = (known_prod(shape),)
        else:
            if not shape:
                raise np.exceptions.AxisError(axis, 0)
            normalize_axis(axis, len(shape))
            out_shape = shape
        dtype = result_dtype(func, dummy(x, fill=1), axis=axis, kind=kind, stable=stable)
        return TensorType(dtype, out_shape)

    return infer


def _is_stable(attrs) -> bool:
    return bool(attrs.get("stable")) or attrs.get("kind") in ("stable", "mergesort")


def _along(jnp, x, axis):
    """(x, axis) with axis=None made the flattened array's axis 0."""
    x = jnp.asarray(x)
    return (jnp.ravel(x), 0) if axis is None else (x, axis)


def _lower_sort(ctx, node, x, axis=-1, kind=None, stable=None):
    """XLA's stable sort: NumPy's order (NaNs last, -0.0 equal to 0.0) for every kind; only
    the order of equal zeros of NumPy's unstable kinds is its algorithm's (sort's suspect)."""
    x, axis = _along(ctx.jnp, x, axis)
    return ctx.jnp.sort(x, axis=axis, stable=True)


def _lower_argsort(ctx, node, x, axis=-1, kind=None, stable=None):
    x, axis = _along(ctx.jnp, x, axis)
    return ctx.jnp.argsort(x, axis=axis, stable=True)


def _adjacent(jnp, sorted_values, axis):
    """(each element but the last, the next one) along `axis` of a sorted array."""
    n = sorted_values.shape[axis]
    take = jnp.take
    return take(sorted_values, jnp.arange(n - 1), axis=axis), take(
        sorted_values, jnp.arange(1, n), axis=axis
    )


def _sort_suspect(jnp, node, outputs, x):
    """(OpDef.lower_suspect) NumPy's unstable sorts (the default kind) order zeros of both
    signs as their algorithm goes (and may give 0.0 for -0.0): a float sort whose result holds
    adjacent zeros of both signs runs on the interpreter."""
    out = jnp.asarray(outputs[0])
    if _is_stable(node.attrs) or not jnp.issubdtype(out.dtype, jnp.floating) or out.ndim == 0:
        return None
    axis = 0 if node.attrs.get("axis", -1) is None else node.attrs.get("axis", -1)
    first, second = _adjacent(jnp, out, axis)
    return jnp.any((first == 0) & (second == 0) & (jnp.signbit(first) != jnp.signbit(second)))


def _argsort_suspect(jnp, node, outputs, x):
    """(OpDef.lower_suspect) The order NumPy's unstable argsorts (the default kind) give equal
    elements is their algorithm's: an argsort finding equal elements (NaNs equal to each
    other) runs on the interpreter; the stable kinds are XLA's order."""
    if _is_stable(node.attrs):
        return None
    axis = node.attrs.get("axis", -1)
    x, axis = _along(jnp, x, axis)
    if x.ndim == 0 or x.shape[axis] < 2:
        return None
    values = jnp.take_along_axis(x, jnp.asarray(outputs[0]), axis=axis)
    first, second = _adjacent(jnp, values, axis)
    equal = first == second
    if jnp.issubdtype(x.dtype, jnp.inexact):
        equal = equal | (jnp.isnan(first) & jnp.isnan(second))
    return jnp.any(equal)


@register_op(
    "sort",
    infer=_sort_infer(np.sort),
    doc="np.sort(x, axis, kind, stable)",
    lower=_lower_sort,
    lower_suspect=_sort_suspect,
)
def sort(x, axis=-1, kind=None, stable=None):
    return np.sort(x, axis=axis, kind=kind, stable=stable)


@register_op(
    "argsort",
    infer=_sort_infer(np.argsort),
    doc="np.argsort(x, axis, kind, stable)",
    lower=_lower_argsort,
    lower_suspect=_argsort_suspect,
)
def argsort(x, axis=-1, kind=None, stable=None):
    return np.argsort(x, axis=axis, kind=kind, stable=stable)


add_vjps(reduction_derivatives.RULES)
