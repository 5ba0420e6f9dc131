"""Lifetime of staged methods: `obj.method` holds `obj` like a bound method does (so methods of
temporary instances work), while the per-instance trace cache does not keep instances alive."""

from __future__ import annotations

import gc
import weakref

import numpy as np
from _staging_helpers import assert_same

import staging

RNG = np.random.default_rng(11)


class Model:
    def __init__(self, k):
        self.k = k
        self.traces = 0

    @staging.function
    def apply(self, x):
        self.traces += 1
        return x * self.k + 1.0


class Slotted:
    """No __weakref__ slot: cached by the bounded strong LRU instead."""

    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k

    @staging.function(autograph=False)
    def apply(self, x):
        return x * self.k


def eager(obj, x):
    """Model.apply run as plain Python on `obj` (not counted in obj.traces)."""
    traces = obj.traces
    try:
        return Model.apply.python_function(obj, x)
    finally:
        obj.traces = traces


def bound_entry_ids():
    return set(Model.apply._bound_functions)


def test_method_of_a_temporary_instance():
    x = RNG.normal(size=3)
    assert_same(Model(3.0).apply(x), x * 3.0 + 1.0)
    # Again (the first access traced), and with another shape (a new trace).
    assert_same(Model(3.0).apply(x), x * 3.0 + 1.0)
    y = RNG.normal(size=(2, 2))
    assert_same(Model(-2.0).apply(y), y * -2.0 + 1.0)


def test_method_of_a_temporary_instance_runs_eagerly_too():
    x = RNG.normal(size=3)
    staging.run_functions_eagerly(True)
    assert_same(Model(3.0).apply(x), x * 3.0 + 1.0)


def test_method_of_a_temporary_instance_inside_a_trace():
    @staging.function
    def outer(x):
        return Model(4.0).apply(x) * 2.0

    x = RNG.normal(size=3)
    assert_same(outer(x), (x * 4.0 + 1.0) * 2.0)
    assert_same(outer(x), (x * 4.0 + 1.0) * 2.0)
    assert outer.tracing_count == 1


def test_method_held_after_its_instance_is_dropped():
    x = RNG.normal(size=4)
    m = Model(2.0).apply
    gc.collect()
    assert_same(m(x), x * 2.0 + 1.0)
    assert_same(m(x), x * 2.0 + 1.0)
    cf = m.get_concrete_function(x)
    assert isinstance(cf, staging.ConcreteFunction)
    assert_same(cf(x), x * 2.0 + 1.0)
    assert m.tracing_count == 1 and m.__self__.traces == 1
    assert m.python_function is Model.apply.python_function
    assert m.input_signature is None
    assert "f64[4]" in m.pretty_printed_concrete_signatures()


def test_get_concrete_function_of_a_temporary_instance():
    x = RNG.normal(size=2)
    cf = Model(5.0).apply.get_concrete_function(x)
    assert_same(cf(x), x * 5.0 + 1.0)


def test_bound_method_is_a_function_bound_to_its_instance():
    obj = Model(1.5)
    m = obj.apply
    assert isinstance(m, staging.Function)
    assert m is obj.apply and m.__self__ is obj
    assert m._instance_ref() is obj
    assert m.__name__ == "apply" and m.__qualname__ == "Model.apply"
    assert "bound staging.Function apply" in repr(m)
    assert (
        isinstance(Model.apply, staging.Function)
        and Model.apply.__get__(None, Model) is Model.apply
    )
    assert m.__get__(Model(9.0), Model) is m  # already bound, as a bound method stays bound


def test_instance_is_freed_once_instance_and_method_are_dropped():
    x = RNG.normal(size=3)
    obj = Model(2.0)
    key = id(obj)
    m = obj.apply
    assert_same(m(x), x * 2.0 + 1.0)
    ref, method_ref = weakref.ref(obj), weakref.ref(m)
    assert key in bound_entry_ids()
    del obj
    gc.collect()
    assert ref() is not None  # the method holds it
    assert_same(m(x), x * 2.0 + 1.0)
    assert m.tracing_count == 1
    del m
    # Freed by reference counting alone (no cycle through the cache) ...
    assert ref() is None and method_ref() is None
    gc.collect()
    # ... and its trace cache entry went with it.
    assert key not in bound_entry_ids()


def test_calls_through_temporary_methods_do_not_keep_the_instance_alive():
    x = RNG.normal(size=3)
    obj = Model(2.0)
    key = id(obj)
    for _ in range(3):
        assert_same(obj.apply(x), x * 2.0 + 1.0)
    obj.apply.get_concrete_function(x)
    ref = weakref.ref(obj)
    del obj
    gc.collect()
    assert ref() is None
    assert key not in bound_entry_ids()


def test_instances_keep_separate_traces_and_results():
    x = RNG.normal(size=5)
    a, b = Model(2.0), Model(-3.0)
    for _ in range(3):
        assert_same(a.apply(x), eager(a, x))
        assert_same(b.apply(x), eager(b, x))
    assert_same(a.apply(x), x * 2.0 + 1.0)
    assert_same(b.apply(x), x * -3.0 + 1.0)
    assert a.apply.tracing_count == 1 and b.apply.tracing_count == 1
    assert a.traces == 1 and b.traces == 1
    assert a.apply is not b.apply
    assert a.apply.get_concrete_function(x) is not b.apply.get_concrete_function(x)
    # Methods whose instances are only held by the methods themselves: the same.
    ma, mb = Model(4.0).apply, Model(-0.5).apply
    gc.collect()
    for _ in range(3):
        assert_same(ma(x), x * 4.0 + 1.0)
        assert_same(mb(x), x * -0.5 + 1.0)
    assert ma.tracing_count == 1 and mb.tracing_count == 1
    assert ma.__self__.traces == 1 and mb.__self__.traces == 1


def test_traces_are_reused_across_repeated_calls():
    obj = Model(0.5)
    xs = [RNG.normal(size=3) for _ in range(6)]
    for x in xs:  # a new bound object per call (none is held in between): one trace
        assert_same(obj.apply(x), eager(obj, x))
    assert obj.apply.tracing_count == 1 and obj.traces == 1
    held = obj.apply
    for x in xs:
        assert_same(held(x), eager(obj, x))
        assert_same(obj.apply(x), eager(obj, x))
    assert held.tracing_count == 1 and obj.traces == 1
    # A keyword call and a new shape share the same per-instance state.
    assert_same(obj.apply(x=xs[0]), eager(obj, xs[0]))
    y = RNG.normal(size=(2, 3))
    assert_same(obj.apply(y), eager(obj, y))
    assert held.tracing_count == 2 and obj.apply.tracing_count == 2 and obj.traces == 2
    # The method of a dropped instance keeps its traces too.
    m = Model(1.25).apply
    for x in xs:
        assert_same(m(x), x * 1.25 + 1.0)
    assert m.tracing_count == 1 and m.__self__.traces == 1


def test_results_match_eager_python_function():
    x = RNG.normal(size=(3, 2))
    for k in (0.0, 1.0, -2.5, 7.25):
        obj = Model(k)
        assert_same(obj.apply(x), Model.apply.python_function(obj, x))
        assert_same(Model(k).apply(x), Model.apply.python_function(Model(k), x))


def test_slots_instances_still_use_the_strong_lru():
    x = RNG.normal(size=3)
    assert_same(Slotted(3.0).apply(x), x * 3.0)
    s = Slotted(3.0)
    assert s.apply is s.apply and isinstance(s.apply, staging.Function)
    for _ in range(3):
        assert_same(s.apply(x), x * 3.0)
    assert s.apply.tracing_count == 1
    assert Slotted.apply._strong_bound[id(s)][0] is s
    m = Slotted(4.0).apply
    assert_same(m(x), x * 4.0)
