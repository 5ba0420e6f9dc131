"""The getitem and setitem ops: NumPy indexing (basic and advanced, static or symbolic index parts),
and assignment through such an index into a copy.

The `index` attr is a tuple with one entry per index item:
  an int            -> static integer index
  None              -> np.newaxis
  "..."             -> Ellipsis
  "start:stop:step" -> a slice; each part is an int, empty (None) or "?" (the next input)
  "?"               -> the next input: an integer scalar, an integer array or a boolean mask
Inputs after `x` (getitem) or after `x, value` (setitem) supply the "?" parts in order.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

from .. import suspect_checks
from ..numba_backend import arrays as numba_arrays
from ..registry import add_vjps, register_op
from ..types import TensorType
from . import shape_derivatives
from ._rules import check_type, dtype_of, dummy, fmt_shape, is_weak, shape_of
from .elementwise import broadcast

INVALID_INDEX = (
    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer "
    "or boolean arrays are valid indices"
)


def parse_slice(text: str) -> tuple:
    """'1:?:-1' -> (1, '?', -1); '' parts -> None."""
    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise ValueError(f"bad slice text {text!r} in getitem index")
    out: list[int | str | None] = []
    for p in parts:
        p = p.strip()
        if p == "":
            out.append(None)
        elif p == "?":
            out.append("?")
        else:
            out.append(int(p))
    while len(out) < 3:
        out.append(None)
    return tuple(out)


def format_slice(start, stop, step) -> str:
    """Inverse of parse_slice; '?' marks a symbolic part."""

    def part(v):
        return "" if v is None else str(v)

    text = f"{part(start)}:{part(stop)}"
    return text if step is None else f"{text}:{part(step)}"


def _items(index, inputs):
    """Pairs each index entry with its kind and any input types it consumes."""
    it = iter(inputs)
    items: list[tuple[str, object]] = []
    ellipses = 0
    try:
        for entry in index:
            if entry is None:
                items.append(("newaxis", None))
            elif isinstance(entry, str) and entry == "...":
                ellipses += 1
                items.append(("ellipsis", None))
            elif isinstance(entry, str) and entry == "?":
                items.append(("input", next(it)))
            elif isinstance(entry, str):
                parts = parse_slice(entry)
                items.append(("slice", tuple(next(it) if p == "?" else p for p in parts)))
            elif isinstance(entry, (int, np.integer)) and not isinstance(entry, bool):
                items.append(("int", int(entry)))
            else:
                raise IndexError(f"{INVALID_INDEX}; bad getitem index entry {entry!r}")
    except StopIteration:
        raise TypeError(
            f"getitem: index {index!r} needs more inputs than the {len(inputs)} given"
        ) from None
    if next(it, None) is not None:
        raise TypeError(f"getitem: index {index!r} got more inputs than it uses")
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    return items


def _classify_input(t):
    """'int' (integer scalar), 'array' (integer array) or 'mask' (boolean) for an index input type."""
    check_type(t, "getitem index")
    dtype = dtype_of(t)
    if dtype.kind == "b":
        return "mask"
    if dtype.kind not in "iu":
        raise IndexError(f"{INVALID_INDEX}; got an index of dtype {dtype}")
    return "int" if len(shape_of(t)) == 0 else "array"


def _slice_length(dim, start, stop, step):
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if dim is None or any(not (v is None or isinstance(v, int)) for v in (start, stop, step)):
        if start is None and stop is None and step in (None, 1):
            return dim
        return None
    return len(range(*slice(start, stop, step).indices(dim)))


def getitem_infer(x, *inputs, index):
    check_type(x, "getitem input")
    if is_weak(x):
        raise IndexError("invalid index to scalar variable.")
    return index_result(x, inputs, index)[0]


def index_result(x, inputs, index):  # noqa: C901, PLR0912, PLR0915
    """(type of x[index], flavour): flavour is 'element' (an integer per dim: a scalar),
    'basic' (a view in NumPy), 'advanced' (integer arrays or masks: a copy) or 'mask' (one
    boolean mask over every dim, NumPy's special case for assignment)."""
    items = _items(tuple(index), inputs)
    kinds = []
    consumed = 0
    for kind, value in items:
        if kind == "input":
            kind = _classify_input(value)
            consumed += len(shape_of(value)) if kind == "mask" else 1
        elif kind in ("int", "slice"):
            consumed += 1
        kinds.append(kind)
    if consumed > x.ndim:
        raise IndexError(
            f"too many indices for array: array is {x.ndim}-dimensional, but {consumed} were indexed"
        )
    if kinds == ["mask"] and consumed == x.ndim:
        flavour = "mask"
    elif any(k in ("array", "mask") for k in kinds):
        flavour = "advanced"
    elif consumed == x.ndim and all(k == "int" for k in kinds):
        flavour = "element"
    else:
        flavour = "basic"
    if "ellipsis" in kinds:
        pos = kinds.index("ellipsis")
        fill = [("slice", (None, None, None))] * (x.ndim - consumed)
        items = items[:pos] + fill + items[pos + 1 :]
        kinds = kinds[:pos] + ["slice"] * len(fill) + kinds[pos + 1 :]
    else:
        items = items + [("slice", (None, None, None))] * (x.ndim - consumed)
        kinds = kinds + ["slice"] * (x.ndim - consumed)

    has_arrays = any(k in ("array", "mask") for k in kinds)
    pieces: list[tuple[bool, tuple]] = []  # (is_advanced, dims)
    adv_shapes: list[tuple] = []
    axis = 0
    for kind, (_, value) in zip(kinds, items):
        if kind == "newaxis":
            pieces.append((False, (1,)))
        elif kind == "slice":
            pieces.append((False, (_slice_length(x.shape[axis], *value),)))
            axis += 1
        elif kind == "int":
            dim = x.shape[axis]
            if isinstance(value, int) and dim is not None and not -dim <= value < dim:
                raise IndexError(f"index {value} is out of bounds for axis {axis} with size {dim}")
            if has_arrays:
                pieces.append((True, ()))
                adv_shapes.append(())
            axis += 1
        elif kind == "array":
            pieces.append((True, ()))
            adv_shapes.append(shape_of(value))
            axis += 1
        else:  # mask
            mshape = shape_of(value)
            for k, mdim in enumerate(mshape):
                dim = x.shape[axis + k]
                if dim is not None and mdim is not None and dim != mdim:
                    raise IndexError(
                        f"boolean index did not match indexed array along axis {axis + k}; size of "
                        f"axis is {dim} but size of corresponding boolean axis is {mdim}"
                    )
            pieces.append((True, ()))
            adv_shapes.append((None,))
            axis += len(mshape)

    if not has_arrays:
        return TensorType(x.dtype, tuple(d for _, dims in pieces for d in dims)), flavour
    try:
        adv = broadcast(*adv_shapes)
    except ValueError:
        raise IndexError(
            "shape mismatch: indexing arrays could not be broadcast together with shapes "
            + " ".join(fmt_shape(s) for s in adv_shapes)
        ) from None
    positions = [i for i, (is_adv, _) in enumerate(pieces) if is_adv]
    adjacent = positions == list(range(positions[0], positions[-1] + 1))
    basic = [d for is_adv, dims in pieces if not is_adv for d in dims]
    if adjacent:
        before = [d for is_adv, dims in pieces[: positions[0]] for d in dims]
        after = [d for is_adv, dims in pieces[positions[-1] + 1 :] for d in dims]
        shape = tuple(before) + adv + tuple(after)
    else:
        shape = adv + tuple(basic)
    return TensorType(x.dtype, shape), flavour


def _key_builder(index):
    """(build, n_inputs): build(inputs) makes the NumPy key for one index structure."""
    builders: list[Callable[..., object]] = []  # (iterator over the inputs) -> key entry
    n_inputs = 0
    for entry in tuple(index):
        if entry is None:
            builders.append(lambda it: None)
        elif isinstance(entry, str) and entry == "...":
            builders.append(lambda it: Ellipsis)
        elif isinstance(entry, str) and entry == "?":
            builders.append(lambda it: next(it))
            n_inputs += 1
        elif isinstance(entry, str):
            parts = parse_slice(entry)
            n_inputs += parts.count("?")
            builders.append(
                lambda it, parts=parts: slice(*(next(it) if p == "?" else p for p in parts))
            )
        else:
            builders.append(lambda it, v=int(entry): v)
    if n_inputs == 0:
        key = tuple(b(iter(())) for b in builders)
        return (lambda inputs: key), 0

    def build(inputs):
        it = iter(inputs)
        return tuple(b(it) for b in builders)

    return build, n_inputs


def make_getitem_kernel(index):
    """Precompiles the key builder for one index structure."""
    build, n_inputs = _key_builder(index)
    if n_inputs == 0:
        key = build(())
        return lambda x: x[key]
    return lambda x, *inputs: x[build(inputs)]


def make_getitem_expr(*input_types, index):
    """The same indexing as a Python expression template (`{0}[{1}, 2:{2}]`), so the executor
    inlines it instead of calling the kernel; inputs fill the `?` parts in order."""
    slots = iter(range(1, 1 << 30))
    items = []
    for entry in tuple(index):
        if entry is None:
            items.append("None")
        elif isinstance(entry, str) and entry == "...":
            items.append("...")
        elif isinstance(entry, str) and entry == "?":
            items.append(f"{{{next(slots)}}}")
        elif isinstance(entry, str):
            parts = parse_slice(entry)
            items.append(
                ":".join(
                    "" if p is None else f"{{{next(slots)}}}" if p == "?" else str(int(p))
                    for p in parts
                )
            )
        else:
            items.append(str(int(entry)))
    if not items:
        return "{0}[()]"
    return (
        "{0}["
        + ", ".join(items)
        + ("," if len(items) == 1 and items[0] in ("None", "...") else "")
        + "]"
    )


def _is_int_scalar(v) -> bool:
    """An index input NumPy treats as an int: a symbolic integer scalar (a NumPy integer eagerly);
    a constant is a concrete 0-d array, which NumPy treats as an integer array (a copy)."""
    t = getattr(v, "type", None)
    if t is None:  # a Python literal
        return type(v) is int
    return (
        getattr(t, "ndim", 1) == 0
        and t.dtype.kind in "iu"
        and (v.producer is None or v.producer.opdef.constant is None)
    )


def _getitem_views_input(node) -> bool:
    """Whether NumPy's x[index] is a view of x: a basic index (not an integer array or a mask,
    which copy), that does not pick one element (an int per dim: a scalar)."""
    index = node.attrs["index"]
    extra = iter(node.inputs[1:])
    all_ints = True
    for entry in index:
        if entry == "?":
            if not _is_int_scalar(next(extra)):
                return False  # an integer array or a mask: a copy
        elif isinstance(entry, str):
            all_ints = False
            for _ in range(entry.count("?")):
                next(extra)
        elif entry is None:
            all_ints = False
    x = node.inputs[0]
    return not (all_ints and len(index) == getattr(getattr(x, "type", None), "ndim", -1))


def _getitem_view_update(base, view, extra, attrs, base_shape, view_shape):
    """The base of a view x[index]: x with the view written in at the index."""
    return "setitem", [base, view, *extra], {"index": attrs["index"]}


def _index_may_raise(node) -> bool:
    """An integer or array entry (`x[i]`, `x[k]` with a value known when the graph runs, `x[m]`
    with a mask) raises IndexError when it does not fit, also where nothing reads the result
    (eagerly `v = x[n]` raises); slices never raise."""
    return any(
        entry == "?" or (isinstance(entry, (int, np.integer)) and not isinstance(entry, bool))
        for entry in node.attrs["index"]
    )


def _index_entries(index, inputs):
    """(entry, input) for each entry of `index`: the input of a "?" entry, None for the others
    (a slice's own "?" parts consumed)."""
    given = iter(inputs)
    for entry in index:
        if isinstance(entry, str) and entry == "?":
            yield entry, next(given)
        else:
            if isinstance(entry, str) and entry != "...":
                for part in parse_slice(entry):
                    if part == "?":
                        next(given)
            yield entry, None


def _is_mask(jnp, value) -> bool:
    return jnp.asarray(value).dtype == jnp.bool_


def _indices_out_of_range(jnp, x, inputs, index):
    """(OpDef.lower_suspect, getitem and setitem) An integer index known at run time outside
    its axis: NumPy raises IndexError, XLA clamps (a read) or drops (a write)."""
    shape = jnp.shape(x)
    entries = list(_index_entries(index, inputs))

    def width(entry, value) -> int:
        if entry is None or (isinstance(entry, str) and entry == "..."):
            return 0
        return jnp.ndim(value) if value is not None and _is_mask(jnp, value) else 1

    spread = len(shape) - sum(width(e, v) for e, v in entries)  # (the axes `...` stands for)
    flags, axis = [], 0
    for entry, value in entries:
        if isinstance(entry, str) and entry == "...":
            axis += spread
            continue
        if value is not None and not _is_mask(jnp, value) and axis < len(shape):
            flags.append(suspect_checks.index_out_of_range(jnp, value, shape[axis]))
        axis += width(entry, value)
    return suspect_checks.any_of(jnp, flags)


def _integer_index_input(node, first: int) -> bool:
    """(may_apply) An entry of the index is an integer or integer array known at run time."""
    return any(
        value is not None
        and getattr(getattr(value, "type", None), "dtype", None) is not None
        and value.type.dtype.kind in "iu"
        for _, value in _index_entries(node.attrs["index"], node.inputs[first:])
    )


def _getitem_suspect(jnp, node, outputs, x, *inputs):
    return _indices_out_of_range(jnp, x, inputs, node.attrs["index"])


def _setitem_suspect(jnp, node, outputs, x, value, *inputs):
    return _indices_out_of_range(jnp, x, inputs, node.attrs["index"])


_getitem_suspect.may_apply = lambda node: _integer_index_input(node, 1)  # type: ignore[attr-defined]
_setitem_suspect.may_apply = lambda node: _integer_index_input(node, 2)  # type: ignore[attr-defined]


def _numba_getitem(ctx, node):
    """x[i, j, ...] of one integer per axis: the element, each index checked as NumPy checks it
    (out of bounds: the call runs again on the interpreter, which raises NumPy's IndexError);
    with slices among them (`x[1:3]`, `x[i, ::-1]`), the view NumPy's basic indexing gives."""
    x, *inputs = node.inputs
    index = node.attrs["index"]
    if len(index) < ctx.form(node, x).ndim or any(
        isinstance(entry, str) and entry not in ("?", "...") for entry in index
    ):
        items = _numba_view_indices(ctx, node, x, index, inputs)
    else:
        items = numba_arrays.element_indices(ctx, node, x, index, inputs)
    ctx.define(node, node.outputs[0], f"{ctx.ref(x)}[{', '.join(items)}]", "True")


def _numba_view_indices(ctx, node, x, index, inputs) -> list[str]:
    """The index of a view of `x`: integers (checked as element_indices checks them) and slices
    (their bounds clipped as NumPy clips them; a step of 0 known at run time reruns for NumPy's
    ValueError), one per leading axis."""
    form = ctx.form(node, x)
    if len(index) > form.ndim:
        ctx.unsupported(node, "only integers and slices, one per axis, have a nopython form")
    given = iter(inputs)
    items = []
    for axis, entry in enumerate(index):
        if entry == "?" or type(entry) is int:
            item = next(given) if entry == "?" else entry
            items += numba_arrays.element_indices(ctx, node, x, [item], [], axis=axis)
        elif isinstance(entry, str) and entry != "...":
            parts = [next(given) if p == "?" else p for p in parse_slice(entry)]
            items.append(":".join(_numba_slice_part(ctx, node, p, k) for k, p in enumerate(parts)))
        else:
            ctx.unsupported(node, "only integers and slices, one per axis, have a nopython form")
    return items


def _numba_slice_part(ctx, node, part, position: int) -> str:
    """A slice's start, stop (position 0, 1) or step (2): a literal, or an integer known at run
    time."""
    if part is None:
        return ""
    if type(part) is int:
        if position == 2 and part == 0:
            ctx.unsupported(node, "its slice step is 0")
        return str(part)
    form = ctx.form(node, part)
    if form.ndim or form.dtype not in numba_arrays.INDEX_DTYPES:
        ctx.unsupported(node, "a bound of its slice is not an integer")
    return f"_h.slice_step({ctx.ref(part)})" if position == 2 else ctx.ref(part)


@register_op(
    "getitem",
    infer=getitem_infer,
    make_kernel=make_getitem_kernel,
    make_expr=make_getitem_expr,
    may_alias_input=True,
    views_input=_getitem_views_input,
    view_update=_getitem_view_update,
    index_inputs=1,
    keep_unused=_index_may_raise,
    lower=lambda ctx, node, x, *inputs, index: ctx.jnp.asarray(x)[_key_builder(index)[0](inputs)],
    lower_suspect=_getitem_suspect,
    numba_lower=_numba_getitem,
    doc="x[index]; see runtime.ops.indexing for the index attr",
)
def getitem(x, *inputs, index):
    return make_getitem_kernel(index)(x, *inputs)


# --- setitem: x[index] = value, as a new array ---------------------------------------------------


def _fmt(shape) -> str:
    """A shape as NumPy writes it in assignment errors: (2,1), (3,)."""
    dims = ["?" if d is None else str(d) for d in shape]
    return "(" + ",".join(dims) + ("," if len(dims) == 1 else "") + ")"


def _check_value_shape(value, target_shape, flavour, dtype):
    """Raises what NumPy raises when `value` cannot be assigned to a selection of `target_shape`
    of an array of `dtype`; unknown dims (None) are accepted (NumPy checks them when the graph runs)."""
    value_shape = shape_of(value)
    if flavour == "element":  # one element: NumPy converts the value with the dtype's scalar rules
        if value_shape and None not in value_shape:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                np.zeros(1, dtype)[0] = np.ones(value_shape, dtype_of(value))
        return
    if flavour == "mask":
        if len(value_shape) > 1:
            raise TypeError(
                f"NumPy boolean array indexing assignment requires a 0 or 1-dimensional input, "
                f"input has {len(value_shape)} dimensions"
            )
        return  # the number of selected elements is only known when the graph runs
    shape = tuple(value_shape)
    while len(shape) > len(target_shape) and shape[0] in (1, None):
        shape = shape[1:]  # NumPy drops leading unit dims of the value
    ok = len(shape) <= len(target_shape) and all(
        v is None or t is None or v == 1 or v == t for v, t in zip(shape[::-1], target_shape[::-1])
    )
    if ok:
        return
    if flavour == "advanced":
        raise ValueError(
            f"shape mismatch: value array of shape {_fmt(value_shape)} could not be broadcast "
            f"to indexing result of shape {_fmt(target_shape)}"
        )
    raise ValueError(
        f"could not broadcast input array from shape {_fmt(value_shape)} into shape "
        f"{_fmt(target_shape)}"
    )


_CAST_OK: set = set()


def _check_value_cast(value, dtype):
    """Raises what NumPy raises when `value` (a Python number, known now) or any value of its
    dtype cannot be stored in an array of `dtype` (300 into int8, NaN into int, 1j into float)."""
    key = (dtype, type(value), value) if is_weak(value) else (dtype, dtype_of(value))
    if key in _CAST_OK:
        return
    stand_in = dummy(value, fill=1)  # a Python number as it is; an array of ones otherwise
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.zeros(1, dtype)[...] = stand_in
    if len(_CAST_OK) > 4096:
        _CAST_OK.clear()
    _CAST_OK.add(key)


def setitem_infer(x, value, *inputs, index):
    check_type(x, "setitem input")
    check_type(value, "setitem value")
    if is_weak(x):
        raise TypeError(f"'{type(x).__name__}' object does not support item assignment")
    target, flavour = index_result(x, inputs, index)
    _check_value_shape(value, target.shape, flavour, x.dtype)
    _check_value_cast(value, x.dtype)
    return x


def make_setitem_kernel(index):
    """x[index] = value on a copy of x, by NumPy itself (its casting, broadcasting and errors)."""
    build, n_inputs = _key_builder(index)
    if n_inputs == 0:
        key = build(())

        def run(x, value):
            out = np.array(x, copy=True)
            out[key] = value
            return out

        return run

    def run_dynamic(x, value, *inputs):
        out = np.array(x, copy=True)
        out[build(inputs)] = value
        return out

    return run_dynamic


def _kind_of(value) -> str:
    """The dtype kind of a node input ('f' for a Python float), or '?'."""
    t = getattr(value, "type", None)
    if t is None:
        return {float: "f", complex: "c", int: "i", bool: "b"}.get(type(value), "?")
    return getattr(getattr(t, "dtype", None), "kind", "?")


def _scalar_write_may_raise(node) -> bool:
    """`target[i] = value` of one number into an integer array: a float (NaN and inf raise) or an
    integer of a wider dtype (one out of the target's range raises OverflowError)."""
    target, value = node.inputs[0], node.inputs[1]
    if _kind_of(target) not in "iu" or getattr(getattr(value, "type", None), "shape", ()) != ():
        return False
    kind = _kind_of(value)
    if kind in "fc":
        return True
    return (
        kind in "iu"
        and hasattr(value, "type")
        and not np.can_cast(value.type.dtype, target.type.dtype)
    )


def _setitem_in_place(node) -> str:
    """(OpDef.in_place_form) `{0}[<index>] = {1}`: NumPy's assignment into x itself, the index
    written as getitem's expression writes it (its inputs from slot 2 on)."""
    index = node.attrs["index"]
    _, n_inputs = _key_builder(index)
    target = make_getitem_expr(index=index).format(
        "{0}", *(f"{{{k + 2}}}" for k in range(n_inputs))
    )
    return f"{target} = {{1}}"


def _lower_setitem(ctx, node, x, value, *inputs, index):
    jnp = ctx.jnp
    x = jnp.asarray(x)
    value = jnp.asarray(value).astype(x.dtype)
    if _whole_array(index, node.inputs[0].type.shape):
        # (`x[...] = v` is v broadcast, not a scatter: XLA's simplifier aborts the process on a
        # reversed whole-array scatter, `x.at[::-1].set(x[::-1].at[...].set(v))`, jax 0.10)
        return jnp.broadcast_to(value, x.shape)
    return x.at[_key_builder(index)[0](inputs)].set(value)


def _whole_array(index, shape) -> bool:
    """Whether the index selects every element of an array of static `shape` in order: `...`
    and slices that take a whole axis forward (`:`, `0:n` of a length n)."""
    entries = list(index)
    if entries.count("...") > 1 or len(entries) - entries.count("...") > len(shape):
        return False
    if "..." in entries:
        cut = entries.index("...")
        before, after = entries[:cut], entries[cut + 1 :]
        pairs = list(zip(before, shape)) + list(zip(after, shape[len(shape) - len(after) :]))
    else:
        pairs = list(zip(entries, shape))
    return all(_whole_axis(entry, dim) for entry, dim in pairs)


def _whole_axis(entry, dim) -> bool:
    """Whether index entry `entry` takes every element of an axis of length `dim`, forward."""
    if not isinstance(entry, str) or "?" in entry or entry == "...":
        return False
    start, stop, step = parse_slice(entry)
    if start not in (None, 0) or step not in (None, 1):
        return False
    return stop is None or (dim is not None and stop >= dim)


@register_op(
    "setitem",
    infer=setitem_infer,
    make_kernel=make_setitem_kernel,
    index_inputs=2,
    keep_unused=_scalar_write_may_raise,
    in_place_form=_setitem_in_place,
    numba_lower=numba_arrays.write_element,
    lower=_lower_setitem,
    lower_suspect=_setitem_suspect,
    doc="a copy of x with x[index] = value (NumPy's assignment); index as for getitem",
)
def setitem(x, value, *inputs, index):
    return make_setitem_kernel(index)(x, value, *inputs)


add_vjps(shape_derivatives.INDEXING_RULES)
