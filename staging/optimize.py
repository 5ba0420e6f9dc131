"""Graph clean-up after tracing (the passes live in runtime.optimize)."""

from __future__ import annotations

from runtime.optimize import optimize

__all__ = ["optimize"]
