"""The NumPy op library: importing this package registers every op in runtime.registry."""

from . import arrays, creation, elementwise, fft, indexing, linalg, matrices, reductions, shape_ops, statistics  # noqa: F401
from . import random  # noqa: F401  (draws and clocks read when the graph runs)
from .elementwise import OPERATOR_EXPRS, UFUNCS  # noqa: F401
from .reductions import REDUCTIONS  # noqa: F401
