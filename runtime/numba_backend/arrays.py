"""Arrays made and written by nopython code: np.zeros/ones/full of a shape of ints, constant
arrays, and `x[i, j] = v` of one element (the ops' numba_lower hooks call these).

A constant array is built from its literal on every call (`np.array([...], np.float64)`): the
compiled function holds no array of its own that a write could change for the next call, and its
source (numba's cache key) holds the values. A write of one element goes into x's buffer where
runtime.inplace allows it (Lowering.writes), else into a copy of x; its indices are checked as
NumPy checks them, and only values NumPy casts into x's dtype without a warning or an error are
written (the same dtype, or an int into float64).
"""

from __future__ import annotations

import math

import numpy as np

# the most elements a constant array may have to be written into the source as a literal
MAX_CONSTANT_SIZE = 4096

# the dtypes of an index the numba backend checks (a uint64 is compared as a float by numba)
INDEX_DTYPES: frozenset[np.dtype] = frozenset(
    np.dtype(name) for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32")
)
_INT64, _FLOAT64 = np.dtype(np.int64), np.dtype(np.float64)


def _shape_text(dims: list[str]) -> str:
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def sized(ctx, node, function: str, sizes: list, fill=None) -> None:
    """np.<function>(shape, [fill,] dtype) of node's attr `shape` (None dims: the ints `sizes`),
    its result a new array; a negative size reruns (NumPy's ValueError)."""
    out = ctx.form(node, node.outputs[0])
    given = iter(sizes)
    dims = []
    for d in node.attrs["shape"]:
        if d is not None:
            dims.append(str(int(d)))
            continue
        item = next(given)
        form = ctx.form(node, item)
        if form.ndim or form.dtype not in INDEX_DTYPES:
            ctx.unsupported(node, "its size is not an integer")
        dims.append(f"_h.size({ctx.ref(item)})")
    shape = _shape_text(dims)
    dtype = f"np.{out.dtype.name}"
    if fill is None:
        expr = f"np.{function}({shape}, {dtype})"
    else:
        if ctx.form(node, fill).dtype != out.dtype or ctx.form(node, fill).ndim:
            ctx.unsupported(node, "its fill value is not a number of its dtype")
        expr = f"np.full({shape}, {ctx.ref(fill)}, {dtype})"
    ctx.define(node, node.outputs[0], expr, "True")


def like(ctx, node, function: str) -> None:
    """np.zeros_like / np.ones_like of an array: a new array of its shape, in its order (a
    Fortran-ordered array gives a Fortran-ordered one, as NumPy's order="K")."""
    x = node.inputs[0]
    out = ctx.form(node, node.outputs[0])
    if ctx.form(node, x).ndim == 0:
        ctx.unsupported(node, "it makes a 0-d array")
    ctx.define(
        node, node.outputs[0], f"np.{function}_like({ctx.ref(x)}, np.{out.dtype.name})", "True"
    )


def copy(ctx, node) -> None:
    """np.copy of an array: a new array in its order (NumPy's order="K")."""
    x = node.inputs[0]
    if ctx.form(node, x).ndim == 0:
        ctx.unsupported(node, "it copies a number")
    ctx.form(node, node.outputs[0])
    ctx.define(node, node.outputs[0], f"np.copy({ctx.ref(x)})", "True")


def _number_text(item, kind: str) -> str:
    if kind == "b":
        return repr(bool(item))
    if kind in "iu":
        return repr(int(item))
    if math.isfinite(item):
        return repr(float(item))
    text = "np.nan" if math.isnan(item) else "np.inf"
    return f"(-{text})" if math.copysign(1.0, item) < 0 else text


def constant(ctx, node, value: np.ndarray) -> None:
    """A constant array, built from its literal (a new array on every call)."""
    out = ctx.form(node, node.outputs[0])
    if value.size > MAX_CONSTANT_SIZE:
        ctx.unsupported(node, f"it is a constant array of {value.size} elements (too large)")
    if (
        out.kind in "iu"
        and value.size
        and not (
            np.iinfo(np.int64).min <= int(value.min())
            and int(value.max()) <= np.iinfo(np.int64).max
        )
    ):
        ctx.unsupported(node, "it is a constant array of integers beyond int64")
    dtype = f"np.{out.dtype.name}"
    shape = _shape_text([str(d) for d in value.shape])
    if value.size == 0:
        expr = f"np.zeros({shape}, {dtype})"
    else:
        items = ", ".join(_number_text(x, out.kind) for x in value.ravel().tolist())
        expr = f"np.array([{items}], {dtype})"
        if value.ndim != 1:
            expr = f"{expr}.reshape({shape})"
    ctx.define(node, node.outputs[0], expr, "True")


def _casts_exactly(value_form, dtype: np.dtype) -> bool:
    """Whether NumPy stores every value of `value_form` into an array of `dtype` as numba does,
    without a warning or an error: the same dtype, or an int64 into float64 (rounded alike)."""
    return value_form.dtype == dtype or (dtype == _FLOAT64 and value_form.dtype == _INT64)


def element_indices(ctx, node, x, entries, inputs, axis: int | None = None) -> list[str]:
    """The checked indices of `x[entries]`, one integer per axis (inputs fill the "?" entries):
    out of bounds reruns (NumPy's IndexError). With `axis`: the one integer (a value or a
    literal) `entries` holds, for that axis of x."""
    form = ctx.form(node, x)
    if axis is not None:
        item = entries[0]
        return [_checked_index(ctx, node, x, item, axis)]
    if len(entries) != form.ndim or any(not (e == "?" or type(e) is int) for e in entries):
        ctx.unsupported(node, "only an integer per axis (one element) has a nopython form yet")
    given = iter(inputs)
    items = []
    for axis, entry in enumerate(entries):
        item = next(given) if entry == "?" else entry
        items.append(_checked_index(ctx, node, x, item, axis))
    return items


def _checked_index(ctx, node, x, item, axis: int) -> str:
    """Integer `item` as an index of axis `axis` of `x`, checked in bounds unless known to be."""
    if ctx.form(node, item).dtype not in INDEX_DTYPES or ctx.form(node, item).ndim:
        ctx.unsupported(node, "its index is not an integer")
    if ctx.in_bounds(item, x, axis):  # (a loop counter below the axis' length)
        return ctx.ref(item)
    return f"_h.index({ctx.ref(item)}, {ctx.ref(x)}.shape[{axis}])"


def write_element(ctx, node) -> None:
    """x[i, j, ...] = value of one element: into x's buffer (Lowering.writes_in_place) or a copy."""
    x, value, *inputs = node.inputs
    form = ctx.form(node, x)
    if ctx.form(node, value).ndim or not _casts_exactly(ctx.form(node, value), form.dtype):
        ctx.unsupported(node, f"its value may not be stored into {form.dtype} as NumPy stores it")
    items = element_indices(ctx, node, x, node.attrs["index"], inputs)
    number = ctx.ref(value)
    if ctx.writes_in_place(node):
        ctx.emit(f"{ctx.ref(x)}[{', '.join(items)}] = {number}")
        ctx.same_as(node.outputs[0], x)
        return
    slot = ctx.define(node, node.outputs[0], f"{ctx.ref(x)}.copy()", "True")
    ctx.emit(f"{slot.expr}[{', '.join(items)}] = {number}")
