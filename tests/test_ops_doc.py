"""docs/ops.md is generated from the frontend tables and the op registry: it must be up to date."""

from __future__ import annotations

import re

import numpy as np
import pytest

from staging.numpy_api import catalog


def test_ops_doc_is_up_to_date():
    text = catalog.DOC.read_text(encoding="utf-8")
    recorded = re.search(r"Generated with NumPy (\d+\.\d+)\.", text)
    assert recorded, "docs/ops.md has no generated section"
    if recorded.group(1) != catalog.numpy_minor():
        pytest.skip(
            f"docs/ops.md was generated with NumPy {recorded.group(1)}, this is {np.__version__}"
        )
    assert catalog.updated(text) == text, (
        "docs/ops.md is out of date: run `python -m staging.numpy_api.catalog`"
    )


def test_every_staged_function_and_op_is_listed():
    text = catalog.DOC.read_text(encoding="utf-8")
    for name in ("np.linalg.solve", "np.fft.rfft", "np.percentile", "np.unique_all", "np.meshgrid"):
        assert f"| `{name}` |" in text
    for op in ("linalg.svd", "fft.irfftn", "histogram", "repeat_counts"):
        assert f"| `{op}` |" in text


def test_a_new_function_makes_the_doc_stale(monkeypatch):
    text = catalog.DOC.read_text(encoding="utf-8")
    monkeypatch.setitem(catalog._FUNCTIONS, np.corrcoef, lambda *a: None)
    assert catalog.updated(text) != text
    assert "| `np.corrcoef` |" in catalog.render()
