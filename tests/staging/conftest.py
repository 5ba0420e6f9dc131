"""Shared helpers for the staging tests."""

from __future__ import annotations

import numpy as np
import pytest

import staging


@pytest.fixture(autouse=True)
def _not_eager():
    """Every test starts and ends with staged execution (run_functions_eagerly(False))."""
    staging.run_functions_eagerly(False)
    yield
    staging.run_functions_eagerly(False)
