"""Graph clean-up after tracing (the passes live in runtime.optimize)."""

from __future__ import annotations

from runtime.optimize import optimize
from runtime.options import get_options as get_optimizer_options

__all__ = ["get_optimizer_options", "optimize"]
