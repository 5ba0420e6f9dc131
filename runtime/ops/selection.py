"""Comparing, counting and selecting elements: array_equal/array_equiv, isin and the set
operations, bincount, digitize, delete/insert, extract/compress, trim_zeros, partition,
argpartition, lexsort, unravel_index.

Each op is NumPy's function itself (`register_call`); the rules give NumPy's shapes, with an
unknown dim (None) where the size depends on the values (bincount, the set operations, delete
with a symbolic index array).
"""

from __future__ import annotations

import numpy as np

from ..registry import INT, NONE, one_of, tuple_of
from ._calls import register_call
from ._rules import (
    DYNAMIC_SHAPE,
    as_index,
    dtype_of,
    is_weak,
    known_prod,
    normalize_axis,
    python_value,
)


def _compared(a1, a2, equal_nan=False):
    return ()


def _isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    return element


def _set_operation(ar1, ar2, *rest, **attrs):
    return (None,)


def _one_dimensional(name, shape):
    if len(shape) != 1:
        raise ValueError(
            "object too deep for desired array"
            if shape
            else "object of too small depth for desired array"
        )


def _bincount(shapes, minlength=0):
    x, weights = shapes["x"], shapes.get("weights")
    _one_dimensional("bincount", x)
    if weights is not None:
        _one_dimensional("bincount", weights)
        if None not in (x[0], weights[0]) and x[0] != weights[0]:
            raise ValueError("The weights and list don't have the same length.")
    if as_index(minlength, "minlength") < 0:
        raise ValueError("'minlength' must not be negative")
    return (None,)


def _digitize(x, bins, right=False):
    if len(bins) != 1:
        raise ValueError("bins must be one-dimensional")
    return x


def _along(arr, axis):
    """(the shape the op works on, the axis): axis None flattens the array first."""
    if axis is None:
        return (known_prod(arr),), 0
    return tuple(arr), normalize_axis(axis, len(arr))


def _delete(shapes, obj=None, axis=None):
    """np.delete: a static obj removes what NumPy removes from an axis of that length (NumPy's
    own errors for an obj that does not fit); a symbolic index one element, a symbolic index
    array an unknown number."""
    shape, axis = _along(shapes["arr"], axis)
    out = list(shape)
    n, index = shape[axis], shapes.get("obj")
    if n is None or (index is not None and index != ()):
        out[axis] = None
    elif index is not None:
        out[axis] = n - 1
    else:
        out[axis] = np.delete(np.empty(n, dtype=np.bool_), obj).shape[0]
    return tuple(out)


def _insert(shapes, obj=None, axis=None):
    """np.insert: where every size is known, the shape NumPy gives arrays of those sizes (so its
    errors too); else the length along `axis` is unknown and the other dims are the array's. A
    symbolic obj: a scalar index inserts what a static one would."""
    shape, ax = _along(shapes["arr"], axis)
    values, index = shapes.get("values", ()), shapes.get("obj")
    out = list(shape)
    if (index is not None and index != ()) or None in shape or None in values:
        out[ax] = None
        return tuple(out)
    obj = 0 if index is not None else obj
    array = np.zeros(shapes["arr"], dtype=np.bool_)
    return np.insert(array, obj, np.zeros(values, dtype=np.bool_), axis=axis).shape


def _dtype_of_first(first, *rest, **attrs):
    """The dtype of the first input (a Python number's: NumPy's default for it)."""
    return [dtype_of(first)]


def _empty_probe(*types, **attrs):
    return [np.zeros((0,) * t.ndim, t.dtype) if not is_weak(t) else python_value(t) for t in types]


def _extract(condition, arr):
    return (None,)


def _compress(condition, a, axis=None):
    if len(condition) != 1:
        raise ValueError("condition must be a 1-d array")
    shape, axis = _along(a, axis)
    return shape[:axis] + (None,) + shape[axis + 1 :]


def _compress_probe(condition, a, **attrs):
    return [np.zeros(1, condition.dtype), np.zeros((1,) * a.ndim, a.dtype)]


def _trim_zeros(filt, trim="fb", axis=None):
    if not filt:
        raise ValueError("trim_zeros requires an array of at least one dimension")
    if axis is None:
        return (None,) * len(filt)
    given = (axis,) if not isinstance(axis, tuple) else axis
    axes = {normalize_axis(a, len(filt)) for a in given}
    return tuple(None if i in axes else d for i, d in enumerate(filt))


def _partition_shape(a, *kth, axis=-1, **attrs):
    if kth and len(kth[0]) > 1:
        raise ValueError("kth must be a scalar or a 1-d array")
    shape, _ = _along(a, axis)
    return shape


def _lexsort_kernel(*keys, axis=-1, sequence=True):
    return np.lexsort(keys if sequence else keys[0], axis)


def _lexsort(*keys, axis=-1, sequence=True):
    """np.lexsort of a sequence of keys (the inputs; all of one shape) or of one array whose
    rows are the keys."""
    if not sequence:
        (keys,) = keys
        if len(keys) < 1:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        keys = keys[1:]
    else:
        keys = keys[0]
    if keys:
        normalize_axis(axis, len(keys))
    return tuple(keys)


def _lexsort_probe(*keys, sequence=True, **attrs):
    return [np.zeros((1,) * t.ndim, t.dtype) if not is_weak(t) else python_value(t) for t in keys]


def _unravel_index(indices, shape, order="C"):
    shape = (shape,) if not isinstance(shape, tuple) else shape
    return tuple(tuple(indices) for _ in shape)


def _unravel_kernel(indices, shape, order="C"):
    return tuple(np.unravel_index(indices, shape, order))


for _name in ("array_equal", "array_equiv"):
    register_call(_name, getattr(np, _name), _compared, min_inputs=2, python_result=bool)
register_call(
    "isin",
    np.isin,
    _isin,
    arrays=("element", "test_elements"),
    min_inputs=2,
    attr_kinds=(("kind", NONE | one_of("sort", "table")),),
)
for _name in ("intersect1d", "union1d", "setdiff1d", "setxor1d"):
    register_call(
        _name, getattr(np, _name), _set_operation, min_inputs=2, unlowerable=DYNAMIC_SHAPE
    )
register_call("bincount", np.bincount, _bincount, named=True, unlowerable=DYNAMIC_SHAPE)
register_call("digitize", np.digitize, _digitize, min_inputs=2)
register_call(
    "delete",
    np.delete,
    _delete,
    named=True,
    dtypes=_dtype_of_first,
    doc="np.delete(arr, obj, axis): obj static or symbolic (a symbolic index array: the length is unknown)",
    unlowerable="its result's length depends on the values of `obj` (or `obj` must be known when "
    "XLA compiles); keep the interpreter",
)
register_call(
    "insert",
    np.insert,
    _insert,
    named=True,
    dtypes=_dtype_of_first,
    doc="np.insert(arr, obj, values, axis): obj static or a symbolic index",
    unlowerable="its result's length depends on the values of `obj`; keep the interpreter",
)
register_call("extract", np.extract, _extract, min_inputs=2, unlowerable=DYNAMIC_SHAPE)
register_call(
    "compress",
    np.compress,
    _compress,
    min_inputs=2,
    probe=_compress_probe,
    unlowerable=DYNAMIC_SHAPE,
)
register_call("trim_zeros", np.trim_zeros, _trim_zeros, unlowerable=DYNAMIC_SHAPE)
for _name, _dtypes in (
    ("partition", _dtype_of_first),
    ("argpartition", lambda *types, **attrs: [np.dtype(np.intp)]),
):
    register_call(
        _name,
        getattr(np, _name),
        _partition_shape,
        arrays=("a", "kth"),
        dtypes=_dtypes,
        unlowerable="jax.numpy's partition orders the elements besides the kth differently "
        "from NumPy's; sort instead, or keep the interpreter",
        attr_kinds=(("kind", one_of("introselect")),),
    )


def _lower_lexsort(ctx, node, *keys, axis=-1, sequence=True):
    """A stable sort on the keys (the last one first), as NumPy's lexsort is: jax.numpy's leaves
    the order of elements equal in every key to XLA's unstable sort."""
    jnp, lax = ctx.jnp, ctx.jax.lax
    arrays = [jnp.asarray(k) for k in (keys if sequence else list(jnp.asarray(keys[0])))]
    shape = jnp.broadcast_shapes(*(k.shape for k in arrays))
    arrays = [jnp.broadcast_to(k, shape) for k in arrays]
    axis = axis % len(shape) if shape else 0
    index = lax.broadcasted_iota(node.outputs[0].type.dtype, shape, axis)
    return lax.sort((*arrays[::-1], index), dimension=axis, num_keys=len(arrays), is_stable=True)[
        -1
    ]


register_call(
    "lexsort",
    _lexsort_kernel,
    _lexsort,
    probe=_lexsort_probe,
    doc="np.lexsort(keys, axis): the keys as inputs (sequence=True) or one array of keys",
    lower=_lower_lexsort,
)
register_call(
    "unravel_index",
    _unravel_kernel,
    _unravel_index,
    num_outputs=None,
    probe=_empty_probe,
    doc="np.unravel_index(indices, shape, order): one index array per dim of `shape`",
    # (a shape of at most the dims a saved type may have: staging.saving.values.MAX_DIMS)
    attr_kinds=(("shape", INT | tuple_of(INT, 32)),),
    lower=lambda ctx, node, indices, **attrs: tuple(ctx.jnp.unravel_index(indices, **attrs)),
)
del _name, _dtypes
