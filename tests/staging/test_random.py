"""Random draws and clocks in staged code run when the graph runs: staged streams equal eager ones."""

from __future__ import annotations

import random
import sys
import time

import numpy as np
import pytest

import staging
from staging import TensorSpec, errors

N = 4  # calls per stream

# each parametrized case stages the same body anew, on purpose
pytestmark = pytest.mark.filterwarnings("ignore::staging.RetracingWarning")


def assert_bitwise(staged, eager):
    """The same values bit for bit, of the same kind (Python number, NumPy scalar, array) and dtype."""
    if isinstance(eager, tuple):
        assert isinstance(staged, tuple) and len(staged) == len(eager)
        for s, e in zip(staged, eager):
            assert_bitwise(s, e)
        return
    if type(eager) in (bool, int, float, complex):
        assert type(staged) is type(eager), (staged, eager)
        assert np.asarray(staged).tobytes() == np.asarray(eager).tobytes(), (staged, eager)
        return
    assert isinstance(staged, (np.ndarray, np.generic)), staged
    assert isinstance(staged, np.ndarray) == isinstance(eager, np.ndarray) or np.ndim(eager) == 0
    s, e = np.asarray(staged), np.asarray(eager)
    assert (s.dtype, s.shape) == (e.dtype, e.shape)
    assert s.tobytes() == e.tobytes(), (staged, eager)


def assert_streams(body, make_rng, args=(), n=N):
    """n calls of the staged `body(rng, *args)` and n eager calls on identically made generators
    give the same values; one trace serves every call; both generators end in the same state."""
    staged = staging.function(body)
    eager_rng, staged_rng = make_rng(), make_rng()
    for _ in range(n):
        assert_bitwise(staged(staged_rng, *args), body(eager_rng, *args))
    assert staged.tracing_count == 1
    assert _state(staged_rng) == _state(eager_rng)
    return staged


def _state(rng):
    if isinstance(rng, np.random.Generator):
        return repr(rng.bit_generator.state)
    if isinstance(rng, np.random.RandomState):
        return repr(rng.get_state(legacy=False))
    return rng.getstate()


def _method_body(name, args, kwargs):
    def body(rng, x):
        return getattr(rng, name)(*args, **kwargs)

    return body


GENERATOR_CALLS = [
    ("random", (), {}),
    ("random", (), {"size": 3}),
    ("random", (), {"size": (2, 2), "dtype": np.float32}),
    ("integers", (5,), {}),
    ("integers", (0, 10), {"size": 4}),
    ("integers", (0, 10), {"size": 2, "dtype": np.int8}),
    ("integers", (1, 6), {"endpoint": True}),
    ("normal", (), {}),
    ("normal", (1.0, 2.0, (3,)), {}),
    ("uniform", (-1, 1), {}),
    ("uniform", (), {"size": (2, 3)}),
    ("standard_normal", (), {"size": 3, "dtype": np.float32}),
    ("standard_exponential", (), {}),
    ("exponential", (2.0,), {}),
    ("poisson", (3.0,), {"size": 3}),
    ("binomial", (10, 0.3), {}),
    ("negative_binomial", (3, 0.5), {}),
    ("choice", (5,), {}),
    ("choice", ([1.0, 2.0, 3.0],), {"size": 2, "p": [0.2, 0.3, 0.5]}),
    ("choice", (10,), {"size": 3, "replace": False}),
    ("permutation", (6,), {}),
    ("permutation", (np.arange(4.0),), {}),
    ("permuted", (np.arange(6).reshape(2, 3),), {"axis": 1}),
    ("multinomial", (10, [0.2, 0.8]), {"size": 2}),
    ("multivariate_normal", ([0.0, 1.0], np.eye(2)), {"size": 3}),
    ("dirichlet", ([1.0, 2.0],), {}),
    ("gamma", (2.0,), {}),
    ("standard_gamma", (2.0,), {"dtype": np.float32}),
    ("beta", (1.0, 2.0), {}),
    ("zipf", (2.0,), {"size": 2}),
    ("triangular", (0, 1, 2), {}),
    ("hypergeometric", (5, 5, 3), {}),
    ("lognormal", (), {"size": 2}),
    ("geometric", (0.3,), {}),
    ("logseries", (0.5,), {}),
    ("vonmises", (0, 1), {}),
    ("wald", (1, 1), {}),
    ("weibull", (2,), {}),
    ("standard_t", (3,), {}),
    ("standard_cauchy", (), {}),
    ("f", (2, 3), {}),
    ("chisquare", (2,), {}),
    ("laplace", (), {}),
    ("logistic", (), {}),
    ("gumbel", (), {}),
    ("pareto", (2,), {}),
    ("power", (2,), {}),
    ("rayleigh", (), {}),
    ("noncentral_chisquare", (2, 1), {}),
    ("noncentral_f", (2, 3, 1), {}),
]

LEGACY_CALLS = [
    ("rand", (), {}),
    ("rand", (2, 3), {}),
    ("randn", (3,), {}),
    ("randint", (5,), {}),
    ("randint", (1, 6), {"size": 3}),
    ("random_sample", (), {}),
    ("random", (2,), {}),
    ("choice", (5,), {"size": 2}),
    ("permutation", (5,), {}),
    ("normal", (0, 1, 4), {}),
    ("poisson", (2.0,), {}),
    ("standard_normal", (), {}),
    ("binomial", (5, 0.5), {"size": 3}),
    ("uniform", (0, 1), {}),
    ("exponential", (), {"size": 2}),
    ("gamma", (2.0, 1.0), {}),
    ("beta", (2.0, 3.0), {}),
    ("geometric", (0.5,), {}),
]

# random.normalvariate() has default arguments (mu=0.0, sigma=1.0) from Python 3.11
_NORMAL_ARGS = () if sys.version_info >= (3, 11) else (0.0, 1.0)
PYTHON_CALLS = [
    ("random", (), {}),
    ("gauss", (0, 1), {}),
    ("randint", (1, 6), {}),
    ("uniform", (1, 2), {}),
    ("choice", ([1, 2, 3],), {}),
    ("randrange", (10,), {}),
    ("expovariate", (1.0,), {}),
    ("getrandbits", (8,), {}),
    ("normalvariate", _NORMAL_ARGS, {}),
    ("triangular", (), {}),
    ("betavariate", (2.0, 3.0), {}),
]


def _ids(calls):
    return [f"{name}{args}{kwargs}" for name, args, kwargs in calls]


@pytest.mark.parametrize("name,args,kwargs", GENERATOR_CALLS, ids=_ids(GENERATOR_CALLS))
def test_generator_argument_streams(name, args, kwargs):
    assert_streams(
        _method_body(name, args, kwargs), lambda: np.random.default_rng(3), (np.float64(0),)
    )


@pytest.mark.parametrize("name,args,kwargs", LEGACY_CALLS, ids=_ids(LEGACY_CALLS))
def test_random_state_argument_streams(name, args, kwargs):
    assert_streams(
        _method_body(name, args, kwargs), lambda: np.random.RandomState(3), (np.float64(0),)
    )


@pytest.mark.parametrize("name,args,kwargs", PYTHON_CALLS, ids=_ids(PYTHON_CALLS))
def test_python_random_argument_streams(name, args, kwargs):
    assert_streams(_method_body(name, args, kwargs), lambda: random.Random(5), (np.float64(0),))


@pytest.mark.parametrize("name,args,kwargs", LEGACY_CALLS, ids=_ids(LEGACY_CALLS))
def test_legacy_module_functions(name, args, kwargs):
    def body(x):
        return getattr(np.random, name)(*args, **kwargs)

    staged = staging.function(body)
    np.random.seed(11)
    eager = [body(np.float64(0)) for _ in range(N)]
    np.random.seed(11)
    for e in eager:
        assert_bitwise(staged(np.float64(0)), e)
    assert staged.tracing_count == 1


@pytest.mark.parametrize("name,args,kwargs", PYTHON_CALLS, ids=_ids(PYTHON_CALLS))
def test_python_random_module_functions(name, args, kwargs):
    def body(x):
        return getattr(random, name)(*args, **kwargs)

    staged = staging.function(body)
    state = random.getstate()
    eager = [body(np.float64(0)) for _ in range(N)]
    random.setstate(state)
    for e in eager:
        assert_bitwise(staged(np.float64(0)), e)


GLOBAL_RNG = np.random.default_rng(0)


def test_global_and_closure_generators():
    def make(rng):
        def body(x):
            return x + rng.normal(size=x.shape) + GLOBAL_RNG.integers(0, 10)

        return body

    closure_rng, eager_rng = np.random.default_rng(1), np.random.default_rng(1)
    staged = staging.function(make(closure_rng))
    global_state = GLOBAL_RNG.bit_generator.state
    got = [staged(np.ones(3)) for _ in range(N)]
    GLOBAL_RNG.bit_generator.state = global_state
    eager = make(eager_rng)
    for g in got:
        assert_bitwise(g, eager(np.ones(3)))
    assert _state(closure_rng) == _state(eager_rng)
    assert staged.tracing_count == 1


def test_np_random_rand_differs_between_calls():
    f = staging.function(lambda x: x + np.random.rand())
    assert f(np.float64(0)) != f(np.float64(0))


def test_seed_inside_the_staged_function():
    def body(x):
        np.random.seed(4)
        random.seed(4)
        return x + np.random.rand() + random.random()

    staged = staging.function(body)
    expected = body(np.float64(1))
    for _ in range(3):
        assert_bitwise(staged(np.float64(1)), expected)


def test_generators_made_in_the_staged_function():
    def body(x, seed):
        g = np.random.default_rng(seed)
        h = np.random.Generator(np.random.PCG64(7))
        r = random.Random(3)
        s = np.random.RandomState(2)
        return g.normal(size=x.shape) + h.normal() + r.random() + s.rand() + x

    assert_bitwise(staging.function(body)(np.ones(2), np.int64(4)), body(np.ones(2), np.int64(4)))
    staged = staging.function(body)
    first = staged(np.ones(2), np.int64(4))
    assert_bitwise(staged(np.ones(2), np.int64(4)), first)  # a fresh generator on every call
    assert not np.array_equal(staged(np.ones(2), np.int64(5)), first)


# -- program order, branches and loops ------------------------------------------------------------


def _branches_and_loops(rng, x, flag, n):
    total = x * 0
    if flag > 0:
        total = total + rng.normal()
    else:
        total = total - rng.integers(0, 5, size=x.shape)
    for i in range(n):
        total = total + rng.uniform(size=x.shape)
        if total.sum() > 3:
            total = total * rng.random()
    return total


def test_draws_in_branches_and_loops_happen_when_and_as_often_as_the_code_runs():
    staged = staging.function(_branches_and_loops)
    eager_rng, staged_rng = np.random.default_rng(8), np.random.default_rng(8)
    for flag, n in [(1, 3), (0, 2), (1, 0), (0, 0), (1, 6), (0, 5)]:
        got = staged(staged_rng, np.ones(2), np.int64(flag), np.int64(n))
        assert_bitwise(got, _branches_and_loops(eager_rng, np.ones(2), flag, n))
        assert _state(staged_rng) == _state(eager_rng)
    assert staged.tracing_count == 1


def test_unused_and_identical_draws_are_neither_dropped_nor_merged():
    def body(rng, x):
        rng.normal()  # unused: still advances the generator
        a = rng.normal()
        b = rng.normal()  # the same call again: another number
        return x + a - b

    staged = assert_streams(body, lambda: np.random.default_rng(2), (np.float64(0),))
    graph = str(staged.get_concrete_function(np.random.default_rng(0), np.float64(0)).graph)
    assert graph.count("random a call=_.normal()") == 3


def test_interleaved_eager_and_staged_calls_on_one_generator():
    def body(rng, x):
        return x + rng.standard_normal(3)

    staged = staging.function(body)
    shared, reference = np.random.default_rng(21), np.random.default_rng(21)
    for i in range(10):
        f = staged if i % 3 else body
        assert_bitwise(f(shared, np.zeros(3)), body(reference, np.zeros(3)))
    legacy = staging.function(lambda x: x + np.random.rand(2))
    np.random.seed(5)
    got = [legacy(np.zeros(2)) if i % 2 else np.zeros(2) + np.random.rand(2) for i in range(6)]
    np.random.seed(5)
    for g in got:
        assert_bitwise(g, np.zeros(2) + np.random.rand(2))


def test_many_calls():
    def body(rng, x):
        return rng.normal(x, 1.0)

    assert_streams(body, lambda: np.random.default_rng(99), (np.zeros(5),), n=200)


def test_a_fresh_generator_does_not_retrace():
    staged = staging.function(lambda rng, x: x + rng.random())
    for seed in range(5):
        assert_bitwise(
            staged(np.random.default_rng(seed), np.float64(1)),
            np.float64(1) + np.random.default_rng(seed).random(),
        )
    assert staged.tracing_count == 1
    staged(np.random.RandomState(0), np.float64(1))  # another class: its own trace
    staged(random.Random(0), np.float64(1))
    assert staged.tracing_count == 3


def test_generator_passed_to_an_inner_staged_function():
    inner = staging.function(lambda rng, x: x + rng.normal())

    def body(rng, x):
        return inner(rng, x) + rng.normal()

    assert_streams(body, lambda: np.random.default_rng(6), (np.float64(1),))


def test_in_place_shuffle():
    def body(rng, x):
        y = x * 1
        rng.shuffle(y)
        random.shuffle(y)
        np.random.shuffle(y)
        return y

    np.random.seed(3)
    random.seed(3)
    expected = [body(np.random.default_rng(1), np.arange(6.0)) for _ in range(2)]
    np.random.seed(3)
    random.seed(3)
    staged = staging.function(body)
    for e in expected:
        assert_bitwise(staged(np.random.default_rng(1), np.arange(6.0)), e)


# -- symbolic parameters -------------------------------------------------------------------------


def test_symbolic_parameters_and_sizes():
    def body(rng, x, s, n):
        return (
            rng.normal(loc=x, scale=s),
            rng.normal(size=x.shape),
            rng.permutation(n),
            rng.integers(0, n, size=(n, 2)),
            np.float32(1) + rng.random(),
            x + rng.normal(),
        )

    staged = staging.function(body)
    cf = staged.get_concrete_function(
        np.random.default_rng(0),
        TensorSpec([None], np.float32),
        TensorSpec([], np.float64),
        TensorSpec([], np.int64),
    )
    assert [str(t) for t in cf.output_types] == [
        "f64[?]",
        "f64[?]",
        "i64[?]",
        "i64[?,2]",
        "f32[]",
        "f32[?]",
    ]
    for size in (3, 5):
        args = (np.linspace(0, 1, size, dtype=np.float32), np.float64(2), np.int64(size))
        assert_bitwise(
            staged(np.random.default_rng(4), *args), body(np.random.default_rng(4), *args)
        )


def test_python_random_with_symbolic_arguments():
    def body(rng, x, n):
        return rng.uniform(0, x), rng.randint(1, n), rng.choice(x * np.arange(3.0))

    assert_streams(body, lambda: random.Random(1), (np.float64(2.5), 7))


# -- clocks --------------------------------------------------------------------------------------


def test_clocks_are_read_when_the_graph_runs():
    @staging.function
    def clocks(x):
        return time.monotonic(), time.perf_counter(), time.time(), time.monotonic_ns(), x + 1

    values = []
    for _ in range(3):
        before = time.monotonic()
        values.append(clocks(np.float64(0)))
        after = time.monotonic()
        assert before <= values[-1][0] <= after
        assert type(values[-1][0]) is float and type(values[-1][3]) is int
    monotonic = [v[0] for v in values]
    assert monotonic == sorted(monotonic) and len(set(monotonic)) == 3
    assert clocks.tracing_count == 1


# -- graph text ----------------------------------------------------------------------------------

LEGACY_RNG = np.random.RandomState(0)


def test_graph_text_names_the_generator_and_the_method():
    def body(rng, x):
        a = rng.normal(size=3) + np.random.rand() + random.random()
        b = LEGACY_RNG.randint(0, 4, size=x.shape) + time.perf_counter()
        return a + b + x

    text = str(
        staging.function(body).get_concrete_function(np.random.default_rng(0), np.zeros(3)).graph
    )
    assert text.splitlines()[0] == "body(a:Generator, b:f64[3]) {"
    for line in (
        "c:f64[3] = random a call=_.normal(size=3)",
        "d:float = random call=np.random.rand()",
        "f:float = random call=random.random()",
        "h:i64[3] = random call=LEGACY_RNG.randint(0, 4, size=(3,))",
        "i:float = clock call=time.perf_counter()",
    ):
        assert line in text, text


# -- refusals -------------------------------------------------------------------------------------


def _line_of(func, text):
    lines, first = __import__("inspect").getsourcelines(func)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_shuffle_of_a_python_list_is_refused_naming_the_line():
    def body(x):
        order = [1, 2, 3]
        random.shuffle(order)  # refused
        return x

    with pytest.raises(errors.UnsupportedOpError) as info:
        staging.function(body)(np.float64(0))
    message = str(info.value)
    assert f"test_random.py:{_line_of(body, '# refused')}:" in message
    assert "random.shuffle(x) with x of type list" in message


def test_results_a_graph_cannot_hold_are_refused_naming_the_call():
    def body(x):
        return x + len(random.sample(range(10), 3))  # refused

    with pytest.raises(errors.UnsupportedOpError) as info:
        staging.function(body)(np.float64(0))
    assert f"test_random.py:{_line_of(body, '# refused')}:" in str(info.value)
    assert "random.sample() returns a list" in str(info.value)


def test_invalid_arguments_fail_as_they_do_eagerly_naming_the_line():
    def body(rng, x):
        return rng.normal(scale=-1.0) + x  # refused

    with pytest.raises(ValueError, match="scale") as info:
        staging.function(body)(np.random.default_rng(0), np.float64(0))
    assert f"test_random.py:{_line_of(body, '# refused')}:" in str(info.value)
    assert "rng.normal()" in str(info.value)


def test_shuffle_of_an_argument_shuffles_the_callers_array():
    def body(rng, x):
        rng.shuffle(x)
        return x

    eager_x, staged_x = np.arange(10.0), np.arange(10.0)
    body(np.random.default_rng(0), eager_x)
    assert staging.function(body)(np.random.default_rng(0), staged_x) is staged_x
    np.testing.assert_array_equal(staged_x, eager_x)


def test_unknown_generator_method_names_it():
    def body(rng, x):
        return rng.rand() + x

    with pytest.raises(AttributeError, match="'Generator' object has no attribute 'rand'"):
        staging.function(body)(np.random.default_rng(0), np.float64(0))


def test_a_draw_in_a_staged_while_test_is_made_once_per_test():
    def body(rng, n):
        k = 0
        while k < n and rng.random() < 0.9:  # the first test tells the loop is staged: no draw
            k += 1
        return k, rng.random()

    assert_streams(body, lambda: np.random.default_rng(12), (np.int64(5),), n=6)


def test_generator_specs_and_signatures():
    def body(rng, x):
        return x + rng.normal(), np.random.default_rng(7)

    staged = staging.function(body)
    cf = staged.get_concrete_function(
        TensorSpec([], np.random.Generator), TensorSpec([], np.float64)
    )
    assert str(cf.graph).splitlines()[0] == "body(a:Generator, b:f64[]) {"
    assert repr(TensorSpec([], np.random.Generator)) == "TensorSpec(shape=(), dtype=Generator)"
    assert "rng: Generator" in cf.pretty_printed_signature()
    value, made = cf(np.random.default_rng(3), np.float64(1))
    assert value == 1 + np.random.default_rng(3).normal()
    assert made.normal() == np.random.default_rng(7).normal()
    assert staged.tracing_count == 1


class _Model:
    def __init__(self):
        self.rng = np.random.default_rng(0)

    @staging.function
    def draw(self, x):
        return x + self.rng.normal()


def test_generator_attribute_of_self():
    m = _Model()
    expected = np.random.default_rng(0).normal(size=2)
    assert [m.draw(np.float64(0)) for _ in range(2)] == list(expected)
    assert "random call=self.rng.normal()" in str(m.draw.get_concrete_function(np.float64(0)).graph)


def test_symbolic_arguments_numpy_would_reject_as_stand_ins_are_refused_naming_the_call():
    def body(rng, good, bad):
        return rng.hypergeometric(good, bad, 10)  # refused

    with pytest.raises(errors.UnsupportedOpError) as info:
        staging.function(body)(np.random.default_rng(0), np.int64(5), np.int64(5))
    message = str(info.value)
    assert f"test_random.py:{_line_of(body, '# refused')}:" in message
    assert "rng.hypergeometric()" in message and "staging.py_function" in message


def test_shuffle_of_a_concrete_array_is_refused():
    def body(x):
        order = np.arange(3)
        np.random.shuffle(order)
        return x[order[0]]

    with pytest.raises(
        errors.UnsupportedOpError,
        match=r"np\.random\.shuffle\(x\) with x of type ndarray.*permutation",
    ):
        staging.function(body)(np.arange(3.0))


def test_a_draw_with_literal_arguments_is_a_method_call_in_the_generated_code():
    def draws(rng, n):
        total = 0.0
        for _ in range(n):
            total = total + rng.random() + rng.integers(0, 10) + rng.normal(loc=1.5)
        return total

    staged = staging.function(draws)
    n = np.int64(50)
    assert staged(np.random.default_rng(5), n) == draws(np.random.default_rng(5), n)
    source = staged.get_concrete_function(np.random.default_rng(0), n).executable_source
    assert (
        ".random()," in source and ".integers(0, 10)," in source and ".normal(loc=1.5)," in source
    )
