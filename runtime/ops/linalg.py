"""Linear algebra ops beyond the matmul ufunc: dot, outer and einsum."""

from __future__ import annotations

import numpy as np

from ..registry import add_vjps, register_op
from ..types import TensorType
from . import _jax_forms, linalg_derivatives, shape_derivatives
from ._rules import check_type, dummy, fmt_shape, known_prod, result_dtype, shape_of
from .elementwise import broadcast


def _aligned(a_shape, b_shape, a_axis, b_axis):
    da, db = a_shape[a_axis], b_shape[b_axis]
    if da is not None and db is not None and da != db:
        raise ValueError(
            f"shapes {fmt_shape(a_shape)} and {fmt_shape(b_shape)} not aligned: "
            f"{da} (dim {a_axis % len(a_shape)}) != {db} (dim {b_axis % len(b_shape)})"
        )


def dot_infer(a, b):
    check_type(a, "dot input")
    check_type(b, "dot input")
    sa, sb = shape_of(a), shape_of(b)
    dtype = result_dtype(np.dot, dummy(a, fill=1), dummy(b, fill=1))
    if not sa or not sb:
        return TensorType(dtype, sb if not sa else sa)
    if len(sb) == 1:
        _aligned(sa, sb, -1, 0)
        return TensorType(dtype, sa[:-1])
    _aligned(sa, sb, -1, -2)
    return TensorType(dtype, sa[:-1] + sb[:-2] + sb[-1:])


def lower_products(name):
    """The lowering of NumPy's product-sum `name` (dot, vdot, inner, tensordot):
    runtime/ops/_jax_forms.summed_products."""

    def lower(ctx, node, *operands, **attrs):
        product = getattr(ctx.jnp, name)
        dtype = node.outputs[0].type.dtype
        return _jax_forms.summed_products(ctx.jnp, product, dtype, *operands, **attrs)

    lower.__name__ = f"lower_{name}"
    return lower


@register_op("dot", infer=dot_infer, doc="np.dot(a, b)", lower=lower_products("dot"))
def dot(a, b):
    return np.dot(a, b)


def outer_infer(a, b):
    check_type(a, "outer input")
    check_type(b, "outer input")
    dtype = result_dtype(np.outer, dummy(a, fill=1), dummy(b, fill=1))
    return TensorType(dtype, (known_prod(shape_of(a)), known_prod(shape_of(b))))


@register_op("outer", infer=outer_infer, doc="np.outer(a, b)")
def outer(a, b):
    return np.outer(a, b)


def _parse_term(term: str, ndim: int, position: str):
    """'i...j' on an operand of rank ndim -> (labels before, has ellipsis, labels after)."""
    if term.count("...") > 1 or "." in term.replace("...", ""):
        raise ValueError(
            f"einstein sum subscripts string contains a '.' that is not part of an ellipsis ('...') in {position}"
        )
    for c in term.replace("...", ""):
        if not c.isalpha() or not c.isascii():
            raise ValueError(
                f"invalid subscript {c!r} in einstein sum subscripts string, subscripts must be letters"
            )
    if "..." in term:
        head, tail = term.split("...")
        n_ell = ndim - len(head) - len(tail)
        if n_ell < 0:
            raise ValueError(
                f"operand has more dimensions than subscripts given in einstein sum, "
                f"but no '...' ellipsis provided to broadcast the extra dimensions ({position})"
            )
        return head, n_ell, tail
    if len(term) != ndim:
        raise ValueError(
            f"einstein sum subscripts string contains too {'many' if len(term) > ndim else 'few'} "
            f"subscripts for {position}: {term!r} for an operand of rank {ndim}"
        )
    return term, None, ""


def einsum_shape(subscripts: str, shapes) -> tuple:  # noqa: C901, PLR0912
    spec = subscripts.replace(" ", "")
    if "->" in spec:
        lhs, rhs = spec.split("->")
    else:
        lhs, rhs = spec, None
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        which = "more" if len(shapes) > len(terms) else "fewer"
        raise ValueError(
            f"{which} operands provided to einstein sum function than specified in the subscripts string"
        )
    sizes: dict[str, int | None] = {}
    counts: dict[str, int] = {}
    ell_shapes = []
    for i, (term, shape) in enumerate(zip(terms, shapes)):
        head, n_ell, tail = _parse_term(term, len(shape), f"operand {i}")
        labelled = list(zip(head, shape[: len(head)]))
        if n_ell is not None:
            ell_shapes.append(shape[len(head) : len(head) + n_ell])
            labelled += list(zip(tail, shape[len(head) + n_ell :]))
        for label, dim in labelled:
            counts[label] = counts.get(label, 0) + 1
            old = sizes.get(label, 1)
            if label not in sizes or old == 1:
                sizes[label] = dim if label not in sizes or dim != 1 else old
            elif dim is not None and dim != 1 and old is not None and old != dim:
                raise ValueError(
                    f"operands could not be broadcast together: subscript {label!r} has size "
                    f"{old} and size {dim} (operand {i})"
                )
            elif old is None and dim not in (None, 1):
                sizes[label] = dim
    ell = broadcast(*ell_shapes) if ell_shapes else ()
    if rhs is None:
        out_labels = "".join(sorted(c for c, n in counts.items() if n == 1))
        return tuple(ell) + tuple(sizes[c] for c in out_labels)
    if rhs.count("...") > 1 or "." in rhs.replace("...", ""):
        raise ValueError(
            "einstein sum subscripts string contains a '.' that is not part of an ellipsis ('...') in the output"
        )
    head, _, tail = rhs.partition("...")
    if "..." not in rhs:
        head, tail = rhs, ""
    for c in head + tail:
        if c not in sizes:
            raise ValueError(
                f"einstein sum subscripts string included output subscript {c!r} which never appeared in an input"
            )
    if len(set(head + tail)) != len(head + tail):
        raise ValueError("einstein sum subscripts string includes output subscript multiple times")
    out = [sizes[c] for c in head]
    if "..." in rhs:
        out += list(ell)
    out += [sizes[c] for c in tail]
    return tuple(out)


def einsum_infer(*operands, subscripts):
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum subscripts must be a str, got {subscripts!r}")
    for t in operands:
        check_type(t, "einsum operand")
    shape = einsum_shape(subscripts, [shape_of(t) for t in operands])
    dtype = result_dtype(np.einsum, subscripts, *(dummy(t, fill=1) for t in operands))
    return TensorType(dtype, shape)


@register_op(
    "einsum",
    infer=einsum_infer,
    make_kernel=lambda subscripts: lambda *ops: np.einsum(subscripts, *ops),
    # (jax.numpy.einsum takes the subscripts by position only)
    lower=lambda ctx, node, *ops, subscripts: _jax_forms.summed_products(
        ctx.jnp,
        lambda *xs, **kw: ctx.jnp.einsum(subscripts, *xs, **kw),
        node.outputs[0].type.dtype,
        *ops,
    ),
    doc="np.einsum(subscripts, *operands)",
)
def einsum(*operands, subscripts):
    return np.einsum(subscripts, *operands)


add_vjps(shape_derivatives.PRODUCT_RULES)
add_vjps(linalg_derivatives.EINSUM_RULES)
