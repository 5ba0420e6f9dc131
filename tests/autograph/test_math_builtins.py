"""Python's math functions and builtins on symbolic values give eager's results, Python types and
exceptions: math.*, round, int/float/bool, abs, divmod, pow, min/max (key=), sum, any/all,
sorted, map, filter and functools.reduce, on NumPy scalars, Python numbers known at run time,
values of several kinds, tensors and lists built by staged loops."""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pytest

import staging
from runtime.registry import get_op
from staging import errors

HERE = __file__


def outcome(call, *args):
    """(result, None) or (None, exception) of call(*args), warnings silenced."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return call(*args), None
        except Exception as error:  # noqa: BLE001 - compared with the staged call's
            return None, error


def same_as_eager(f, *args):
    """The staged function (its tracing call and a cached call) gives what f gives: the same
    repr (values, NumPy or Python types, nested) and Python types, or the same exception type
    (with the same message when raised while the graph runs)."""
    staged = staging.function(f)
    eager, eager_error = outcome(f, *args)
    for _ in range(2):
        got, error = outcome(staged, *args)
        if eager_error is not None:
            assert error is not None, f"eager raised {eager_error!r}, staged returned {got!r}"
            assert type(error) is type(eager_error) or isinstance(error, type(eager_error)), (
                f"eager raised {eager_error!r}, staged {error!r}"
            )
            continue
        assert error is None, f"staged raised {error!r}, eager returned {eager!r}"
        assert repr(got) == repr(eager), f"staged {got!r}, eager {eager!r}"
        assert _types(got) == _types(eager)
    return staged


def _types(value):
    if isinstance(value, (list, tuple)):
        return type(value), [_types(v) for v in value]
    return type(value)


F64 = [np.float64(v) for v in (2.25, -1.5, 0.0, -0.0, np.nan, np.inf, -np.inf, 1e300, 0.1)]
F32 = [np.float32(v) for v in (2.25, -1.5, 0.0, np.nan)]
I64 = [np.int64(v) for v in (0, 7, -3)]


def weak(x):
    """A Python float known only when the graph runs."""
    return float(x)


MATH_CALLS = [
    lambda x: math.sqrt(x),
    lambda x: math.sqrt(weak(x)),
    lambda x: math.exp(x),
    lambda x: math.log(x),
    lambda x: math.log(x, 2),
    lambda x: math.log(weak(x), x + 3.0),
    lambda x: math.log10(x),
    lambda x: math.log2(x),
    lambda x: math.floor(x),
    lambda x: math.ceil(weak(x)),
    lambda x: math.trunc(x),
    lambda x: math.trunc(weak(x)),
    lambda x: math.isclose(x, 2.25),
    lambda x: math.isclose(x, 2.0, rel_tol=0.2),
    lambda x: math.isclose(x, x + 1e-12, abs_tol=x * 0.0 + 1e-9),
    lambda x: math.isnan(x),
    lambda x: math.isinf(weak(x)),
    lambda x: math.isfinite(x),
    lambda x: math.hypot(x, 3.0),
    lambda x: math.hypot(x, x, weak(x)),
    lambda x: math.fabs(x),
    lambda x: math.sin(x) + math.cos(x) - math.tan(x),
    lambda x: math.atan2(x, 2.0),
    lambda x: math.copysign(1.0, x),
    lambda x: math.pi * x + math.e,
    lambda x: math.fmod(x, 0.75),
    lambda x: math.pow(x, 0.5),
    lambda x: math.degrees(x),
]


@pytest.mark.parametrize("f", MATH_CALLS, ids=[str(i) for i in range(len(MATH_CALLS))])
def test_math_functions(f):
    for x in F64 + F32 + I64:
        same_as_eager(f, x)


INT_CALLS = [
    lambda n: math.factorial(n),
    lambda n: math.factorial(int(n)),
    lambda n: math.gcd(n, 6),
    lambda n: math.comb(int(n) + 3, 2),
    lambda n: math.isqrt(n),
    lambda n: math.floor(n),
    lambda n: math.trunc(int(n)),
]


@pytest.mark.parametrize("f", INT_CALLS, ids=[str(i) for i in range(len(INT_CALLS))])
def test_math_functions_of_integers(f):
    for n in I64 + [np.int32(5), np.uint8(4), np.float64(3.0)]:
        same_as_eager(f, n)


def test_math_errors_are_raised_when_the_graph_runs_at_the_line():
    def roots(x):
        return math.sqrt(x)

    f = staging.function(roots)
    assert f(np.float64(4.0)) == 2.0
    with pytest.raises(ValueError, match="math domain error") as error:
        f(np.float64(-1.0))
    notes = "\n".join(getattr(error.value, "__notes__", []))
    assert f"{HERE}:{roots.__code__.co_firstlineno + 1}" in notes
    with pytest.raises(OverflowError):
        staging.function(lambda x: math.exp(x))(np.float64(1000.0))


def test_a_kind_the_function_never_takes_raises_its_type_error_naming_the_line():
    def of_complex(z):
        return math.sqrt(z)

    with pytest.raises(TypeError):
        of_complex(1j)
    with pytest.raises(TypeError, match=rf"{HERE}:{of_complex.__code__.co_firstlineno + 1}"):
        staging.function(of_complex)(np.complex128(1j) * np.ones(2))


def test_an_unused_math_call_still_raises():
    def unused(x):
        math.sqrt(x)
        return x

    same_as_eager(unused, np.float64(-1.0))
    same_as_eager(unused, np.float64(1.0))


ROUNDS = [
    lambda x: round(x),
    lambda x: round(x, 2),
    lambda x: round(x, -1),
    lambda x: round(x, None),
    lambda x: round(weak(x)),
    lambda x: round(weak(x), 1),
    lambda x: round(x, int(x * 0.0) + 1),
    lambda x: round(2.567, int(x * 0.0) + 2),
]


@pytest.mark.parametrize("f", ROUNDS, ids=[str(i) for i in range(len(ROUNDS))])
def test_round(f):
    for x in F64 + F32 + I64 + [np.float64(2.5), np.float64(3.5), np.float64(2.567)]:
        same_as_eager(f, x)


def test_round_of_bools_and_0d_arrays_raises_as_eagerly():
    same_as_eager(lambda x: round(x), np.bool_(True))
    same_as_eager(lambda x: round(np.asarray(x)), np.float64(2.5))


def test_round_and_floor_are_staged_in_unconverted_code():
    f = staging.function(lambda x: (round(x, 1), math.floor(x), math.ceil(x)), autograph=False)
    assert repr(f(np.float64(2.26))) == repr((np.float64(2.3), 2, 3))


CONVERSIONS = [
    lambda x: int(x),
    lambda x: float(x),
    lambda x: bool(x),
    lambda x: complex(x),
    lambda x: abs(x),
    lambda x: abs(weak(x)),
    lambda x: divmod(x, 2),
    lambda x: divmod(weak(x), 0.75),
    lambda x: divmod(int(x), 4),
    lambda x: pow(x, 2),
    lambda x: pow(int(x), 3, 5),
    lambda x: pow(3, int(x), 7),
    lambda x: pow(weak(x), 2),
]


@pytest.mark.parametrize("f", CONVERSIONS, ids=[str(i) for i in range(len(CONVERSIONS))])
def test_conversions_and_numeric_builtins(f):
    for x in F64 + I64 + [np.float32(3.7)]:
        same_as_eager(f, x)


def either(x, c):
    """x (a float64) or the Python float 0.5, depending on c when the graph runs."""
    return x if c > 0 else 0.5


MIN_MAX = [
    lambda x, c: min(x, 3.0),
    lambda x, c: max(x, 0.0),
    lambda x, c: max(x, weak(c)),
    lambda x, c: min(weak(x), 1, c),
    lambda x, c: max([x, c, 1.0]),
    lambda x, c: min((x, -x), key=abs),
    lambda x, c: max(x, c, key=lambda v: -v),
    lambda x, c: max([(x, 1), (c, 2)], key=lambda p: p[0]),
    lambda x, c: min((x, 2), (c, 1)),
    lambda x, c: max(either(x, c), 0.25),
    lambda x, c: min([x, c], default=7.0),
    lambda x, c: max(range(3), key=lambda i: x * i),
]


@pytest.mark.parametrize("f", MIN_MAX, ids=[str(i) for i in range(len(MIN_MAX))])
def test_min_max_give_the_chosen_value_as_it_is(f):
    for x in F64 + [np.float64(1.0)]:
        for c in (np.float64(1.0), np.float64(-2.0), np.float64(np.nan)):
            same_as_eager(f, x, c)


def test_min_max_of_tensors_and_staged_lists():
    def of_list(x):
        values = []
        for v in x:
            values.append(float(v))
        return min(values), max(values)

    for x in (
        np.array([0.5, -2.0, 3.0]),
        np.array([np.nan, 1.0]),
        np.array([2.0, np.nan, -np.inf]),
        np.array([0.0, -0.0, 1.0]),  # the first of equal extremes, as Python keeps it
        np.array([-0.0, 0.0]),
        np.array([np.inf, np.nan, np.inf]),
    ):
        same_as_eager(lambda x: (min(x), max(x), min(x, key=abs), max(x, key=lambda v: v * v)), x)
        same_as_eager(of_list, x)
    same_as_eager(lambda x: (min(x), max(x, default=1)), np.array([], np.int32))
    same_as_eager(lambda x: (min(x), max(x)), np.array([3, 1, 1, 3], np.int8))
    same_as_eager(lambda x: (min(x), max(x)), np.array([True, False]))
    same_as_eager(lambda x: max(x, default=5), np.array([], np.int32))


ITERATIONS = [
    lambda x: sum([x[0], x[1], 1.0]),
    lambda x: any([x[0] > 1, x[1] < 0]),
    lambda x: all([x[0] > -5, x[1]]),
    lambda x: any(x),
    lambda x: all(x),
    lambda x: any(v > 2 for v in [x[0], x[1]]),
    lambda x: all(math.sqrt(v) > 0.1 for v in [x[0], x[1], x[2]]),
    lambda x: any(math.sqrt(v) > 1 for v in [x[0], x[1], x[2]]),
    lambda x: sorted(x),
    lambda x: sorted(x, reverse=True),
    lambda x: sorted(x, key=abs),
    lambda x: sorted([x[0], x[2]], key=lambda v: (v > 0, -v)),
    lambda x: sorted(zip(x, [3, 1, 2]), key=lambda p: p[1]),
    lambda x: list(map(lambda v: v * 2 if v > 0 else -v, x)),
    lambda x: list(map(math.sqrt, x)),
    lambda x: list(map(lambda a, b: a + b, x, [1, 2, 3])),
    lambda x: list(filter(lambda i: i != 1, range(3))),
    lambda x: list(filter(None, [x[0], 0.0, 1.0][1:])),
    lambda x: functools.reduce(lambda acc, v: acc * (1 + v), x, 1.0),
    lambda x: functools.reduce(lambda a, b: a if a > b else b, x),
    lambda x: functools.reduce(lambda a, b: a + b, enumerate(x), (0,)),
    lambda x: functools.reduce(max, [x[0], x[1]]),
]


@pytest.mark.parametrize("f", ITERATIONS, ids=[str(i) for i in range(len(ITERATIONS))])
def test_library_calls_over_staged_values(f):
    for x in (
        np.array([4.0, -2.0, 0.25]),
        np.array([0.5, 9.0, 2.0]),
        np.array([np.nan, 1.0, -1.0]),
        np.array([0.0, 0.0, 0.0]),
    ):
        same_as_eager(f, x)


def test_any_of_a_generator_computes_only_the_items_python_computes():
    def first_large(x):
        return any(math.sqrt(v) > 1.5 for v in [x[0], x[1]])

    same_as_eager(first_large, np.array([4.0, -1.0]))  # the second item is never computed
    same_as_eager(first_large, np.array([1.0, -1.0]))  # ValueError, as eagerly


def test_reduce_over_an_unknown_length_is_a_staged_loop():
    def product(x):
        return functools.reduce(lambda acc, v: acc * v, x, 1.0)

    def largest(x):
        return functools.reduce(lambda a, b: a if a > b else b, x)

    spec = staging.TensorSpec([None], np.float64)
    for f in (product, largest):
        concrete = staging.function(f).get_concrete_function(spec)
        assert "while_loop" in str(concrete.graph)
        for x in (np.array([2.0, 3.0, 0.5]), np.array([7.0]), np.zeros(0)):
            expected, eager_error = outcome(f, x)
            got, error = outcome(concrete, x)
            assert repr(got) == repr(expected)
            assert type(error) is type(eager_error)


def test_reduce_over_a_list_built_by_a_staged_loop():
    def total(n):
        values = []
        for i in range(n):
            values.append(i * 0.5)
        return functools.reduce(lambda a, b: a + b, values, 0.25)

    for n in (np.int64(0), np.int64(4)):
        same_as_eager(total, n)


def test_empty_reduce_without_initial_value_raises_python_type_error():
    same_as_eager(lambda x: functools.reduce(lambda a, b: a + b, x), np.zeros(0))


def line_of(f, offset=1):
    return f"{HERE}:{f.__code__.co_firstlineno + offset}"


def test_refusals_name_the_line():
    def symbolic_filter(x):
        return list(filter(lambda v: v > 0, x))

    def unknown_length(x):
        return sorted(x)

    def mixed_types(x):
        return sorted([x[0], 1.0])

    with pytest.raises(errors.SymbolicValueError, match=line_of(symbolic_filter)) as refused:
        staging.function(symbolic_filter)(np.ones(3))
    assert "filter() with a test" in str(refused.value)
    spec = staging.TensorSpec([None], np.float64)
    with pytest.raises(errors.SymbolicValueError, match=line_of(unknown_length)) as refused:
        staging.function(unknown_length).get_concrete_function(spec)
    assert "whose length is known only when the staged graph runs" in str(refused.value)
    with pytest.raises(errors.SymbolicValueError, match=line_of(mixed_types)) as refused:
        staging.function(mixed_types)(np.ones(3))
    assert "several types" in str(refused.value)


def test_python_call_is_refused_by_the_jax_backend_naming_the_line():
    pytest.importorskip("jax")

    def roots(x):
        return math.sqrt(x)

    with pytest.raises(NotImplementedError, match=line_of(roots)):
        staging.function(roots, jit_compile=True)(np.float64(2.0))


def test_saved_graphs_keep_the_calls(tmp_path):
    def f(x):
        return math.sqrt(x[0]), round(x[1], 1), sorted(x, key=abs), math.isclose(x[0], 1.0)

    x = np.array([2.0, -0.26, 1.0])
    path = str(tmp_path / "f.stg")
    staging.save(staging.function(f), path, signatures=[(x,)])
    assert repr(staging.load(path)(x)) == repr(f(x))


def test_the_op_calls_the_very_function():
    assert get_op("python_call").kernel({"func": "math.sqrt"}) is math.sqrt
    assert get_op("python_call").kernel({"func": "round"}) is round
    assert get_op("python_sort").kernel({"width": 1})(3.0, np.nan, 1.0).tolist() == [0, 1, 2]


def test_values_of_several_kinds_give_each_paths_result():
    def f(x, c):
        v = either(x, c)  # a float64 on one path, the Python float 0.5 on the other
        return math.sqrt(v), round(v), round(v, 1), math.floor(v), max(v, 0.25)

    for c in (np.float64(1.0), np.float64(-1.0)):
        same_as_eager(f, np.float64(2.25), c)
    cf = staging.function(f).get_concrete_function(np.float64(2.25), np.float64(1.0))
    assert "float | f64[]" in str(cf.graph)


def test_sorted_of_a_list_built_by_a_staged_loop():
    def positives(x):
        out = []
        for v in x:
            if v > 0:
                out.append(v)
        return sorted(out), sorted(out, reverse=True), sorted(out, key=lambda v: -v if v > 2 else v)

    def as_floats(x):
        out = []
        for v in x:
            out.append(float(v))
        return sorted(out, reverse=True), min(out), any(out)

    for x in (
        np.array([3.0, -1.0, 2.0, np.nan, 5.0]),
        np.array([-1.0]),
        np.array([1.0, -0.0, 1.0, 0.0]),
        np.zeros(0),
    ):
        same_as_eager(positives, x)
        same_as_eager(as_floats, x)
