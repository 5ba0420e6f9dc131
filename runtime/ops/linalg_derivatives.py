"""Vector-Jacobian products of np.linalg, of the contractions einsum and tensordot, and of
np.trapezoid and np.average (OpDef.vjp; the rule convention is runtime.ops.ufunc_derivatives').

The formulas are the standard results of matrix calculus for real matrices, each the adjoint
of the op's first-order perturbation (its differential), written for stacks of matrices (the
last two axes; `_mt` transposes them):
- inv: d(A^-1) = -A^-1 dA A^-1, so the cotangent of A is -X^T G X^T (X = A^-1).
- solve: X = A^-1 B gives G_B = A^-T G and G_A = -G_B X^T.
- det and slogdet: d det A = det A tr(A^-1 dA) (Jacobi's formula), so G_A = g det(A) A^-T, and
  g A^-T for log|det A|; the sign is piecewise constant and gets no cotangent.
- cholesky (A = L L^T, A symmetric): dL = L phi(L^-1 dA L^-T), phi keeping the lower triangle
  and half the diagonal; its adjoint is L^-T phi(L^T G) L^-1, symmetrised (upper=True: the
  same of the transposes).
- eigh (A = V diag(w) V^T): dw = diag(V^T dA V) and dV = V (F o V^T dA V) with
  F_ij = 1/(w_j - w_i) off the diagonal; the adjoint V (diag(G_w) + F o V^T G_V) V^T is
  symmetrised. NumPy reads only one triangle of A: as JAX, these rules give the gradient with
  respect to a symmetric perturbation of A (the one of f((A + A^T) / 2)).
- svd (A = U diag(s) V^T, reduced): the adjoint of the differentials of the three factors,
  with F_ij = 1/(s_j^2 - s_i^2) off the diagonal and, for a non-square A, the parts of G_U and
  G_V outside the spans of U and V.
- norms: the 2-norm (and Frobenius norm) gives x / |x| (zeros at x = 0), the p-norm
  sign(x) (|x| / |x|_p)^(p-1), the max-norm splits the cotangent among the largest |x|; the
  nuclear and spectral norms of a matrix give U V^T and u_1 v_1^T of its SVD.
- einsum and tensordot (linear in each operand): an operand's cotangent is the contraction of
  the output cotangent with the other operands, back to the operand's subscripts.
- trapezoid: the trapezoidal sum is linear in y, each sample weighted by half the spacing on
  either side of it; its derivative in a sample point x_i is half the difference of the sums
  of y over the interval before x_i and the one after it.
- average: a weighted mean sum(w a) / sum(w) gives w / sum(w) for a and
  (a - mean) / sum(w) for w.
Complex matrices are not supported by the np.linalg rules (their gradients need conjugates
these rules do not take); einsum, tensordot, trapezoid and average, linear in each operand,
differentiate complex values (JAX's convention, runtime.ops.ufunc_derivatives).
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable

import numpy as np


def _mt(x):
    """x with its last two axes swapped (a stack of matrices transposed)."""
    return np.swapaxes(x, -1, -2)


def _sym(x):
    return (x + _mt(x)) / 2.0


def _real(ctx, x, what: str) -> None:
    if np.dtype(getattr(x, "dtype", np.float64)).kind == "c":
        ctx.unsupported(f"complex {what}")


def _eye(ctx, x):
    return np.eye(ctx.dim(x, -1))


# -- inverses, solvers, determinants ----------------------------------------------------------


def _inv(ctx, g, out, a):
    _real(ctx, a, "np.linalg.inv")
    return (-(_mt(out) @ g @ _mt(out)),)


def _solve(ctx, g, out, a, b):
    _real(ctx, a, "np.linalg.solve")
    _real(ctx, b, "np.linalg.solve")
    vector = ctx.ndim(b) == 1
    g_mat, x_mat = (g[..., None], out[..., None]) if vector else (g, out)
    g_b = np.linalg.solve(_mt(a), g_mat)
    ga = ctx.sum_to(-(g_b @ _mt(x_mat)), a) if ctx.wants(0) else None
    gb = ctx.sum_to(g_b[..., 0] if vector else g_b, b) if ctx.wants(1) else None
    return ga, gb


def _det(ctx, g, out, a):
    _real(ctx, a, "np.linalg.det")
    return ((g * out)[..., None, None] * _mt(np.linalg.inv(a)),)


def _slogdet(ctx, g, out, a):
    _real(ctx, a, "np.linalg.slogdet")
    g_log = g[1]
    if g_log is None:
        return (ctx.zeros_like(a),)
    return (g_log[..., None, None] * _mt(np.linalg.inv(a)),)


# -- decompositions ---------------------------------------------------------------------------


def _cholesky(ctx, g, out, a, upper=False):
    _real(ctx, a, "np.linalg.cholesky")
    if upper:  # U = L^T
        g, out = _mt(g), _mt(out)
    eye = _eye(ctx, a)
    phi = np.cumsum(eye, axis=0) - 0.5 * eye  # the lower triangle, half the diagonal
    p = (_mt(out) @ g) * phi
    lt = _mt(out)
    s = np.linalg.solve(lt, _mt(np.linalg.solve(lt, p)))  # L^-T P^T L^-1
    return (_sym(s),)


def _off_diagonal_inverse(ctx, values, diff):
    """F_ij = 1 / diff(values)_ij off the diagonal, 0 on it (of a stack of vectors)."""
    on = np.eye(ctx.dim(values, -1), dtype=bool)
    d = diff(values[..., None, :], values[..., :, None])
    return np.where(on, 0.0, 1.0 / np.where(on, 1.0, d))


def _eigh(ctx, g, out, a, UPLO="L"):  # noqa: N803 (NumPy's name)
    _real(ctx, a, "np.linalg.eigh")
    gw, gv = g
    w, v = out
    inner = 0.0
    if gw is not None:
        inner = inner + gw[..., None, :] * _eye(ctx, a)
    if gv is not None:
        f = _off_diagonal_inverse(ctx, w, lambda wj, wi: wj - wi)
        inner = inner + f * (_mt(v) @ gv)
    return (_sym(v @ inner @ _mt(v)),)


def _eigvalsh(ctx, g, out, a, UPLO="L"):  # noqa: N803
    _real(ctx, a, "np.linalg.eigvalsh")
    _, v = np.linalg.eigh(a, UPLO=UPLO)
    return (_sym((v * g[..., None, :]) @ _mt(v)),)


def _from_singular_values(x, gs):
    """The cotangent of x from that of its singular values: U diag(gs) V^T."""
    u, _, vh = np.linalg.svd(x, full_matrices=False)
    return (u * gs[..., None, :]) @ vh


def _differ(m, n) -> bool:
    """Whether two dims may differ (not both known and equal while tracing)."""
    return not (isinstance(m, int) and isinstance(n, int) and m == n)


def _svd_vectors(ctx, u, s, vh, gu, gvh):
    """The part of an SVD's cotangent that comes from its singular vectors."""
    f = _off_diagonal_inverse(ctx, s, lambda sj, si: sj * sj - si * si)
    v = _mt(vh)
    inner = 0.0
    outer = 0.0
    if gu is not None:
        j = f * (_mt(u) @ gu - _mt(gu) @ u)
        inner = inner + j * s[..., None, :]
        if _differ(ctx.dim(u, -2), ctx.dim(u, -1)):
            gu_out = gu - u @ (_mt(u) @ gu)
            outer = outer + (gu_out / s[..., None, :]) @ vh
    if gvh is not None:
        gv = _mt(gvh)
        k = f * (_mt(v) @ gv - gvh @ v)
        inner = inner + s[..., :, None] * k
        if _differ(ctx.dim(vh, -1), ctx.dim(vh, -2)):
            gv_out = gv - v @ (vh @ gv)
            outer = outer + u @ (_mt(gv_out) / s[..., :, None])
    return u @ inner @ vh + outer


def _svd(ctx, g, out, a, full_matrices=True, compute_uv=True, hermitian=False):
    _real(ctx, a, "np.linalg.svd")
    if hermitian:
        ctx.unsupported("np.linalg.svd(hermitian=True)")
    if not compute_uv:
        return (_from_singular_values(a, g[0]),)
    m, n = ctx.dim(a, -2), ctx.dim(a, -1)
    if full_matrices and not (isinstance(m, int) and m == n):
        ctx.unsupported(
            "np.linalg.svd(full_matrices=True) of a matrix not known to be square "
            "(pass full_matrices=False)"
        )
    u, s, vh = out
    gu, gs, gvh = g
    grad = _svd_vectors(ctx, u, s, vh, gu, gvh) if gu is not None or gvh is not None else 0.0
    if gs is not None:
        grad = grad + (u * gs[..., None, :]) @ vh
    return (grad,)


def _svdvals(ctx, g, out, x):
    _real(ctx, x, "np.linalg.svdvals")
    return (_from_singular_values(x, g),)


# -- norms ------------------------------------------------------------------------------------


def _axes(ctx, x, axis) -> tuple:
    nd = ctx.ndim(x)
    if axis is None:
        return tuple(range(nd))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return tuple(sorted(a % nd for a in axes))


def _spread(ctx, g, x, axes, keepdims):
    """The cotangent `g` of a reduction of x over `axes`, broadcast back to x's shape."""
    if not keepdims and axes:
        g = np.expand_dims(g, axes)
    return ctx.broadcast_like(g, x)


def _safe(y):
    return np.where(y == 0, 1.0, y)


def _vector_scale(ctx, x, norm, axes, p):
    """d|x|_p / dx, given |x|_p broadcast to x's shape (`norm`)."""
    if p is None or p == 2:
        return x / _safe(norm)
    if p == 1:
        return np.sign(x)
    if p == 0:
        return ctx.zeros_like(x)
    if math.isinf(p):
        chosen = np.abs(x) == norm
        share = ctx.broadcast_like(np.sum(chosen, axis=axes, keepdims=True), x)
        return np.sign(x) * chosen / share
    return np.sign(x) * np.power(np.abs(x) / _safe(norm), p - 1)


def _vector_grad(ctx, g, out, x, axes, keepdims, p):
    norm = _spread(ctx, out, x, axes, keepdims)
    return _spread(ctx, g, x, axes, keepdims) * _vector_scale(ctx, x, norm, axes, p)


def _matrix_grad(ctx, g, out, x, axes, keepdims, p):
    if p is None or p == "fro":
        return _vector_grad(ctx, g, out, x, axes, keepdims, 2)
    nd = ctx.ndim(x)
    if p not in ("nuc", 2, -2) or axes != (nd - 2, nd - 1):
        ctx.unsupported(f"a matrix norm of ord={p!r} (over axes {axes})")
    u, _, vh = np.linalg.svd(x, full_matrices=False)
    if p == 2:
        u, vh = u[..., :1], vh[..., :1, :]
    elif p == -2:
        u, vh = u[..., -1:], vh[..., -1:, :]
    return _spread(ctx, g, x, axes, keepdims) * (u @ vh)


def _norm(ctx, g, out, x, ord=None, axis=None, keepdims=False):  # noqa: A002 (NumPy's name)
    _real(ctx, x, "np.linalg.norm")
    axes = _axes(ctx, x, axis)
    if len(axes) == 2 and (axis is not None or ord is not None):
        return (_matrix_grad(ctx, g, out, x, axes, keepdims, ord),)
    return (_vector_grad(ctx, g, out, x, axes, keepdims, ord),)


def _vector_norm(ctx, g, out, x, axis=None, keepdims=False, ord=2):  # noqa: A002
    _real(ctx, x, "np.linalg.vector_norm")
    return (_vector_grad(ctx, g, out, x, _axes(ctx, x, axis), keepdims, ord),)


def _matrix_norm(ctx, g, out, x, keepdims=False, ord="fro"):  # noqa: A002
    _real(ctx, x, "np.linalg.matrix_norm")
    return (_matrix_grad(ctx, g, out, x, _axes(ctx, x, (-2, -1)), keepdims, ord),)


# -- contractions -----------------------------------------------------------------------------


def _einsum_terms(ctx, subscripts: str, operands) -> tuple[list[str], str]:
    """The operands' subscripts and the output's, each '...' spelt with unused letters."""
    lhs, arrow, rhs = subscripts.replace(" ", "").partition("->")
    terms = lhs.split(",")
    spare = [c for c in string.ascii_letters if c not in subscripts]
    counts = [ctx.ndim(x) - len(t) + 3 if "..." in t else 0 for t, x in zip(terms, operands)]
    ell = "".join(spare[: max(counts, default=0)])
    terms = [t.replace("...", ell[len(ell) - k :]) for t, k in zip(terms, counts)]
    if not arrow:
        labels = "".join(terms)
        rhs = ell + "".join(sorted(c for c in set(labels) if labels.count(c) == 1 and c not in ell))
    return terms, rhs.replace("...", ell)


def _contraction_grad(ctx, g, operands, terms, out_term, i):
    """The cotangent of operand i of einsum(terms -> out_term) given the output's, g.

    Its subscripts absent elsewhere, or of size 1 in the operand (broadcast), are summed by
    the einsum and put back as axes of size 1; the result is then broadcast to the operand's
    shape (along those axes, and along subscripts of size 1 everywhere else)."""
    term, x = terms[i], operands[i]
    if len(set(term)) != len(term):
        ctx.unsupported("einsum with a subscript repeated within one operand")
    others = [(t, y) for j, (t, y) in enumerate(zip(terms, operands)) if j != i]
    present = set(out_term).union(*(t for t, _ in others))
    kept = [c in present and not _is_one(ctx.dim(x, p)) for p, c in enumerate(term)]
    target = "".join(c for c, keep in zip(term, kept) if keep)
    spec = ",".join([out_term] + [t for t, _ in others]) + "->" + target
    grad = np.einsum(spec, g, *(y for _, y in others))
    dropped = tuple(p for p, keep in enumerate(kept) if not keep)
    if dropped:
        grad = np.expand_dims(grad, dropped)
    return ctx.broadcast_like(grad, x)


def _is_one(d) -> bool:
    return isinstance(d, int) and d == 1


def _contraction(ctx, g, operands, terms, out_term):
    # (multilinear: complex operands need no conjugate in JAX's convention)
    return tuple(
        _contraction_grad(ctx, g, operands, terms, out_term, i) if ctx.wants(i) else None
        for i in range(len(operands))
    )


def _einsum(ctx, g, out, *operands, subscripts):
    terms, out_term = _einsum_terms(ctx, subscripts, operands)
    return _contraction(ctx, g, operands, terms, out_term)


def _tensordot_axes(na: int, nb: int, axes) -> tuple[list[int], list[int]]:
    if isinstance(axes, (tuple, list)) and len(axes) == 2:
        ax_a, ax_b = (list(ax) if isinstance(ax, (tuple, list)) else [ax] for ax in axes)
    else:
        ax_a, ax_b = list(range(na - axes, na)), list(range(axes))
    return [a % na for a in ax_a], [b % nb for b in ax_b]


def _tensordot(ctx, g, out, a, b, axes=2):
    na, nb = ctx.ndim(a), ctx.ndim(b)
    ax_a, ax_b = _tensordot_axes(na, nb, axes)
    letters = string.ascii_letters
    term_a = letters[:na]
    shared = dict(zip(ax_b, (term_a[k] for k in ax_a)))
    term_b = "".join(shared.get(k, letters[na + k]) for k in range(nb))
    out_term = "".join(c for k, c in enumerate(term_a) if k not in ax_a) + "".join(
        c for k, c in enumerate(term_b) if k not in ax_b
    )
    return _contraction(ctx, g, (a, b), [term_a, term_b], out_term)


def _linalg_outer(ctx, g, out, x1, x2):
    return ctx.rule_of("outer")(ctx, g, out, x1, x2)


# -- weighted means and integrals (np.average, np.trapezoid) -----------------------------------


def _along(x, axis: int, part: slice):
    return x[(slice(None),) * axis + (part,)]


def _edges(x, axis: int):
    """(x with a zero before it, x with a zero after it) along `axis`."""
    zero = 0.0 * _along(x, axis, slice(0, 1))
    return np.concatenate([zero, x], axis=axis), np.concatenate([x, zero], axis=axis)


def _spread_along(ctx, v, y, axis: int):
    """A 1-d v laid along `axis` of y (size 1 along y's other axes)."""
    return np.expand_dims(v, tuple(k for k in range(ctx.ndim(y)) if k != axis))


def _trapezoid(ctx, g, out, *inputs, names, dx=1.0, axis=-1):
    arrays = dict(zip(names, inputs))
    y, x = arrays["y"], arrays.get("x")
    axis = axis % ctx.ndim(y)
    g = np.expand_dims(g, axis)
    if x is None:
        xs, step = None, dx * _spread_along(ctx, np.ones(ctx.dim(y, axis) - 1), y, axis)
    else:
        if ctx.ndim(x) not in (1, ctx.ndim(y)):
            ctx.unsupported("np.trapezoid with x of other than 1 or y's number of dimensions")
        xs = _spread_along(ctx, x, y, axis) if ctx.ndim(x) == 1 else x
        step = _along(xs, axis, slice(1, None)) - _along(xs, axis, slice(None, -1))
    grads = {}
    if ctx.wants(names.index("y")):
        before, after = _edges(step, axis)
        grads["y"] = ctx.sum_to(g * (before + after) / 2.0, y)
    if xs is not None and ctx.wants(names.index("x")):
        mid = (_along(y, axis, slice(1, None)) + _along(y, axis, slice(None, -1))) / 2.0
        before, after = _edges(mid, axis)
        grads["x"] = ctx.reshape_like(ctx.sum_to(g * (before - after), xs), x)
    return tuple(grads.get(name) for name in names)


def _average(ctx, g, out, *inputs, names, axis=None, returned=False, keepdims=False):
    arrays = dict(zip(names, inputs))
    a, w = arrays["a"], arrays.get("weights")
    axes = _axes(ctx, a, axis)
    g_mean = _spread(ctx, g[0] if g[0] is not None else ctx.zeros_like(out[0]), a, axes, keepdims)
    if w is None:
        return (g_mean / ctx.count(a, out[0]),)
    wb = w
    if ctx.ndim(w) != ctx.ndim(a):  # weights along the one axis
        if len(axes) != 1:
            ctx.unsupported("np.average with weights along several axes")
        wb = _spread_along(ctx, w, a, axes[0])
    total = _spread(ctx, np.sum(wb, axis=axes, keepdims=keepdims), a, axes, keepdims)
    mean = _spread(ctx, out[0], a, axes, keepdims)
    ga = ctx.sum_to(g_mean * wb / total, a) if ctx.wants(names.index("a")) else None
    gw = None
    if ctx.wants(names.index("weights")):
        g_total = 0.0 if len(g) < 2 or g[1] is None else _spread(ctx, g[1], a, axes, keepdims)
        gw = ctx.reshape_like(ctx.sum_to(g_mean * (a - mean) / total + g_total, wb), w)
    return tuple({"a": ga, "weights": gw}[name] for name in names)


STATISTICS_RULES: dict[str, Callable] = {"trapezoid": _trapezoid, "average": _average}
MATRIX_RULES: dict[str, Callable] = {
    "linalg.inv": _inv,
    "linalg.solve": _solve,
    "linalg.det": _det,
    "linalg.slogdet": _slogdet,
    "linalg.cholesky": _cholesky,
    "linalg.eigh": _eigh,
    "linalg.eigvalsh": _eigvalsh,
    "linalg.svd": _svd,
    "linalg.svdvals": _svdvals,
    "linalg.norm": _norm,
    "linalg.vector_norm": _vector_norm,
    "linalg.matrix_norm": _matrix_norm,
    "linalg.outer": _linalg_outer,
    "tensordot": _tensordot,
}
EINSUM_RULES: dict[str, Callable] = {"einsum": _einsum}
