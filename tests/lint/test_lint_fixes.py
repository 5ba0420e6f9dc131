"""`--fix` and `--diff`: the exact text of every safe rewrite."""

from __future__ import annotations

import io
import textwrap

from autograph.lint import check_source, main
from autograph.lint.fixes import apply_fixes


def fix(source: str) -> str:
    source = textwrap.dedent(source).lstrip("\n")
    return apply_fixes(check_source(source, "mod.py")).source


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def test_print_fix_uses_the_staging_alias():
    assert fix("""
        import staging as st

        @st.function(autograph=False)
        def f(x):
            print("tracing", end="")   # keep me
            print(  'spaced' ,sep='-' )
            return x
    """) == dedent("""
        import staging as st

        @st.function(autograph=False)
        def f(x):
            st.print("tracing", end="")   # keep me
            st.print(  'spaced' ,sep='-' )
            return x
    """)


def test_print_fix_adds_the_import_after_the_staging_import():
    assert fix('''
        """Module."""
        import os
        from staging import function  # decorator
        import numpy as np


        @function(autograph=False)
        def f(x):
            print(x)
            return x
    ''') == dedent('''
        """Module."""
        import os
        from staging import function  # decorator
        import staging
        import numpy as np


        @function(autograph=False)
        def f(x):
            staging.print(x)
            return x
    ''')


def test_print_with_file_argument_is_reported_but_not_rewritten():
    source = dedent("""
        import sys
        import staging

        @staging.function(autograph=False)
        def f(x):
            print("tracing", file=sys.stderr)
            return x
    """)
    result = check_source(source, "mod.py")
    assert [(f.code, f.fixable) for f in result.findings] == [("AG002", False)]
    assert apply_fixes(result).source == source


def test_logging_is_not_rewritten():
    source = dedent("""
        import logging
        import staging

        @staging.function
        def f(x):
            logging.info("tracing")
            return x
    """)
    assert apply_fixes(check_source(source, "mod.py")).source == source


def test_mutable_default_fix_after_docstring_keeps_comments():
    assert fix('''
        import staging

        @staging.function
        def f(x, acc=[], *, table={"a": 1},  # defaults
              n=3):
            """Accumulate."""
            # first comment
            acc.append(1)
            return x
    ''') == dedent('''
        import staging

        @staging.function
        def f(x, acc=None, *, table=None,  # defaults
              n=3):
            """Accumulate."""
            if acc is None:
                acc = []
            if table is None:
                table = {"a": 1}
            # first comment
            acc.append(1)
            return x
    ''')


def test_mutable_default_fix_in_a_method_without_docstring():
    assert fix("""
        import staging

        class M:
            @staging.function
            def f(self, x, seen=set()):
                return x
    """) == dedent("""
        import staging

        class M:
            @staging.function
            def f(self, x, seen=None):
                if seen is None:
                    seen = set()
                return x
    """)


def test_one_line_body_is_not_rewritten():
    source = "import staging\n\n@staging.function\ndef f(x, acc=[]): return x\n"
    result = check_source(source, "mod.py")
    assert [(f.code, f.fixable) for f in result.findings] == [("AG008", False)]
    assert apply_fixes(result).source == source


def test_noqa_finding_is_not_fixed():
    source = dedent("""
        import staging

        @staging.function(autograph=False)
        def f(x):
            print("kept")  # noqa: AG002
            print("fixed")
            return x
    """)
    assert apply_fixes(check_source(source, "mod.py")).source == source.replace(
        'print("fixed")', 'staging.print("fixed")'
    )


def test_fix_is_idempotent():
    once = fix("""
        import staging

        @staging.function
        def f(x, acc=[]):
            print("t")
            return x
    """)
    assert fix(once) == once
    assert check_source(once, "mod.py").findings == []


def test_cli_fix_writes_and_reports(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(
        "import staging\n\n@staging.function(autograph=False)\ndef f(x, a=[]):\n"
        "    print('t')\n    print('u', file=None)\n    return x\n"
    )
    out = io.StringIO()
    assert main(["--fix", str(path)], stdout=out, stderr=io.StringIO()) == 1
    assert path.read_text() == (
        "import staging\n\n@staging.function(autograph=False)\ndef f(x, a=None):\n"
        "    if a is None:\n        a = []\n"
        "    staging.print('t')\n    print('u', file=None)\n"
        "    return x\n"
    )
    assert out.getvalue().splitlines() == [
        f"{path}:8:5: AG002 print() in staged function 'f' (autograph=False) runs only while "
        "tracing, not on every call; use staging.print(...) to print on every call",
        f"fixed {path}:4:12: AG008 a=[] -> a=None, 'if a is None: a = []' in the body",
        f"fixed {path}:5:5: AG002 print(...) -> staging.print(...)",
    ]


def test_cli_fix_exits_zero_when_everything_was_fixed(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(
        "import staging\n\n@staging.function(autograph=False)\ndef f(x):\n    print('t')\n"
    )
    assert main(["--fix", str(path)], stdout=io.StringIO(), stderr=io.StringIO()) == 0
    assert (
        path.read_text() == "import staging\n\n@staging.function(autograph=False)\ndef f(x):\n"
        "    staging.print('t')\n"
    )


def test_cli_diff_does_not_write(tmp_path):
    path = tmp_path / "m.py"
    source = "import staging\n\n@staging.function(autograph=False)\ndef f(x):\n    print('t')\n    return x\n"
    path.write_text(source)
    out = io.StringIO()
    assert main(["--diff", str(path)], stdout=out, stderr=io.StringIO()) == 1
    assert path.read_text() == source
    name = str(path).lstrip("/")
    assert out.getvalue() == (
        f"--- a/{name}\n+++ b/{name}\n@@ -2,5 +2,5 @@\n \n @staging.function(autograph=False)\n def f(x):\n"
        "-    print('t')\n+    staging.print('t')\n     return x\n"
    )


def test_cli_fix_keeps_crlf_line_endings_and_encoding(tmp_path):
    path = tmp_path / "m.py"
    source = (
        "# -*- coding: latin-1 -*-\r\nimport staging\r\n\r\n@staging.function(autograph=False)\r\n"
        "def f(x):\r\n    print('caf\xe9')\r\n    return x\r\n"
    )
    path.write_bytes(source.encode("latin-1"))
    assert main(["--fix", str(path)], stdout=io.StringIO(), stderr=io.StringIO()) == 0
    assert path.read_bytes() == source.replace("print(", "staging.print(").encode("latin-1")
