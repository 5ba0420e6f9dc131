"""The same programs differentiated here and by jax.grad agree to 1e-12 (float64).

Each program is written once, over an array module `xp` (numpy for staging.grad, jax.numpy
for jax.grad), with the Python control flow users write: loops whose trip count depends on the
data, `break`, early `return`, branches on values. JAX differentiates the Python code as it
runs; staging.grad differentiates the staged graph, traced once.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import staging

jax = pytest.importorskip("jax")
jnp = jax.numpy

pytestmark = pytest.mark.usefixtures("jax_float64")


def poly(xp, x):
    return xp.sum(3.0 * x**3 - 2.0 * x**2 + x - 5.0)


def softmax_xent(xp, x):
    z = x - xp.max(x)
    return -(z[1] - xp.log(xp.sum(xp.exp(z))))


def logsumexp_rows(xp, x):
    m = xp.max(x, axis=1, keepdims=True)
    return xp.sum(m[:, 0] + xp.log(xp.sum(xp.exp(x - m), axis=1)))


def mlp(xp, x):
    w1 = xp.reshape(xp.arange(12.0), (3, 4)) / 10.0
    h = xp.tanh(x @ w1)
    return xp.sum(h**2) + xp.mean(xp.sin(h))


def normalize(xp, x):
    return xp.sum(((x - xp.mean(x)) / xp.std(x)) ** 3)


def newton_sqrt(xp, x):
    y = x
    for _ in range(25):
        y = 0.5 * (y + x / y)
    return xp.sum(y)


def grow_until(xp, x):
    s = x
    while s < 10.0:
        s = s * 1.5 + x
    return s


def first_crossing(xp, x):
    s = x
    for _ in range(100):
        s = s * 1.1 + 0.01 * s * s
        if s > 5.0:
            break
    return s


def early_return(xp, x):
    i = 0
    while i < 10:
        if x * i > 3.0:
            return x * i + xp.sin(x)
        i += 1
    return x


def branches(xp, x):
    if x > 1.0:
        y = xp.log(x) * x
    elif x > 0.0:
        y = xp.sqrt(x) + x
    else:
        y = -x * x
    return y * 2.0


def bisection_like(xp, x):
    lo, hi = 0.0 * x, x
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        if mid * mid > x:
            hi = mid
        else:
            lo = mid
    return lo + hi


def euler(xp, x):
    y = x
    t = 0.0
    while t < 1.0:
        y = y + 0.05 * (-y + xp.sin(t * y))
        t = t + 0.05
    return y


def array_loop(xp, x):
    y = x
    k = 0
    while xp.max(xp.abs(y)) > 0.05 and k < 40:
        y = 0.5 * y + 0.01 * xp.tanh(x)
        k += 1
    return xp.sum(y * x)


def piecewise_where(xp, x):
    return xp.sum(xp.where(x > 0.5, x**2, xp.exp(x) - 1.0))


def clip_and_abs(xp, x):
    return xp.sum(xp.clip(x, 0.2, 0.8) * xp.abs(x - 0.5))


def products(xp, x):
    m = xp.reshape(x, (2, 3))
    return xp.sum(m @ m.T) + xp.sum(xp.outer(x, x)) + xp.dot(x, x)


def reductions(xp, x):
    m = xp.reshape(x, (2, 3))
    return xp.sum(xp.mean(m, axis=0) ** 2) + xp.sum(xp.var(m, axis=1)) + xp.prod(m[0])


def cumulative(xp, x):
    return xp.sum(xp.cumsum(x) ** 2)


def slicing(xp, x):
    return xp.sum(x[1:] * x[:-1]) + x[0] * x[-1] + xp.sum(x[::2] ** 3)


def concat_stack(xp, x):
    y = xp.concatenate([x, 2.0 * x[:2]])
    z = xp.stack([x, x * x])
    return xp.sum(y * y) + xp.sum(z[1] * z[0])


def transcendental(xp, x):
    return xp.sum(
        xp.arctan(x) + xp.tanh(x) + xp.log1p(x) + xp.expm1(x) + xp.arcsinh(x) + xp.cbrt(x)
    )


def trig(xp, x):
    return xp.sum(xp.sin(x) * xp.cos(x) + xp.tan(x / 2) + xp.arcsin(x / 2) + xp.arccos(x / 3))


def power_and_divide(xp, x):
    return xp.sum(x**x + 1.0 / (1.0 + x) + x**0.5 + xp.hypot(x, 1.0) + xp.arctan2(x, 2.0))


def max_min(xp, x):
    return xp.max(x) * 2.0 + xp.min(x) + xp.sum(xp.maximum(x, 0.5) + xp.minimum(x, 0.3))


def logistic_regression(xp, w):
    data = xp.reshape(xp.arange(12.0), (4, 3)) / 6.0 - 1.0
    labels = xp.array([1.0, 0.0, 1.0, 0.0])
    p = 1.0 / (1.0 + xp.exp(-(data @ w)))
    return -xp.mean(labels * xp.log(p) + (1.0 - labels) * xp.log(1.0 - p))


def gradient_descent_inside(xp, x):
    y = x
    for _ in range(10):
        y = y - 0.1 * (2.0 * (y - 1.0))
    return xp.sum(y * x)


def nested_loops(xp, x):
    total = 0.0
    for i in range(3):
        acc = x[i]
        while acc < 4.0:
            acc = acc * 2.0 + x[(i + 1) % 3]
        total = total + acc
    return total


def loop_with_branch(xp, x):
    s = 0.0
    for i in range(6):
        if x[i % 3] > 0.5:
            s = s + xp.sin(x[i % 3]) * i
        else:
            s = s - x[i % 3] ** 2
    return s


def matrix_power_loop(xp, x):
    m = xp.reshape(x, (2, 2))
    p = m
    for _ in range(4):
        p = p @ m / 2.0
    return xp.sum(p)


def collatz_weighted(xp, x):
    n = 27
    s = x
    while n != 1:
        if n % 2 == 0:
            n = n // 2
            s = s * 0.99
        else:
            n = 3 * n + 1
            s = s + 0.01 * x
    return s


def spectral_power(xp, x):
    return xp.sum(xp.abs(xp.fft.rfft(x)) ** 2)


def spectral_filter(xp, x):
    """A low-pass filter in the frequency domain, and a loss on the signal it gives back."""
    spectrum = xp.fft.rfft(x, n=8, norm="ortho")
    kept = spectrum * xp.exp(-0.3 * xp.arange(5.0))
    y = xp.fft.irfft(kept, n=8, norm="ortho")
    return xp.sum(xp.sin(y) * xp.arange(1.0, 9.0)) + xp.abs(xp.fft.fft(x)[1])


def image_spectrum(xp, x):
    image = xp.reshape(x, (2, 3))
    shifted = xp.fft.fftshift(xp.fft.fft2(image, s=(4, 4), axes=(0, 1)))
    back = xp.fft.irfftn(xp.fft.rfftn(image * image), s=(2, 3), axes=(0, 1))
    return xp.sum(xp.abs(shifted) * xp.arange(16.0).reshape(4, 4)) + xp.sum(back**2)


def phasor_loop(xp, x):
    """A complex rotation applied until its magnitude passes a bound (data-dependent trips)."""
    z = x[0] + 1j * x[1]
    w = 1.0 + 0.0j
    while xp.abs(w) < 5.0:
        w = w * z + 0.1j * x[2]
    return xp.real(w) + xp.angle(w) * xp.imag(w)


PROGRAMS = [
    (poly, np.array([0.3, -1.2, 2.0])),
    (softmax_xent, np.array([0.2, 1.5, -0.3, 0.8])),
    (logsumexp_rows, np.array([[0.1, 2.0, -1.0], [3.0, 0.5, 0.2]])),
    (mlp, np.array([[0.2, -0.5, 1.0], [1.5, 0.3, -0.7]])),
    (normalize, np.array([0.5, 1.7, -0.4, 2.2])),
    (newton_sqrt, np.array([2.0, 9.0, 0.5])),
    (grow_until, np.float64(0.7)),
    (grow_until, np.float64(3.1)),
    (first_crossing, np.float64(1.3)),
    (early_return, np.float64(0.9)),
    (early_return, np.float64(-0.5)),
    (branches, np.float64(2.5)),
    (branches, np.float64(0.4)),
    (branches, np.float64(-1.5)),
    (bisection_like, np.float64(2.0)),
    (euler, np.float64(0.8)),
    (array_loop, np.array([0.4, -0.9, 1.2])),
    (piecewise_where, np.array([0.2, 0.7, 1.1, -0.3])),
    (clip_and_abs, np.array([0.1, 0.45, 0.7, 0.95])),
    (products, np.array([0.3, -0.2, 1.1, 0.7, 0.5, -1.0])),
    (reductions, np.array([0.3, -0.2, 1.1, 0.7, 0.5, 1.3])),
    (cumulative, np.array([0.3, -0.2, 1.1, 0.7])),
    (slicing, np.array([0.3, -0.2, 1.1, 0.7, 0.9])),
    (concat_stack, np.array([0.3, -0.2, 1.1])),
    (transcendental, np.array([0.3, 0.6, 1.1])),
    (trig, np.array([0.3, 0.6, 1.1])),
    (power_and_divide, np.array([0.3, 0.6, 1.1])),
    (max_min, np.array([0.2, 0.9, 0.4, 0.6])),
    (logistic_regression, np.array([0.5, -0.25, 0.1])),
    (gradient_descent_inside, np.array([0.2, 2.0])),
    (nested_loops, np.array([0.5, 1.5, 0.7])),
    (loop_with_branch, np.array([0.2, 0.8, 0.6])),
    (matrix_power_loop, np.array([0.5, 0.2, -0.3, 0.9])),
    (collatz_weighted, np.float64(1.2)),
    (spectral_power, np.array([0.3, -1.2, 2.0, 0.7, 0.1])),
    (spectral_filter, np.array([0.3, -1.2, 2.0, 0.7, 0.1, 0.9])),
    (image_spectrum, np.array([0.3, -1.2, 2.0, 0.7, 0.1, 0.9])),
    (phasor_loop, np.array([1.1, 0.6, 0.3])),
    (phasor_loop, np.array([0.2, 1.4, -0.5])),
]


@pytest.mark.parametrize(
    ("program", "x"), PROGRAMS, ids=[f"{p.__name__}-{i}" for i, (p, _) in enumerate(PROGRAMS)]
)
def test_staged_gradient_equals_jax_grad(program, x):
    ours = staging.grad(functools.partial(program, np))(x)
    theirs = jax.grad(functools.partial(program, jnp))(jnp.asarray(x))
    np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-12, atol=1e-14)


def complex_polynomial(xp, z):
    return xp.sum(xp.abs(z**3 - 2.0j * z**2 + z - 5.0) ** 2)


def complex_transcendental(xp, z):
    w = xp.exp(z) * xp.log(z) + xp.sqrt(z) / (1.0 + z * z) - xp.tanh(z) * xp.conj(z)
    return xp.sum(xp.real(w) * xp.imag(w) + xp.angle(w))


def complex_matrix(xp, z):
    m = xp.reshape(z, (2, 2))
    p = m
    for _ in range(3):
        p = p @ m / 2.0 + xp.conj(m).T
    return xp.real(xp.sum(p)) + xp.var(m) + xp.abs(xp.prod(z))


def complex_loop(xp, z):
    w = z
    n = 0
    for _ in range(30):
        w = w * w + z
        if xp.real(w[0]) > 1.0:
            w = w * 0.5
        n += 1
        if xp.sum(xp.abs(w)) > 10.0:  # (stops on the data, or after 30 iterations)
            break
    return xp.sum(xp.abs(w) ** 2) + n


def complex_spectrum(xp, z):
    spectrum = xp.fft.fft(z, n=6) * xp.exp(-1j * xp.arange(6.0))
    signal = xp.fft.ifft(spectrum, n=4, norm="forward")
    return xp.sum(xp.abs(signal) ** 2) + xp.real(xp.fft.hfft(z)[1]) + xp.sum(xp.fft.irfft(z))


COMPLEX_PROGRAMS = [
    (complex_polynomial, np.array([0.3 + 0.4j, -1.2 + 0.1j, 2.0 - 1.0j])),
    (complex_transcendental, np.array([0.3 + 0.4j, 1.2 + 0.1j, 2.0 - 1.0j])),
    (complex_matrix, np.array([0.3 + 0.4j, -1.2 + 0.1j, 2.0 - 1.0j, 0.5j])),
    (complex_loop, np.array([0.3 + 0.4j, -0.2 + 0.1j])),
    (complex_loop, np.array([0.1 - 0.4j, 0.9 + 0.8j])),
    (complex_spectrum, np.array([0.3 + 0.4j, -1.2 + 0.1j, 2.0 - 1.0j, 0.5j])),
]


@pytest.mark.parametrize(
    ("program", "z"),
    COMPLEX_PROGRAMS,
    ids=[f"{p.__name__}-{i}" for i, (p, _) in enumerate(COMPLEX_PROGRAMS)],
)
def test_staged_gradient_of_complex_arguments_equals_jax_grad(program, z):
    ours = staging.grad(functools.partial(program, np))(z)
    theirs = jax.grad(functools.partial(program, jnp))(jnp.asarray(z))
    assert ours.dtype == np.complex128
    np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-12, atol=1e-14)


def holomorphic_series(xp, z):
    total = 0.0j
    term = 1.0 + 0.0j
    k = 1.0
    while xp.abs(term) > 1e-3:  # (exp(z) summed until the terms are small)
        total = total + term
        term = term * z / k
        k = k + 1.0
    return total * xp.sin(z)


@pytest.mark.parametrize("z", [np.complex128(0.5 + 0.3j), np.complex128(-1.0 + 2.0j)])
def test_holomorphic_gradient_equals_jax_grad(z):
    ours = staging.grad(functools.partial(holomorphic_series, np), holomorphic=True)(z)
    theirs = jax.grad(functools.partial(holomorphic_series, jnp), holomorphic=True)(z)
    np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-12, atol=1e-14)


def test_second_order_of_a_spectral_loss_equals_jax():
    def slope(xp, grad, x):
        return xp.sum(grad(functools.partial(spectral_filter, xp))(x) * xp.arange(6.0))

    x = np.array([0.3, -1.2, 2.0, 0.7, 0.1, 0.9])
    ours = staging.grad(functools.partial(slope, np, staging.grad))(x)
    theirs = jax.grad(functools.partial(slope, jnp, jax.grad))(jnp.asarray(x))
    np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-12, atol=1e-14)


def test_there_are_thirty_programs():
    assert len({p for p, _ in PROGRAMS}) >= 30
