"""Helpers of the NumPy library tests: run a function staged and eagerly and compare exactly."""

from __future__ import annotations

import warnings

import numpy as np

import staging


def assert_identical(got, expected, path="result"):
    """Same structure, type (named tuples, tuples), dtype, shape and bits (NaNs in the same places)."""
    if isinstance(expected, tuple):
        assert type(got) is type(expected), (
            f"{path}: {type(got).__name__} != {type(expected).__name__}"
        )
        assert len(got) == len(expected), f"{path}: {len(got)} results != {len(expected)}"
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_identical(g, e, f"{path}[{i}]")
        return
    g, e = np.asarray(got), np.asarray(expected)
    assert g.dtype == e.dtype, f"{path}: dtype {g.dtype} != {e.dtype}"
    assert g.shape == e.shape, f"{path}: shape {g.shape} != {e.shape}"
    if e.dtype.kind in "fc":
        assert np.array_equal(_bytes(g), _bytes(e)) or np.array_equal(g, e, equal_nan=True), (
            f"{path}: values differ\n{g}\n{e}"
        )
    else:
        assert np.array_equal(g, e), f"{path}: values differ\n{g}\n{e}"


def _bytes(a):
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8)


def unknown_specs(args):
    """Every array argument as a TensorSpec with all dims unknown."""
    return [
        staging.TensorSpec((None,) * a.ndim, a.dtype) if isinstance(a, np.ndarray) else a
        for a in args
    ]


def check(fn, *args, generalize=True):
    """fn staged (with the arguments' shapes, and with unknown dims) gives what fn gives eagerly."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            expected = fn(*args)
            staged_fn = staging.function(fn, autograph=False)
            assert_identical(staged_fn(*args), expected)
            if generalize and any(isinstance(a, np.ndarray) for a in args):
                concrete = staged_fn.get_concrete_function(*unknown_specs(args))
                assert_identical(concrete(*args), expected, "result (unknown dims)")
    return staged_fn


def check_raises(fn, *args, error=Exception, match=None):
    """fn raises the same error type staged as eagerly (at trace time or at run time)."""
    import pytest

    with pytest.raises(error) as eager:
        fn(*args)
    with pytest.raises(type(eager.value), match=match) as staged_error:
        staging.function(fn, autograph=False)(*args)
    return staged_error.value
