"""The numba backend (`staging.function(..., jit_compile="numba")`): a graph written as nopython
Python source (runtime.numba_backend.lowering, from the ops' descriptions), compiled by numba,
and called with NumPy's answers: every value on which eager NumPy or Python would warn, raise or
give another result makes the compiled code raise `Rerun`, and the call runs again on the
interpreter (runtime.numba_backend.runner). numba itself is imported only by the runner, and by
the modules of the fused runs' kernels (runtime.native: cache, kernel_ops, build_kernel)."""

from .errors import NumbaFallbackWarning

__all__ = ["NumbaFallbackWarning"]
