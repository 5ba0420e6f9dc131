"""Lazy access to the staging package, so autograph imports even while staging is incomplete."""

from __future__ import annotations

_MODULE = None


def staging():
    """The staging package (imported on first use)."""
    global _MODULE
    if _MODULE is None:
        import staging as module
        _MODULE = module
    return _MODULE


def _is_symbolic(x) -> bool:
    global is_symbolic
    try:
        fn = staging().is_symbolic
    except (ImportError, AttributeError):
        fn = None
    if fn is None:
        is_symbolic = lambda x: False  # noqa: E731 - staging not available yet: everything is concrete
    else:
        is_symbolic = fn
    return is_symbolic(x)


is_symbolic = _is_symbolic


def where() -> str:
    """'file:line: ' of the innermost user frame (through converted code), or ''."""
    from staging import source_map
    loc = source_map.user_location(2)
    return f"{loc[0]}:{loc[1]}: " if loc else ""
