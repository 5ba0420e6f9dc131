"""Helpers shared by the staging tests (imported as a plain module)."""

from __future__ import annotations

import numpy as np


def assert_same(staged, eager):
    """Staged and eager results agree: same structure, values, dtypes, and scalar-ness."""
    if isinstance(eager, dict):
        assert isinstance(staged, dict) and sorted(staged) == sorted(eager)
        for k in eager:
            assert_same(staged[k], eager[k])
        return
    if isinstance(eager, (list, tuple)):
        assert type(staged) is type(eager) and len(staged) == len(eager)
        for s, e in zip(staged, eager):
            assert_same(s, e)
        return
    if isinstance(eager, (np.ndarray, np.generic)):
        assert isinstance(staged, (np.ndarray, np.generic)), staged
        assert np.ndim(staged) == np.ndim(eager)
        assert np.asarray(staged).dtype == np.asarray(eager).dtype
        if np.ndim(eager) == 0:
            assert isinstance(staged, np.generic), f"0-d result {staged!r} is not a NumPy scalar"
        np.testing.assert_allclose(staged, eager, rtol=1e-12, atol=0)
        return
    assert staged == eager
