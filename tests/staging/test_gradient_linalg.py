"""Gradients through np.linalg, einsum and tensordot (runtime/ops/linalg_derivatives.py).

Each program is written once against a namespace `xp` (NumPy or jax.numpy): its staged
gradient is compared with central finite differences of the NumPy program, and, where JAX is
installed, with jax.grad of the jax.numpy program.
"""

from __future__ import annotations

import numpy as np
import pytest

import staging
from staging import errors

RNG_SEED = 20240611


def _rng(k: int = 0):
    return np.random.default_rng(RNG_SEED + k)


def _matrix(n, k=0, batch=()):
    """A random well-conditioned n x n matrix (a stack of them)."""
    return _rng(k).normal(size=batch + (n, n)) + 3.0 * np.eye(n)


def _spd(n, k=0, batch=()):
    """A random symmetric positive definite matrix (a stack of them)."""
    m = _rng(k).normal(size=batch + (n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def _weights(shape, k=100):
    return _rng(k).normal(size=shape)


def finite_difference(f, args, argnum, h=1e-6):
    """The gradient of the scalar f(*args) in args[argnum] by central differences."""
    args = [np.array(a, dtype=np.float64) for a in args]
    x = args[argnum]
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        saved = x[index]
        x[index] = saved + h
        up = f(*args)
        x[index] = saved - h
        down = f(*args)
        x[index] = saved
        grad[index] = (up - down) / (2 * h)
    return grad


def _relative(a, b):
    return np.linalg.norm(np.asarray(a) - np.asarray(b)) / max(np.linalg.norm(b), 1e-300)


def _jax_gradient(program, args, argnums):
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    with jax.enable_x64(True):
        grads = jax.grad(program(jnp), argnums=argnums)(*[jnp.asarray(a) for a in args])
        return [np.asarray(g) for g in grads]


def check(program, *args, argnums=(0,), tol=1e-6, jax_tol=1e-10, with_jax=True):
    """staging.grad of program(np) against finite differences and jax.grad of program(jnp)."""
    f = program(np)
    grads = staging.grad(f, argnums=argnums)(*args)
    for i, g in zip(argnums, grads):
        assert np.shape(g) == np.shape(args[i])
        fd = finite_difference(f, args, i)
        assert _relative(g, fd) < tol, (i, g, fd)
    if with_jax:
        for g, expected in zip(grads, _jax_gradient(program, args, argnums)):
            assert _relative(g, expected) < jax_tol, (g, expected)


def _sym(xp, a):
    return (a + xp.swapaxes(a, -1, -2)) / 2


# -- inverses, solvers, determinants ---------------------------------------------------------


@pytest.mark.parametrize("batch", [(), (2,)])
def test_inv(batch):
    w = _weights(batch + (3, 3))

    def program(xp):
        def f(a):
            return xp.sum(xp.linalg.inv(a) * w)

        return f

    check(program, _matrix(3, batch=batch))


def test_solve_matrix_right_hand_side():
    w = _weights((3, 2))

    def program(xp):
        def f(a, b):
            return xp.sum(xp.linalg.solve(a, b) * w)

        return f

    check(program, _matrix(3), _rng(1).normal(size=(3, 2)), argnums=(0, 1))


def test_solve_vector_right_hand_side():
    w = _weights((4,))

    def program(xp):
        def f(a, b):
            return xp.sum(xp.linalg.solve(a, b) * w)

        return f

    check(program, _matrix(4), _rng(1).normal(size=4), argnums=(0, 1))


def test_solve_batched_matrix_broadcast_right_hand_side():
    w = _weights((2, 3, 2))

    def program(xp):
        def f(a, b):
            return xp.sum(xp.linalg.solve(a, b) * w)

        return f

    check(program, _matrix(3, batch=(2,)), _rng(1).normal(size=(3, 2)), argnums=(0, 1))


def test_solve_only_the_right_hand_side():
    a = _matrix(3)
    w = _weights((3,))

    def program(xp):
        def f(b):
            return xp.sum(xp.linalg.solve(a, b) * w)

        return f

    check(program, _rng(1).normal(size=3))


@pytest.mark.parametrize("batch", [(), (2,)])
def test_det(batch):
    w = _weights(batch)

    def program(xp):
        def f(a):
            return xp.sum(xp.linalg.det(a) * w)

        return f

    check(program, _matrix(3, batch=batch))


def test_slogdet():
    def program(xp):
        def f(a):
            sign, logdet = xp.linalg.slogdet(a)
            return xp.sum(logdet * xp.array([1.5, -0.5]))

        return f

    a = _matrix(3, batch=(2,))
    a[1, 0] *= -1.0  # a negative determinant too
    check(program, a)


def test_slogdet_sign_only_gives_zeros():
    def f(a):
        sign, logdet = np.linalg.slogdet(a)
        return sign * 1.0 + 0.0 * np.sum(a)

    grad = staging.grad(f)(_matrix(3))
    assert np.array_equal(grad, np.zeros((3, 3)))


# -- decompositions ------------------------------------------------------------------------


@pytest.mark.parametrize("batch", [(), (2,)])
def test_cholesky(batch):
    w = _weights(batch + (4, 4))

    def program(xp):
        def f(a):
            return xp.sum(xp.linalg.cholesky(_sym(xp, a)) * w)

        return f

    check(program, _spd(4, batch=batch))


def test_cholesky_upper():
    w = _weights((3, 3))

    def f(a):
        return np.sum(np.linalg.cholesky(_sym(np, a), upper=True) * w)

    a = _spd(3)
    assert _relative(staging.grad(f)(a), finite_difference(f, [a], 0)) < 1e-6


def test_cholesky_gradient_is_symmetric():
    w = _weights((3, 3))
    grad = staging.grad(lambda a: np.sum(np.linalg.cholesky(a) * w))(_spd(3))
    assert np.allclose(grad, grad.T)


@pytest.mark.parametrize("batch", [(), (2,)])
def test_eigh(batch):
    # the eigenvectors only through a function that does not depend on their signs
    ww = _weights(batch + (4,), k=101)
    wv = _weights(batch + (4, 4), k=102)

    def program(xp):
        def f(a):
            w, v = xp.linalg.eigh(_sym(xp, a))
            return xp.sum(w * ww) + xp.sum(v * v * wv)

        return f

    check(program, _spd(4, batch=batch), tol=1e-5)


def test_eigh_eigenvalues_only():
    ww = _weights((4,))

    def program(xp):
        def f(a):
            w, _ = xp.linalg.eigh(_sym(xp, a))
            return xp.sum(w * ww)

        return f

    check(program, _spd(4))


def test_eigvalsh():
    ww = _weights((4,))

    def program(xp):
        def f(a):
            return xp.sum(xp.linalg.eigvalsh(_sym(xp, a)) * ww)

        return f

    check(program, _spd(4))


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3)])
def test_svd(shape):
    k = min(shape[-2:])
    ws = _weights(shape[:-2] + (k,), k=101)
    wu = _weights(shape[:-2] + (shape[-2], k), k=102)
    wv = _weights(shape[:-2] + (k, shape[-1]), k=103)

    def program(xp):
        def f(a):
            u, s, vh = xp.linalg.svd(a, full_matrices=False)
            return xp.sum(s * ws) + xp.sum(u * u * wu) + xp.sum(vh * vh * wv)

        return f

    check(program, _rng(5).normal(size=shape), tol=1e-5)


def test_svd_full_matrices_of_a_square_matrix():
    ws = _weights((3,))
    wu = _weights((3, 3), k=102)

    def program(xp):
        def f(a):
            u, s, vh = xp.linalg.svd(a)
            return xp.sum(s * ws) + xp.sum(u * u * wu)

        return f

    check(program, _rng(5).normal(size=(3, 3)), tol=1e-5)


def test_singular_values():
    ws = _weights((3,))

    def program(xp):
        def f(a):
            return xp.sum(xp.linalg.svd(a, compute_uv=False) * ws) + xp.sum(
                xp.linalg.svdvals(a) ** 2
            )

        return f

    check(program, _rng(5).normal(size=(4, 3)))


def test_svd_full_matrices_of_a_rectangular_matrix_is_refused():
    def f(a):
        u, s, vh = np.linalg.svd(a)
        return np.sum(u)

    with pytest.raises(errors.GradientError, match="full_matrices"):
        staging.grad(f)(np.ones((3, 2)))


# -- norms ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"ord": 2},
        {"ord": 1},
        {"ord": 3},
        {"ord": np.inf},
        {"axis": 1},
        {"axis": 0, "keepdims": True},
        {"axis": (0, 1)},
        {"ord": "fro"},
        {"ord": "nuc"},
        {"ord": 2, "axis": (1, 0)},
        {"ord": -2},
    ],
)
def test_norm(kwargs):
    x = _rng(3).normal(size=(4, 3))
    if kwargs.get("ord") in (1, 3, np.inf) and "axis" not in kwargs:
        x = x[:, 0]  # a vector ord

    def program(xp):
        def f(a):
            return xp.sum(xp.linalg.norm(a, **kwargs) * 1.5)

        return f

    check(program, x)


def test_norm_of_zero_is_zero_gradient():
    assert np.array_equal(staging.grad(np.linalg.norm)(np.zeros(3)), np.zeros(3))
    grad = staging.grad(lambda a: np.sum(np.linalg.norm(a, axis=1)))(np.zeros((2, 3)))
    assert np.array_equal(grad, np.zeros((2, 3)))


@pytest.mark.parametrize(
    "kwargs", [{}, {"axis": -1}, {"ord": 1, "axis": 0, "keepdims": True}, {"ord": 4}]
)
def test_vector_norm(kwargs):
    w = _weights(np.linalg.vector_norm(np.ones((3, 4)), **kwargs).shape)

    def program(xp):
        def f(a):
            return xp.sum(xp.linalg.vector_norm(a, **kwargs) * w)

        return f

    check(program, _rng(3).normal(size=(3, 4)))


@pytest.mark.parametrize("kwargs", [{}, {"ord": "nuc"}, {"ord": 2, "keepdims": True}])
def test_matrix_norm(kwargs):
    w = _weights(np.linalg.matrix_norm(np.ones((2, 3, 4)), **kwargs).shape)

    def program(xp):
        def f(a):
            return xp.sum(xp.linalg.matrix_norm(a, **kwargs) * w)

        return f

    check(program, _rng(3).normal(size=(2, 3, 4)))


def test_matrix_norm_of_another_ord_is_refused():
    with pytest.raises(errors.GradientError, match="ord=1"):
        staging.grad(lambda a: np.linalg.matrix_norm(a, ord=1))(np.ones((3, 3)))


# -- contractions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("subscripts", "shapes"),
    [
        ("ij,jk->ik", [(2, 3), (3, 4)]),
        ("ij,jk", [(2, 3), (3, 4)]),
        ("ij->", [(2, 3)]),
        ("ij->j", [(2, 3)]),
        ("ii->", [(3, 3)]),
        ("i,i", [(3,), (3,)]),
        ("i,j->ij", [(3,), (4,)]),
        ("...ij,...jk->...ik", [(2, 2, 3), (3, 4)]),
        ("bij,bj->bi", [(2, 3, 4), (2, 4)]),
        ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
        ("ij,kl->ijkl", [(2, 1), (1, 3)]),
        ("...i,...i->...", [(2, 1, 3), (4, 3)]),
        ("ij,jk->ik", [(2, 1), (3, 4)]),
        ("ij,ij->ij", [(1, 3), (2, 1)]),
    ],
)
def test_einsum(subscripts, shapes):
    args = [_rng(i).normal(size=s) for i, s in enumerate(shapes)]
    w = _weights(np.einsum(subscripts, *args).shape)

    def program(xp):
        def f(*operands):
            return xp.sum(xp.einsum(subscripts, *operands) * w)

        return f

    argnums = tuple(range(len(args)))
    if subscripts == "ii->":
        with pytest.raises(errors.GradientError, match="repeated"):
            staging.grad(program(np), argnums=argnums)(*args)
        return
    check(program, *args, argnums=argnums)


@pytest.mark.parametrize(
    ("axes", "shapes"),
    [
        (2, [(2, 3, 4), (3, 4, 5)]),
        (1, [(2, 3), (3, 4)]),
        (0, [(2,), (3,)]),
        (([0, 2], [1, 0]), [(3, 2, 4), (4, 3, 5)]),
        ((1, 0), [(2, 3), (3, 4)]),
    ],
)
def test_tensordot(axes, shapes):
    args = [_rng(i).normal(size=s) for i, s in enumerate(shapes)]
    w = _weights(np.tensordot(*args, axes=axes).shape)

    def program(xp):
        def f(a, b):
            return xp.sum(xp.tensordot(a, b, axes=axes) * w)

        return f

    check(program, *args, argnums=(0, 1))


def test_linalg_outer():
    w = _weights((3, 4))

    def program(xp):
        def f(a, b):
            return xp.sum(xp.linalg.outer(a, b) * w)

        return f

    check(program, _rng(1).normal(size=3), _rng(2).normal(size=4), argnums=(0, 1))


# -- integrals and weighted means ----------------------------------------------------------


@pytest.mark.parametrize(
    ("x_shape", "kwargs"),
    [(None, {}), (None, {"dx": 0.5, "axis": 0}), ((4,), {}), ((3, 4), {}), ((3,), {"axis": 0})],
)
def test_trapezoid(x_shape, kwargs):
    y = _rng(1).normal(size=(3, 4))
    w = _weights(np.trapezoid(y, **kwargs).shape)
    if x_shape is None:

        def program(xp):
            def f(y):
                return xp.sum(xp.trapezoid(y, **kwargs) * w)

            return f

        check(program, y)
        return

    def program(xp):
        def f(y, x):
            return xp.sum(xp.trapezoid(y, x, **kwargs) * w)

        return f

    x = np.cumsum(_rng(2).uniform(0.5, 1.5, size=x_shape), axis=-1 if len(x_shape) == 1 else 1)
    check(program, y, x, argnums=(0, 1))


@pytest.mark.parametrize(
    ("w_shape", "kwargs"),
    [
        (None, {}),
        (None, {"axis": 1, "keepdims": True}),
        ((3, 4), {}),
        ((3, 4), {"axis": 0}),
        ((4,), {"axis": 1}),
        ((3,), {"axis": 0, "keepdims": True}),
    ],
)
def test_average(w_shape, kwargs):
    a = _rng(1).normal(size=(3, 4))
    c = _weights(np.average(a, **kwargs).shape)
    if w_shape is None:

        def program(xp):
            def f(a):
                return xp.sum(xp.average(a, **kwargs) * c)

            return f

        check(program, a)
        return

    def program(xp):
        def f(a, w):
            mean, total = xp.average(a, weights=w, returned=True, **kwargs)
            return xp.sum(mean * c) + xp.sum(total**2)

        return f

    check(program, a, _rng(2).uniform(0.5, 1.5, size=w_shape), argnums=(0, 1))


def test_average_of_the_weights_only():
    a = _rng(1).normal(size=(3, 4))

    def program(xp):
        def f(w):
            return xp.sum(xp.average(a, axis=1, weights=w) ** 2)

        return f

    check(program, _rng(2).uniform(0.5, 1.5, size=(3, 4)))


# -- second order and errors ---------------------------------------------------------------


def test_second_order_through_inv():
    w = _weights((3, 3))

    def f(a):
        return np.sum(np.linalg.inv(a) * w)

    def g(a):
        return np.sum(staging.grad(f)(a) * w)

    a = _matrix(3)
    grad = staging.grad(g)(a)
    fd = finite_difference(
        lambda x: np.sum(-(np.linalg.inv(x).T @ w @ np.linalg.inv(x).T) * w), [a], 0
    )
    assert _relative(grad, fd) < 1e-6


def test_complex_matrices_are_refused():
    with pytest.raises(errors.GradientError, match="complex"):
        staging.grad(lambda a: np.sum(np.abs(np.linalg.inv(a + 0j))))(_matrix(2))


def test_an_op_without_a_rule_names_the_op_and_the_line():
    def f(a):
        q, r = np.linalg.qr(a)
        return np.sum(r)

    line = f.__code__.co_firstlineno + 1
    with pytest.raises(errors.GradientError) as raised:
        staging.grad(f)(_matrix(3))
    message = str(raised.value)
    assert "linalg.qr" in message
    assert f"test_gradient_linalg.py:{line}" in message
