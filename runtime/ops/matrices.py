"""np.linalg: decompositions, solvers, determinants, norms, cross and tensor products; the
other products (kron, inner, vdot, multi_dot) and the matrices built from a vector
(diagflat, vander).

Each op is NumPy's function itself (batched over leading dims as NumPy batches it); the rules
give NumPy's shapes and the errors NumPy raises for shapes (`LinAlgError` for a matrix that is
not square). Errors that depend on values (a singular matrix) are NumPy's, at run time.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..registry import add_vjps
from . import linalg_derivatives
from ._calls import register_call, stand_in
from ._rules import (
    as_index,
    fmt_shape,
    known_prod,
    nonfinite_from_finite,
    normalize_axes,
    normalize_axis,
)
from .elementwise import broadcast
from .linalg import lower_products

LinAlgError = np.linalg.LinAlgError


def _stacked(shape):
    if len(shape) < 2:
        raise LinAlgError(
            f"{len(shape)}-dimensional array given. Array must be at least two-dimensional"
        )


def _square(shape):
    _stacked(shape)
    m, n = shape[-2:]
    if m is not None and n is not None and m != n:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    return m if m is not None else n


def _min_dim(m, n):
    return None if m is None or n is None else min(m, n)


def _square_same(a, **attrs):
    _square(a)
    return a


def _square_batch(a, **attrs):
    _square(a)
    return a[:-2]


def _eigh(a, UPLO="L"):  # noqa: N803 (NumPy's name)
    n = _square(a)
    return a[:-2] + (n,), a[:-2] + (n, n)


def _eigvalsh(a, UPLO="L"):  # noqa: N803
    return a[:-2] + (_square(a),)


def _pinv(a, rcond=None, hermitian=False, rtol=None):
    _stacked(a)
    return a[:-2] + (a[-1], a[-2])


def _matrix_rank(a, tol=None, hermitian=False, rtol=None):
    return () if len(a) < 2 else a[:-2]


def _matrix_norm(x, keepdims=False, ord="fro"):  # noqa: A002
    _stacked(x)
    return x[:-2] + ((1, 1) if keepdims else ())


def _reduce_axes(x, axis, keepdims):
    axes = normalize_axes(axis, len(x))
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(x))
    return tuple(d for i, d in enumerate(x) if i not in axes)


def _vector_norm(x, axis=None, keepdims=False, ord=2):  # noqa: A002
    return _reduce_axes(x, axis, keepdims)


def _norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    if axis is not None and not isinstance(axis, tuple):
        axis = (as_index(axis, "axis"),)
    if axis is not None and len(axis) > 2:
        raise ValueError("Improper number of dimensions to norm.")
    if axis is None and ord is not None and len(x) > 2:
        raise ValueError("Improper number of dimensions to norm.")
    return _reduce_axes(x, axis, keepdims)


def _qr(a, mode="reduced"):
    _stacked(a)
    batch, (m, n) = a[:-2], a[-2:]
    k = _min_dim(m, n)
    if mode == "reduced":
        return batch + (m, k), batch + (k, n)
    if mode == "complete":
        return batch + (m, m), batch + (m, n)
    if mode == "r":
        return (batch + (k, n),)
    if mode == "raw":
        return batch + (n, m), batch + (k,)
    raise ValueError(f"Unrecognized mode '{mode}'")


def _solve(a, b):
    m = _square(a)
    if len(b) == 1:
        if b[0] is not None and m is not None and b[0] != m:
            raise ValueError(
                f"solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                f"signature (m,m),(m)->(m) (size {b[0]} is different from {m})"
            )
        return a[:-1]
    if len(b) < 2:
        raise ValueError("solve: Input operand 1 does not have enough dimensions")
    if b[-2] is not None and m is not None and b[-2] != m:
        raise ValueError(
            f"solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
            f"signature (m,m),(m,n)->(m,n) (size {b[-2]} is different from {m})"
        )
    return broadcast(a[:-2], b[:-2]) + (m if m is not None else b[-2], b[-1])


def _svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    _stacked(a)
    batch, (m, n) = a[:-2], a[-2:]
    k = _min_dim(m, n)
    if not compute_uv:
        return (batch + (k,),)
    if full_matrices:
        return batch + (m, m), batch + (k,), batch + (n, n)
    return batch + (m, k), batch + (k,), batch + (k, n)


def _svdvals(x):
    _stacked(x)
    return x[:-2] + (_min_dim(*x[-2:]),)


def _vectors3(x1, x2, axis):
    for s in (x1, x2):
        if not s:
            raise np.exceptions.AxisError(axis, 0)
        d = s[normalize_axis(axis, len(s))]
        if d is not None and d != 3:
            raise ValueError(
                "Both input arrays must be (arrays of) 3-dimensional vectors, but they are "
                f"{x1[normalize_axis(axis, len(x1))]} and {x2[normalize_axis(axis, len(x2))]} "
                "dimensional instead."
            )


def _linalg_cross(x1, x2, axis=-1):
    _vectors3(x1, x2, axis)
    a = list(x1)
    b = list(x2)
    a.pop(normalize_axis(axis, len(a)))
    b.pop(normalize_axis(axis, len(b)))
    out = list(broadcast(tuple(a), tuple(b)))
    # np.cross moves the vector axis to the end, then back to `axis` of the result
    out.insert(normalize_axis(axis, len(out) + 1), 3)
    return tuple(out)


def _cross_lengths() -> tuple:
    """The vector lengths the installed np.cross accepts: 2 and 3 (2 deprecated since NumPy
    2.0), or 3 alone once NumPy refuses 2-vectors."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            np.cross(np.zeros(2), np.zeros(2))
        except ValueError:
            return (3,)
    return (2, 3)


CROSS_LENGTHS = _cross_lengths()


def _cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None:
        axisa = axisb = axisc = axis
    if (axisa, axisb, axisc) != (-1, -1, -1):
        raise TypeError("only the default axes (the last) can be staged")
    for s in (a, b):
        if not s:
            raise np.exceptions.AxisError(-1, 0)
    if any(s[-1] is not None and s[-1] not in CROSS_LENGTHS for s in (a, b)):
        # the installed NumPy's own error for these lengths (an unknown one taken as 3)
        np.cross(np.zeros(3 if a[-1] is None else a[-1]), np.zeros(3 if b[-1] is None else b[-1]))
    if a[-1] is None or b[-1] is None:
        lengths = " or ".join(map(str, CROSS_LENGTHS))
        raise ValueError(f"the length of the vectors ({lengths}) must be known while tracing")
    batch = broadcast(a[:-1], b[:-1])
    return batch if a[-1] == 2 and b[-1] == 2 else batch + (3,)


def _cross_probe(a, b, **attrs):
    return [np.ones((1,) * (t.ndim - 1) + (t.shape[-1],), t.dtype) for t in (a, b)]


def _cross3_probe(x1, x2, **attrs):
    return [stand_in(t, dim=3) for t in (x1, x2)]


def tensordot_axes(a, b, axes):
    """The contracted axes of each operand, as NumPy reads `axes` (an int or two sequences)."""
    if isinstance(axes, tuple) and len(axes) == 2:
        ax_a, ax_b = axes
        ax_a = (ax_a,) if not isinstance(ax_a, tuple) else ax_a
        ax_b = (ax_b,) if not isinstance(ax_b, tuple) else ax_b
    else:
        n = as_index(axes, "axes")
        ax_a = tuple(range(len(a) - n, len(a))) if n > 0 else ()
        ax_b = tuple(range(n)) if n > 0 else ()
        if n > len(a) or n > len(b):
            raise ValueError("shape-mismatch for sum")
    if len(ax_a) != len(ax_b):
        raise ValueError("shape-mismatch for sum")
    ax_a = tuple(normalize_axis(x, len(a)) for x in ax_a)
    ax_b = tuple(normalize_axis(x, len(b)) for x in ax_b)
    for i, j in zip(ax_a, ax_b):
        if a[i] is not None and b[j] is not None and a[i] != b[j]:
            raise ValueError("shape-mismatch for sum")
    return ax_a, ax_b


def _tensordot(a, b, axes=2):
    ax_a, ax_b = tensordot_axes(a, b, axes)
    return tuple(d for i, d in enumerate(a) if i not in ax_a) + tuple(
        d for i, d in enumerate(b) if i not in ax_b
    )


def _linalg_outer(x1, x2):
    for s in (x1, x2):
        if len(s) != 1:
            raise ValueError(
                f"Input arrays must be one-dimensional, but they are {fmt_shape(x1)} and "
                f"{fmt_shape(x2)} dimensional"
            )
    return x1[0], x2[0]


linalg = np.linalg
# NumPy raises LinAlgError for some values (a singular matrix, one not positive definite, a
# decomposition that does not converge): such a node runs even when nothing reads its result,
# as the eager call runs and raises.
_RAISES_ON_VALUES = {"keep_unused": lambda node: True}
register_call(
    "linalg.cholesky",
    linalg.cholesky,
    _square_same,
    lower_suspect=nonfinite_from_finite,
    **_RAISES_ON_VALUES,
)
register_call("linalg.det", linalg.det, _square_batch)
register_call("linalg.slogdet", linalg.slogdet, lambda a: (_square_batch(a),) * 2, num_outputs=2)
register_call("linalg.eigh", linalg.eigh, _eigh, num_outputs=2, **_RAISES_ON_VALUES)
register_call("linalg.eigvalsh", linalg.eigvalsh, _eigvalsh, **_RAISES_ON_VALUES)
register_call(
    "linalg.inv",
    linalg.inv,
    _square_same,
    lower_suspect=nonfinite_from_finite,
    **_RAISES_ON_VALUES,
)
register_call(
    "linalg.pinv",
    linalg.pinv,
    lambda a, *rtol, **attrs: _pinv(a, **attrs),
    arrays=("a", "rtol"),
    **_RAISES_ON_VALUES,
)
register_call("linalg.matrix_power", linalg.matrix_power, _square_same, **_RAISES_ON_VALUES)
register_call("linalg.matrix_rank", linalg.matrix_rank, _matrix_rank, **_RAISES_ON_VALUES)
register_call("linalg.matrix_norm", linalg.matrix_norm, _matrix_norm)
register_call("linalg.vector_norm", linalg.vector_norm, _vector_norm)
register_call("linalg.norm", linalg.norm, _norm)
register_call("linalg.qr", linalg.qr, _qr, num_outputs=None)
register_call(
    "linalg.solve",
    linalg.solve,
    _solve,
    min_inputs=2,
    lower_suspect=nonfinite_from_finite,
    **_RAISES_ON_VALUES,
)
register_call("linalg.svd", linalg.svd, _svd, num_outputs=None, **_RAISES_ON_VALUES)
register_call("linalg.svdvals", linalg.svdvals, _svdvals, **_RAISES_ON_VALUES)
register_call("linalg.cross", linalg.cross, _linalg_cross, probe=_cross3_probe, min_inputs=2)
register_call("linalg.outer", linalg.outer, _linalg_outer, min_inputs=2)
register_call("cross", np.cross, _cross, probe=_cross_probe, min_inputs=2)
register_call(
    "tensordot", np.tensordot, _tensordot, min_inputs=2, lower=lower_products("tensordot")
)


# -- building matrices and products beyond matmul ----------------------------------------------


def _diagflat(v, k=0):
    n = known_prod(v)
    size = None if n is None else n + abs(as_index(k, "k"))
    return (size, size)


def _vander(x, N=None, increasing=False):  # noqa: N803 - NumPy's name
    if len(x) != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    return (x[0], x[0] if N is None else as_index(N, "N"))


def _kron(a, b):
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    return tuple(None if p is None or q is None else p * q for p, q in zip(a, b))


def _inner(a, b):
    if not a or not b:
        return broadcast(a, b)
    if a[-1] is not None and b[-1] is not None and a[-1] != b[-1]:
        raise ValueError(
            f"shapes {fmt_shape(a)} and {fmt_shape(b)} not aligned: {a[-1]} (dim {len(a) - 1}) "
            f"!= {b[-1]} (dim {len(b) - 1})"
        )
    return tuple(a[:-1]) + tuple(b[:-1])


def _vdot(a, b):
    n, m = known_prod(a), known_prod(b)
    if n is not None and m is not None and n != m:
        np.vdot(np.zeros(n, np.bool_), np.zeros(m, np.bool_))  # NumPy's own error
    return ()


def _lstsq(a, b, rcond=None):
    if len(a) != 2:
        raise LinAlgError(f"{len(a)}-dimensional array given. Array must be two-dimensional")
    if len(b) not in (1, 2):
        raise LinAlgError(f"{len(b)}-dimensional array given. Array must be one or two-dimensional")
    m, n = a
    if m is not None and b[0] is not None and m != b[0]:
        raise LinAlgError("Incompatible dimensions")
    x = (n,) + tuple(b[1:])
    # the residuals are empty unless the rank is full and m > n: their length depends on values
    return x, (None,), (), (_min_dim(m, n),)


def _cond(x, p=None):
    _stacked(x)
    if p is not None and p not in (2, -2):
        _square(x)
    return tuple(x[:-2])


def _multi_dot_kernel(*arrays):
    return np.linalg.multi_dot(arrays)


def _multi_dot(*shapes):
    """np.linalg.multi_dot of three or more arrays (of two it is np.dot: the frontend records
    `dot`)."""
    if len(shapes) < 3:
        raise ValueError("multi_dot of fewer than three arrays is np.dot")
    first, last = shapes[0], shapes[-1]
    chain = [(1, *first) if len(first) == 1 else first, *shapes[1:-1]]
    chain.append((*last, 1) if len(last) == 1 else last)
    for s in chain:
        if len(s) != 2:
            raise LinAlgError(f"{len(s)}-dimensional array given. Array must be two-dimensional")
    for left, right in zip(chain, chain[1:]):
        if left[1] is not None and right[0] is not None and left[1] != right[0]:
            raise ValueError(
                f"shapes {fmt_shape(left)} and {fmt_shape(right)} not aligned: {left[1]} (dim 1) "
                f"!= {right[0]} (dim 0)"
            )
    out = []
    if len(first) == 2:
        out.append(first[0])
    if len(last) == 2:
        out.append(last[1])
    return tuple(out)


register_call("diagflat", np.diagflat, _diagflat)
register_call("vander", np.vander, _vander)
register_call("kron", np.kron, _kron, min_inputs=2)
register_call("inner", np.inner, _inner, min_inputs=2, lower=lower_products("inner"))
register_call("vdot", np.vdot, _vdot, min_inputs=2, lower=lower_products("vdot"))
register_call(
    "linalg.lstsq",
    linalg.lstsq,
    _lstsq,
    num_outputs=4,
    min_inputs=2,
    unlowerable="the length of its residuals depends on the rank NumPy finds, which "
    "jax.numpy.linalg.lstsq does not follow; keep the interpreter",
)
register_call("linalg.cond", linalg.cond, _cond)
register_call(
    "linalg.multi_dot",
    _multi_dot_kernel,
    _multi_dot,
    min_inputs=3,
    doc="np.linalg.multi_dot(arrays) of three or more arrays, multiplied in NumPy's cheapest order",
    lower=lambda ctx, node, *arrays: ctx.jnp.linalg.multi_dot(arrays),
)

add_vjps(linalg_derivatives.MATRIX_RULES)
