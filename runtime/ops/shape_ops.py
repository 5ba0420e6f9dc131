"""Shape and data-movement ops: reshape, transpose, concatenate, stack, where, clip, take, astype..."""

from __future__ import annotations

import numpy as np

from .. import suspect_checks
from ..numba_backend import arrays as numba_arrays
from ..registry import add_vjps, register_op
from ..types import TensorType, kinds, may_be_python_number
from . import _jax_forms, shape_derivatives
from ._rules import (
    DYNAMIC_SHAPE,
    as_index,
    check_type,
    dtype_of,
    dummy,
    fmt_shape,
    is_weak,
    known_prod,
    merge_dim,
    normalize_axes,
    normalize_axis,
    result_dtype,
    shape_of,
)
from .elementwise import broadcast


def _require_tensor(t, op: str, what: str = "input") -> TensorType:
    check_type(t, f"{op} {what}")
    return TensorType(dtype_of(t), ()) if is_weak(t) else t


def check_dynamic_sizes(op: str, attr_shape: tuple, dyn_types) -> None:
    """`None` entries of a shape attr are filled, in order, by integer scalar inputs."""
    n_dyn = sum(d is None for d in attr_shape)
    if n_dyn != len(dyn_types):
        raise TypeError(
            f"{op}: shape {attr_shape!r} has {n_dyn} symbolic entries but {len(dyn_types)} size inputs were given"
        )
    for t in dyn_types:
        check_type(t, f"{op} size input")
        if is_weak(t):
            continue
        if t.ndim != 0 or t.dtype.kind not in "iu":
            raise TypeError(f"{op}: a symbolic size must be an integer scalar, got {t}")


def fill_dynamic(attr_shape: tuple, sizes) -> tuple:
    """The concrete shape: `None` entries of `attr_shape` replaced by the run-time `sizes`."""
    it = iter(sizes)
    return tuple(as_index(next(it), "size") if d is None else d for d in attr_shape)


def _dynamic_kernel(func, attr_shape, **kwargs):
    """A kernel calling func(x, shape, **kwargs) with dynamic shape entries filled from inputs."""
    if None not in attr_shape:
        return lambda x: func(x, attr_shape, **kwargs)
    return lambda x, *sizes: func(x, fill_dynamic(attr_shape, sizes), **kwargs)


# --- reshape ---------------------------------------------------------------------------------


def reshape_infer(x, *sizes, shape):
    x = _require_tensor(x, "reshape")
    shape = tuple(shape)
    check_dynamic_sizes("reshape", shape, sizes)
    for d in shape:
        if d is not None and (not isinstance(d, int) or d < -1):
            raise ValueError(f"reshape: invalid dimension {d!r} in shape {shape!r}")
    if shape.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    total = known_prod(x.shape)
    others = [d for d in shape if d != -1]
    rest = known_prod(others)
    if -1 not in shape:
        if total is not None and rest is not None and total != rest:
            raise ValueError(f"cannot reshape array of size {total} into shape {fmt_shape(shape)}")
        return TensorType(x.dtype, shape)
    inferred = None
    if total is not None and rest is not None:
        if rest == 0 or total % rest:
            raise ValueError(f"cannot reshape array of size {total} into shape {fmt_shape(shape)}")
        inferred = total // rest
    return TensorType(x.dtype, tuple(inferred if d == -1 else d for d in shape))


@register_op(
    "reshape",
    infer=reshape_infer,
    make_kernel=lambda shape: _dynamic_kernel(np.reshape, tuple(shape)),
    may_alias_input=True,
    views_input=lambda node: True,  # (a view or a copy, by the memory layout)
    lower=lambda ctx, node, x, *sizes, shape: ctx.jnp.reshape(
        x, fill_dynamic(tuple(shape), [int(s) for s in sizes])
    ),
    doc="np.reshape(x, shape); None entries of `shape` come from integer scalar inputs",
)
def reshape(x, *sizes, shape):
    return np.reshape(x, fill_dynamic(tuple(shape), sizes))


# --- transpose / expand_dims / squeeze --------------------------------------------------------
# NumPy's results are views of x: a write into x shows through them, and one into them reaches x
# through the inverse op (OpDef.views_input, OpDef.view_update).


def _a_view(node) -> bool:
    return True


def _sorted_axes(axis, ndim: int) -> tuple:
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return tuple(sorted(int(a) % ndim for a in axes))


def _transpose_update(base, view, extra, attrs, base_shape, view_shape):
    """The base of a transposed view: the view transposed back."""
    axes = attrs.get("axes")
    if axes is None:
        return "transpose", [view], {}
    perm = [int(a) % len(base_shape) for a in axes]
    return "transpose", [view], {"axes": tuple(int(i) for i in np.argsort(perm))}


def _expand_dims_update(base, view, extra, attrs, base_shape, view_shape):
    """The base of a view with new unit dims: the view without them."""
    return "squeeze", [view], {"axis": _sorted_axes(attrs["axis"], len(view_shape))}


def _squeeze_update(base, view, extra, attrs, base_shape, view_shape):
    """The base of a squeezed view: the view with the removed unit dims back."""
    axis = attrs.get("axis")
    removed = (
        _sorted_axes(axis, len(base_shape))
        if axis is not None
        else tuple(i for i, d in enumerate(base_shape) if d == 1)
    )
    return "expand_dims", [view], {"axis": removed}


def transpose_infer(x, axes=None):
    x = _require_tensor(x, "transpose")
    if axes is None:
        return TensorType(x.dtype, x.shape[::-1])
    if len(axes) != x.ndim:
        raise ValueError("axes don't match array")
    norm = tuple(normalize_axis(a, x.ndim) for a in axes)
    if len(set(norm)) != len(norm):
        raise ValueError("repeated axis in transpose")
    return TensorType(x.dtype, tuple(x.shape[a] for a in norm))


@register_op(
    "transpose",
    infer=transpose_infer,
    may_alias_input=True,
    views_input=_a_view,
    view_update=_transpose_update,
    doc="np.transpose(x, axes)",
)
def transpose(x, axes=None):
    return np.transpose(x, axes)


def expand_dims_infer(x, axis):
    x = _require_tensor(x, "expand_dims")
    axes = axis if isinstance(axis, tuple) else (axis,)
    out_ndim = x.ndim + len(axes)
    norm = normalize_axes(axes, out_ndim, allow_none=False)
    dims = iter(x.shape)
    return TensorType(x.dtype, tuple(1 if i in norm else next(dims) for i in range(out_ndim)))


@register_op(
    "expand_dims",
    infer=expand_dims_infer,
    may_alias_input=True,
    views_input=_a_view,
    view_update=_expand_dims_update,
    doc="np.expand_dims(x, axis)",
)
def expand_dims(x, axis):
    return np.expand_dims(x, axis)


def squeeze_infer(x, axis=None):
    x = _require_tensor(x, "squeeze")
    if axis is None:
        if None in x.shape:
            raise ValueError(
                f"squeeze without axis on shape {fmt_shape(x.shape)} with unknown dims is "
                "ambiguous; pass axis= to name the axes to remove"
            )
        return TensorType(x.dtype, tuple(d for d in x.shape if d != 1))
    axes = normalize_axes(axis, x.ndim)
    for a in axes:
        if x.shape[a] not in (1, None):
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return TensorType(x.dtype, tuple(d for i, d in enumerate(x.shape) if i not in axes))


@register_op(
    "squeeze",
    infer=squeeze_infer,
    may_alias_input=True,
    views_input=_a_view,
    view_update=_squeeze_update,
    doc="np.squeeze(x, axis)",
)
def squeeze(x, axis=None):
    return np.squeeze(x, axis)


# --- concatenate / stack ----------------------------------------------------------------------


def concatenate_infer(*xs, axis=0, dtype=None):
    if not xs:
        raise ValueError("need at least one array to concatenate")
    xs = tuple(_require_tensor(x, "concatenate") for x in xs)
    out_dtype = result_dtype(np.concatenate, [dummy(x) for x in xs], axis=None, dtype=dtype)
    if axis is None:
        sizes = [n for n in (known_prod(x.shape) for x in xs) if n is not None]
        return TensorType(out_dtype, (sum(sizes) if len(sizes) == len(xs) else None,))
    ndim = xs[0].ndim
    if ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = normalize_axis(axis, ndim)
    dims = list(xs[0].shape)
    for i, x in enumerate(xs[1:], start=1):
        if x.ndim != ndim:
            raise ValueError(
                "all the input arrays must have same number of dimensions, but the array at index 0 has "
                f"{ndim} dimension(s) and the array at index {i} has {x.ndim} dimension(s)"
            )
        for d in range(ndim):
            if d == axis:
                dims[d] = None if dims[d] is None or x.shape[d] is None else dims[d] + x.shape[d]
            elif dims[d] is not None and x.shape[d] is not None and dims[d] != x.shape[d]:
                raise ValueError(
                    "all the input array dimensions except for the concatenation axis must match exactly, "
                    f"but along dimension {d}, the array at index 0 has size {dims[d]} and the array at "
                    f"index {i} has size {x.shape[d]}"
                )
            elif dims[d] is None:
                dims[d] = x.shape[d]
    return TensorType(out_dtype, tuple(dims))


def _lower_joined(name):
    """jax.numpy's concatenate / stack, which take the arrays as one sequence."""

    def lower(ctx, node, *xs, axis=0, dtype=None):
        return getattr(ctx.jnp, name)(xs, axis=axis, dtype=dtype)

    return lower


@register_op(
    "concatenate",
    infer=concatenate_infer,
    doc="np.concatenate(xs, axis, dtype)",
    lower=_lower_joined("concatenate"),
)
def concatenate(*xs, axis=0, dtype=None):
    return np.concatenate(xs, axis=axis, dtype=dtype)


def stack_infer(*xs, axis=0, dtype=None):
    if not xs:
        raise ValueError("need at least one array to stack")
    xs = tuple(_require_tensor(x, "stack") for x in xs)
    shape = xs[0].shape
    for x in xs[1:]:
        if x.ndim != len(shape):
            raise ValueError("all input arrays must have the same shape")
        try:
            shape = tuple(merge_dim(a, b, "stack") for a, b in zip(shape, x.shape))
        except ValueError:
            raise ValueError("all input arrays must have the same shape") from None
    axis = normalize_axis(axis, len(shape) + 1)
    out_dtype = result_dtype(np.stack, [dummy(x) for x in xs], dtype=dtype)
    return TensorType(out_dtype, shape[:axis] + (len(xs),) + shape[axis:])


@register_op(
    "stack", infer=stack_infer, doc="np.stack(xs, axis, dtype)", lower=_lower_joined("stack")
)
def stack(*xs, axis=0, dtype=None):
    return np.stack(xs, axis=axis, dtype=dtype)


# --- broadcast_to ----------------------------------------------------------------------------


def broadcast_to_infer(x, *sizes, shape):
    x = _require_tensor(x, "broadcast_to")
    shape = tuple(shape)
    check_dynamic_sizes("broadcast_to", shape, sizes)
    if any(d is not None and d < 0 for d in shape):
        raise ValueError("all elements of broadcast shape must be non-negative")
    lead = len(shape) - x.ndim
    if lead < 0:
        raise ValueError("input operand has more dimensions than allowed by the axis remapping")
    out = list(shape)
    for i, d in enumerate(x.shape):
        target = shape[lead + i]
        if d is None or d == 1:
            continue
        if target is None:
            out[lead + i] = d  # must equal d at run time, or broadcast_to fails
        elif target != d:
            raise ValueError(
                "operands could not be broadcast together with remapped shapes "
                f"[original->remapped]: {fmt_shape(x.shape)}  and requested shape {fmt_shape(shape)}"
            )
    return TensorType(x.dtype, tuple(out))


@register_op(
    "broadcast_to",
    infer=broadcast_to_infer,
    make_kernel=lambda shape: _dynamic_kernel(np.broadcast_to, tuple(shape)),
    views_input=lambda node: True,  # (a read-only view)
    lower=lambda ctx, node, x, *sizes, shape: ctx.jnp.broadcast_to(
        x, fill_dynamic(tuple(shape), [int(s) for s in sizes])
    ),
    doc="np.broadcast_to(x, shape); None entries of `shape` come from integer scalar inputs",
)
def broadcast_to(x, *sizes, shape):
    return np.broadcast_to(x, fill_dynamic(tuple(shape), sizes))


# --- where / argwhere / clip / take / astype / copy ------------------------------------------


def where_infer(cond, x, y):
    for t in (cond, x, y):
        check_type(t, "where input")
    dtype = result_dtype(np.where, dummy(cond), dummy(x), dummy(y))
    return TensorType(dtype, broadcast(shape_of(cond), shape_of(x), shape_of(y)))


@register_op("where", infer=where_infer, doc="np.where(cond, x, y)")
def where(cond, x, y):
    return np.where(cond, x, y)


def argwhere_infer(x):
    x = _require_tensor(x, "argwhere")
    return TensorType(np.intp, (None, x.ndim))


@register_op(
    "argwhere",
    infer=argwhere_infer,
    unlowerable=DYNAMIC_SHAPE,
    doc="np.argwhere(x): (number of non-zero elements, ndim) indices; the first dim is dynamic",
)
def argwhere(x):
    return np.argwhere(x)


_CLIP_BOUNDS = ("min_max", "min", "max", "none")


def _clip_args(bounds, inputs):
    if bounds not in _CLIP_BOUNDS:
        raise ValueError(f"clip: bounds must be one of {_CLIP_BOUNDS}, got {bounds!r}")
    expected = {"min_max": 2, "min": 1, "max": 1, "none": 0}[bounds]
    if len(inputs) != expected:
        raise TypeError(
            f"clip with bounds={bounds!r} takes {expected} bound input(s), got {len(inputs)}"
        )
    it = iter(inputs)
    lo = next(it) if bounds in ("min_max", "min") else None
    hi = next(it) if bounds in ("min_max", "max") else None
    return lo, hi


def clip_infer(x, *limits, bounds="min_max"):
    check_type(x, "clip input")
    lo, hi = _clip_args(bounds, limits)
    for t in limits:
        check_type(t, "clip bound")
    dtype = result_dtype(
        np.clip, dummy(x), None if lo is None else dummy(lo), None if hi is None else dummy(hi)
    )
    shapes = [shape_of(t) for t in (x, *limits)]
    return TensorType(dtype, broadcast(*shapes))


def _lower_clip(ctx, node, x, *limits, bounds="min_max"):
    """NumPy's clip: np.maximum with the lower bound, then np.minimum with the upper bound, as
    NumPy's loops compute them (a NaN of x kept, of two equal zeros the bound), in the result's
    dtype."""
    jnp = ctx.jnp
    lo, hi = _clip_args(bounds, limits)
    dtype = node.outputs[0].type.dtype
    out = jnp.asarray(x, dtype=dtype)
    if lo is not None:
        out = _jax_forms.maximum(jnp, out, jnp.asarray(lo, dtype=dtype))
    if hi is not None:
        out = _jax_forms.minimum(jnp, out, jnp.asarray(hi, dtype=dtype))
    return jnp.broadcast_to(out, jnp.broadcast_shapes(*(jnp.shape(v) for v in (x, *limits))))


def _clip_suspect(jnp, node, outputs, x, *limits, bounds="min_max"):
    """(OpDef.lower_suspect) Zeros of both signs among an element and its bounds: which one
    NumPy's clip gives depends on its loop (bounds that are one value for the whole array take
    another loop than bounds that vary), so such a call runs on the interpreter."""
    values = [jnp.asarray(v) for v in (x, *limits)]
    if not all(jnp.issubdtype(v.dtype, jnp.floating) for v in values):
        return None
    negative = positive = False
    for v in values:
        negative = negative | ((v == 0) & jnp.signbit(v))
        positive = positive | ((v == 0) & ~jnp.signbit(v))
    return jnp.any(negative & positive)


@register_op(
    "clip",
    infer=clip_infer,
    lower=_lower_clip,
    lower_suspect=_clip_suspect,
    doc="np.clip(x, lo, hi); attr bounds says which of lo/hi are inputs ('min_max', 'min', 'max', 'none')",
)
def clip(x, *limits, bounds="min_max"):
    lo, hi = _clip_args(bounds, limits)
    return np.clip(x, lo, hi)


def take_infer(a, indices, axis=None):
    a = _require_tensor(a, "take")
    check_type(indices, "take indices")
    idx_shape = shape_of(indices)
    idx_dtype = dtype_of(indices)
    if idx_dtype.kind not in "iub":
        raise TypeError(f"take: indices must be integers, got {idx_dtype}")
    if axis is None:
        size, taken = known_prod(a.shape), known_prod(idx_shape)
        if size == 0 and taken is not None and taken > 0:
            raise IndexError("cannot do a non-empty take from an empty axes.")
        return TensorType(a.dtype, idx_shape)
    if a.ndim == 0:
        raise np.exceptions.AxisError(axis, 0)
    axis = normalize_axis(axis, a.ndim)
    return TensorType(a.dtype, a.shape[:axis] + tuple(idx_shape) + a.shape[axis + 1 :])


def _take_suspect(jnp, node, outputs, a, indices, *rest):
    """(OpDef.lower_suspect) An index outside the axis (or the flattened array): NumPy raises
    IndexError, XLA fills or clamps."""
    axis = node.attrs.get("axis")
    shape = jnp.shape(a)
    size = int(np.prod(shape)) if axis is None else shape[normalize_axis(axis, len(shape))]
    return suspect_checks.index_out_of_range(jnp, indices, size)


_take_suspect.reads = (1,)  # type: ignore[attr-defined]


@register_op("take", infer=take_infer, lower_suspect=_take_suspect, doc="np.take(a, indices, axis)")
def take(a, indices, axis=None):
    return np.take(a, indices, axis=axis)


def astype_infer(x, dtype, scalar=False):
    complex_number = is_weak(x) and (getattr(x, "python_type", None) or type(x)) is complex
    x = _require_tensor(x, "astype")
    dtype = np.dtype(dtype)
    if complex_number and dtype.kind in "iuf":
        # np.uint16(1j), np.float64(1j): a Python complex never converts to a real type
        kind = "int" if dtype.kind in "iu" else "float"
        raise TypeError(
            f"{kind}() argument must be a string{', a bytes-like object' if kind == 'int' else ''} "
            f"or a real number, not 'complex'"
        )
    return TensorType(dtype, x.shape)


def _astype(x, dtype):
    # A Python number (np.float64 subclasses float: test the exact type) becomes a NumPy scalar
    # as it would meeting an array of `dtype` (NEP 50: an int out of its range raises).
    if type(x) in (bool, int, float, complex):
        return np.asarray(x, dtype=dtype)[()]
    return x.astype(dtype)


def _make_astype(dtype, scalar=False):
    """x.astype(dtype); with `scalar`, what the scalar type called on x gives (np.float32(x)):
    a NumPy scalar for a 0-d x (x.astype keeps a 0-d array a 0-d array)."""
    if scalar:
        return lambda x: _astype(x, dtype)[()]
    return lambda x: _astype(x, dtype)


def _astype_suspect(jnp, node, outputs, x):
    """(OpDef.lower_suspect) A float cast to an integer dtype that does not hold it (NaN, inf,
    out of range: NumPy warns or wraps, XLA saturates); a Python int known at run time that
    the integer dtype does not hold (NumPy raises OverflowError)."""
    dtype = node.attrs["dtype"]
    t = getattr(node.inputs[0], "type", None)
    flags = [suspect_checks.float_cast_differs(jnp, x, dtype)]
    if isinstance(t, TensorType) and t.weak and t.python_type is int:
        flags.append(suspect_checks.int_out_of_range(jnp, x, dtype))
    return suspect_checks.any_of(jnp, flags)


def _astype_may_apply(node) -> bool:
    t = getattr(node.inputs[0], "type", None)
    if t is None or np.dtype(node.attrs["dtype"]).kind not in "iu":
        return False
    return any(
        isinstance(k, TensorType) and (k.dtype.kind in "fc" or (k.weak and k.python_type is int))
        for k in kinds(t)
    )


_astype_suspect.may_apply = _astype_may_apply  # type: ignore[attr-defined]


def _number_may_not_fit(node) -> bool:
    """np.uint8(n) of a Python number known at run time: OverflowError where it does not fit."""
    return bool(node.attrs.get("scalar")) and may_be_python_number(
        getattr(node.inputs[0], "type", None)
    )


def _numba_astype(ctx, node):
    """x.astype(dtype) in nopython code, converted as NumPy converts: a Python number as NEP 50
    has it; a float to an integer dtype checked to be in its range (NumPy warns and gives
    another number elsewhere: the call runs again on the interpreter); a float narrowed to a
    float checked finite (NumPy warns on an overflow); the others as C casts them."""
    (x,) = node.inputs
    dtype = np.dtype(node.attrs["dtype"])
    form = ctx.form(node, x)
    ctx.form(node, node.outputs[0])  # (a dtype the backend takes)
    ref, name = ctx.ref(x), f"np.{dtype.name}"
    if form.weak is None:  # (a Python int must fit, a NumPy one wraps: two conversions)
        ctx.unsupported(node, "it converts a value that is a Python number on some paths only")
    if form.weak:
        expr = ctx.cast(node, x, dtype)
    elif dtype.kind == "b":
        expr = f"({ref} != 0)"
    elif form.kind == "f" and dtype.kind in "iu":
        info = np.iinfo(dtype)
        bounds = f"{float(info.min)!r}, {float(info.max) + 1.0!r}"
        if form.ndim:
            expr = f"_h.all_truncate_within({ref}, {bounds}).astype({name})"
        else:
            expr = f"{name}(_h.truncates_within({ref}, {bounds}))"
    elif form.kind == "b" and not form.ndim:
        expr = f"{name}(1 if {ref} else 0)"
    elif form.ndim:
        expr = f"{ref}.astype({name})"
    else:
        expr = f"{name}({ref})"
    narrowed = form.kind == "f" and dtype.kind == "f" and dtype.itemsize < form.dtype.itemsize
    if narrowed and not form.weak:
        expr = f"_h.all_finite({expr})" if form.ndim else f"_h.finite({expr})"
    ctx.define(node, node.outputs[0], expr, "True")


@register_op(
    "astype",
    infer=astype_infer,
    make_kernel=_make_astype,
    keep_unused=_number_may_not_fit,
    lower_suspect=_astype_suspect,
    # (scalar: np.float32(x) on a 0-d x, a NumPy scalar in the interpreter; JAX has one 0-d kind)
    lower=lambda ctx, node, x, *, dtype, scalar=False: ctx.jnp.asarray(x).astype(dtype),
    numba_lower=_numba_astype,
    doc="x.astype(dtype); scalar=True: np.float32(x) and the other scalar types",
)
def astype(x, dtype, scalar=False):
    return _make_astype(dtype, scalar)(x)


def copy_infer(x):
    x = _require_tensor(x, "copy")
    return x


@register_op(
    "copy",
    infer=copy_infer,
    fresh_result=True,
    lower=lambda ctx, node, x: ctx.jnp.array(x, copy=True),
    numba_lower=numba_arrays.copy,
    doc="np.copy(x)",
)
def copy(x):
    return np.copy(x)


# --- round / repeat / diagonal / trace -------------------------------------------------------


def round_infer(x, decimals=0):
    check_type(x, "round input")
    return TensorType(result_dtype(np.round, dummy(x), decimals=decimals), shape_of(x))


def _lower_round(ctx, node, x, decimals=0):
    """NumPy's round of floats: rint(x * 10**d) / 10**d (rint(x / 10**-d) * 10**-d for d < 0),
    in x's dtype (jax.numpy's multiplies by 10**-d, which rounds otherwise)."""
    jnp = ctx.jnp
    x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return jnp.round(x, decimals=decimals)
    factor = jnp.asarray(10.0 ** abs(decimals), dtype=x.dtype)
    if decimals >= 0:
        return _jax_forms.divide(jnp, jnp.rint(x * factor), factor)
    return jnp.rint(_jax_forms.divide(jnp, x, factor)) * factor


@register_op("round", infer=round_infer, doc="np.round(x, decimals)", lower=_lower_round)
def round_(x, decimals=0):
    return np.round(x, decimals=decimals)


def repeat_infer(x, repeats, axis=None):
    x = _require_tensor(x, "repeat")
    repeats = as_index(repeats, "repeats")
    if repeats < 0:
        raise ValueError("repeats may not contain negative values.")
    if axis is None:
        size = known_prod(x.shape)
        return TensorType(x.dtype, (None if size is None else size * repeats,))
    axis = normalize_axis(axis, x.ndim)
    dim = x.shape[axis]
    return TensorType(
        x.dtype, x.shape[:axis] + (None if dim is None else dim * repeats,) + x.shape[axis + 1 :]
    )


@register_op(
    "repeat", infer=repeat_infer, doc="np.repeat(x, repeats, axis) with a static int repeats"
)
def repeat(x, repeats, axis=None):
    return np.repeat(x, repeats, axis=axis)


def _diagonal_shape(op, shape, offset, axis1, axis2):
    if len(shape) < 2:
        raise ValueError(
            f"{op} requires an array of at least two dimensions, got shape {fmt_shape(shape)}"
        )
    a1, a2 = normalize_axis(axis1, len(shape)), normalize_axis(axis2, len(shape))
    if a1 == a2:
        raise ValueError("axis1 and axis2 cannot be the same")
    d1, d2 = shape[a1], shape[a2]
    offset = as_index(offset, "offset")
    if d1 is None or d2 is None:
        length = None
    elif offset >= 0:
        length = max(0, min(d1, d2 - offset))
    else:
        length = max(0, min(d1 + offset, d2))
    rest = tuple(d for i, d in enumerate(shape) if i not in (a1, a2))
    return rest, length


def diagonal_infer(x, offset=0, axis1=0, axis2=1):
    x = _require_tensor(x, "diagonal")
    rest, length = _diagonal_shape("diagonal", x.shape, offset, axis1, axis2)
    return TensorType(x.dtype, rest + (length,))


@register_op(
    "diagonal",
    infer=diagonal_infer,
    views_input=lambda node: True,  # (a read-only view)
    doc="np.diagonal(x, offset, axis1, axis2)",
)
def diagonal(x, offset=0, axis1=0, axis2=1):
    return np.diagonal(x, offset, axis1, axis2)


def diag_infer(v, k=0):
    v = _require_tensor(v, "diag")
    if len(v.shape) != 1:
        raise ValueError("np.diag makes a matrix of a 1-d array (a 2-d one gives its diagonal)")
    k = as_index(k, "k")
    n = v.shape[0]
    side = None if n is None else n + abs(k)
    return TensorType(v.dtype, (side, side))


@register_op(
    "diag", infer=diag_infer, doc="np.diag(v, k) of a 1-d v: the matrix with v on diagonal k"
)
def diag(v, k=0):
    return np.diag(v, k)


def trace_infer(x, offset=0, axis1=0, axis2=1, dtype=None):
    x = _require_tensor(x, "trace")
    rest, _ = _diagonal_shape("trace", x.shape, offset, axis1, axis2)
    return TensorType(result_dtype(np.trace, np.ones((1, 1), x.dtype), dtype=dtype), rest)


@register_op("trace", infer=trace_infer, doc="np.trace(x, offset, axis1, axis2, dtype)")
def trace(x, offset=0, axis1=0, axis2=1, dtype=None):
    return np.trace(x, offset, axis1, axis2, dtype=dtype)


add_vjps(shape_derivatives.SHAPE_RULES)
