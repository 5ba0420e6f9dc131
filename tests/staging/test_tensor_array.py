"""staging.TensorArray: eager list of arrays; one list value in a staged graph."""

from __future__ import annotations

import numpy as np
import pytest
from _staging_helpers import assert_same

import staging
from staging import TensorSpec


def text(exc) -> str:
    """An exception's message and its notes (a run-time failure names the user's line in a note)."""
    return "\n".join([str(exc), *getattr(exc, "__notes__", ())])


def squares(n):
    ta = staging.TensorArray(np.float64, size=0, dynamic_size=True)

    def body(i, ta):
        return i + 1, ta.write(i, np.ones(2) * (i * 1.5))

    _, ta = staging.while_loop(lambda i, ta: i < n, body, (np.int64(0), ta))
    return ta.stack(), ta.size()


def test_eager_api():
    ta = staging.TensorArray(np.float32, size=2)
    ta = ta.write(0, 1.0).write(1, np.float32(2.5))
    assert ta.read(1) == np.float32(2.5) and ta.read(0).dtype == np.float32
    assert ta.size() == 2 and type(ta.size()) is np.int64
    np.testing.assert_array_equal(ta.stack(), np.array([1.0, 2.5], np.float32))
    with pytest.raises(IndexError, match="dynamic_size=False"):
        ta.write(2, 1.0)
    grow = staging.TensorArray(np.int64, dynamic_size=True)
    for i in range(3):
        grow = grow.write(i, np.arange(2) + i)
    np.testing.assert_array_equal(grow.stack(), [[0, 1], [1, 2], [2, 3]])
    assert staging.TensorArray(np.float64, element_shape=(3,)).stack().shape == (0, 3)


def test_staged_in_loop_matches_eager():
    f = staging.function(squares, autograph=False)
    for n in (0, 1, 4):
        staged = f(np.int64(n))
        eager = squares(np.int64(n))
        assert staged[0].shape == (n, 2) or n == 0
        np.testing.assert_array_equal(staged[0].reshape(-1, 2), np.asarray(eager[0]).reshape(-1, 2))
        assert staged[1] == eager[1] and type(staged[1]) is np.int64
    assert f.tracing_count == 1
    assert f.get_concrete_function(np.int64(0)).structured_outputs[0] == TensorSpec(
        (None, 2), np.float64
    )


def test_staged_read_and_fixed_size():
    def g(x):
        ta = staging.TensorArray(np.float64, size=3)
        ta = ta.write(0, x).write(1, x * 2).write(2, x * 3)
        return ta.read(2) - ta.read(0), ta.size()

    f = staging.function(g, autograph=False)
    for x in (np.ones(2), np.arange(2.0)):
        assert_same(f(x), g(x))


def test_staged_write_casts_python_numbers_and_rejects_other_dtypes():
    @staging.function(autograph=False)
    def f(x):
        ta = staging.TensorArray(np.float32, size=2)
        return ta.write(0, 1).write(1, x).stack()

    out = f(np.float32(2.0))
    assert out.dtype == np.float32 and out.tolist() == [1.0, 2.0]
    with pytest.raises(staging.errors.StagingError, match="float32.*int64") as info:
        f(np.int64(2))
    assert "test_tensor_array.py:" in text(info.value)


def test_staged_out_of_range_write_names_user_line():
    @staging.function(autograph=False)
    def f(i):
        ta = staging.TensorArray(np.float64, size=2)
        ta = ta.write(i, 1.0)
        return ta.size()

    assert f(np.int64(1)) == 2
    with pytest.raises(IndexError) as info:
        f(np.int64(5))
    assert "dynamic_size=False" in text(info.value)
    assert f"test_tensor_array.py:{f.python_function.__code__.co_firstlineno + 3}" in text(
        info.value
    )


def test_staged_read_before_write_is_an_error():
    @staging.function(autograph=False)
    def f(x):
        ta = staging.TensorArray(np.float64, size=2)
        ta = ta.write(0, x)
        return ta.read(1)

    with pytest.raises(ValueError, match="read before it was written") as info:
        f(np.float64(1.0))
    assert "test_tensor_array.py:" in text(info.value)


def test_stack_of_unknown_element_type_is_an_error():
    @staging.function(autograph=False)
    def f(x):
        return staging.TensorArray(np.float64, dynamic_size=True).stack()

    with pytest.raises(staging.errors.SymbolicValueError, match="element_shape") as info:
        f(np.float64(1.0))
    assert "test_tensor_array.py:" in text(info.value)

    @staging.function(autograph=False)
    def g(x):
        return staging.TensorArray(np.float64, dynamic_size=True, element_shape=(2,)).stack() + x

    assert g(np.float64(1.0)).shape == (0, 2)


def test_returned_tensor_array_is_a_python_list():
    def g(n):
        ta = staging.TensorArray(np.int64, dynamic_size=True)
        return staging.while_loop(
            lambda i, ta: i < n, lambda i, ta: (i + 1, ta.append(i * i)), (np.int64(0), ta)
        )[1]

    f = staging.function(g, autograph=False)
    out = f(np.int64(4))
    assert isinstance(out, list) and out == [0, 1, 4, 9]
    assert f(np.int64(0)) == []
    eager = g(np.int64(4))
    assert eager.to_list() == [0, 1, 4, 9]


def test_tensor_array_in_cond():
    def g(x):
        ta = staging.TensorArray(np.float64, size=1)
        ta = staging.cond(x > 0, lambda: ta.write(0, x), lambda: ta.write(0, -x))
        return ta.read(0)

    f = staging.function(g, autograph=False)
    for x in (np.float64(2.0), np.float64(-3.0)):
        assert_same(f(x), g(x))


def test_pop():
    @staging.function(autograph=False)
    def f(x):
        ta = staging.TensorArray(np.float64, dynamic_size=True).append(x).append(x * 2)
        ta, last = ta.pop()
        return last, ta.size()

    assert f(np.float64(3.0)) == (6.0, 1)
    ta, last = staging.TensorArray(np.float64, dynamic_size=True).append(1.0).append(2.0).pop()
    assert last == 2.0 and ta.size() == 1
