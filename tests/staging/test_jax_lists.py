"""Lists and TensorArrays grown in staged loops under jit_compile=True: with a bound known when
compiling (maximum_iterations) they become preallocated buffers written with dynamic updates,
and the caller gets what the interpreter gives; without one, the first call is refused naming
the loop's line and what makes it lowerable."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax")

import autograph  # noqa: E402
import staging  # noqa: E402
from runtime.jax_lowering import LoweringError  # noqa: E402


def squares(n):
    ta = staging.TensorArray(np.float64, size=0, dynamic_size=True)

    def body(i, ta):
        return i + 1, ta.write(i, np.ones(2) * (i * 1.5))

    _, ta = staging.while_loop(lambda i, ta: i < n, body, (np.int64(0), ta), maximum_iterations=8)
    return ta.stack(), ta.size()


def appended(n):
    out = []
    i = 0
    while i < n:
        autograph.set_loop_options(maximum_iterations=10)
        if i % 2 == 0:
            out.append(i * i)
        i += 1
    return out


def unbounded(n):
    out = []
    for i in range(n):
        out.append(i)
    return out


def both(f, *args):
    return staging.function(f)(*args), staging.function(f, jit_compile=True)(*args)


@pytest.mark.parametrize("n", [0, 1, 5, 8, 20])
def test_tensor_array_in_a_bounded_loop_matches_the_interpreter(n):
    (want, want_size), (got, got_size) = both(squares, np.int64(n))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    assert got_size == want_size and type(got_size) is type(want_size)


@pytest.mark.parametrize("n", [0, 3, 7, 10, 30])
def test_list_appended_in_a_bounded_converted_loop_is_a_list(n):
    want, got = both(appended, np.int64(n))
    assert got == want and all(type(a) is type(b) for a, b in zip(got, want))


def test_device_outputs_cut_to_the_length():
    out, size = staging.function(squares, jit_compile="device")(np.int64(3))
    assert out.shape == (3, 2) and int(size) == 3


def test_unbounded_list_is_refused_saying_what_makes_it_lowerable():
    f = staging.function(unbounded, jit_compile=True)
    with pytest.raises(
        LoweringError, match=r"test_jax_lists\.py:\d+: cannot compile .*maximum_iterations"
    ):
        f(np.int64(3))


def test_write_beyond_the_bound_raises_at_run_time():
    def spread(n):
        ta = staging.TensorArray(np.int64, dynamic_size=True)

        def body(i, ta):
            return i + 1, ta.write(3 * i, i)

        _, ta = staging.while_loop(
            lambda i, ta: i < n, body, (np.int64(0), ta), maximum_iterations=4
        )
        return ta.size()

    f = staging.function(spread, jit_compile=True)
    assert f(np.int64(1)) == 1
    raised = []
    for _ in range(2):  # each failing call raises a new exception, with one note (its line)
        with pytest.raises(IndexError, match="maximum_iterations") as info:
            f(np.int64(3))
        raised.append(info.value)
    assert raised[0] is not raised[1]
    assert [len(e.__notes__) for e in raised] == [1, 1]
    assert f"{__file__}:" in raised[1].__notes__[0]
