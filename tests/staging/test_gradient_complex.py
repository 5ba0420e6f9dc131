"""Gradients of complex values (JAX's convention: df/dx - 1j df/dy of a real target) and of
np.fft, against central finite differences of the real and imaginary parts; holomorphic=True;
what is refused on complex values."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _gradient_check import assert_close, numeric_gradient

import staging
from runtime.ops import ufunc_derivatives
from staging import errors

RNG = np.random.default_rng(11)
Z = RNG.uniform(0.2, 0.9, (3, 4)) + 1j * RNG.uniform(0.1, 0.6, (3, 4))
X = RNG.uniform(-1.0, 1.0, (3, 4))

# elementwise functions without a derivative on the complex plane, or not defined there
NOT_COMPLEX = {"sign", "maximum", "minimum", "fmax", "fmin", "isfinite", "isinf", "isnan"}
COMPLEX_UNARY = sorted(
    name
    for name in ufunc_derivatives.RULES
    if isinstance(getattr(np, name, None), np.ufunc)
    and getattr(np, name).nin == 1
    and getattr(np, name).nout == 1
    and any(t.startswith("D->") for t in getattr(np, name).types)
    and name not in NOT_COMPLEX
)
COMPLEX_BINARY = sorted(
    name
    for name in ufunc_derivatives.RULES
    if isinstance(getattr(np, name, None), np.ufunc)
    and getattr(np, name).nin == 2
    and "DD->D" in getattr(np, name).types
    and name not in NOT_COMPLEX
)


def _check(f, *args, argnum=0, rtol=1e-6):
    expected = numeric_gradient(f, args, argnum)
    actual = staging.grad(f, argnums=argnum)(*args)
    assert np.asarray(actual).dtype == np.asarray(expected).dtype
    assert_close(actual, expected, rtol=rtol)
    return actual


def _real_of(y):
    """A real target reading both parts of y (complex weights)."""
    k = np.arange(float(np.size(y))).reshape(np.shape(y))
    return np.sum(np.real(y * (np.cos(k) + 1j * np.sin(1.3 * k + 0.2))))


def test_the_complex_ops_listed():
    assert {"exp", "log", "sqrt", "sin", "arccosh", "absolute", "conjugate"} <= set(COMPLEX_UNARY)
    assert {"add", "multiply", "divide", "power", "matmul"} <= set(COMPLEX_BINARY)


@pytest.mark.parametrize("name", COMPLEX_UNARY)
def test_unary_rule_on_complex_values(name):
    func = getattr(np, name)
    _check(lambda z: _real_of(func(z)), Z)
    _check(lambda z: np.sum(np.abs(func(z)) ** 2), Z)


@pytest.mark.parametrize("name", COMPLEX_BINARY)
@pytest.mark.parametrize("argnum", [0, 1])
@pytest.mark.parametrize("mixed", [False, True], ids=["complex", "real-and-complex"])
def test_binary_rule_on_complex_values(name, argnum, mixed):
    """Both operands complex, or one real: the real one's gradient is real (the real part)."""
    func = getattr(np, name)
    if name == "matmul":
        x, y = Z[:2, :3], Z[:, :2]
    else:
        x, y = Z, Z[0] + 1.0
    if mixed:
        x = np.real(x)
    grad = _check(lambda x, y: _real_of(func(x, y)), x, y, argnum=argnum)
    assert np.iscomplexobj(grad) == (not mixed or argnum == 1)


def test_parts_angle_and_absolute_bridge_real_and_complex():
    _check(lambda z: np.sum(np.real(z) * np.imag(z) ** 2 + np.angle(z)), Z)
    _check(lambda z: np.sum(np.angle(z, deg=True) * np.abs(z)), Z)
    _check(lambda z: np.sum(z.real**3 - 2.0 * z.imag + np.abs(z.conj() * z)), Z)
    _check(lambda x: np.sum(np.abs(np.exp(1j * x) * (x + 2j)) ** 2), X)  # real -> complex
    _check(lambda x: np.sum(np.imag(np.exp(x * (1 + 1j)))), X)
    _check(lambda x: np.sum(np.real(x) + np.imag(x) + np.angle(x)), X)  # of a real x


def test_absolute_matches_jax_at_3_plus_4j():
    """jax.grad(lambda z: jnp.abs(z) ** 2)(3 + 4j) is 6 - 8j."""
    assert staging.grad(lambda z: np.abs(z) ** 2)(3 + 4j) == 6 - 8j
    assert staging.grad(lambda z: np.abs(z))(np.complex128(3 + 4j)) == 0.6 - 0.8j
    assert staging.grad(lambda z: np.abs(z))(np.complex128(0)) == 0  # (no NaN at 0)


def test_casts_between_real_and_complex():
    _check(lambda x: np.sum(np.abs(x.astype(np.complex128) * (1 + 2j)) ** 2), X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        _check(lambda z: np.sum(z.astype(np.float64) ** 3), Z)  # (the real part)


def test_complex64_gets_complex64_gradients():
    z = Z.astype(np.complex64)
    g = staging.grad(lambda z: np.sum(np.abs(z * z)))(z)
    assert g.dtype == np.complex64
    assert_close(g, numeric_gradient(lambda z: np.sum(np.abs(z * z)), (Z,)), rtol=1e-5)


REDUCTIONS = [
    lambda z: np.abs(np.sum(z * z, axis=0)),
    lambda z: np.abs(np.mean(z, axis=1)) ** 2,
    lambda z: np.abs(np.prod(z, axis=1)),
    lambda z: np.var(z, axis=0) + np.std(z),
    lambda z: np.var(z, ddof=1),
    lambda z: np.abs(np.cumsum(z, axis=1)),
    lambda z: np.real(np.sort(z, axis=None) * np.arange(12.0)),
    lambda z: np.abs(np.trace(z @ z.T)),
    lambda z: np.abs(np.dot(z[0], z[1]) + np.outer(z[0], z[1])),
    lambda z: np.abs(np.einsum("ij,kj->ik", z, z * 1j) + np.tensordot(z, z.T, axes=1)),
    lambda z: np.abs(np.einsum("ij,jk", np.real(z), z.T)),
    lambda z: np.abs(np.trapezoid(z, axis=0) + np.average(z, axis=1)[:1]),
]


@pytest.mark.parametrize("index", range(len(REDUCTIONS)))
def test_reductions_and_products_of_complex_values(index):
    func = REDUCTIONS[index]
    _check(lambda z: np.sum(func(z)), Z)


SHAPES = [
    lambda z: np.reshape(z, (4, 3)).T[1:, ::2],
    lambda z: np.concatenate([z, 2.0 * z[:1]], axis=0),
    lambda z: np.stack([z[0], z[2]], axis=1),
    lambda z: np.where(np.real(z) > 0.5, z * z, -z),
    lambda z: z[[0, 0, 2], 1],
    lambda z: np.broadcast_to(z[0], (5, 4)),
    lambda z: np.expand_dims(np.squeeze(z[:1]), 0),
]


@pytest.mark.parametrize("index", range(len(SHAPES)))
def test_shape_and_indexing_rules_on_complex_values(index):
    func = SHAPES[index]
    _check(lambda z: _real_of(func(z)) + np.sum(np.abs(func(z))), Z)


def test_setitem_of_complex_values():
    def f(z, v):
        y = z * 1.0
        y[1] = v * (2.0 - 1j)
        return np.sum(np.abs(y) ** 2)

    _check(f, Z, np.complex128(0.3 + 0.4j))
    _check(f, Z, np.complex128(0.3 + 0.4j), argnum=1)


def test_a_staged_loop_and_branch_over_complex_values():
    def f(z):
        w = z
        k = 0
        while np.sum(np.abs(w)) < 50.0:  # (a trip count that depends on z)
            w = w * (1.1 + 0.2j) + z
            if np.real(w[0, 0]) > 1.0:
                w = w * 0.9
            k += 1
        return np.sum(np.abs(w)) + k

    _check(f, Z)
    _check(f, Z * 2.0)


def test_second_order_through_complex_values():
    def f(x):
        return np.sum(np.abs(np.exp(1j * x) + x * x * (1 - 1j)) ** 2)

    slope = staging.grad(f)
    _check(lambda x: np.sum(slope(x) * np.arange(12.0).reshape(3, 4)), X, rtol=1e-5)


# -- holomorphic=True and the target --------------------------------------------------------


def test_holomorphic_gives_the_complex_derivative():
    z = np.array([0.5 + 0.2j, -1.0 + 1.0j])
    g = staging.grad(lambda z: np.sum(np.exp(z) * z), holomorphic=True)(z)
    np.testing.assert_allclose(g, np.exp(z) * (1 + z), rtol=1e-14)
    assert staging.grad(lambda z: z * z, holomorphic=True)(3 + 4j) == 6 + 8j
    value, slope = staging.value_and_grad(lambda z: z**3, holomorphic=True)(1 + 2j)
    assert (value, slope) == ((1 + 2j) ** 3, 3 * (1 + 2j) ** 2)
    second = staging.grad(staging.grad(lambda z: z**3, holomorphic=True), holomorphic=True)
    assert second(1 + 2j) == 6 * (1 + 2j)


def _line_of(f) -> int:
    return f.__code__.co_firstlineno


def test_a_complex_target_is_refused_naming_the_line():
    def f(z):
        return np.sum(z * z)

    with pytest.raises(errors.GradientError, match="holomorphic=True") as info:
        staging.grad(f)(Z)
    assert f"test_gradient_complex.py:{_line_of(f)}" in str(info.value)


def test_holomorphic_asks_for_a_complex_target_and_complex_arguments():
    def real_target(z):
        return np.sum(np.abs(z))

    with pytest.raises(errors.GradientError, match="needs a complex target") as info:
        staging.grad(real_target, holomorphic=True)(Z)
    assert f"test_gradient_complex.py:{_line_of(real_target)}" in str(info.value)

    def square(z):
        return z * z

    with pytest.raises(errors.GradientError, match="not complex") as info:
        staging.grad(square, holomorphic=True)(np.float64(2.0))
    assert f"test_gradient_complex.py:{_line_of(square)}" in str(info.value)


@pytest.mark.parametrize(
    "func",
    [
        lambda z: np.sum(np.sign(z).real),
        lambda z: np.sum(np.abs(np.maximum(z, 0.5))),
        lambda z: np.abs(np.max(z)),
        lambda z: np.sum(np.abs(np.clip(z, 0.1, 0.5))),
    ],
    ids=["sign", "maximum", "max", "clip"],
)
def test_what_orders_complex_values_is_refused_naming_the_line(func):
    with pytest.raises(errors.GradientError, match="of complex values") as info:
        staging.grad(func)(Z)
    assert "test_gradient_complex.py:" in str(info.value)


def test_the_tape_refuses_complex_sources_and_targets():
    @staging.function
    def power(z):
        return np.sum(np.abs(z) ** 2)

    @staging.function
    def through_complex(x):
        return np.sum(np.abs(x * (1 + 1j)) ** 2)

    with staging.GradientTape() as tape:
        loss = power(Z)
    with pytest.raises(errors.GradientError, match="complex"):
        tape.gradient(loss, Z)
    with staging.GradientTape() as tape:  # (a complex value between real ones: differentiated)
        loss = through_complex(X)
    assert_close(tape.gradient(loss, X), 4.0 * X)


# -- np.fft -----------------------------------------------------------------------------------

SIGNAL = RNG.standard_normal((4, 6))
CSIGNAL = SIGNAL + 1j * RNG.standard_normal((4, 6))
FFT = np.fft
TRANSFORMS = [
    (FFT.fft, {}),
    (FFT.fft, {"n": 4, "axis": 0, "norm": "ortho"}),
    (FFT.fft, {"n": 9, "norm": "forward"}),
    (FFT.ifft, {"n": 3}),
    (FFT.ifft, {"axis": 0, "norm": "backward"}),
    (FFT.rfft, {}),
    (FFT.rfft, {"n": 9, "norm": "ortho"}),
    (FFT.rfft, {"n": 3, "axis": 0, "norm": "forward"}),
    (FFT.irfft, {}),
    (FFT.irfft, {"n": 7, "norm": "ortho"}),
    (FFT.irfft, {"n": 4, "axis": 0, "norm": "forward"}),
    (FFT.hfft, {}),
    (FFT.hfft, {"n": 5, "norm": "ortho"}),
    (FFT.ihfft, {"n": 8, "norm": "forward"}),
    (FFT.fftn, {}),
    (FFT.fftn, {"s": (3, 8), "axes": (0, 1), "norm": "ortho"}),
    (FFT.ifftn, {"s": (5,), "axes": (0,)}),
    (FFT.rfftn, {}),
    (FFT.rfftn, {"s": (5, 7), "axes": (1, 0), "norm": "forward"}),
    (FFT.irfftn, {}),
    (FFT.irfftn, {"s": (4, -1), "axes": (0, 1)}),
    (FFT.irfftn, {"s": (3, 5), "axes": (0, 1), "norm": "ortho"}),
    (FFT.fft2, {"norm": "ortho"}),
    (FFT.ifft2, {"s": (2, 8)}),
    (FFT.rfft2, {"s": (6, 4)}),
    (FFT.irfft2, {"norm": "forward"}),
    (FFT.fftshift, {}),
    (FFT.ifftshift, {"axes": 0}),
]
REAL_ONLY = (FFT.rfft, FFT.ihfft, FFT.rfftn, FFT.rfft2)


@pytest.mark.parametrize(("func", "kwargs"), TRANSFORMS)
@pytest.mark.parametrize("complex_input", [False, True], ids=["real", "complex"])
def test_fft_rules_match_finite_differences(func, kwargs, complex_input):
    if complex_input and func in REAL_ONLY:
        pytest.skip("a transform of real input")
    x = CSIGNAL if complex_input else SIGNAL
    _check(lambda x: _real_of(func(x, **kwargs)), x)


def test_a_spectral_loss_and_its_second_derivative():
    def power(x):
        return np.sum(np.abs(FFT.rfft(x)) ** 2)

    x = SIGNAL[0]
    _check(power, x)
    slope = staging.grad(power)
    _check(lambda x: np.sum(slope(x) * np.arange(6.0)), x, rtol=1e-5)


def test_fft_of_an_axis_known_only_at_run_time():
    spec = staging.TensorSpec([None], np.float64)
    plain = staging.grad(lambda x: np.sum(np.abs(FFT.fft(x)) ** 2)).get_concrete_function(spec)
    assert_close(plain(SIGNAL[0]), 2.0 * 6 * SIGNAL[0])

    def cropped(x):
        return np.sum(np.abs(FFT.rfft(x)) ** 2)

    with pytest.raises(errors.GradientError, match="known only when the graph runs") as info:
        staging.grad(cropped).get_concrete_function(spec)
    assert f"test_gradient_complex.py:{_line_of(cropped) + 1}" in str(info.value)


def test_complex_and_fft_gradients_run_under_jit_compile():
    pytest.importorskip("jax")

    def spectral(x):
        return (
            np.sum(np.abs(FFT.rfft(x, n=6, norm="ortho")) ** 2)
            + FFT.irfft2(np.reshape(x, (2, 2)) + 0j)[0, 1]
        )

    def of_complex(z):
        return np.sum(np.abs(np.exp(z) * np.conj(z))) + np.angle(z[0]) + np.var(z)

    for f, x in (
        (spectral, np.array([0.3, -1.2, 2.0, 0.7])),
        (of_complex, np.array([0.3 + 1j, -1.2 + 0.5j])),
    ):
        g = staging.grad(f)
        compiled = staging.function(g, jit_compile=True)
        np.testing.assert_allclose(np.asarray(compiled(x)), g(x), rtol=1e-12)
