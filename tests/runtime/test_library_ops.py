"""The NumPy library ops beyond the core (diag, delete, insert, bincount, average, cov, gradient,
lstsq, lexsort, ...): each rule agrees with its kernel, with exact and unknown dims, and the
kernel is NumPy's function."""

from __future__ import annotations

import numpy as np
import pytest
from test_ops import check, check_raises_like_numpy

from runtime.registry import get_op, infer_types
from runtime.types import TensorType

RNG = np.random.default_rng(5)
V = RNG.standard_normal(6)
M = RNG.standard_normal((3, 4))
COUNTS = np.array([2, 0, 5, 2])


@pytest.mark.parametrize(
    "op,inputs,attrs,expected",
    [
        ("diag", [V], {}, np.diag(V)),
        ("diag", [V], {"k": -2}, np.diag(V, -2)),
        ("diagflat", [M], {"k": 1}, np.diagflat(M, 1)),
        ("vander", [V], {"N": 3}, np.vander(V, 3)),
        ("kron", [M, V], {}, np.kron(M, V)),
        ("inner", [M, M], {}, np.inner(M, M)),
        ("vdot", [M, M], {}, np.vdot(M, M)),
        ("delete", [M], {"names": ("arr",), "obj": 1, "axis": 1}, np.delete(M, 1, axis=1)),
        ("delete", [V], {"names": ("arr",), "obj": (0, -1)}, np.delete(V, [0, -1])),
        ("insert", [V, M[0]], {"names": ("arr", "values"), "obj": 2}, np.insert(V, 2, M[0])),
        ("digitize", [V, np.array([0.0, 1.0])], {}, np.digitize(V, [0.0, 1.0])),
        ("partition", [V, np.asarray(2)], {}, np.partition(V, 2)),
        ("argpartition", [V, np.asarray(2)], {}, np.argpartition(V, 2)),
        ("lexsort", [V, -V], {}, np.lexsort((V, -V))),
        ("lexsort", [M], {"sequence": False}, np.lexsort(M)),
        ("unravel_index", [COUNTS], {"shape": (2, 3)}, np.unravel_index(COUNTS, (2, 3))),
        ("trapezoid", [M], {"names": ("y",), "axis": 0}, np.trapezoid(M, axis=0)),
        ("average", [M], {"names": ("a",), "axis": 1}, (np.average(M, axis=1),)),
        (
            "average",
            [V, V * V],
            {"names": ("a", "weights"), "returned": True},
            np.average(V, weights=V * V, returned=True),
        ),
        ("cov", [M], {"names": ("m",)}, np.cov(M)),
        ("corrcoef", [V, V * 2], {"names": ("x", "y")}, np.corrcoef(V, V * 2)),
        ("gradient", [M], {}, np.gradient(M)),
        ("gradient", [V, 2.0], {}, (np.gradient(V, 2.0),)),
        ("polyfit", [V, V * V], {"names": ("x", "y"), "deg": 2}, np.polyfit(V, V * V, 2)),
        ("linalg.multi_dot", [M, M.T, M], {}, np.linalg.multi_dot([M, M.T, M])),
        ("linalg.cond", [M[:, :3]], {}, np.linalg.cond(M[:, :3])),
        ("nan_to_num", [V * np.inf], {"nan": 1.0}, np.nan_to_num(V * np.inf, nan=1.0)),
        ("resize", [V], {"new_shape": (4, 4)}, np.resize(V, (4, 4))),
        ("logspace", [0.0, 2.0], {"num": 5, "base": 2.0}, np.logspace(0.0, 2.0, 5, base=2.0)),
    ],
)
def test_rule_and_kernel_agree_with_numpy(op, inputs, attrs, expected):
    check(op, inputs, attrs, expected=expected)


@pytest.mark.parametrize(
    "op,inputs,attrs",
    [
        ("bincount", [V], {"names": ("x",)}),
        ("bincount", [COUNTS], {"names": ("x",), "minlength": 8}),
        ("setdiff1d", [V, V[:2]], {}),
        ("extract", [V > 0, V], {}),
        ("delete", [V, V > 0], {"names": ("arr", "obj")}),
        ("trim_zeros", [np.array([0.0, 1.0, 0.0])], {}),
    ],
)
def test_data_dependent_sizes_are_unknown(op, inputs, attrs):
    with np.errstate(all="ignore"):
        try:
            expected = get_op(op).kernel(attrs)(*inputs)
        except TypeError:  # bincount of floats: the rule raises what NumPy raises
            with pytest.raises(TypeError):
                infer_types(get_op(op), [TensorType.of(x) for x in inputs], attrs)
            return
    (out,) = infer_types(get_op(op), [TensorType.of(x) for x in inputs], attrs)
    assert None in out.shape and out.accepts_shape(np.shape(expected))


def test_python_results_have_weak_types():
    for op in ("array_equal", "array_equiv", "allclose"):
        (out,) = infer_types(get_op(op), [TensorType.of(M), TensorType.of(M)], {})
        assert out.weak and out.python_type is bool
        assert type(get_op(op).kernel({})(M, M)) is bool


@pytest.mark.parametrize(
    "op,inputs,attrs,numpy_call",
    [
        ("diag", [M], {}, lambda: np.diag(np.ones((2, 2, 2)))),
        ("delete", [V], {"names": ("arr",), "obj": 9}, lambda: np.delete(V, 9)),
        ("insert", [V, 1.0], {"names": ("arr", "values"), "obj": 9}, lambda: np.insert(V, 9, 1.0)),
        ("bincount", [M], {"names": ("x",)}, lambda: np.bincount(np.ones((2, 2), int))),
        ("vdot", [V, M], {}, lambda: np.vdot(V, M)),
        ("inner", [V, M], {}, lambda: np.inner(V, M)),
        ("cov", [np.ones((2, 2, 2))], {"names": ("m",)}, lambda: np.cov(np.ones((2, 2, 2)))),
        ("gradient", [V[:1]], {}, lambda: np.gradient(V[:1])),
        ("linalg.lstsq", [V, V], {}, lambda: np.linalg.lstsq(V, V)),
        ("linalg.multi_dot", [M, M, M], {}, lambda: np.linalg.multi_dot([M, M, M])),
        ("resize", [V], {"new_shape": (-1,)}, lambda: np.resize(V, (-1,))),
    ],
)
def test_rules_raise_what_numpy_raises(op, inputs, attrs, numpy_call):
    check_raises_like_numpy(op, inputs, attrs, numpy_call)
