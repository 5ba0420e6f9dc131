"""Statistics and numerics on symbolic arrays: median/percentile/quantile, the nan* reductions,
histogram (static bins), interp, convolve, polyval, isclose/allclose, ptp."""

from __future__ import annotations

import numpy as np

from staging.numpy_api._calls import staged

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
