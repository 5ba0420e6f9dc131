"""Which functions count as staged: aliases, decorator forms, wrappers, methods, nesting (a
logging call, AG002, shows that a function is staged)."""

from __future__ import annotations

import textwrap

import pytest

from autograph.lint import check_source, lint_paths

BODY = """
def f(x):
    log.info("tracing")
    return x
"""


def staged_lines(tmp_path, source: str) -> list[tuple[int, str]]:
    path = tmp_path / "mod.py"
    path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return [(f.line, f.code) for f in lint_paths([path])]


@pytest.mark.parametrize(
    "header, decorator",
    [
        ("import staging", "@staging.function"),
        ("import staging", "@staging.function()"),
        (
            "import staging",
            "@staging.function(input_signature=[staging.TensorSpec([None], 'float32')])",
        ),
        ("import staging as st", "@st.function"),
        ("from staging import function", "@function"),
        ("from staging import function as tf_function", "@tf_function(reduce_retracing=True)"),
        ("from . import staging", "@staging.function"),
        ("from project import staging as stg", "@stg.function"),
    ],
)
def test_decorator_forms(tmp_path, header, decorator):
    source = f"{header}\n\n\n{decorator}{BODY}"
    assert staged_lines(tmp_path, source) == [(6, "AG002")]


@pytest.mark.parametrize(
    "header, decorator",
    [
        ("import staging", "@staging.other"),
        ("import staging\nfrom functools import cache as function", "@function"),
        ("import tensorflow as staging_tf  # mentions staging", "@staging_tf.function"),
        ("import staging", "@function"),
    ],
)
def test_not_staged(tmp_path, header, decorator):
    source = f"{header}\n\n\n{decorator}{BODY}"
    assert staged_lines(tmp_path, source) == []


def test_file_without_staging_is_not_parsed():
    # Not even parsed: a syntax error in a file that never mentions the module is no finding.
    assert check_source("def broken(:\n", "x.py").findings == []
    assert [f.code for f in check_source("import staging\ndef broken(:\n", "x.py").findings] == [
        "AG000"
    ]


def test_wrapper_calls(tmp_path):
    assert staged_lines(
        tmp_path,
        """
        import staging

        def f(x):
            log.info("f")
            return x

        def g(x):
            log.info("g")
            return x

        def h(x):
            log.info("h")
            return x

        def untouched(x):
            log.info("not staged")
            return x

        fast_f = staging.function(f)
        fast_g = staging.function(autograph=True)(g)
        staging.function(h, input_signature=None)
    """,
    ) == [(4, "AG002"), (8, "AG002"), (12, "AG002")]


def test_wrapper_with_autograph_false(tmp_path):
    result = staged_lines(
        tmp_path,
        """
        import staging

        def f(x):
            print(x)
            return x

        fast_f = staging.function(f, autograph=False)
    """,
    )
    assert result == [(4, "AG002")]


def test_method_wrapped_in_init(tmp_path):
    assert staged_lines(
        tmp_path,
        """
        import staging

        class Model:
            def __init__(self):
                self.step = staging.function(self._step)
                self.other = staging.function(Model._other)

            def _step(self, x):
                log.info("step")
                return x

            def _other(self, x):
                log.info("other")
                return x

            def plain(self, x):
                log.info("plain")
                return x
    """,
    ) == [(9, "AG002"), (13, "AG002")]


def test_staticmethod_and_classmethod(tmp_path):
    result = staged_lines(
        tmp_path,
        """
        import staging

        class Model:
            count = 0

            @staticmethod
            @staging.function
            def s(self, x):
                self.count = 1       # `self` is just an argument of a staticmethod
                return x

            @classmethod
            @staging.function
            def c(cls, x):
                cls.count = 1
                return x
    """,
    )
    assert result == [(15, "AG001")]


def test_staged_function_nested_in_plain_function(tmp_path):
    assert staged_lines(
        tmp_path,
        """
        import staging

        def build(scale):
            @staging.function
            def inner(x):
                log.info("inner")
                return x * scale
            return inner
    """,
    ) == [(6, "AG002")]


def test_staged_function_nested_in_staged_function_is_reported_once(tmp_path):
    assert staged_lines(
        tmp_path,
        """
        import staging

        @staging.function
        def outer(x):
            @staging.function
            def inner(y):
                log.info("inner")
                return y
            log.info("outer")
            return inner(x)
    """,
    ) == [(7, "AG002"), (9, "AG002")]


def test_findings_are_sorted_and_formatted(tmp_path):
    (tmp_path / "b.py").write_text(
        "import staging\n\n@staging.function\ndef f(x):\n    log.info('b')\n    return x\n"
    )
    (tmp_path / "a.py").write_text(
        "import staging\n\n@staging.function\ndef f(x, a=[]):\n    log.info('a')\n    return x\n"
    )
    result = lint_paths([tmp_path])
    assert [str(f).split(" ")[0] for f in result] == [
        f"{tmp_path}/a.py:4:12:",
        f"{tmp_path}/a.py:5:5:",
        f"{tmp_path}/b.py:5:5:",
    ]
    assert str(result[0]).startswith(f"{tmp_path}/a.py:4:12: AG008 mutable default argument 'a'")


def test_select_and_ignore(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(
        "import staging, time\n\n@staging.function\ndef f(x, a=[]):\n"
        "    print('a', time.ctime())\n    log.info('b')\n    return x\n"
    )
    assert [f.code for f in lint_paths([path])] == ["AG008", "AG003", "AG002"]
    assert [f.code for f in lint_paths([path], select="AG002")] == ["AG002"]
    assert [f.code for f in lint_paths([path], select=["AG002", "AG008"])] == ["AG008", "AG002"]
    assert [f.code for f in lint_paths([path], ignore="AG002,AG003")] == ["AG008"]
    assert [f.code for f in lint_paths([path], select="AG00", ignore="AG008")] == ["AG003", "AG002"]
    with pytest.raises(ValueError, match="unknown rule code 'AG999'"):
        lint_paths([path], select="AG999")


def test_missing_path_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        lint_paths([tmp_path / "nope.py"])
