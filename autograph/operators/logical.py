"""and_, or_, not_: Python's short-circuit logic on concrete values, staged on symbolic ones."""

from __future__ import annotations

from autograph.operators import _staging


def and_(a, b_fn):
    """`a and b`; b_fn runs only when a is true (in a staged cond when a is symbolic)."""
    if _staging.is_symbolic(a):
        return _staging.staging().cond(a, lambda: _as_bool(b_fn()), lambda: _as_bool(a))
    return b_fn() if a else a


def or_(a, b_fn):
    """`a or b`; b_fn runs only when a is false (in a staged cond when a is symbolic)."""
    if _staging.is_symbolic(a):
        return _staging.staging().cond(a, lambda: _as_bool(a), lambda: _as_bool(b_fn()))
    return a if a else b_fn()


def not_(a):
    """`not a`; a logical_not node when a is symbolic."""
    if _staging.is_symbolic(a):
        import numpy as np
        return np.logical_not(a)
    return not a


def _as_bool(x):
    """Staged and/or give a boolean tensor (the branches must agree on one dtype)."""
    import numpy as np
    if _staging.is_symbolic(x):
        return x if x.dtype == np.bool_ else x.astype(np.bool_)
    return np.bool_(bool(x))
