"""np.fft on symbolic arrays: every transform and the shifts (fftfreq/rfftfreq take static
sizes and run as plain NumPy)."""

from __future__ import annotations

import numpy as np

from staging.numpy_api._calls import staged

_TRANSFORMS = (
    "fft",
    "ifft",
    "rfft",
    "irfft",
    "hfft",
    "ihfft",
    "fftn",
    "ifftn",
    "rfftn",
    "irfftn",
    "fft2",
    "ifft2",
    "rfft2",
    "irfft2",
    "fftshift",
    "ifftshift",
)

FUNCTIONS = {
    getattr(np.fft, name): staged(f"fft.{name}", getattr(np.fft, name)) for name in _TRANSFORMS
}
