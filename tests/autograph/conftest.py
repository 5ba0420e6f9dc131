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


# -- staged vs eager, strictly ----------------------------------------------------------------


def assert_same_value(staged, eager, path="result"):
    """`staged` equals `eager` in structure, value, dtype and shape. A Python number may come
    back as a NumPy scalar of the same kind and value (a symbolic scalar has a dtype)."""
    if eager is None:
        assert staged is None, f"{path}: {staged!r} vs None"
        return
    if isinstance(eager, (list, tuple)):
        assert isinstance(staged, (list, tuple)) and len(staged) == len(eager), (
            f"{path}: {staged!r} vs {eager!r}"
        )
        for i, (a, b) in enumerate(zip(staged, eager)):
            assert_same_value(a, b, f"{path}[{i}]")
        return
    if isinstance(eager, dict):
        assert isinstance(staged, dict) and sorted(staged) == sorted(eager), (
            f"{path}: {staged!r} vs {eager!r}"
        )
        for k in eager:
            assert_same_value(staged[k], eager[k], f"{path}[{k!r}]")
        return
    a, b = np.asarray(staged), np.asarray(eager)
    if type(eager) in (bool, int, float, complex):
        assert a.dtype.kind == b.dtype.kind, f"{path}: {staged!r} vs {eager!r}"
    else:
        assert a.dtype == b.dtype, f"{path}: dtype {a.dtype} vs {b.dtype}"
    assert a.shape == b.shape, f"{path}: shape {a.shape} vs {b.shape}"
    np.testing.assert_array_equal(a, b, err_msg=path)


def _outcome(call, args, capsys):
    try:
        value = call(*args)
    except Exception as error:  # noqa: BLE001 - the outcome is compared
        return ("raises", error, capsys.readouterr().out)
    return ("returns", value, capsys.readouterr().out)


@pytest.fixture
def same_as_eager(capsys):
    """Asserts staging.function(f) gives what f gives on each argument tuple: the same value
    (see assert_same_value), the same printed text, or an error of the same type. Returns the
    staged Function."""
    staging = pytest.importorskip("staging")

    def check(f, *inputs, staged=None):
        staged = staged or staging.function(f)
        for args in inputs:
            args = args if isinstance(args, tuple) else (args,)
            eager_kind, eager, eager_out = _outcome(f, args, capsys)
            staged_kind, value, staged_out = _outcome(staged, args, capsys)
            if eager_kind == "raises":
                assert staged_kind == "raises", (
                    f"{f.__name__}{args}: eager raises {eager!r}, staged returns {value!r}"
                )
                assert isinstance(value, type(eager)), f"{f.__name__}{args}: {value!r} vs {eager!r}"
            else:
                assert staged_kind == "returns", f"{f.__name__}{args}: staged raises {value!r}"
                assert_same_value(value, eager, f"{f.__name__}{args}")
            assert staged_out == eager_out, (
                f"{f.__name__}{args}: printed {staged_out!r} vs {eager_out!r}"
            )
        return staged

    return check
