"""The NumPy op library: importing this package registers every op in runtime.registry."""

from . import (  # noqa: F401  (imported to register their ops)
    arrays,
    containers,
    creation,
    elementwise,
    fft,
    gradient_ops,
    indexing,
    linalg,
    matrices,
    python_calls,
    python_items,
    random,
    reductions,
    selection,
    shape_ops,
    statistics,
    strings,
)
from .elementwise import OPERATOR_EXPRS, UFUNCS  # noqa: F401
from .reductions import REDUCTIONS  # noqa: F401
