"""Reverse-mode gradients of staged functions (staging.grad, staging.value_and_grad,
staging.stop_gradient): a gradient is a graph made by replaying a function's graph and adding
each op's vector-Jacobian product (OpDef.vjp) in reverse order."""

from staging.gradients.api import (
    GradientFunction,
    custom_gradient,
    grad,
    stop_gradient,
    value_and_grad,
)
from staging.gradients.tape import GradientTape

__all__ = [
    "GradientFunction",
    "GradientTape",
    "custom_gradient",
    "grad",
    "stop_gradient",
    "value_and_grad",
]
