"""`autograph lint`: a libcst checker for tracing pitfalls in staged functions."""

from .checker import Finding, check_source
from .cli import lint_paths, main
from .rules import RULES, Rule

__all__ = ["Finding", "RULES", "Rule", "check_source", "lint_paths", "main"]
