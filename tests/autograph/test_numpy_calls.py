"""NumPy creation functions with a symbolic size in converted code: staged through
staging.numpy_api (ag__.call routes them), compared with eager NumPy."""

import numpy as np
import pytest
from conftest import f64, i64

import autograph


def creation(n, x):
    a = np.zeros(n)
    b = np.ones(n, dtype=np.int64)
    c = np.full(n, x)
    d = np.eye(n)
    e = np.arange(n)
    return a.sum() + b.sum() + c.sum() + d.sum() + e.sum(), b.dtype == np.int64


def shapes(n, x):
    a = np.zeros((n, 2))
    b = np.full([2, n], x)
    c = np.arange(1, n, 2)
    d = np.eye(n, n + 1, dtype=np.float32)
    e = np.ones(shape=(n,))
    return a, b, c, d, e


def in_loop(n):
    total = np.zeros(n)
    i = 0
    while i < n:
        total = total + np.arange(n) * i
        i += 1
    return total


def test_creation_calls_are_routed():
    code = autograph.to_code(creation)
    for name in ("zeros", "ones", "full", "eye", "arange"):
        assert f"ag__.call(np.{name}, n" in code


def test_creation_with_symbolic_size(check_staged):
    f = check_staged(creation, (i64(0), f64(1.5)), (i64(1), f64(2.0)), (i64(4), f64(-1.0)))
    assert f.tracing_count == 1


def test_creation_with_symbolic_size_inside_shapes(check_staged):
    staging = pytest.importorskip("staging")
    f = check_staged(shapes, (i64(1), f64(2.5)), (i64(3), f64(2.5)), (i64(6), f64(-4.0)))
    assert f.tracing_count == 1
    a, b, c, d, e = f(i64(3), f64(1.0))
    assert a.shape == (3, 2) and b.shape == (2, 3) and d.dtype == np.float32 and c.dtype == np.int64
    concrete = f.get_concrete_function(
        staging.TensorSpec([], np.int64), staging.TensorSpec([], np.float64)
    )
    graph = str(concrete.graph)
    for op in ("= zeros a", "= full b a", "= arange a", "= eye a", "= ones a"):
        assert op in graph, graph


def test_creation_in_staged_loop(check_staged):
    f = check_staged(in_loop, i64(0), i64(1), i64(5))
    assert f.tracing_count == 1


def test_creation_with_concrete_size_runs_numpy():
    # No symbolic argument: plain NumPy at trace time (a constant in the graph).
    converted = autograph.convert(creation)
    total, is_int = converted(3, 2.0)
    assert total == creation(3, 2.0)[0] and is_int
