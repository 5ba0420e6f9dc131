"""Statistics and numerics on symbolic arrays: median/percentile/quantile, the nan* reductions,
histogram (static bins), interp, convolve/correlate, polyval/polyfit, isclose/allclose, ptp,
trapezoid, average, cov/corrcoef, gradient, and elementwise helpers (nan_to_num, sinc, ...)."""

from __future__ import annotations

import numpy as np

from runtime.ops.statistics import covariance_size
from staging.numpy_api._calls import bind, staged
from staging.numpy_api._common import _as_input, _is_tensor, _record, _unsupported

_REDUCTIONS = (
    "median",
    "nanmedian",
    "nansum",
    "nanprod",
    "nanmean",
    "nanmax",
    "nanmin",
    "nanstd",
    "nanvar",
    "nanargmax",
    "nanargmin",
    "nancumsum",
    "nancumprod",
    "ptp",
)
_QUANTILES = ("percentile", "quantile", "nanpercentile", "nanquantile")

FUNCTIONS = {
    **{
        getattr(np, name): staged(name, getattr(np, name), refuse=("overwrite_input", "mean"))
        for name in _REDUCTIONS
    },
    **{
        getattr(np, name): staged(
            name, getattr(np, name), ("a", "q", "weights"), refuse=("overwrite_input",)
        )
        for name in _QUANTILES
    },
    np.histogram: staged("histogram", np.histogram, ("a", "weights")),
    np.interp: staged("interp", np.interp, ("x", "xp", "fp")),
    np.convolve: staged("convolve", np.convolve, ("a", "v")),
    np.polyval: staged("polyval", np.polyval, ("p", "x")),
    np.isclose: staged("isclose", np.isclose, ("a", "b")),
    np.allclose: staged("allclose", np.allclose, ("a", "b")),
}


def _average(a, axis=None, weights=None, returned=False, *, keepdims=np._NoValue):
    inputs, attrs = bind(
        np.average,
        (a, axis, weights, returned),
        {"keepdims": keepdims},
        ("a", "weights"),
        named=True,
    )
    outs = _record("average", inputs, attrs)
    return tuple(outs) if returned else outs[0]


_average.staged_op = "average"


def _covariance(func):
    """np.cov / np.corrcoef: a square matrix of the variables, or a 0-d value for one variable;
    how many there are must be known while tracing (the rank of the result depends on it)."""
    first = "m" if func is np.cov else "x"
    arrays = (first, "y", "fweights", "aweights") if func is np.cov else (first, "y")
    name = func.__name__

    def handler(*args, **kwargs):
        inputs, attrs = bind(func, args, kwargs, arrays, named=True)
        shapes = {
            n: x.static_shape if _is_tensor(x) else np.shape(x)
            for n, x in zip(attrs["names"], inputs)
        }
        if covariance_size(shapes, attrs.get("rowvar", True)) is None:
            raise _unsupported(
                f"np.{name} of a number of variables unknown while tracing",
                "the result is a 0-d value for one variable and a matrix for more; give that "
                "dim a static size",
            )
        return _record(name, inputs, attrs)

    handler.__name__ = name
    handler.staged_op = name
    return handler


def _gradient(f, *varargs, axis=None, edge_order=1):
    f = _as_input(f)
    inputs, attrs = bind(
        np.gradient, (f, *varargs), {"axis": axis, "edge_order": edge_order}, ("f",)
    )
    outs = _record("gradient", inputs, attrs)
    return outs[0] if len(outs) == 1 else tuple(outs)


_gradient.staged_op = "gradient"


def _nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    if not copy:
        raise _unsupported(
            "np.nan_to_num(..., copy=False) (it writes into x)",
            "use x[...] = np.nan_to_num(x) to write the result into x",
        )
    inputs, attrs = bind(np.nan_to_num, (x,), {"nan": nan, "posinf": posinf, "neginf": neginf})
    return _record("nan_to_num", inputs, attrs)


_nan_to_num.staged_op = "nan_to_num"

_ELEMENTWISE = ("sinc", "fix", "i0", "isposinf", "isneginf", "iscomplex", "isreal", "angle")
_ELEMENTWISE += ("sort_complex", "unwrap")

FUNCTIONS.update(
    {
        **{getattr(np, name): staged(name, getattr(np, name)) for name in _ELEMENTWISE},
        np.trapezoid: staged("trapezoid", np.trapezoid, ("y", "x"), named=True),
        np.average: _average,
        np.cov: _covariance(np.cov),
        np.corrcoef: _covariance(np.corrcoef),
        np.correlate: staged("correlate", np.correlate, ("a", "v")),
        np.gradient: _gradient,
        np.polyfit: staged(
            "polyfit", np.polyfit, ("x", "y", "w"), named=True, refuse=("full", "cov")
        ),
        np.nan_to_num: _nan_to_num,
    }
)
