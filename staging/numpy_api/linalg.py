"""Products and np.linalg: np.dot, np.outer, np.einsum, np.tensordot, np.cross, np.kron,
np.inner, np.vdot, the matrices built from a vector (np.diagflat, np.vander), and the
decompositions, solvers and norms of np.linalg (results in NumPy's named tuples)."""

from __future__ import annotations

import numpy as np

from staging.numpy_api._calls import bind, staged
from staging.numpy_api._common import (
    _as_input,
    _is_tensor,
    _ndim,
    _no_out,
    _record,
    _unsupported,
    _where,
)
from staging.numpy_api.shapes import _diagonal as _np_diagonal
from staging.numpy_api.shapes import _moveaxis, _swapaxes
from staging.numpy_api.shapes import _trace as _np_trace

_linalg = np.linalg


def _dot(a, b, out=None):
    _no_out(out, "np.dot")
    return _record("dot", [_as_input(a), _as_input(b)])


def _outer(a, b, out=None):
    _no_out(out, "np.outer")
    return _record("outer", [_as_input(a), _as_input(b)])


def _einsum(*operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    """np.einsum with a subscripts string. `optimize` only changes the contraction order, so it is
    accepted and the staged kernel uses NumPy's default."""
    _no_out(out, "np.einsum")
    if not operands or not isinstance(operands[0], str):
        raise _unsupported(
            "np.einsum in the interleaved (operand, sublist) form", "pass a subscripts string"
        )
    if dtype is not None or casting != "safe" or order != "K":
        raise _unsupported("np.einsum(..., dtype/casting/order=...)")
    subscripts, *arrays = operands
    return _record(
        "einsum", [_as_input(x) for x in arrays], {"subscripts": subscripts.replace(" ", "")}
    )


def _result_type(func, *args):
    """The named tuple type NumPy's `func` returns (SlogdetResult, EighResult, QRResult, ...)."""
    return type(func(*args))


_SLOGDET = _result_type(_linalg.slogdet, np.eye(1))
_EIGH = _result_type(_linalg.eigh, np.eye(1))
_QR = _result_type(_linalg.qr, np.eye(1))
_SVD = _result_type(_linalg.svd, np.eye(1))


def _qr_result(outs, attrs):
    mode = attrs.get("mode", "reduced")
    if mode == "r":
        return outs[0]
    return tuple(outs) if mode == "raw" else _QR(*outs)


def _svd_result(outs, attrs):
    return _SVD(*outs) if attrs.get("compute_uv", True) else outs[0]


def _tensordot_linalg(x1, x2, /, *, axes=2):
    inputs, attrs = bind(_linalg.tensordot, (x1, x2), {"axes": axes}, ("x1", "x2"))
    return _record("tensordot", inputs, attrs)


def _matrix_transpose(x, /):
    if _ndim(x) < 2:
        raise ValueError(
            f"{_where()}Input array must be at least 2-dimensional, but it is {_ndim(x)}"
        )
    return _swapaxes(x, -1, -2)


def _diagonal(x, /, *, offset=0):
    return _np_diagonal(x, offset, -2, -1)


def _trace(x, /, *, offset=0, dtype=None):
    return _np_trace(x, offset, -2, -1, dtype)


def _matmul(x1, x2, /):
    return _record("matmul", [_as_input(x1), _as_input(x2)])


def vecdot(x1, x2, axis=-1):
    """np.vecdot over `axis` of each operand: the axis moved last, then the vecdot gufunc."""
    if axis not in (-1, None):
        x1, x2 = _moveaxis(x1, axis, -1), _moveaxis(x2, axis, -1)
    return _record("vecdot", [_as_input(x1), _as_input(x2)])


def _vecdot(x1, x2, /, *, axis=-1):
    if _is_tensor(axis):
        raise _unsupported("np.linalg.vecdot with a symbolic `axis`", "`axis` must be a Python int")
    return vecdot(x1, x2, axis)


def _value_dependent_dtype(name):
    def refuse(*args, **kwargs):
        raise _unsupported(
            f"np.linalg.{name}",
            "its result is real or complex depending on the values, so its dtype is not "
            "known while tracing; use np.linalg.eigh for symmetric/Hermitian matrices, or "
            "staging.py_function",
        )

    return refuse


def _multi_dot(arrays, *, out=None):
    """np.linalg.multi_dot: of two arrays it is np.dot (as NumPy computes it); of more, one op
    multiplying in NumPy's cheapest order."""
    _no_out(out, "np.linalg.multi_dot")
    arrays = [_as_input(a) for a in arrays]
    if len(arrays) < 2:
        raise ValueError(f"{_where()}Expecting at least two arrays.")
    if len(arrays) == 2:
        return _record("dot", arrays)
    return _record("linalg.multi_dot", arrays)


_multi_dot.staged_op = "linalg.multi_dot"


def _lstsq(a, b, rcond=None):
    inputs, attrs = bind(_linalg.lstsq, (a, b, rcond), {}, ("a", "b"))
    return tuple(_record("linalg.lstsq", inputs, attrs))


_lstsq.staged_op = "linalg.lstsq"

_PLAIN = (
    "cholesky",
    "det",
    "eigvalsh",
    "inv",
    "matrix_power",
    "matrix_rank",
    "matrix_norm",
    "vector_norm",
    "norm",
    "svdvals",
    "cond",
)

FUNCTIONS = {
    np.dot: _dot,
    np.outer: _outer,
    np.einsum: _einsum,
    **{getattr(_linalg, name): staged(f"linalg.{name}", getattr(_linalg, name)) for name in _PLAIN},
    _linalg.solve: staged("linalg.solve", _linalg.solve, ("a", "b")),
    _linalg.pinv: staged("linalg.pinv", _linalg.pinv, ("a", "rtol")),
    _linalg.cross: staged("linalg.cross", _linalg.cross, ("x1", "x2")),
    _linalg.outer: staged("linalg.outer", _linalg.outer, ("x1", "x2")),
    _linalg.slogdet: staged(
        "linalg.slogdet", _linalg.slogdet, result=lambda outs, attrs: _SLOGDET(*outs)
    ),
    _linalg.eigh: staged("linalg.eigh", _linalg.eigh, result=lambda outs, attrs: _EIGH(*outs)),
    _linalg.qr: staged("linalg.qr", _linalg.qr, result=_qr_result),
    _linalg.svd: staged("linalg.svd", _linalg.svd, result=_svd_result),
    np.cross: staged("cross", np.cross, ("a", "b")),
    np.tensordot: staged("tensordot", np.tensordot, ("a", "b")),
    _linalg.tensordot: _tensordot_linalg,
    _linalg.matrix_transpose: _matrix_transpose,
    np.matrix_transpose: _matrix_transpose,
    _linalg.diagonal: _diagonal,
    _linalg.trace: _trace,
    _linalg.matmul: _matmul,
    _linalg.vecdot: _vecdot,
    np.diagflat: staged("diagflat", np.diagflat),
    np.vander: staged("vander", np.vander),
    np.kron: staged("kron", np.kron, ("a", "b")),
    np.inner: staged("inner", np.inner, ("a", "b")),
    np.vdot: staged("vdot", np.vdot, ("a", "b")),
    _linalg.multi_dot: _multi_dot,
    _linalg.lstsq: _lstsq,
    _linalg.eig: _value_dependent_dtype("eig"),
    _linalg.eigvals: _value_dependent_dtype("eigvals"),
}
