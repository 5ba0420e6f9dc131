"""Trace keys: which arguments make a Function trace again (DESIGN.md, "Trace key")."""

from __future__ import annotations

import collections
import dataclasses
import gc
import weakref

import numpy as np
import pytest
from _staging_helpers import assert_same

import staging


def counting(func):
    """A staged `func` (no autograph) plus the list of Python-level calls (one per trace)."""
    traces = []

    def wrapper(*args, **kwargs):
        traces.append(1)
        return func(*args, **kwargs)

    wrapper.__name__ = func.__name__
    return staging.function(wrapper, autograph=False), traces


def scaled(x, k):
    return x * k


# -- arrays and NumPy scalars: dtype + shape ------------------------------------------


def test_arrays_keyed_by_dtype_and_shape():
    f, traces = counting(lambda x: x + 1)
    f(np.zeros(3))
    f(np.ones(3))  # same dtype and shape: no retrace, values do not matter
    assert len(traces) == 1
    f(np.zeros(4))
    assert len(traces) == 2
    f(np.zeros(3, np.float32))
    assert len(traces) == 3
    f(np.zeros((3, 1)))
    assert len(traces) == 4
    f(np.zeros(3))
    assert len(traces) == 4 and f.tracing_count == 4


def test_numpy_scalar_and_zero_d_array_share_a_key():
    f, traces = counting(lambda x: x * 2)
    assert f(np.float64(2.0)) == 4.0
    out = f(np.array(3.0))
    assert out == 6.0 and len(traces) == 1
    f(np.float32(2.0))
    assert len(traces) == 2
    f(np.int64(2))
    assert len(traces) == 3


@pytest.mark.filterwarnings("ignore::staging.RetracingWarning")
def test_staged_results_match_eager_for_array_keys():
    f = staging.function(scaled, autograph=False)
    for x in (np.arange(3.0), np.arange(4, dtype=np.int32), np.ones((2, 2), np.float32)):
        for k in (np.float64(0.5), np.int64(3)):
            assert_same(f(x, k), scaled(x, k))


# -- Python values: by value -------------------------------------------------------


def test_python_numbers_keyed_by_value():
    f, traces = counting(scaled)
    x = np.arange(3.0)
    assert_same(f(x, 2), scaled(x, 2))
    assert_same(f(x, 2), scaled(x, 2))
    assert len(traces) == 1
    assert_same(f(x, 3), scaled(x, 3))
    assert len(traces) == 2
    # 2 == 2.0, but an int and a float can give different results: separate traces
    assert_same(f(x, 2.0), scaled(x, 2.0))
    assert len(traces) == 3
    assert_same(f(x, 2.0), scaled(x, 2.0))
    assert len(traces) == 3


def test_python_numbers_keyed_by_type_and_value():
    """Each pair below compares equal in Python but can change the result: each is its own
    trace, and the staged result equals the eager one (dtype included)."""
    import enum

    class Level(enum.IntEnum):
        LOW = 1

    def g(x, k):
        return x * k, 1.0 / k if k else np.copysign(1.0, k)

    f, traces = counting(g)
    x = np.arange(3, dtype=np.int32)
    pairs = [(2, 2.0), (True, 1), (0.0, -0.0), (Level.LOW, 1), (2, 2 + 0j)]
    for a, b in pairs:
        for k in (a, b, a, b):
            assert_same(f(x, k), g(x, k))
    assert len(traces) == 8  # 2, 2.0, True, 1, 0.0, -0.0, Level.LOW, 2+0j


def test_nan_argument_traces_once():
    f, traces = counting(lambda x, k: x + k)
    x = np.arange(2.0)
    for _ in range(3):
        np.testing.assert_array_equal(f(x, float("nan")), x + float("nan"))
    assert len(traces) == 1


def test_nan_of_the_other_sign_is_another_key():
    """The sign bit of a NaN is observable (np.signbit, np.copysign): -nan is not nan."""
    f, traces = counting(lambda x, k: np.signbit(x * 0 + k))
    x = np.arange(2.0)
    nan = float("nan")
    for k in (nan, -nan, nan, -nan):
        np.testing.assert_array_equal(f(x, k), np.signbit(x * 0 + k))
    assert len(traces) == 2


def test_bools_are_not_numbers():
    f, traces = counting(lambda x, flag: x + 1 if flag else x - 1)
    assert f(np.float64(0.0), 1) == 1.0
    assert f(np.float64(0.0), True) == 1.0
    assert len(traces) == 2  # True is a bool, 1 an int: separate traces
    assert f(np.float64(0.0), False) == -1.0
    assert f(np.float64(0.0), 0) == -1.0
    assert len(traces) == 4


def test_strings_and_none_keyed_by_value():
    def g(x, mode, extra):
        if mode == "double":
            x = x * 2
        return x if extra is None else x + extra

    f, traces = counting(g)
    x = np.arange(3.0)
    for mode in ("double", "same", "double"):
        for extra in (None, 1.5, None):
            assert_same(f(x, mode, extra), g(x, mode, extra))
    assert len(traces) == 4


# -- containers --------------------------------------------------------------------


def test_lists_and_tuples_keyed_by_element_types():
    def g(xs):
        return sum(xs[1:], xs[0])

    f, traces = counting(g)
    a, b = np.ones(2), np.full(2, 2.0)
    assert_same(f([a, b]), g([a, b]))
    assert_same(f([b, a]), g([b, a]))
    assert len(traces) == 1
    f([a, b, a])  # longer list
    assert len(traces) == 2
    f((a, b))  # a tuple is not a list
    assert len(traces) == 3
    f([a, np.ones(1)])  # another element shape
    assert len(traces) == 4


def test_dicts_keyed_order_insensitively():
    def g(d):
        return d["x"] * d["k"]

    f, traces = counting(g)
    x = np.arange(3.0)
    assert_same(f({"x": x, "k": 2}), g({"x": x, "k": 2}))
    assert_same(f({"k": 2, "x": x + 1}), g({"k": 2, "x": x + 1}))
    assert len(traces) == 1
    f({"x": x, "k": 3})
    assert len(traces) == 2
    f({"x": x, "k": 2, "other": None})
    assert len(traces) == 3


Pair = collections.namedtuple("Pair", "a b")
OtherPair = collections.namedtuple("OtherPair", "a b")


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: np.ndarray
    activation: str = "tanh"


def test_namedtuples_keyed_by_structure():
    def g(p):
        return p.a - p.b

    f, traces = counting(g)
    for a, b in ((np.ones(2), np.zeros(2)), (np.arange(2.0), np.full(2, 5.0))):
        assert_same(f(Pair(a, b)), g(Pair(a, b)))
    assert len(traces) == 1
    f(OtherPair(np.ones(2), np.zeros(2)))  # same fields, another type
    assert len(traces) == 2


def test_dataclasses_keyed_by_structure_and_values_flow_in():
    def g(p):
        y = p.w * 2 + p.b
        return np.tanh(y) if p.activation == "tanh" else y

    f, traces = counting(g)
    rng = np.random.default_rng(0)
    for _ in range(3):
        p = Params(rng.normal(size=3), rng.normal(size=3))
        assert_same(f(p), g(p))  # new instance, new values: same trace, current values used
    assert len(traces) == 1
    p = Params(rng.normal(size=3), rng.normal(size=3), activation="linear")
    assert_same(f(p), g(p))
    assert len(traces) == 2
    p = Params(rng.normal(size=4), rng.normal(size=4))
    assert_same(f(p), g(p))
    assert len(traces) == 3


def test_dataclass_argument_to_the_trace_is_rebuilt_with_tensors():
    seen = []

    @staging.function(autograph=False)
    def f(p):
        seen.append((type(p), staging.is_symbolic(p.w), p.activation))
        return p.w

    f(Params(np.ones(2), np.zeros(2)))
    assert seen == [(Params, True, "tanh")]


# -- Variables: by identity -----------------------------------------------------------


def test_variables_keyed_by_identity():
    def g(v, x):
        return v.read_value() * x

    f, traces = counting(g)
    v1 = staging.Variable(np.ones(2))
    v2 = staging.Variable(np.full(2, 3.0))
    x = np.arange(2.0)
    np.testing.assert_array_equal(f(v1, x), np.arange(2.0))
    np.testing.assert_array_equal(f(v2, x), 3 * np.arange(2.0))
    np.testing.assert_array_equal(f(v1, x), np.arange(2.0))
    assert len(traces) == 2
    v1.assign(np.full(2, 10.0))  # captured by reference: no retrace, new value used
    np.testing.assert_array_equal(f(v1, x), 10 * np.arange(2.0))
    assert len(traces) == 2


# -- other objects: weak identity, then == ---------------------------------------------


class Opaque:
    def __init__(self, k):
        self.k = k


class ByValue:
    def __init__(self, k):
        self.k = k

    def __eq__(self, other):
        return isinstance(other, ByValue) and self.k == other.k

    def __hash__(self):
        return hash(self.k)


def test_plain_objects_keyed_by_identity():
    f, traces = counting(lambda x, o: x * o.k)
    o = Opaque(2.0)
    assert f(np.float64(1.0), o) == 2.0
    o.k = 5.0  # mutating the object does not retrace (TF semantics)
    assert f(np.float64(1.0), o) == 2.0
    assert len(traces) == 1
    assert f(np.float64(1.0), Opaque(2.0)) == 2.0  # another object: retrace
    assert len(traces) == 2


def test_dead_objects_do_not_match_new_ones():
    f, traces = counting(lambda x, o: x * o.k)
    for k in range(5):
        o = Opaque(float(k))
        assert f(np.float64(1.0), o) == float(k)  # ids may be reused: never a stale trace
        ref = weakref.ref(o)
        del o
        gc.collect()
        assert ref() is None  # the trace cache holds it weakly
    assert len(traces) == 5


def test_hashable_objects_keyed_by_equality():
    f, traces = counting(lambda x, o: x * o.k)
    assert f(np.float64(1.0), ByValue(2.0)) == 2.0
    assert f(np.float64(1.0), ByValue(2.0)) == 2.0
    assert len(traces) == 1
    assert f(np.float64(1.0), ByValue(3.0)) == 3.0
    assert len(traces) == 2
    g, g_traces = counting(lambda x, s: x * len(s))
    assert g(np.float64(1.0), frozenset({1, 2})) == 2.0
    assert g(np.float64(1.0), frozenset({2, 1})) == 2.0
    assert g(np.float64(1.0), frozenset({3})) == 1.0
    assert len(g_traces) == 2


def test_unhashable_objects_keyed_by_identity():
    class Unhashable:
        __hash__ = None
        k = 2.0

    f, traces = counting(lambda x, o: x * o.k)
    u = Unhashable()
    f(np.float64(1.0), u)
    f(np.float64(1.0), u)
    assert len(traces) == 1
    f(np.float64(1.0), Unhashable())
    assert len(traces) == 2


class Shape:
    """Decides its own trace type: only `kind` matters."""

    def __init__(self, kind, payload):
        self.kind, self.payload = kind, payload

    def __tracing_type__(self):
        return self.kind


def test_tracing_type_protocol():
    f, traces = counting(lambda x, s: x * 2 if s.kind == "double" else x)
    assert f(np.float64(1.0), Shape("double", object())) == 2.0
    assert f(np.float64(1.0), Shape("double", object())) == 2.0
    assert len(traces) == 1
    assert f(np.float64(1.0), Shape("same", None)) == 1.0
    assert len(traces) == 2


def test_unhashable_tracing_type_is_a_clear_error():
    class Bad:
        def __tracing_type__(self):
            return ["a list"]

    f = staging.function(lambda x, b: x, autograph=False)
    with pytest.raises(TypeError, match="trace key"):
        f(np.float64(1.0), Bad())


def test_object_arrays_rejected():
    f = staging.function(lambda x: x, autograph=False)
    with pytest.raises(TypeError):
        f(np.array([object()], dtype=object))


# -- context --------------------------------------------------------------------------


def test_context_is_part_of_the_key():
    inner, inner_traces = counting(lambda x: x + 1)

    @staging.function(autograph=False)
    def outer(x):
        return inner(x) * 2

    x = np.float64(1.0)
    assert inner(x) == 2.0
    assert outer(x) == 4.0
    assert len(inner_traces) == 2  # once outside any trace, once inside outer's trace
    assert inner(x) == 2.0 and outer(x) == 4.0
    assert len(inner_traces) == 2
