"""Pickling staged functions, Variables and traced graphs; a process pool mapping a staged function."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import pickle
import sys

import _pickling_helpers as helpers
import numpy as np
import pytest
from _staging_helpers import assert_same

import staging

INPUTS = [
    np.linspace(0.0, 1.0, 7),
    np.array([0.9, -2.0, 0.1]),
    np.array([]),
    np.array([np.nan, 0.7]),
    np.array([-1.0, -3.0]),
]


def check_against_eager(staged, plain, inputs=INPUTS):
    for x in inputs:
        assert_same(staged(x), plain(x))


# -- by reference --------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", [2, pickle.DEFAULT_PROTOCOL, pickle.HIGHEST_PROTOCOL])
def test_module_level_function_pickles_by_reference(protocol):
    assert pickle.loads(pickle.dumps(helpers.scaled, protocol)) is helpers.scaled
    assert pickle.loads(pickle.dumps(helpers.Model.apply, protocol)) is helpers.Model.apply


def test_by_reference_payload_is_a_name():
    data = pickle.dumps(helpers.scaled)
    assert b"scaled" in data and len(data) < 100  # no graph, no lock, no function body


def test_bound_method_pickles_as_instance_and_name():
    model = helpers.Model(2.5)
    model.apply(np.ones(3))
    copy = pickle.loads(pickle.dumps(model.apply))
    assert copy.__self__ is not model and copy.__self__.scale == 2.5
    for x in [np.ones(3), -np.ones(2), np.array([])]:
        assert_same(copy(x), model.apply(x))
        assert_same(copy(x), helpers.Model.apply.python_function(model, x))


# -- by value ------------------------------------------------------------------------------


def test_alias_of_a_plain_function_pickles_by_value_and_traces_again():
    # clip_sum = staging.function(clip_sum_plain): its name finds the plain function, not it
    helpers.clip_sum(INPUTS[0])
    copy = pickle.loads(pickle.dumps(helpers.clip_sum))
    assert copy is not helpers.clip_sum and isinstance(copy, staging.Function)
    assert copy.tracing_count == 0
    check_against_eager(copy, helpers.clip_sum_plain)
    assert copy.tracing_count == len({x.shape for x in INPUTS})
    check_against_eager(copy, helpers.clip_sum)


def test_options_and_input_signature_travel_by_value():
    def plain(x):
        return x + 1.0

    plain.__qualname__ = "plain_not_found"
    f = staging.function(
        input_signature=[staging.TensorSpec([None])], reduce_retracing=True, autograph=False
    )(helpers.clip_sum_plain)
    copy = pickle.loads(pickle.dumps(f))
    assert copy.input_signature[0].type == f.input_signature[0].type
    assert copy._reduce_retracing and not copy._autograph
    assert copy.python_function is helpers.clip_sum_plain  # (pickled by reference itself)


def test_plain_pickle_of_a_closure_fails_as_for_a_plain_function():
    def outer(k):
        @staging.function
        def f(x):
            return x * k

        return f

    with pytest.raises((AttributeError, pickle.PicklingError)) as staged_error:
        pickle.dumps(outer(2.0))
    with pytest.raises((AttributeError, pickle.PicklingError)) as plain_error:
        pickle.dumps(outer(2.0).python_function)
    assert type(staged_error.value) is type(plain_error.value)
    assert "outer.<locals>.f" in str(staged_error.value)


def _cloudpickle():
    return pytest.importorskip("cloudpickle", reason="cloudpickle (the `test` extra) is missing")


def test_cloudpickle_closure_by_value_traces_in_the_copy():
    cp = _cloudpickle()

    def outer(k):
        @staging.function
        def f(x):
            total = x.sum()
            if total > 1.0:
                return x * k
            return x - k

        return f, f.python_function

    f, plain = outer(3.0)
    f(INPUTS[0])
    copy = cp.loads(cp.dumps(f))
    assert copy is not f and copy.tracing_count == 0
    check_against_eager(copy, plain)
    assert copy.tracing_count == len({x.shape for x in INPUTS})


def test_cloudpickle_lambda_by_value():
    cp = _cloudpickle()
    f = staging.function(lambda x: x * 2.0 + 1.0)
    copy = cp.loads(cp.dumps(f))
    assert copy is not f
    check_against_eager(copy, lambda x: x * 2.0 + 1.0)


def _main_function():
    def double_if_positive(x):
        if x.sum() > 0:
            return x * 2.0
        return x

    double_if_positive.__module__ = "__main__"
    double_if_positive.__qualname__ = "double_if_positive"
    return double_if_positive


def test_function_in_main_by_reference_with_pickle_by_value_with_cloudpickle(monkeypatch):
    cp = _cloudpickle()
    plain = _main_function()
    f = staging.function(plain)
    monkeypatch.setattr(sys.modules["__main__"], "double_if_positive", f, raising=False)
    assert pickle.loads(pickle.dumps(f)) is f  # as pickle does for a plain function of __main__
    data = cp.dumps(f)
    monkeypatch.delattr(sys.modules["__main__"], "double_if_positive")
    copy = cp.loads(data)  # shipped by value: the receiver's __main__ need not have it
    assert copy is not f and copy.tracing_count == 0
    check_against_eager(copy, plain)


def test_cloudpickle_module_level_function_by_reference():
    cp = _cloudpickle()
    assert cp.loads(cp.dumps(helpers.scaled)) is helpers.scaled


def test_cloudpickled_function_converts_without_its_source_file(tmp_path):
    cp = _cloudpickle()
    source = tmp_path / "user_module_gone.py"
    source.write_text(
        "def g(x):\n    while x.sum() < 10.0:\n        x = x * 2.0 + 1.0\n    return x\n"
    )
    namespace: dict = {"__name__": "user_module_gone"}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    import linecache

    linecache.checkcache(str(source))
    data = cp.dumps(staging.function(namespace["g"]))
    source.unlink()
    linecache.checkcache(str(source))
    copy = cp.loads(data)
    for x in [np.array([1.0]), np.array([20.0, 1.0]), np.zeros(3)]:
        assert_same(copy(x), namespace["g"](x))


# -- Variables -----------------------------------------------------------------------------


def test_variable_pickles_as_a_copy():
    v = staging.Variable(np.arange(3.0), name="weights")
    copy = pickle.loads(pickle.dumps(v))
    assert copy is not v and copy.name == "weights" and copy.dtype == v.dtype
    np.testing.assert_array_equal(copy.numpy(), v.numpy())
    copy.assign(np.ones(3))
    np.testing.assert_array_equal(v.numpy(), np.arange(3.0))
    scalar = pickle.loads(pickle.dumps(staging.Variable(np.int32(7))))
    assert scalar.numpy() == 7 and scalar.dtype == np.int32 and np.ndim(scalar.numpy()) == 0


def test_closure_over_a_variable_gets_its_own_copy():
    cp = _cloudpickle()
    counter = staging.Variable(0.0)

    @staging.function
    def step(x):
        counter.assign_add(x.sum())
        return counter.read_value()

    step(np.ones(2))
    copy = cp.loads(cp.dumps(step))
    assert copy(np.ones(3)) == 5.0  # the copy started from the value at pickling (2.0)
    assert counter.numpy() == 2.0


# -- traced graphs: through the saved format -----------------------------------------------


def test_concrete_function_pickles_through_the_saved_format():
    cf = helpers.clip_sum.get_concrete_function(np.zeros(4))
    copy = pickle.loads(pickle.dumps(cf))
    assert isinstance(copy, staging.saving.LoadedConcreteFunction)
    for x in [np.array([0.2, 0.9, -1.0, 0.6]), np.zeros(4), np.array([np.nan, 1.0, 2.0, 0.0])]:
        assert_same(copy(x), helpers.clip_sum_plain(x))


def test_loaded_function_pickles_through_the_saved_format(tmp_path):
    helpers.scaled(np.ones(2))
    staging.save(helpers.scaled, tmp_path / "scaled.staged")
    loaded = staging.load(tmp_path / "scaled.staged")
    copy = pickle.loads(pickle.dumps(loaded))
    assert isinstance(copy, staging.LoadedFunction)
    for x in [np.ones(5), np.array([]), np.array([np.nan])]:
        assert_same(copy(x), loaded(x))
        assert_same(copy(x), x * 3.0 if x.size else x)
    signature = loaded.signatures[0]
    assert_same(pickle.loads(pickle.dumps(signature))(np.ones(3)), np.ones(3) * 3.0)


def test_graph_the_saved_format_refuses_raises_a_pickling_error():
    @staging.function
    def f(x):
        return staging.py_function(np.sort, [x], staging.TensorSpec([None]))

    cf = f.get_concrete_function(np.ones(3))
    with pytest.raises(pickle.PicklingError, match="saved format.*py_function") as error:
        pickle.dumps(cf)
    line = f.python_function.__code__.co_firstlineno + 2  # the py_function call, the user's line
    assert f"test_pickling.py:{line}:" in str(error.value)


# -- process pools -------------------------------------------------------------------------

CHUNKS = [np.linspace(-1.0, 1.0, 16) * (i + 1) for i in range(7)] + [
    np.array([np.nan] + [0.5] * 15)
]


# a fork of a process whose XLA runtime started its threads may deadlock (os.fork copies no
# thread): the compiled backends' workers start by spawn
_FORK_AFTER_XLA = pytest.mark.differs_on("jax", "a fork after XLA started its threads may hang")


@pytest.mark.parametrize(
    "method",
    [
        pytest.param(m, marks=[_FORK_AFTER_XLA] if m == "fork" else [])
        for m in ("spawn", "fork")
        if m in multiprocessing.get_all_start_methods()
    ],
)
def test_process_pool_maps_a_staged_function(method):
    context = multiprocessing.get_context(method)
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=context) as pool:
        by_value = list(pool.map(helpers.run_in_worker, CHUNKS))
        by_reference = list(pool.map(helpers.scaled, CHUNKS))
        staged = list(pool.map(helpers.clip_sum, CHUNKS))
    for (result, _), out, ref, chunk in zip(by_value, staged, by_reference, CHUNKS):
        assert_same(result, helpers.clip_sum_plain(chunk))
        assert_same(out, helpers.clip_sum_plain(chunk))
        assert_same(ref, chunk * 3.0)
    # each worker traces its module's function once for the one signature of the chunks
    assert 1 <= sum(traces for _, traces in by_value) <= 2


def test_cloudpickle_register_pickle_by_value_ships_the_module_function():
    cp = _cloudpickle()
    cp.register_pickle_by_value(helpers)
    try:
        copy = cp.loads(cp.dumps(helpers.scaled))
    finally:
        cp.unregister_pickle_by_value(helpers)
    assert copy is not helpers.scaled and copy.tracing_count == 0
    for x in [np.ones(4), np.array([])]:
        assert_same(copy(x), x * 3.0 if x.size else x)


def test_process_pool_runs_a_closure_shipped_by_cloudpickle():
    cp = _cloudpickle()

    def make(threshold):
        @staging.function
        def count_above(x):
            n = 0
            for v in x:
                if v > threshold:
                    n += 1
            return n

        return count_above

    staged = make(0.25)
    payload = cp.dumps(staged)
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=context) as pool:
        results = list(pool.map(helpers.run_cloudpickled, [payload] * len(CHUNKS), CHUNKS))
    for (result, before, after), chunk in zip(results, CHUNKS):
        assert_same(result, staged.python_function(chunk))
        assert before == 0 and after == 1  # a new copy per task: traced there, once
