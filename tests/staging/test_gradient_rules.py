"""Every gradient rule of the elementwise functions, reductions and shape ops against central
finite differences in float64 (staging.grad of a scalar function using the op)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _gradient_check import assert_close, numeric_gradient

import staging
from runtime.ops import ufunc_derivatives

RNG = np.random.default_rng(7)
WEIGHTS = RNG.uniform(0.5, 1.5, (3, 4))

# the interval each function is smooth on (default: 0.2 to 0.9)
DOMAINS = {"arccosh": (1.2, 2.0), "log": (0.5, 2.0)}
# piecewise constant functions, comparisons: a zero derivative, or a bool result
SKIPPED_UNARY = {"isfinite", "isinf", "isnan", "signbit", "spacing"}
UNARY = sorted(
    name
    for name, rule in ufunc_derivatives.RULES.items()
    if name in np.__dict__
    and getattr(np, name).__class__ is np.ufunc
    and getattr(np, name).nin == 1
    and getattr(np, name).nout == 1
    and name not in SKIPPED_UNARY
)
BINARY = sorted(
    name
    for name in ufunc_derivatives.RULES
    if name in np.__dict__
    and getattr(np, name).__class__ is np.ufunc
    and getattr(np, name).nin == 2
    and name not in ("nextafter", "heaviside", "ldexp")
)


def _inputs(name: str, shape=(3, 4)) -> np.ndarray:
    low, high = DOMAINS.get(name, (0.2, 0.9))
    return RNG.uniform(low, high, shape)


def _check(f, *args, argnum=0, rtol=1e-6):
    expected = numeric_gradient(f, args, argnum)
    actual = staging.grad(f, argnums=argnum)(*args)
    assert_close(actual, expected, rtol=rtol)
    return actual


@pytest.mark.parametrize("name", UNARY)
def test_unary_rule_matches_finite_differences(name):
    func = getattr(np, name)

    def f(x):
        return np.sum(func(x) * WEIGHTS)

    _check(f, _inputs(name))


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("argnum", [0, 1])
def test_binary_rule_matches_finite_differences_with_broadcasting(name, argnum):
    func = getattr(np, name)
    if name == "matmul":
        x, y = RNG.uniform(0.5, 1.5, (2, 3)), RNG.uniform(0.5, 1.5, (3, 4))
    else:  # y broadcast along the rows: its gradient is summed back to its shape
        x, y = RNG.uniform(0.5, 1.5, (3, 4)), RNG.uniform(2.0, 3.0, (4,))

    def f(x, y):
        return np.sum(func(x, y))

    _check(f, x, y, argnum=argnum)


def test_python_operators_and_scalars():
    def f(x, a):
        return np.sum((x * a - 1.0) / (a + x) + x**3 - abs(x) ** 0.5)

    x = _inputs("x")
    _check(f, x, np.float64(1.7))
    _check(f, x, np.float64(1.7), argnum=1)


REDUCTIONS = [
    ("sum", {}),
    ("sum", {"axis": 0}),
    ("sum", {"axis": 1, "keepdims": True}),
    ("mean", {}),
    ("mean", {"axis": (0, 1)}),
    ("mean", {"axis": -1}),
    ("prod", {"axis": 0}),
    ("max", {}),
    ("max", {"axis": 1}),
    ("min", {"axis": 0, "keepdims": True}),
    ("var", {}),
    ("var", {"axis": 0, "ddof": 1}),
    ("std", {"axis": 1}),
    ("cumsum", {}),
    ("cumsum", {"axis": 1}),
    ("sort", {}),
    ("sort", {"axis": 0}),
    ("sort", {"axis": None}),
]


@pytest.mark.parametrize(("name", "kwargs"), REDUCTIONS)
def test_reduction_rule_matches_finite_differences(name, kwargs):
    func = getattr(np, name)

    def f(x):
        out = func(x, **kwargs)
        return np.sum(out * np.arange(1.0, 1.0 + np.size(out)).reshape(np.shape(out)))

    _check(f, _inputs(name))


def test_max_sends_the_gradient_to_the_element_argmax_picks():
    x = np.array([[1.0, 3.0, 3.0], [2.0, 0.5, 2.0]])
    assert np.array_equal(staging.grad(lambda x: np.max(x))(x), [[0, 1, 0], [0, 0, 0]])
    rows = staging.grad(lambda x: np.sum(np.max(x, axis=1)))(x)
    assert np.array_equal(rows, [[0, 1, 0], [1, 0, 0]])


SHAPES = [
    lambda x: np.reshape(x, (4, 3)) * np.arange(12.0).reshape(4, 3),
    lambda x: np.transpose(x) * np.arange(12.0).reshape(4, 3),
    lambda x: x.T[1:, ::2] * 2.0,
    lambda x: np.expand_dims(x, 0) * np.arange(4.0),
    lambda x: np.squeeze(x[:1]) * np.arange(4.0),
    lambda x: np.broadcast_to(x[0], (5, 4)) * np.arange(20.0).reshape(5, 4),
    lambda x: np.concatenate([x, 2.0 * x[:1]], axis=0) * np.arange(16.0).reshape(4, 4),
    lambda x: np.stack([x[0], x[2]], axis=1) * np.arange(8.0).reshape(4, 2),
    lambda x: np.where(x > 0.5, x * x, -x),
    lambda x: np.clip(x, 0.3, 0.7) * np.arange(12.0).reshape(3, 4),
    lambda x: x.astype(np.longdouble).astype(np.float64) ** 2,
    lambda x: np.copy(x) * 3.0,
    lambda x: x[[0, 0, 2], 1] * np.array([1.0, 2.0, 3.0]),
    lambda x: x[x > 0.5] ** 2,
    lambda x: np.trace(x[:, :3]) * x[0, 0],
    lambda x: np.outer(x[0], x[1]) * np.arange(16.0).reshape(4, 4),
    lambda x: np.dot(x, x.T) * np.arange(9.0).reshape(3, 3),
]


@pytest.mark.parametrize("index", range(len(SHAPES)))
def test_shape_and_indexing_rules_match_finite_differences(index):
    func = SHAPES[index]

    def f(x):
        return np.sum(func(x))

    _check(f, _inputs("x"), rtol=1e-5)


def test_setitem_gradient_reaches_the_array_and_the_value():
    def f(x, v):
        y = x * 1.0
        y[1] = v * 2.0
        y[:, 0] = y[:, 0] * v
        return np.sum(y * WEIGHTS)

    x, v = _inputs("x"), np.float64(0.6)
    _check(f, x, v)
    _check(f, x, v, argnum=1)


def test_every_rule_names_an_op_that_exists():
    from runtime.registry import all_ops

    ops = all_ops()
    missing = [name for name in ufunc_derivatives.RULES if name not in ops]
    assert missing == [name for name in missing if name == "fix"]


def test_float32_inputs_get_float32_gradients():
    x = _inputs("x").astype(np.float32)
    g = staging.grad(lambda x: np.sum(np.sin(x) * x))(x)
    assert g.dtype == np.float32
    assert_close(g, np.cos(x) * x + np.sin(x), rtol=1e-6)
    through_f64 = staging.grad(lambda x: np.sum(x.astype(np.float64) ** 2))(x)
    assert through_f64.dtype == np.float32
    assert_close(through_f64, 2.0 * x, rtol=1e-6)


def _dynamic(f, *args, argnums=0):
    """staging.grad(f)'s concrete function for arrays of dims known only at run time, run on
    `args`, with its graph's text."""
    specs = [staging.TensorSpec([None] * np.ndim(a), np.float64) for a in args]
    cf = staging.grad(f, argnums=argnums).get_concrete_function(*specs)
    return cf(*args), str(cf.graph)


def test_gradient_ops_read_shapes_known_only_when_the_graph_runs():
    def f(x, y):
        return (
            np.sum((x * y) ** 2)
            + np.sum(np.max(x, axis=1))
            + np.sum(x[0] ** 3)
            + np.sum(np.reshape(x, (-1,)) ** 2)
        )

    x, y = _inputs("x"), RNG.uniform(0.5, 1.5, 4)
    for argnum in (0, 1):
        found, text = _dynamic(f, x, y, argnums=argnum)
        assert_close(found, numeric_gradient(f, (x, y), argnum))
    for op in ("sum_to_like", "broadcast_like", "scatter_add", "reshape_like"):
        assert op in _dynamic(f, x, y)[1] + _dynamic(f, x, y, argnums=1)[1], op


def test_the_gradient_ops_have_gradients_themselves():
    """Second order through sum_to_like, broadcast_like, scatter_add and reshape_like: the
    gradient of v . grad f, against finite differences of it."""

    def f(x, y):
        return np.sum((x * y) ** 3) + np.sum(np.mean(x, axis=0) ** 3) + np.sum(x[1] ** 4)

    inner = staging.grad(f, argnums=(0, 1))
    spec = [staging.TensorSpec([None, None], np.float64), staging.TensorSpec([None], np.float64)]
    x, y = _inputs("x"), RNG.uniform(0.5, 1.5, 4)
    v, w = RNG.uniform(-1, 1, x.shape), RNG.uniform(-1, 1, y.shape)

    def directional(x, y):
        gx, gy = (
            inner.get_concrete_function(*spec)(x, y) if not staging.is_symbolic(x) else inner(x, y)
        )
        return np.sum(gx * v) + np.sum(gy * w)

    outer = staging.grad(directional).get_concrete_function(*spec)
    text = str(outer.graph)
    assert "sum_to_like" in text and "broadcast_like" in text
    assert_close(outer(x, y), numeric_gradient(directional, (x, y)), rtol=1e-5)


def test_modf_and_ldexp():
    x = _inputs("x") * 3.0
    _check(lambda x: np.sum(np.modf(x)[0] * WEIGHTS), x)
    _check(lambda x: np.sum(np.ldexp(x, np.arange(12).reshape(3, 4) % 3) * WEIGHTS), x)


MATH = [
    lambda x: math.exp(0.3 * x) + math.sin(x) ** 2 + math.cos(x) * math.tan(x / 2),
    lambda x: math.sqrt(1.0 + x * x) * math.log(2.0 + x) + math.log10(x) + math.log2(x),
    lambda x: math.erf(x) - math.erfc(x) + math.atan2(x, 2.0) + math.hypot(x, 1.5),
    lambda x: math.pow(x, 2.5) + math.asin(x / 2) + math.acos(x / 3) + math.atan(x),
    lambda x: math.sinh(x) + math.cosh(x) + math.tanh(x) + math.asinh(x) + math.expm1(x),
    lambda x: math.log1p(x) + math.cbrt(x) + math.radians(x) + math.degrees(x) + math.fabs(x),
]


@pytest.mark.parametrize("index", range(len(MATH)))
def test_python_math_functions_have_their_numpy_counterparts_gradients(index):
    func = MATH[index]

    def f(x):
        s = 0.0
        k = 0
        while k < 2:  # (a staged loop: x is a value known only when the graph runs)
            s = s + func(x)
            k += 1
        return s

    _check(f, np.float64(0.43))


# ops whose rules other files check against finite differences (and jax.grad)
CHECKED_ELSEWHERE = {
    "test_gradient_linalg.py": (
        "average einsum linalg.cholesky linalg.det linalg.eigh linalg.eigvalsh linalg.inv "
        "linalg.matrix_norm linalg.norm linalg.outer linalg.slogdet linalg.solve linalg.svd "
        "linalg.svdvals linalg.vector_norm tensordot trapezoid"
    ),
    "test_gradients.py": "stop_gradient not_none python_number zeros_like ones_like",
    "test_gradient_complex.py": (
        "real imag angle fft.fft fft.ifft fft.rfft fft.irfft fft.hfft fft.ihfft fft.fftn "
        "fft.ifftn fft.rfftn fft.irfftn fft.fft2 fft.ifft2 fft.rfft2 fft.irfft2 fft.fftshift "
        "fft.ifftshift"
    ),
    "test_gradient_statistics.py": (
        "median nanmedian quantile nanquantile percentile nanpercentile nansum nanmean nanvar "
        "nanstd nanprod nancumsum nanmax nanmin ptp nan_to_num take_along_axis"
    ),
    "this file (math functions)": "python_call",
    "this file (dynamic shapes, second order)": "sum_to_like broadcast_like scatter_add reshape_like",
}


def test_every_op_with_a_rule_is_checked_somewhere():
    from runtime.ops import reduction_derivatives, shape_derivatives
    from runtime.registry import all_ops

    checked = set(UNARY) | set(BINARY) | {name for name, _ in REDUCTIONS}
    checked |= set(shape_derivatives.SHAPE_RULES) | set(shape_derivatives.INDEXING_RULES)
    checked |= set(shape_derivatives.PRODUCT_RULES) | {"pow", "mul", "cumsum", "modf", "ldexp"}
    checked |= set(reduction_derivatives.RULES)
    for names in CHECKED_ELSEWHERE.values():
        checked |= set(names.split())
    with_rules = {name for name, op in all_ops().items() if op.vjp is not None}
    zero_rules = {
        n for n, rule in ufunc_derivatives.RULES.items() if rule is ufunc_derivatives._zero
    }
    assert sorted(with_rules - checked - zero_rules) == []


def test_prod_with_zero_factors_and_std_of_a_constant_make_no_nan():
    x = np.array([[2.0, 0.0, 3.0], [1.5, 2.0, 0.5], [0.0, 0.0, 4.0]])
    g = staging.grad(lambda x: np.sum(np.prod(x, axis=1) * np.array([1.0, 2.0, 3.0])))(x)
    assert np.array_equal(g, [[0.0, 6.0, 0.0], [2.0, 1.5, 6.0], [0.0, 0.0, 0.0]])
    _check(lambda x: np.sum(np.prod(x, axis=0)), x[:2] + 0.1)

    def sharpe(returns, risk_free):  # the branch taken does not use the zero deviation
        excess = returns - risk_free
        sd = excess.std(ddof=1)
        if sd == 0:
            return 0.0 * risk_free
        return excess.mean() / sd

    slope = staging.grad(sharpe, argnums=1)(np.zeros(2), np.float64(0.01))
    assert slope == 0.0


def test_math_dist_of_symbolic_points_staged_and_differentiated():
    def f(p, q):
        total = 0.0
        k = 0
        while k < 2:  # (a staged loop)
            total = total + math.dist(p, q) * (k + 1) + math.dist(p, np.array([1.0, -2.0]))
            k += 1
        return total

    staged = staging.function(f)
    for p, q in (
        (np.array([0.3, 0.8]), np.array([2.0, 1.5])),
        (np.array([1.0, -2.0]), np.array([0.0, 0.0])),
        (np.array([0.5, 0.5]), np.array([0.5, 0.5])),  # (equal points: a zero distance)
    ):
        assert staged(p, q) == f(p, q)
    p, q = np.array([0.3, 0.8]), np.array([2.0, 1.5])
    _check(f, p, q)
    _check(f, p, q, argnum=1)
    same = staging.grad(f, argnums=1)(np.array([0.5, 0.5]), np.array([0.5, 0.5]))
    assert np.all(np.isfinite(same))
    with pytest.raises(TypeError):  # (2-d points: math.dist's own TypeError, as eagerly)
        staged(np.ones((2, 2)), np.ones((2, 2)))
