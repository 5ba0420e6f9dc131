"""staging.Tensor: static information, operators and NumPy protocols recording nodes, the
errors for Python operations that need a concrete value, and leaked tensors."""

from __future__ import annotations

import numpy as np
import pytest
from _staging_helpers import assert_same

import staging
from staging import TensorSpec

RNG = np.random.default_rng(3)


def line_below(func, offset):
    return func.__code__.co_firstlineno + offset


def trace(func, *specs):
    """The graph text of `func` traced on `specs`."""
    return str(staging.function(func, autograph=False).get_concrete_function(*specs).graph)


# -- static information -----------------------------------------------------------------


def test_static_attributes():
    seen = {}

    @staging.function(autograph=False)
    def f(x):
        seen.update(
            symbolic=staging.is_symbolic(x),
            dtype=x.dtype,
            ndim=x.ndim,
            static=x.static_shape,
            known=x.shape[1],
            unknown=staging.is_symbolic(x.shape[0]),
            length=len(x.T),
            type=type(x),
        )
        return x.shape[0]

    assert f(np.ones((4, 3), np.float32)) == 4
    cf = f.get_concrete_function(TensorSpec([None, 3], np.float32))
    assert cf(np.ones((6, 3), np.float32)) == 6
    assert seen == dict(
        symbolic=True,
        dtype=np.float32,
        ndim=2,
        static=(None, 3),
        known=3,
        unknown=True,
        length=3,
        type=staging.Tensor,
    )
    assert not staging.is_symbolic(np.ones(2)) and not staging.is_symbolic(1.0)
    assert "dim a axis=0" in str(cf.graph)


# -- operators, methods, NumPy protocols (staged == eager) ------------------------------------


def arithmetic(x, y):
    return (
        x + y,
        x - 1,
        2 * x,
        x / y,
        x // 2,
        x % 3,
        -x,
        abs(y),
        x**2,
        x @ y,
        y @ x,
        x > y,
        x <= 1.0,
        x == y,
        x != y,
    )


def methods(x):
    return (
        x.sum(),
        x.mean(axis=0),
        x.max(),
        x.min(axis=1),
        x.T,
        x.reshape(-1),
        x.astype(np.float32),
        x.argmax(),
        x.cumsum(axis=1),
        x.transpose(),
        x.clip(0, 1),
        x.squeeze(),
        x.flatten(),
        x.std(),
        x.any(),
        x.all(),
        x.copy(),
        x.round(1),
    )


def numpy_calls(x):
    return (
        np.sum(x),
        np.exp(x),
        np.where(x > 0, x, 0.0),
        np.maximum(x, 0.5),
        np.concatenate([x, x]),
        np.sqrt(np.abs(x)),
        np.mean(x, axis=1),
        np.matmul(x, x.T),
        np.add.reduce(x, axis=0),
        np.stack([x, x * 2]),
        np.tanh(x).sum(axis=-1, keepdims=True),
    )


def indexing(x, i):
    return (
        x[0],
        x[-1, 1:],
        x[:, ::2],
        x[i],
        x[i, i],
        x[None, 1],
        x[..., 0],
        x[x > 0],
        x[np.array([0, 1])],
    )


@pytest.mark.parametrize(
    "func, make_args",
    [
        (arithmetic, lambda: (RNG.normal(size=(3, 3)), RNG.normal(size=(3, 3)) + 3)),
        (methods, lambda: (RNG.normal(size=(2, 3)),)),
        (numpy_calls, lambda: (RNG.normal(size=(2, 3)),)),
        (indexing, lambda: (RNG.normal(size=(3, 3)), np.int64(RNG.integers(0, 3)))),
    ],
)
def test_staged_matches_eager(func, make_args):
    f = staging.function(func, autograph=False)
    for _ in range(3):
        args = make_args()
        assert_same(f(*args), func(*args))
    assert f.tracing_count == 1


def test_numpy_functions_record_nodes():
    text = trace(lambda x: np.where(x > 0, np.exp(x), np.sum(x)), TensorSpec([3], np.float64))
    for op in ("greater", "exp", "sum", "where"):
        assert f" {op} " in text
    assert (
        trace(
            lambda x, w: x @ w, TensorSpec([2, 3], np.float64), TensorSpec([3, 4], np.float64)
        ).splitlines()[1]
        == "  c:f64[2,4] = matmul a b"
    )


def test_unsupported_numpy_function_points_to_py_function():
    @staging.function(autograph=False)
    def f(x):
        return np.histogram2d(x, x)

    with pytest.raises(staging.errors.UnsupportedOpError) as info:
        f(np.ones(4))
    assert "py_function" in str(info.value) and "histogram2d" in str(info.value)
    assert f"test_tensor.py:{line_below(f.python_function, 2)}" in str(info.value)


def test_item_assignment_into_an_argument_writes_the_callers_array():
    @staging.function(autograph=False)
    def f(x):
        x[0] = 5.0
        return x

    x = np.ones(2)
    assert f(x) is x
    np.testing.assert_array_equal(x, [5.0, 1.0])

    @staging.function(autograph=False)
    def g(x):
        x = x.copy()
        x[0] = 1.0
        return x

    np.testing.assert_array_equal(g(np.ones(2)), [1.0, 1.0])


# -- Python operations needing concrete values ----------------------------------------------


def _error_of(body, spec=TensorSpec([None], np.float64)):
    f = staging.function(body, autograph=False)
    with pytest.raises(staging.errors.SymbolicValueError) as info:
        f.get_concrete_function(spec)
    return info.value, body.__code__.co_firstlineno


def test_bool_of_symbolic_tensor():
    def body(x):
        if x.sum() > 0:  # Python `if` on a symbolic value, without autograph
            return x
        return -x

    err, first = _error_of(body)
    message = str(err)
    assert isinstance(err, TypeError)
    assert "truth value" in message and "staging.cond" in message
    assert f"test_tensor.py:{first + 1}" in message


@pytest.mark.parametrize(
    "convert, what",
    [
        (int, "int()"),
        (float, "float()"),
        (complex, "complex()"),
        (lambda t: range(t), "Python int"),
        (lambda t: [1, 2][t], "Python int"),
        (np.asarray, "NumPy array"),
    ],
)
def test_conversions_of_symbolic_tensor(convert, what):
    def body(x):
        return convert(x.sum())

    err, first = _error_of(body)
    assert what in str(err)
    # the innermost user line: the lambda doing the conversion, or `body` for a builtin
    code = getattr(convert, "__code__", None)
    line = code.co_firstlineno if code is not None and code.co_filename == __file__ else first + 1
    assert f"test_tensor.py:{line}:" in str(err)
    assert "only known when the staged graph runs" in str(err)


def test_len_of_unknown_length():
    def body(x):
        return len(x)

    err, first = _error_of(body)
    assert "len()" in str(err) and "x.shape[0]" in str(err)
    assert f"test_tensor.py:{first + 1}" in str(err)
    # a known length is fine
    assert staging.function(body, autograph=False)(np.ones(4)) == 4

    with pytest.raises(TypeError, match="0-d") as info:
        staging.function(body, autograph=False)(np.float64(1.0))
    assert "test_tensor.py:" in str(info.value)


def test_iterating_a_symbolic_tensor():
    def body(x):
        total = 0.0
        for row in x:
            total = total + row
        return total

    err, first = _error_of(body, TensorSpec([None], np.float64))
    assert "iterating" in str(err) and "x[i]" in str(err) and "staging.while_loop" in str(err)
    assert f"test_tensor.py:{first + 2}" in str(err)


def test_membership_test_is_an_error():
    def body(x):
        return 1.0 in x

    err, first = _error_of(body)
    assert "`in`" in str(err) and f"test_tensor.py:{first + 1}" in str(err)


# -- leaked tensors ----------------------------------------------------------------------

LEAKED = []


def leaky(x):
    y = x * 2
    LEAKED.append(y)  # a symbolic tensor escapes its trace through a global
    return y


def test_leaked_tensor_used_outside_any_trace():
    LEAKED.clear()
    staging.function(leaky, autograph=False)(np.ones(2))
    t = LEAKED[0]
    for use in (lambda: t + 1, lambda: np.sum(t), lambda: bool(t), lambda: t[0], lambda: float(t)):
        with pytest.raises(staging.errors.LeakedTensorError) as info:
            use()
        message = str(info.value)
        assert "'leaky'" in message and "outside the trace" in message
        assert f"created at {__file__}:{leaky.__code__.co_firstlineno + 1}" in message
        assert message.startswith(f"{__file__}:")  # names the line that used it


def test_leaked_tensor_used_in_another_trace():
    LEAKED.clear()
    staging.function(leaky, autograph=False)(np.ones(2))

    @staging.function(autograph=False)
    def uses_leak(x):
        return x + LEAKED[0]

    with pytest.raises(staging.errors.LeakedTensorError) as info:
        uses_leak(np.ones(2))
    assert f"test_tensor.py:{line_below(uses_leak.python_function, 2)}" in str(info.value)
    assert "'leaky'" in str(info.value)


def test_tensor_leaked_from_a_branch_or_loop_body():
    kept = []

    @staging.function(autograph=False)
    def f(x):
        def then():
            kept.append(x * 3)
            return x

        y = staging.cond(x > 0, then, lambda: -x)
        return y + kept[-1]  # the branch's tensor used after the cond

    with pytest.raises(staging.errors.LeakedTensorError) as info:
        f(np.float64(1.0))
    assert f"test_tensor.py:{line_below(f.python_function, 7)}" in str(info.value)

    @staging.function(autograph=False)
    def g(n):
        def body(i):
            kept.append(i * 2)
            return (i + 1,)

        staging.while_loop(lambda i: i < n, body, (np.int64(0),))
        return kept[-1]

    with pytest.raises(staging.errors.LeakedTensorError) as info:
        g(np.int64(3))
    assert "test_tensor.py:" in str(info.value)


def test_tensor_from_a_failed_trace_is_a_leak():
    kept = []

    @staging.function(autograph=False)
    def f(x):
        kept.append(x + 1)
        raise RuntimeError("trace fails")

    with pytest.raises(RuntimeError):
        f(np.float64(1.0))
    with pytest.raises(staging.errors.LeakedTensorError):
        kept[0] * 2


def test_closing_over_a_tensor_of_an_enclosing_trace_is_an_error():
    @staging.function(autograph=False)
    def outer(x):
        @staging.function(autograph=False)
        def inner(y):
            return y + x  # x belongs to outer's trace

        return inner(x * 2)

    with pytest.raises(staging.errors.LeakedTensorError) as info:
        outer(np.float64(1.0))
    message = str(info.value)
    assert "'outer'" in message and "'inner'" in message and "argument" in message
    assert f"test_tensor.py:{line_below(outer.python_function, 4)}" in message
