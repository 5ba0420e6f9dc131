"""staging.grad / value_and_grad / stop_gradient on programs with control flow: staged
results against finite differences, the API's forms, and the errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _gradient_check import assert_close, numeric_gradient

import staging
from staging import errors

RNG = np.random.default_rng(3)


def _check(f, *args, argnum=0, rtol=1e-6):
    actual = staging.grad(f, argnums=argnum)(*args)
    assert_close(actual, numeric_gradient(f, args, argnum), rtol=rtol)
    return actual


# -- control flow ---------------------------------------------------------------


def newton_sqrt(a):
    x = a
    for _ in range(30):
        x = 0.5 * (x + a / x)
    return x


def grow_until(x):
    """A loop whose trip count depends on the data."""
    s = x
    while s < 10.0:
        s = s * 1.5 + x
    return s


def first_crossing(x):
    s = x
    for i in range(100):
        s = s * 1.1
        if s > 5.0:
            break
    return s


def early_return(x):
    i = 0
    while i < 10:
        if x * i > 3.0:
            return x * i
        i += 1
    return x


def branchy(x):
    if x > 0:
        y = np.sqrt(x) + x
    else:
        y = x * 3.0
    return y * y


def nested_loops(v):
    total = 0.0
    for i in range(3):
        acc = v[i]
        while acc < 4.0:
            acc = acc * 2.0 + v[(i + 1) % 3]
        total = total + acc
    return total


def filled_in_a_loop(x):
    out = np.zeros(4)
    for i in range(4):
        out[i] = np.sin(x[i]) * x[(i + 1) % 4]
    return np.sum(out * out)


def array_state_loop(x):
    y = x
    k = 0
    while np.max(np.abs(y)) > 0.1 and k < 50:
        y = 0.5 * y + 0.01 * np.tanh(x)
        k += 1
    return np.sum(y * x)


@pytest.mark.parametrize(
    ("f", "args"),
    [
        (newton_sqrt, (np.float64(2.0),)),
        (grow_until, (np.float64(0.7),)),
        (grow_until, (np.float64(3.0),)),
        (first_crossing, (np.float64(1.0),)),
        (early_return, (np.float64(0.9),)),
        (early_return, (np.float64(-1.0),)),
        (branchy, (np.float64(2.5),)),
        (branchy, (np.float64(-2.5),)),
        (nested_loops, (np.array([0.5, 1.5, 0.7]),)),
        (filled_in_a_loop, (np.array([0.1, 0.7, 1.3, 0.4]),)),
        (array_state_loop, (np.array([0.4, -0.9, 1.2]),)),
    ],
)
def test_control_flow_gradients_match_finite_differences(f, args):
    _check(f, *args)


def test_the_gradient_of_a_loop_traces_once_and_follows_each_input():
    g = staging.grad(grow_until)
    for x in (0.3, 1.1, 2.0, 9.0, 12.0):
        assert_close(g(np.float64(x)), numeric_gradient(grow_until, (np.float64(x),)))
    assert g.experimental_get_tracing_count() == 1


def test_a_zero_trip_loop_passes_the_gradient_through():
    assert staging.grad(grow_until)(np.float64(20.0)) == pytest.approx(1.0)


def test_nested_staged_functions_are_differentiated_through():
    @staging.function
    def inner(x, w):
        return np.tanh(x * w)

    def outer(x):
        return np.sum(inner(x, 2.0) ** 2)

    _check(outer, RNG.uniform(-1, 1, 5))


def test_where_does_not_make_nan_from_the_side_not_taken():
    def safe_sqrt(x):
        return np.sum(np.where(x > 0, np.sqrt(np.abs(x)), 0.0))

    def safe_log(x):
        return np.sum(np.where(x > 0, np.log(np.where(x > 0, x, 1.0)), x))

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        g = staging.grad(safe_sqrt)(np.array([-1.0, 0.0, 4.0]))
        h = staging.grad(safe_log)(np.array([-1.0, 0.0, 2.0]))
    assert np.array_equal(g, [0.0, 0.0, 0.25])
    assert np.array_equal(h, [1.0, 1.0, 0.5])


def test_cond_gradient_runs_only_the_branch_taken():
    def f(x):
        if x > 0:
            y = np.log(x)
        else:
            y = -x
        return y

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert staging.grad(f)(np.float64(-2.0)) == -1.0
        assert staging.grad(f)(np.float64(4.0)) == 0.25


# -- the API ----------------------------------------------------------------------------


def test_argnums_tuple_nested_arguments_and_integer_arguments():
    def f(params, x, n):
        return np.sum((params["w"] * x + params["b"]) ** 2) * n

    params = {"w": np.array([1.0, 2.0]), "b": np.float64(0.5)}
    x = np.array([0.3, -0.2])
    gp, gx, gn = staging.grad(f, argnums=(0, 1, 2))(params, x, np.int64(2))
    assert gn is None
    r = params["w"] * x + params["b"]
    assert_close(gp["w"], 4 * r * x)
    assert_close(gp["b"], np.sum(4 * r))
    assert_close(gx, 4 * r * params["w"])


def test_python_numbers_are_differentiated_as_float64_and_do_not_retrace():
    g = staging.grad(lambda x: x**3 + 2.0 * x)
    assert g(2.0) == pytest.approx(14.0)
    assert g(3.0) == pytest.approx(29.0)
    assert g.experimental_get_tracing_count() == 1


def test_grad_of_the_same_function_is_made_once():
    def f(x):
        return x * x

    assert staging.grad(f) is staging.grad(f)
    assert staging.grad(f) is not staging.grad(f, argnums=(0,))


def test_value_and_grad_and_has_aux():
    def loss(w):
        y = np.tanh(w)
        return np.sum(y * y), {"y": y}

    w = np.array([0.2, -0.4])
    (value, aux), g = staging.value_and_grad(loss, has_aux=True)(w)
    assert value == pytest.approx(np.sum(np.tanh(w) ** 2))
    assert np.allclose(aux["y"], np.tanh(w))
    assert_close(g, 2 * np.tanh(w) * (1 - np.tanh(w) ** 2))
    g2, aux2 = staging.grad(loss, has_aux=True)(w)
    assert_close(g2, g)


def test_second_order_and_hessian_vector_products():
    def f(x):
        return np.sum(np.sin(x) * x**2)

    x = RNG.uniform(-1, 1, 4)
    v = RNG.uniform(-1, 1, 4)
    second = staging.grad(staging.grad(lambda x: x**4))
    assert second(np.float64(1.5)) == pytest.approx(12 * 1.5**2)

    def hvp(x, v):
        return np.sum(staging.grad(f)(x) * v)

    hessian = np.diag(2 * np.sin(x) + 4 * x * np.cos(x) - x**2 * np.sin(x))
    assert_close(staging.grad(hvp)(x, v), hessian @ v)


def test_stop_gradient():
    def f(x):
        return np.sum(x * staging.stop_gradient(x))

    x = np.array([1.0, 2.0])
    assert_close(staging.grad(f)(x), x)
    assert staging.stop_gradient(3.0) == 3.0


def test_the_gradient_is_an_ordinary_graph():
    g = staging.grad(lambda x: np.sum(np.exp(x)))
    x = np.ones(3)
    text = str(g.get_concrete_function(x).graph)
    assert "exp" in text and "broadcast_like" not in text.split("exp", 1)[0]
    assert_close(g(x), np.exp(x))


def test_a_gradient_function_saves_and_loads(tmp_path):
    g = staging.grad(lambda x: np.sum(np.sin(x) ** 2))
    x = RNG.uniform(-1, 1, 3)
    path = tmp_path / "grad.npz"
    staging.save(g, str(path), signatures=[(x,)])
    loaded = staging.load(str(path))
    assert np.allclose(loaded(x), g(x))


def test_a_gradient_runs_under_jit_compile():
    pytest.importorskip("jax")

    def f(x):
        s = x
        for i in range(5):
            if np.sum(s) < 10.0:
                s = s * 1.5 + x
        return np.sum(s * s)

    g = staging.grad(f)
    compiled = staging.function(g, jit_compile=True)
    x = np.array([0.5, 0.7])
    assert np.allclose(np.asarray(compiled(x)), g(x), rtol=1e-12)


# -- errors ---------------------------------------------------------------------------------


def test_an_op_without_a_rule_is_named_with_the_users_line():
    def f(x):
        return np.sum(np.nancumprod(x))  # the line the error names

    with pytest.raises(
        errors.GradientError, match=r"test_gradients\.py:\d+: nancumprod has no gradient"
    ):
        staging.grad(f)(np.ones(3))


def test_target_errors():
    with pytest.raises(errors.GradientError, match="must be a scalar, not f64\\[2\\]"):
        staging.grad(lambda x: x * 2.0)(np.ones(2))
    with pytest.raises(errors.GradientError, match="not a float"):
        staging.grad(lambda x: np.sum(x > 0))(np.ones(2))
    with pytest.raises(errors.GradientError, match=r"test_gradients\.py:\d+: .*does not depend"):
        staging.grad(lambda x, y: np.sum(y), argnums=0)(np.ones(2), np.ones(2))
    with pytest.raises(TypeError, match="argnums=3"):
        staging.grad(lambda x: x, argnums=3)(1.0)
    with pytest.raises(TypeError, match="argnums must be an int"):
        staging.grad(lambda x: x, argnums="x")


def test_a_loop_xla_cannot_reverse_is_refused_naming_the_loop():
    pytest.importorskip("jax")
    from runtime.jax_lowering.errors import LoweringError

    def f(x):
        s = x
        while np.sum(s) < 10.0:  # the loop the error names
            s = s * 1.5 + x
        return np.sum(s)

    compiled = staging.function(staging.grad(f), jit_compile=True)
    with pytest.raises(LoweringError, match=r"test_gradients\.py:\d+: .*no bound known") as info:
        compiled(np.array([0.5, 0.7]))
    line = int(str(info.value).split("test_gradients.py:")[1].split(":")[0])
    assert "the loop the error names" in open(__file__).read().splitlines()[line - 1]


def test_custom_gradient_is_used_wherever_the_function_is_differentiated():
    @staging.custom_gradient
    def softplus(x):
        y = np.log1p(np.exp(x))

        def vjp(g):
            return g / (1.0 + np.exp(-x))  # stable where exp(x) overflows

        return y, vjp

    @staging.custom_gradient
    def clipped(x):
        return x * 1.0, lambda g: np.clip(g, -1.0, 1.0)

    x = np.array([-2.0, 0.0, 1.0])
    assert_close(staging.grad(lambda x: np.sum(softplus(x)))(x), 1 / (1 + np.exp(-x)))
    assert staging.grad(softplus)(np.float64(1.0)) == pytest.approx(1 / (1 + np.exp(-1.0)))
    assert np.array_equal(staging.grad(lambda x: np.sum(clipped(x) * 5.0))(x), [1.0, 1.0, 1.0])
    assert np.allclose(softplus(x), np.log1p(np.exp(x)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (the value's exp overflows, as eagerly)
        assert staging.grad(lambda x: np.sum(softplus(x)))(np.array([800.0]))[0] == 1.0


def test_custom_gradient_with_the_wrong_number_of_gradients_is_refused():
    @staging.custom_gradient
    def two(x, y):
        return x * y, lambda g: g * y

    with pytest.raises(errors.GradientError, match="returned 1 gradient"):
        staging.grad(lambda x: two(x, 2.0 * x))(np.float64(1.0))


def test_einsum_and_its_gradient_compile_with_jax():
    pytest.importorskip("jax")

    def f(a, b):
        return np.sum(np.einsum("ij,jk->ik", a, b) ** 2)

    a, b = RNG.uniform(-1, 1, (2, 3)), RNG.uniform(-1, 1, (3, 2))
    compiled = staging.function(staging.grad(f), jit_compile=True)
    assert np.allclose(np.asarray(compiled(a, b)), staging.grad(f)(a, b), rtol=1e-12)


# -- Variables in program order ---------------------------------------------------------------


def test_a_variable_read_after_an_assignment_differentiates_through_it():
    v = staging.Variable(np.zeros(2), name="v")

    def assigned(x):
        v.assign(x * 2.0)
        return np.sum(v * 3.0) + np.sum(x)

    def updated(x):
        v.assign(x * 2.0)
        v.assign_add(x * x)
        v.assign_sub(3.0 * x)
        return np.sum(v * v)

    x = np.array([0.5, 1.5])
    assert_close(staging.grad(assigned)(x), [7.0, 7.0])
    _check(updated, x)


def test_a_counter_assigned_in_a_staged_loop_does_not_stop_the_gradient():
    count = staging.Variable(0, name="count")

    def f(x):
        s = x
        while np.sum(s) < 10.0:
            s = s * 1.5
            count.assign_add(1)
        return np.sum(s) + count.read_value()

    # sum(x) = 2 grows by 1.5 four times to pass 10: s = x * 1.5**4 (finite differences would
    # see the counter grow between calls)
    assert_close(staging.grad(f)(np.array([0.5, 1.5])), [1.5**4, 1.5**4])
    assert count.numpy() == 4


def test_a_variable_assigned_a_differentiated_value_in_a_staged_branch_is_refused():
    v = staging.Variable(np.zeros(2), name="v")

    def f(x):
        if np.sum(x) > 0:
            v.assign(x * x)  # the line the error names
        return np.sum(v * x)

    with pytest.raises(errors.GradientError, match=r"test_gradients\.py:\d+: the Variable 'v'"):
        staging.grad(f)(np.ones(2))


# -- what the backward pass runs again ---------------------------------------------------------


def test_printing_in_a_differentiated_loop_and_branch_prints_once_as_the_function_does(capsys):
    def f(x):
        s = x
        k = 0
        while s < 10.0:
            print("step", k)
            s = s * 1.5 + x
            k += 1
        if s > 12.0:
            print("big")
            s = s * 2.0
        return s

    f(np.float64(1.0))
    eager = capsys.readouterr().out
    g = staging.grad(f)(np.float64(1.0))
    assert capsys.readouterr().out == eager
    assert g == pytest.approx(numeric_gradient(f, (np.float64(1.0),)))
    capsys.readouterr()


def test_a_random_draw_in_a_differentiated_loop_is_refused_and_one_made_before_works():
    rng = np.random.default_rng(1)

    def inside(x):
        s = x
        while s < 10.0:
            s = s * 1.5 + 0.01 * rng.random()  # the draw the error names
        return s

    with pytest.raises(errors.GradientError, match=r"test_gradients\.py:\d+: random in a staged"):
        staging.grad(inside)(np.float64(1.0))

    def before(x, noise):
        s = x
        k = 0
        while s < 10.0:
            s = s * 1.5 + 0.01 * noise[k % 4]
            k += 1
        return s

    noise = rng.random(4)
    assert staging.grad(before)(np.float64(1.0), noise) == pytest.approx(
        numeric_gradient(before, (np.float64(1.0), noise))
    )


def test_a_gradient_pickles_as_what_it_is_the_gradient_of():
    import pickle

    g = staging.grad(newton_sqrt)
    again = pickle.loads(pickle.dumps(g))
    assert again(np.float64(2.0)) == pytest.approx(g(np.float64(2.0)))
    assert again is staging.grad(newton_sqrt)  # (made once per function, as here)


# -- staged lists -------------------------------------------------------------------------------


def appended_then_stacked(x):
    ys = []
    s = x[0]
    while s < 3.0:  # a trip count that depends on the data
        s = s * 1.5
        ys.append(s * x[1])
    return np.sum(np.array(ys) ** 2)


def appended_from_earlier_elements(x):
    ys = [x, x * 0.5]
    k = 2
    while np.sum(ys[k - 1]) < 5.0 and k < 20:
        ys.append(ys[k - 1] + 0.5 * ys[k - 2])
        k += 1
    return np.sum(np.stack(ys))


def python_numbers_summed(x):
    ys = []
    s = 0.0
    while s < 3.0:
        s = s + x[0] + 0.5
        ys.append(s)
    return sum(ys) * x[1]


@pytest.mark.parametrize(
    "f", [appended_then_stacked, appended_from_earlier_elements, python_numbers_summed]
)
def test_lists_appended_in_data_dependent_loops(f):
    # (inputs away from the values where the trip count changes: finite differences jump there)
    for x in (np.array([0.51, 0.23]), np.array([1.23, -0.71]), np.array([4.07, 1.03])):
        _check(f, x)


def test_a_list_appended_in_a_staged_branch_of_a_differentiated_loop_is_refused():
    def f(x):
        ys = []
        k = 0
        while k < 5:
            if x[k % 2] * k > 1.0:  # the branch the error names
                ys.append(x[k % 2] * k)
            k += 1
        return np.sum(np.array(ys))

    with pytest.raises(errors.GradientError, match=r"test_gradients\.py:\d+: a staged list"):
        staging.grad(f)(np.array([0.3, 0.7]))
