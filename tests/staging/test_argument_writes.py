"""Writes into arguments (staging.functions.argument_writes): a staged function that writes into an
argument array in place writes into the caller's array, as the eager function does. Each case
runs eagerly and staged on copies of the same inputs and compares the results and the
arguments afterwards."""

from __future__ import annotations

import numpy as np
import pytest

import staging
from staging import errors

pytestmark = pytest.mark.filterwarnings("ignore::staging.RetracingWarning")  # each case stages anew


def copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def agree(f, *args):
    """f(*args) eagerly and staged (on copies): the same results, the same arguments after the
    call, and a result that is an argument is that argument object in both."""
    eager_args, staged_args = copies(args), copies(args)
    eager = f(*eager_args)
    staged = staging.function(f)(*staged_args)
    e_results = eager if isinstance(eager, tuple) else (eager,)
    s_results = staged if isinstance(staged, tuple) else (staged,)
    for e, s in zip(e_results, s_results):
        assert type(s) is type(e)
        np.testing.assert_array_equal(s, e)
        for ea, sa in zip(eager_args, staged_args):
            assert (s is sa) == (e is ea)
    for e, s in zip(eager_args, staged_args):
        np.testing.assert_array_equal(s, e)
        assert np.asarray(s).dtype == np.asarray(e).dtype
    return staged_args


def clip_in_loop(x, hi):
    for i in range(x.shape[0]):
        if x[i] > hi:
            x[i] = hi
    return x.sum()


def doubled_n_times(x, n):
    y = x
    for _ in range(n):
        x *= 2
    return x, y


def through_a_view(x, c):
    tail = x[1:]
    if c:
        tail += 10
    return x


def helper_writes(x, n):
    def h(a):
        a -= n
        return a.sum()

    return h(x) + x[0]


def sorted_then_read(x):
    x.sort()
    return x[0], x


def zero_d(x, n):
    for _ in range(n):
        x += 1
    return x


def written_and_rebound(x):
    x[0] = 7
    x = x * 2
    return x


def two_arguments(x, y):
    x += 1
    y *= 3
    return x + y


def in_a_list(xs):
    xs[0][0] = -1.0
    return xs[1].sum()


V = np.array([0.5, 3.0, 1.0, 7.0])


@pytest.mark.parametrize(
    "f, args",
    [
        (clip_in_loop, (V, np.float64(2.0))),
        (doubled_n_times, (V, np.int64(3))),
        (doubled_n_times, (V, np.int64(0))),
        (through_a_view, (V, np.bool_(True))),
        (through_a_view, (V, np.bool_(False))),
        (helper_writes, (V, np.float64(1.5))),
        (sorted_then_read, (V,)),
        (zero_d, (np.array(2, np.int32), np.int64(3))),
        (written_and_rebound, (V,)),
        (two_arguments, (V, V[::-1].copy())),
    ],
)
def test_writes_into_arguments_agree(f, args):
    agree(f, *args)


def test_arguments_in_a_list_are_written():
    xs = [V.copy(), V.copy()]
    eager = [V.copy(), V.copy()]
    assert staging.function(in_a_list)(xs) == in_a_list(eager)
    np.testing.assert_array_equal(xs[0], eager[0])


def test_the_caller_sees_the_write_on_every_call():
    f = staging.function(clip_in_loop)
    for values in ([5.0, 1.0], [0.0, 9.0]):
        x = np.array(values)
        f(x, np.float64(2.0))
        np.testing.assert_array_equal(x, np.minimum(values, 2.0))
    assert f.experimental_get_tracing_count() == 1


def test_arguments_sharing_memory_with_a_written_one_are_refused_when_called():
    def f(x, y):
        x += 1
        return y.sum()

    g = staging.function(f)
    assert g(np.zeros(3), np.zeros(3)) == f(np.zeros(3), np.zeros(3))
    a = np.zeros(4)
    for y in (a, a[1:], a[::2]):
        with pytest.raises(errors.MutationError) as info:
            g(a, y)
        message = str(info.value)
        assert "test_argument_writes.py" in message and "'f'" in message
        assert (
            "argument 'x'" in message and "argument 'y'" in message and "shares memory" in message
        )
    assert not a.any()  # refused before anything ran
    np.testing.assert_array_equal(g(a, np.ones(4)), 4.0)  # distinct arrays: fine


def test_a_value_that_is_an_argument_on_some_paths_only_is_refused():
    def f(x, c):
        y = x if c else x * 2
        y[0] = 0.0
        return y

    with pytest.raises(
        errors.MutationError, match="may be an argument passed through a staged `if`"
    ):
        staging.function(f)(V.copy(), np.bool_(True))


def test_a_staged_function_writing_its_argument_called_from_another_is_refused():
    inner = staging.function(lambda x: np.add(x, 1, out=x))

    @staging.function
    def outer(x):
        y = x * 1
        inner(y)
        return y

    with pytest.raises(errors.MutationError, match="writes into its arguments in place") as info:
        outer(V)
    assert ".python_function" in str(info.value)

    @staging.function
    def through_python(x):
        y = x * 1
        inner.python_function(y)
        return y

    np.testing.assert_array_equal(through_python(V), V + 1)


def test_jit_compile_refuses_a_function_writing_its_argument():
    pytest.importorskip("jax")
    f = staging.function(lambda x: np.add(x, 1, out=x), jit_compile=True)
    with pytest.raises(Exception, match="writes into an argument in place"):
        f(V.copy())


def test_a_saved_function_writes_into_its_argument_when_loaded(tmp_path):
    f = staging.function(doubled_n_times)
    f(V.copy(), np.int64(2))
    staging.save(f, str(tmp_path / "saved"))
    loaded = staging.load(str(tmp_path / "saved"))
    x = V.copy()
    out, same = loaded(x, np.int64(2))
    np.testing.assert_array_equal(x, V * 4)
    np.testing.assert_array_equal(out, V * 4)
