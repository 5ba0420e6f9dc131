"""Helpers shared by the autograph tests: run a function eagerly, converted and staged."""

import numpy as np
import pytest

import autograph


def _same(a, b):
    if isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _same(x, y)
        return
    np.testing.assert_allclose(np.asarray(a), np.asarray(b))


@pytest.fixture
def check_native():
    """Asserts the converted function returns what the plain function returns."""
    def check(f, *inputs):
        converted = autograph.convert(f)
        for args in inputs:
            args = args if isinstance(args, tuple) else (args,)
            _same(converted(*args), f(*args))
    return check


@pytest.fixture
def check_staged():
    """Asserts staging.function(f) returns what the plain function returns on NumPy inputs."""
    staging = pytest.importorskip("staging")

    def check(f, *inputs):
        staged = staging.function(f)
        for args in inputs:
            args = args if isinstance(args, tuple) else (args,)
            _same(staged(*args), f(*args))
        return staged
    return check


def i64(v):
    return np.int64(v)


def f64(v):
    return np.float64(v)
