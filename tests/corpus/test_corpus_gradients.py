"""The corpus's programs differentiated: staging.grad of the sum of a program's float result
with respect to each of its float arguments, against central finite differences.

A case where finite differences are not stable (a step changes a branch or a trip count) is
skipped; a refusal (GradientError: an op without a rule, a target that does not depend on the
argument) is fine; a gradient that differs from finite differences is not.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import staging

from .harness import discover


def _float_positions(args) -> list[int]:
    return [
        i
        for i, a in enumerate(args)
        if (isinstance(a, np.ndarray) and a.dtype.kind == "f" and 0 < a.size <= 50)
        or type(a) is float
        or isinstance(a, np.floating)
    ]


def _loss(func, args, position):
    def loss(x):
        changed = list(args)
        changed[position] = x
        return np.sum(func(*changed)) * 1.0

    return loss


def _numeric(loss, x, step):
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        moved = [x.copy(), x.copy()]
        moved[0][index] += step
        moved[1][index] -= step
        values = [float(loss(m if x.ndim else np.float64(m))) for m in moved]
        grad[index] = (values[0] - values[1]) / (2 * step)
    return grad


def _float_result(func, args) -> bool:
    try:
        result = func(*args)
    except Exception:  # noqa: BLE001  (a case that raises eagerly has no gradient to check)
        return False
    return isinstance(result, (float, np.floating)) or (
        isinstance(result, np.ndarray) and result.dtype.kind == "f"
    )


def _differentiated_cases():
    return [
        (case, position)
        for case in discover()
        for position in _float_positions(case.args)
        if _float_result(case.func, case.args)
    ]


CASES = _differentiated_cases()


def test_there_are_cases_to_differentiate():
    assert len(CASES) >= 100


@pytest.mark.parametrize(("case", "position"), CASES, ids=[f"{c.id}-{p}" for c, p in CASES])
def test_a_program_gradient_agrees_with_finite_differences_or_is_refused(case, position):
    loss = _loss(case.func, case.args, position)
    x = np.array(case.args[position], dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fine, coarse = _numeric(loss, x, 1e-6), _numeric(loss, x, 1e-5)
        except Exception:  # noqa: BLE001
            pytest.skip("the program raises near the input")
        if not (np.all(np.isfinite(fine)) and np.allclose(fine, coarse, rtol=1e-3, atol=1e-6)):
            pytest.skip("finite differences are not stable here (a branch or trip count moves)")
        try:
            found = staging.grad(loss)(x if x.ndim else np.float64(x))
        except staging.errors.StagingError as error:
            assert str(error), error  # (refused: with a message)
            return
    np.testing.assert_allclose(found, fine, rtol=1e-4, atol=1e-6)
