"""Function binding and call fast paths: methods of non-weak-referenceable instances (one bound
Function per instance, bounded strong cache) and keyword calls on the fast path (same results,
traces and errors as the slow path)."""

from __future__ import annotations

import gc
import warnings
import weakref

import numpy as np
import pytest
from _staging_helpers import assert_same

import staging
from staging import TensorSpec

RNG = np.random.default_rng(7)


# -- methods of instances that cannot be weakly referenced -----------------------------


class Slotted:
    """No __weakref__ slot: instances cannot be weakly referenced."""

    __slots__ = ("k", "traces", "deleted")

    def __init__(self, k, deleted=None):
        self.k = k
        self.traces = 0
        self.deleted = deleted

    def __del__(self):
        if self.deleted is not None:
            self.deleted.append(self.k)

    @staging.function(autograph=False)
    def apply(self, x):
        self.traces += 1
        return x * self.k - 1.0


def text(exc) -> str:
    """An exception's message and its notes (a run-time failure names the user's line in a note)."""
    return "\n".join([str(exc), *getattr(exc, "__notes__", ())])


def eager_apply(obj, x):
    return x * obj.k - 1.0


def test_slotted_instance_is_not_weak_referenceable():
    with pytest.raises(TypeError):
        weakref.ref(Slotted(1.0))


def test_slots_method_traces_once_across_calls():
    s = Slotted(2.0)
    x = RNG.normal(size=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RetracingWarning
        for _ in range(5):
            assert_same(s.apply(x), eager_apply(s, x))
    assert s.apply is s.apply
    assert s.apply.tracing_count == 1
    assert s.traces == 1


def test_slots_instances_get_their_own_traces_and_results():
    a, b = Slotted(2.0), Slotted(-3.0)
    x = RNG.normal(size=4)
    for _ in range(3):
        assert_same(a.apply(x), eager_apply(a, x))
        assert_same(b.apply(x), eager_apply(b, x))
    assert a.apply is not b.apply
    assert a.traces == 1 and b.traces == 1
    assert a.apply.tracing_count == 1 and b.apply.tracing_count == 1


def test_slots_method_cache_is_a_bounded_lru():
    deleted = []
    keep = Slotted(-1.0, deleted)
    x = np.ones(2)
    keep.apply(x)
    for i in range(200):
        Slotted(float(i), deleted).apply(x)
        keep.apply(x)  # recently used: never evicted
    gc.collect()
    # At most 64 instances are kept alive by the cache; the rest were freed.
    assert len(deleted) >= 200 - 64
    assert -1.0 not in deleted
    assert keep.traces == 1 and keep.apply.tracing_count == 1


def test_slots_id_reuse_after_eviction_does_not_return_a_stale_function():
    x = RNG.normal(size=3)
    old = Slotted(2.0)
    assert_same(old.apply(x), eager_apply(old, x))
    old_id = id(old)
    for i in range(100):  # evict `old` from the cache, which held it alive
        Slotted(float(i)).apply(x)
    gc.collect()  # free the evicted entries first, so `old` is the last freed
    del old
    gc.collect()
    # Allocate until an instance lands on the dead instance's id (CPython usually reuses the
    # memory soon); whether or not it does, each new instance gets its own Function.
    held = []
    new = None
    for _ in range(100000):
        candidate = Slotted(5.0)
        if id(candidate) == old_id:
            new = candidate
            break
        held.append(candidate)
    candidates = ([new] if new is not None else []) + held[:3]
    for obj in candidates:
        assert_same(obj.apply(x), eager_apply(obj, x))
        assert obj.traces == 1 and obj.apply.tracing_count == 1
        assert obj.apply._instance_ref() is obj


def test_slots_cache_checks_identity_not_just_id():
    # An entry under the id of another (live) object, as if that id had been reused: not returned.
    x = RNG.normal(size=3)
    a, b = Slotted(2.0), Slotted(3.0)
    fa = a.apply
    assert_same(fa(x), eager_apply(a, x))
    Slotted.apply._strong_bound[id(b)] = (a, fa)
    fb = b.apply
    assert fb is not fa and fb._instance_ref() is b
    assert_same(b.apply(x), eager_apply(b, x))
    assert b.apply is fb and fb.tracing_count == 1 and b.traces == 1
    assert a.apply is fa


def test_weak_referenceable_instances_keep_weak_caching():
    class WithWeakref:
        __slots__ = ("k", "__weakref__")

        def __init__(self, k):
            self.k = k

        @staging.function(autograph=False)
        def apply(self, x):
            return x * self.k

    w = WithWeakref(3.0)
    x = np.arange(3.0)
    for _ in range(3):
        assert_same(w.apply(x), x * 3.0)
    assert w.apply is w.apply and w.apply.tracing_count == 1
    refs = [weakref.ref(w), weakref.ref(w.apply)]
    assert not WithWeakref.apply._strong_bound
    del w
    gc.collect()
    assert [r() for r in refs] == [None, None]


@pytest.mark.parametrize("slots", [("n",), ("n", "__weakref__")])
def test_method_recursion_is_detected_for_all_instances(slots):
    class Recursive:
        __slots__ = slots

        def __init__(self):
            self.n = 0

        @staging.function(autograph=False)
        def f(self, x):
            self.n += 1
            if self.n > 3:  # without one bound Function per instance this would not stop
                return x
            return self.f(x)

    r = Recursive()
    with pytest.raises(staging.errors.RecursionInTraceError):
        r.f(np.ones(2))


# -- keyword calls ------------------------------------------------------------------------


def count_slow_calls(f):
    """Counts calls of `f` that go through the slow path (binding + trace key)."""
    counter = [0]
    slow = f._call_slow

    def counting(args, kwargs):
        counter[0] += 1
        return slow(args, kwargs)

    f._call_slow = counting
    return counter


def sub(x, y):
    return x - 2.0 * y


def test_keyword_calls_match_eager_and_reuse_one_trace():
    f = staging.function(sub, autograph=False)
    x, y = RNG.normal(size=3), RNG.normal(size=3)
    expected = sub(x, y)
    for _ in range(3):
        assert_same(f(x, y), expected)
        assert_same(f(x, y=y), expected)
        assert_same(f(x=x, y=y), expected)
        assert_same(f(y=y, x=x), expected)
    assert f.tracing_count == 1


def test_keyword_calls_take_the_fast_path():
    f = staging.function(sub, autograph=False)
    x, y = RNG.normal(size=3), RNG.normal(size=3)
    calls = [
        lambda a, b: f(a, y=b),
        lambda a, b: f(x=a, y=b),
        lambda a, b: f(y=b, x=a),
        lambda a, b: f(a, b),
    ]
    for call in calls:
        call(x, y)  # warm up each layout
    slow = count_slow_calls(f)
    for _ in range(3):
        for call in calls:
            a, b = RNG.normal(size=3), RNG.normal(size=3)
            assert_same(call(a, b), sub(a, b))
    assert slow[0] == 0
    assert f.tracing_count == 1


def test_keyword_calls_after_a_positional_trace_become_fast():
    f = staging.function(sub, autograph=False)
    x, y = np.float32(1.5), np.float32(0.25)
    assert_same(f(x, y), sub(x, y))  # the trace exists; the keyword layout is new
    slow = count_slow_calls(f)
    for _ in range(3):
        assert_same(f(x, y=y), sub(x, y))
    assert slow[0] == 1 and f.tracing_count == 1


def test_keyword_only_parameters_and_defaults():
    def g(x, y=0.5, *, b, a=np.float64(3.0), scale=2.0):
        return (x - y) * scale - a / b

    f = staging.function(g, autograph=False)
    x, y, b = RNG.normal(size=4), RNG.normal(size=4), RNG.uniform(1.0, 2.0, size=4)
    a = RNG.normal(size=4)
    cases = [
        ((x,), {"b": b}),
        ((x,), {"b": b, "a": a}),
        ((x,), {"a": a, "b": b}),
        ((x, y), {"b": b, "a": a}),
        ((x,), {"y": y, "b": b, "a": a, "scale": 3.0}),
        ((), {"scale": 3.0, "x": x, "a": a, "b": b}),
        ((x,), {"b": b, "scale": -1}),
    ]
    for _ in range(3):
        for args, kwargs in cases:
            assert_same(f(*args, **kwargs), g(*args, **kwargs))
    # (x, default y) / (x, y) x default a (an array: a graph input) / given a x scale 2, 3, -1
    assert f.tracing_count == 6


def test_keyword_only_parameters_are_fed_in_the_right_order():
    def h(x, *, z, a, m):  # keyword-only: bound in signature order, flattened sorted by name
        return (x - z) * 10.0 + a / m

    f = staging.function(h, autograph=False)
    x, z, a, m = (RNG.normal(size=2) for _ in range(4))
    orders = [dict(z=z, a=a, m=m), dict(m=m, a=a, z=z), dict(a=a, z=z, m=m)]
    for _ in range(3):
        for kw in orders:
            assert_same(f(x, **kw), h(x, **kw))
    assert f.tracing_count == 1


def test_var_keyword_parameters():
    def h(x, **kw):
        return x - sum(v * (i + 1) for i, (_, v) in enumerate(sorted(kw.items())))

    f = staging.function(h, autograph=False)
    x, p, q = RNG.normal(size=3), RNG.normal(size=3), RNG.normal(size=3)
    for _ in range(3):
        assert_same(f(x, q=q, p=p), h(x, q=q, p=p))
        assert_same(f(x, p=p, q=q), h(x, p=p, q=q))
        assert_same(f(x, p=p), h(x, p=p))
    assert f.tracing_count == 2


def test_python_value_keywords_are_part_of_the_trace_key():
    def g(x, n=1, flag=False):
        return x * n if not flag else x - n

    f = staging.function(g, autograph=False)
    x = RNG.normal(size=3)
    for _ in range(2):
        for n in (2, 3, 2.0):
            assert_same(f(x, n=n), g(x, n=n))
        assert_same(f(x, n=1, flag=True), g(x, n=1, flag=True))
        assert_same(f(x, flag=True, n=True), g(x, flag=True, n=True))
        assert_same(f(x, n="ab"[0] == "a", flag=False), g(x, n=True, flag=False))
        assert_same(f(x, n=None is None), g(x, n=True))
    # n=2, n=3, n=2.0 (a float: its own trace), (1, True), (True, True), (True, False)
    assert f.tracing_count == 6


def test_same_array_passed_twice_by_keyword():
    f = staging.function(sub, autograph=False)
    x, y = RNG.normal(size=3), RNG.normal(size=3)
    for _ in range(2):
        assert_same(f(x, y=x), sub(x, x))
        assert_same(f(x, y=y), sub(x, y))
        assert_same(f(y=y, x=y), sub(y, y))
    assert f.tracing_count == 1


def test_keyword_errors_are_unchanged():
    f = staging.function(sub, autograph=False)
    x = np.ones(2)
    f(x, y=x)
    f(x=x, y=x)
    for _ in range(2):  # before and after the fast entries exist
        with pytest.raises(TypeError, match=r"^sub\(\): got an unexpected keyword argument 'z'$"):
            f(x, y=x, z=x)
        with pytest.raises(TypeError, match=r"^sub\(\): missing a required argument: 'x'$"):
            f(y=x)
        with pytest.raises(TypeError, match=r"^sub\(\): missing a required argument: 'y'$"):
            f(x, z=x)
        with pytest.raises(TypeError, match=r"^sub\(\): multiple values for argument 'x'$"):
            f(x, x=x)
        with pytest.raises(TypeError, match=r"^sub\(\): multiple values for argument 'y'$"):
            f(x, x, y=x)
    assert f.tracing_count == 1


def test_run_time_errors_on_the_keyword_fast_path():
    def check(a):
        if a.sum() > 100:
            raise ValueError("too big")
        return a

    @staging.function(autograph=False)
    def f(x, y):
        return staging.py_function(check, [x + y], TensorSpec([2], np.float64))

    x = np.ones(2)
    assert_same(f(x, y=x), 2 * x)
    for _ in range(2):
        with pytest.raises(ValueError, match="too big") as info:
            f(x, y=x * 100)
        assert type(info.value) is ValueError and "test_function_binding_fastpath.py" in text(
            info.value
        )


def test_keyword_calls_with_input_signature():
    @staging.function(
        input_signature=[TensorSpec([None], np.float64), TensorSpec([None], np.float64)],
        autograph=False,
    )
    def f(x, y):
        return x - 2.0 * y

    for n in (2, 5, 2):
        x, y = RNG.normal(size=n), RNG.normal(size=n)
        assert_same(f(x, y=y), sub(x, y))
        assert_same(f(y=y, x=x), sub(x, y))
    for _ in range(2):  # Python values converted by the signature
        assert_same(f(np.ones(2), y=[3, 4]), sub(np.ones(2), np.array([3.0, 4.0])))
    assert f.tracing_count == 1
    for _ in range(2):
        with pytest.raises(TypeError, match="argument 'y'"):
            f(np.ones(2), y=np.ones((2, 2)))
        with pytest.raises(TypeError, match="argument 'y'"):
            f(np.ones(2), y=np.ones(2, np.float32))


def test_mutated_mutable_default_is_seen_by_fast_calls():
    def g(x, scales=[1.0]):  # noqa: B006 - the point of the test
        return x * scales[0]

    f = staging.function(g, autograph=False)
    x = RNG.normal(size=3)
    for _ in range(2):
        assert_same(f(x), g(x))
        assert_same(f(x=x), g(x=x))
    g.__defaults__[0][0] = 5.0  # the slow path keys on the list's contents: it retraces
    for _ in range(2):
        assert_same(f(x), g(x))
        assert_same(f(x=x), g(x=x))
    assert f.tracing_count == 2


def test_keyword_calls_inside_another_trace():
    inner = staging.function(sub, autograph=False)

    @staging.function(autograph=False)
    def outer(a, b):
        return inner(a, y=b) + inner(y=a, x=b)

    a, b = RNG.normal(size=3), RNG.normal(size=3)
    inner(a, y=b)
    for _ in range(2):
        assert_same(outer(a, b), sub(a, b) + sub(b, a))
        assert_same(inner(b, y=a), sub(b, a))


def test_keyword_calls_run_eagerly():
    calls = []

    @staging.function(autograph=False)
    def f(x, y):
        calls.append(1)
        return x - 2.0 * y

    x, y = np.ones(2), np.full(2, 3.0)
    f(x, y=y)
    f(x, y=y)
    assert len(calls) == 1
    staging.run_functions_eagerly(True)
    try:
        assert_same(f(x, y=y), sub(x, y))
        assert_same(f(x, y=y), sub(x, y))
    finally:
        staging.run_functions_eagerly(False)
    assert len(calls) == 3


def test_keyword_method_call_on_slotted_instance():
    class Model:
        __slots__ = ("w",)

        def __init__(self, w):
            self.w = w

        @staging.function(autograph=False)
        def apply(self, x, *, bias=0.0):
            return x @ self.w + bias

    m = Model(RNG.normal(size=(3, 2)))
    x = RNG.normal(size=(4, 3))
    slow = None
    for i in range(4):
        assert_same(m.apply(x, bias=1.5), x @ m.w + 1.5)
        if i == 0:
            slow = count_slow_calls(m.apply)
    assert slow[0] == 0 and m.apply.tracing_count == 1


def test_positional_layouts_of_scalars_arrays_and_python_values_never_share_an_entry():
    # The fast path tries a tuple of argument types first (a NumPy scalar's key is its type):
    # layouts mixing scalars, arrays and Python values of the same types must each reach their
    # own trace, with eager's result and dtype.
    def f(a, b, c):
        return a * b + c

    staged = staging.function(f)
    calls = [
        (np.float64(1.5), np.float64(2.0), np.float64(0.25)),
        (np.float32(1.5), np.float64(2.0), np.float64(0.25)),
        (np.float64(1.5), np.array([2.0, 3.0]), np.float64(0.25)),
        (np.float64(1.5), 2, np.float64(0.25)),
        (np.float64(1.5), 3, np.float64(0.25)),
        (np.float32(1.5), 2.0, np.int8(3)),
        (np.int64(7), np.int64(3), True),
    ]
    for _ in range(3):  # first round traces, the later ones take the fast path
        for args in calls:
            assert_same(staged(*args), f(*args))
    assert staged.experimental_get_tracing_count() == len(calls)
    two = staging.function(lambda a, b: a - b)
    for a, b in [(np.float64(1.5), np.float64(2.0)), (np.float64(1.5), np.array([2.0]))] * 2:
        assert_same(two(a, b), a - b)
