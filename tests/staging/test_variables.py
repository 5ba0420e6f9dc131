"""staging.Variable: eager state, captured by reference in graphs, stateful ops in program order,
created only on a Function's first trace."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import staging


def text(exc) -> str:
    """An exception's message and its notes (a run-time failure names the user's line in a note)."""
    return "\n".join([str(exc), *getattr(exc, "__notes__", ())])


def lines_below(func, offset):
    return func.__code__.co_firstlineno + offset


# -- eager -------------------------------------------------------------------------------


def test_eager_variable_api():
    v = staging.Variable([1.0, 2.0], name="w")
    assert v.dtype == np.float64 and v.shape == (2,) and v.name == "w" and v.ndim == 1
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert v.assign([3.0, 4.0]) is v
    v.assign_add(np.ones(2))
    v.assign_sub(0.5)
    np.testing.assert_array_equal(v.read_value(), [3.5, 4.5])
    np.testing.assert_array_equal(v + 1, [4.5, 5.5])
    np.testing.assert_array_equal(np.sum(v), 8.0)
    assert float(staging.Variable(2.5)) == 2.5
    out = v.numpy()
    out[0] = 100.0  # .numpy() is a copy
    assert v.numpy()[0] == 3.5


def test_eager_variable_dtype_and_shape_are_fixed():
    v = staging.Variable(np.zeros(3, np.float32))
    v.assign([1, 2, 3])  # Python numbers are cast
    assert v.numpy().dtype == np.float32
    v.assign(7.0)  # broadcast
    np.testing.assert_array_equal(v.numpy(), [7.0, 7.0, 7.0])
    assert v.numpy().shape == (3,)
    with pytest.raises(ValueError, match=r"'Variable' has shape \(3,\)") as info:
        v.assign(np.ones(4, np.float32))
    assert "test_variables.py:" in text(info.value)
    with pytest.raises(TypeError, match="float32") as info:
        v.assign(np.ones(3, np.complex64))
    assert "test_variables.py:" in text(info.value)
    i = staging.Variable(np.int64(0), dtype=np.int32)
    assert i.dtype == np.int32
    assert staging.Variable(lambda: np.ones(2)).shape == (2,)


# -- captured by reference -----------------------------------------------------------------


def test_variable_captured_by_reference():
    v = staging.Variable(np.ones(3))

    @staging.function(autograph=False)
    def f(x):
        return x * v.read_value()

    np.testing.assert_array_equal(f(np.arange(3.0)), np.arange(3.0))
    v.assign([2.0, 2.0, 2.0])  # eager change, seen by the next call without retracing
    np.testing.assert_array_equal(f(np.arange(3.0)), 2 * np.arange(3.0))
    assert f.tracing_count == 1


def test_variable_used_directly_in_expressions():
    v = staging.Variable(np.full(2, 3.0))

    def g(x):
        return v * x + np.sum(v)

    f = staging.function(g, autograph=False)
    for x in (np.ones(2), np.arange(2.0)):
        np.testing.assert_array_equal(f(x), g(x))


def test_tensor_then_variable_operand():
    v = staging.Variable(np.full(2, 3.0))

    @staging.function(autograph=False)
    def f(x):
        return x + v  # Tensor.__add__ with a Variable on the right

    np.testing.assert_array_equal(f(np.ones(2)), [4.0, 4.0])


def test_state_persists_across_calls():
    counter = staging.Variable(np.int64(0))

    @staging.function(autograph=False)
    def step(k):
        counter.assign_add(k)
        return counter.read_value()

    results = [step(np.int64(k)) for k in (1, 2, 3)]
    assert results == [1, 3, 6]
    assert counter.numpy() == 6 and step.tracing_count == 1


def test_stateful_ops_run_in_program_order():
    v = staging.Variable(np.float64(1.0))

    def g(x):
        a = v.read_value()
        v.assign(x)
        b = v.read_value()
        v.assign_add(a)
        c = v.read_value()
        v.assign_sub(1.0)
        return a, b, c, v.read_value()

    f = staging.function(g, autograph=False)
    staged = [f(np.float64(10.0)), f(np.float64(-2.0))]
    v.assign(1.0)
    eager = [g(np.float64(10.0)), g(np.float64(-2.0))]
    assert staged == eager == [(1.0, 10.0, 11.0, 10.0), (10.0, -2.0, 8.0, 7.0)]


def test_unused_assignment_still_runs():
    v = staging.Variable(np.float64(0.0))

    @staging.function(autograph=False)
    def f(x):
        v.assign(x * 2)  # result unused: must not be removed as dead code
        return x

    f(np.float64(4.0))
    assert v.numpy() == 8.0


def test_returned_variable_value_is_not_the_variable_buffer():
    v = staging.Variable(np.zeros(3))

    @staging.function(autograph=False)
    def f():
        return v.read_value()

    out = f()
    out += 1.0  # the caller owns its result
    np.testing.assert_array_equal(v.numpy(), np.zeros(3))


def test_assign_in_graph_checks_and_broadcasts_shapes():
    v = staging.Variable(np.zeros(3))

    @staging.function(autograph=False)
    def assign_scalar(x):
        v.assign(x)
        return v.read_value()

    np.testing.assert_array_equal(assign_scalar(np.float64(2.0)), [2.0, 2.0, 2.0])
    assert v.numpy().shape == (3,)

    @staging.function(autograph=False)
    def assign_wrong(x):
        v.assign(x)

    with pytest.raises(ValueError, match=r"shape \(3,\)") as info:
        assign_wrong(np.ones(4))
    assert f"test_variables.py:{lines_below(assign_wrong.python_function, 2)}" in text(info.value)
    assert v.numpy().shape == (3,)

    # an unknown dim is checked when the graph runs
    cf = assign_wrong.get_concrete_function(staging.TensorSpec([None], np.float64))
    cf(np.ones(3) * 5)
    np.testing.assert_array_equal(v.numpy(), [5.0, 5.0, 5.0])
    with pytest.raises(ValueError) as info:
        cf(np.ones(4))
    assert f"test_variables.py:{lines_below(assign_wrong.python_function, 2)}" in text(info.value)
    np.testing.assert_array_equal(v.numpy(), [5.0, 5.0, 5.0])


def test_assign_constant_in_graph_broadcasts():
    v = staging.Variable(np.zeros(3))

    @staging.function(autograph=False)
    def f():
        v.assign(np.ones(1))
        return v.read_value()

    np.testing.assert_array_equal(f(), np.ones(3))
    assert v.numpy().shape == (3,)


def test_assign_wrong_dtype_tensor_is_an_error():
    v = staging.Variable(np.zeros(2, np.float32))

    @staging.function(autograph=False)
    def f(x):
        v.assign(x)

    f(np.full(2, 1.5))  # same kind: cast, as eagerly
    assert v.numpy().dtype == np.float32 and v.numpy()[0] == 1.5
    with pytest.raises(TypeError, match="float32.*complex128") as info:
        f(np.ones(2, np.complex128))
    assert "test_variables.py:" in text(info.value)
    with pytest.raises(TypeError, match="float32"):
        v.assign(np.ones(2, np.complex128))  # eagerly too


def test_variable_in_cond_and_while_loop():
    v = staging.Variable(np.float64(0.0))

    def g(n):
        def body(i):
            staging.cond(i % 2 == 0, lambda: v.assign_add(i), lambda: v.assign_sub(1.0))
            return (i + 1,)

        staging.while_loop(lambda i: i < n, body, (np.int64(0),))
        return v.read_value()

    f = staging.function(g, autograph=False)
    staged = [f(np.int64(5)), f(np.int64(3))]
    v.assign(0.0)
    eager = [g(np.int64(5)), g(np.int64(3))]
    assert staged == eager == [4.0, 5.0]


def test_variable_value_at_trace_time_is_not_concrete():
    v = staging.Variable(np.float64(1.0))

    @staging.function(autograph=False)
    def f(x):
        return x + v.numpy()

    with pytest.raises(staging.errors.SymbolicValueError) as info:
        f(np.float64(1.0))
    assert "test_variables.py:" in text(info.value) and "'Variable'" in text(info.value)


def test_initial_value_must_be_concrete():
    @staging.function(autograph=False)
    def f(x):
        return staging.Variable(x)

    with pytest.raises(staging.errors.SymbolicValueError, match="initial value") as info:
        f(np.float64(1.0))
    assert "test_variables.py:" in text(info.value)


# -- creation only on the first trace -------------------------------------------------------


class Dense:
    def __init__(self):
        self.w = None
        self.python_calls = 0

    @staging.function(autograph=False)
    def __call__(self, x):
        self.python_calls += 1
        if self.w is None:
            self.w = staging.Variable(np.ones(x.static_shape[-1]), name="w")
        self.w.assign_add(np.ones(self.w.shape))
        return x * self.w.read_value()


def test_variables_created_on_first_trace_then_traced_again():
    layer = Dense()
    np.testing.assert_array_equal(layer(np.ones(2)), [2.0, 2.0])
    assert layer.__call__.tracing_count == 2 and layer.python_calls == 2
    # the variable was created once, and the graph does not re-create it
    np.testing.assert_array_equal(layer(np.ones(2)), [3.0, 3.0])
    np.testing.assert_array_equal(layer.w.numpy(), [3.0, 3.0])
    assert layer.__call__.tracing_count == 2


def test_variable_created_on_later_trace_is_a_value_error():
    @staging.function(autograph=False)
    def f(x, make):
        if make:
            staging.Variable(1.0)
        return x

    f(np.float64(1.0), False)
    with pytest.raises(ValueError) as info:
        f(np.float64(1.0), True)
    message = text(info.value)
    assert "'f'" in message and "first" in message
    assert f"test_variables.py:{lines_below(f.python_function, 3)}" in message


def test_variable_created_on_every_trace_is_a_value_error():
    @staging.function(autograph=False)
    def f(x):
        w = staging.Variable(2.0)  # a new Variable per call: cannot be staged
        return x * w.read_value()

    with pytest.raises(ValueError) as info:
        f(np.float64(1.0))
    assert "'f'" in text(info.value)
    assert f"test_variables.py:{lines_below(f.python_function, 2)}" in text(info.value)


def test_variables_passed_as_arguments_are_not_creations():
    v = staging.Variable(np.float64(3.0))

    @staging.function(autograph=False)
    def f(var, x):
        var.assign_add(x)
        return var.read_value()

    assert f(v, np.float64(1.0)) == 4.0
    assert f(v, np.float64(1.0)) == 5.0
    assert f.tracing_count == 1


def test_function_holds_created_variables_weakly():
    layer = Dense()
    layer(np.ones(2))
    refs = [weakref.ref(layer), weakref.ref(layer.w)]
    assert all(r() is not None for r in refs)
    del layer
    gc.collect()
    assert [r() for r in refs] == [None, None]


def test_a_graph_that_writes_variables_reads_and_writes_them_inline_under_one_lock():
    """One lock per call (runtime.core_ops.VARIABLE_LOCK), held for the whole call; the reads and
    the updates that keep the Variable's dtype and shape are plain attribute accesses."""
    a, b = staging.Variable(np.ones(4)), staging.Variable(np.ones(4))

    @staging.function
    def step(x):
        a.assign_add(x)
        b.assign_sub(x * 0.5)
        return a / b

    x = np.full(4, 0.25)
    source = step.get_concrete_function(x)._compiled.source
    assert source.count(".acquire()") == 1 and source.count(".release()") == 1
    assert "._value = " in source and "._value +" in source and "._value -" in source
    got = step(x)
    np.testing.assert_array_equal(got, np.full(4, 1.25) / np.full(4, 0.875))
    np.testing.assert_array_equal(a.numpy(), np.full(4, 1.25))


def test_inline_updates_keep_the_variables_dtype_and_scalar_kind():
    v = staging.Variable(np.zeros(3, dtype=np.int32))
    s = staging.Variable(np.float32(1.0))  # a 0-d Variable holds a NumPy scalar

    @staging.function
    def add(k):
        v.assign_add(3)  # int32 + a Python int: int32, as NumPy's `v += 3`
        s.assign_add(k)
        return v.read_value(), s.read_value()

    vv, ss = add(np.float32(0.5))
    assert vv.dtype == np.int32 and type(ss) is np.float32 and ss == np.float32(1.5)
    np.testing.assert_array_equal(v.numpy(), np.full(3, 3, dtype=np.int32))
    assert type(s.numpy()) is np.float32
