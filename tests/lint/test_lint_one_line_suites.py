"""Imports and bindings inside one-line suites (`if c: import x`, `def g(): import y`)."""

from __future__ import annotations

import textwrap

from autograph.lint import check_source
from autograph.lint.fixes import apply_fixes


def source(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def test_import_in_a_one_line_if_rebinding_a_global_is_reported_at_its_line():
    text = source("""
        import staging

        helper = 1
        if True: import math as helper

        @staging.function
        def f(x):
            return x * helper
    """)
    found = check_source(text, "mod.py").findings
    assert [(f.line, f.col, f.code) for f in found] == [(8, 16, "AG006")]
    assert "reassigned at line 4" in found[0].message


def test_fixes_are_not_inserted_after_a_one_line_suite_import():
    text = source("""
        import numpy as np
        if True: import staging

        def g(): import math

        @staging.function(autograph=False)
        def f(x):
            print("tracing")
            return x
    """)
    fixed = apply_fixes(check_source(text, "mod.py")).source
    assert fixed == text.replace('    print("tracing")', '    staging.print("tracing")')
