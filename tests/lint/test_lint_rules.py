"""Positive and negative cases for every `autograph lint` rule, AG001 to AG010."""

from __future__ import annotations

import textwrap

import pytest

from autograph.lint import lint_paths


def findings(tmp_path, source: str, name: str = "mod.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return lint_paths([path])


def codes(tmp_path, source: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in findings(tmp_path, source)]


# --- AG001: mutation of outer state ------------------------------------------------------


def test_ag001_global_augmented_assignment(tmp_path):
    result = findings(
        tmp_path,
        """
        import staging

        counter = 0

        @staging.function
        def f(x):
            global counter
            counter += 1
            return x
    """,
    )
    assert [(f.line, f.col, f.code) for f in result] == [(8, 5, "AG001")]
    assert "global 'counter' is assigned in staged function 'f'" in result[0].message
    assert "runs only while tracing" in result[0].message


def test_ag001_nonlocal_of_enclosing_plain_function(tmp_path):
    assert codes(
        tmp_path,
        """
        import staging

        def make():
            calls = 0

            @staging.function
            def f(x):
                nonlocal calls
                calls = calls + 1
                return x
            return f
    """,
    ) == [(9, "AG001")]


def test_ag001_outer_object_methods_and_items(tmp_path):
    result = findings(
        tmp_path,
        """
        import staging

        log = []
        cache = {}

        @staging.function
        def f(x):
            log.append("called")
            cache["n"] = 1
            del cache["old"]
            cache.update(a=1)
            return x
    """,
    )
    assert [(f.line, f.code) for f in result] == [
        (8, "AG001"),
        (9, "AG001"),
        (10, "AG001"),
        (11, "AG001"),
    ]
    assert "outer object 'log' is mutated by .append()" in result[0].message
    assert "outer object 'cache' is mutated by item assignment" in result[1].message
    assert "by del" in result[2].message


def test_ag001_self_attribute_in_method(tmp_path):
    result = findings(
        tmp_path,
        """
        import staging

        class Model:
            @staging.function
            def __call__(self, x):
                self.calls += 1
                return x
    """,
    )
    assert [(f.line, f.code) for f in result] == [(6, "AG001")]
    assert "'self.calls'" in result[0].message


def test_ag001_negatives(tmp_path):
    assert (
        codes(
            tmp_path,
            """
        import staging

        total = 0
        items = []

        @staging.function
        def f(x, acc):
            local = []
            local.append(x)
            table = {}
            table["k"] = x
            acc[0] = x             # an array argument written in place is staged
            acc.sort()             # (so is an array's sort)
            y = total + 1          # reading a global is fine (AG006 handles reassignment)
            return x + y

        def plain(x):
            global items
            items = [x]
            items.append(x)
    """,
        )
        == []
    )


def test_ag001_a_container_argument_changed_by_a_method(tmp_path):
    result = findings(
        tmp_path,
        """
        import staging

        @staging.function
        def f(x, log, seen):
            log.append(x)
            seen.add(1)
            return x
        """,
    )
    assert [(f.line, f.code) for f in result] == [(5, "AG001"), (6, "AG001")]
    assert "argument 'log' is mutated by .append()" in result[0].message
    assert "return the new items instead" in result[0].message


def test_ag001_in_nested_helper_of_staged_function(tmp_path):
    assert codes(
        tmp_path,
        """
        import staging

        seen = set()

        @staging.function
        def f(x):
            def helper(v):
                seen.add("v")
                return v
            return helper(x)
    """,
    ) == [(8, "AG001")]


# --- AG002: trace-time print and logging --------------------------------------------------


def test_ag002_print_of_python_values_with_autograph_false(tmp_path):
    result = findings(
        tmp_path,
        """
        import staging

        STEP = 3

        @staging.function(autograph=False)
        def f(x):
            print("tracing")
            print()
            print(1, "two", -3.0, None)
            print(f"step {STEP}")
            return x
    """,
    )
    assert [(f.line, f.col, f.code) for f in result] == [
        (7, 5, "AG002"),
        (8, 5, "AG002"),
        (9, 5, "AG002"),
        (10, 5, "AG002"),
    ]
    assert result[0].message.startswith("print() in staged function 'f' (autograph=False)")
    assert "staging.print" in result[0].message
    assert all(f.fixable for f in result)


def test_ag002_any_print_in_converted_code_is_staged(tmp_path):
    """Converted code stages every print, of Python values too: it prints on every call."""
    assert (
        codes(
            tmp_path,
            """
        import staging

        STEP = 3

        @staging.function
        def f(x):
            print("tracing")
            print()
            print(f"step {STEP}")
            return x
    """,
        )
        == []
    )


def test_ag002_print_of_arguments_is_staged(tmp_path):
    assert (
        codes(
            tmp_path,
            """
        import staging

        @staging.function
        def f(x, n):
            y = x * 2
            print(x)
            print("x =", x)
            print(f"{x}")
            print("y", y, sep=": ")
            staging.print("staged")
            return y

        def plain():
            print("not staged")
    """,
        )
        == []
    )


def test_ag002_any_print_with_autograph_false(tmp_path):
    result = findings(
        tmp_path,
        """
        import staging

        @staging.function(autograph=False)
        def f(x):
            print(x)
            return x
    """,
    )
    assert [(f.line, f.code) for f in result] == [(5, "AG002")]
    assert "(autograph=False)" in result[0].message


def test_ag002_print_shadowed_by_staging_print(tmp_path):
    assert (
        codes(
            tmp_path,
            """
        import staging
        from staging import print

        @staging.function
        def f(x):
            print("staged print")
            return x
    """,
        )
        == []
    )


def test_ag002_logging_calls(tmp_path):
    result = findings(
        tmp_path,
        """
        import logging
        import logging as lg
        import warnings
        import staging

        logger = logging.getLogger(__name__)
        chan = lg.getLogger("chan")

        @staging.function
        def f(x):
            logging.info("tracing")
            lg.debug("a")
            logger.warning("b %s", x)
            chan.error("c")
            logging.getLogger("d").info("d")
            warnings.warn("e")
            return x
    """,
    )
    assert [(f.line, f.code) for f in result] == [(n, "AG002") for n in range(11, 17)]
    assert "logging call 'logger.warning'" in result[2].message
    assert not any(f.fixable for f in result)


def test_ag002_logging_negatives(tmp_path):
    assert (
        codes(
            tmp_path,
            """
        import numpy as np
        import staging

        @staging.function
        def f(x, weights):
            y = np.log(x)
            weights.log(2)         # not a logger
            return y
    """,
        )
        == []
    )


# --- AG003: calls read once while tracing ------------------------------------------------

AG003_SOURCE = """
    import datetime as dt
    import random
    import time
    import uuid
    from datetime import datetime
    from random import randint

    import numpy as onp
    from numpy.random import rand
    import staging

    rng = onp.random.default_rng(0)

    @staging.function{options}
    def f(x):
        a = onp.random.normal(size=3)
        b = rand(2)
        c = random.random() + randint(0, 3)
        d = time.time() + time.perf_counter_ns()
        e = datetime.now()
        g = dt.datetime.now()
        h = rng.normal()
        i = uuid.uuid4() and time.ctime()
        return x
"""


def test_ag003_calls_still_evaluated_while_tracing(tmp_path):
    # converted code makes random draws and clock reads on every call: not reported
    result = findings(tmp_path, AG003_SOURCE.format(options=""))
    assert [(f.line, f.code) for f in result] == [
        (20, "AG003"),
        (21, "AG003"),
        (23, "AG003"),
        (23, "AG003"),
    ]
    assert result[0].message.startswith(
        "'datetime.now' in staged function 'f' is evaluated once while tracing"
    )
    assert "'time.ctime'" in result[-1].message


def test_ag003_without_autograph_reports_draws_and_clocks_too(tmp_path):
    result = findings(tmp_path, AG003_SOURCE.format(options="(autograph=False)"))
    assert [(f.line, f.code) for f in result] == [
        (16, "AG003"),
        (17, "AG003"),
        (18, "AG003"),
        (18, "AG003"),
        (19, "AG003"),
        (19, "AG003"),
        (20, "AG003"),
        (21, "AG003"),
        (22, "AG003"),
        (23, "AG003"),
        (23, "AG003"),
    ]
    assert result[0].message == (
        "'onp.random.normal' in staged function 'f' (autograph=False) is evaluated once while "
        "tracing and baked into the graph as a constant; with autograph (the default), random "
        "draws and clock reads run on every call"
    )
    assert "'rng.normal'" in result[8].message and "(autograph=False)" in result[8].message


def test_ag003_negatives(tmp_path):
    assert (
        codes(
            tmp_path,
            """
        import random
        import numpy as np
        import staging

        @staging.function
        def f(x, rng):
            random = rng
            a = random.choice(x)      # a local shadows the module
            b = rng.normal()          # a generator passed in: fine
            return np.sum(x) + a + b

        def plain():
            return random.random()
    """,
        )
        == []
    )


# --- AG004: unconditional Variable -------------------------------------------------------


def test_ag004_unconditional_variable(tmp_path):
    result = findings(
        tmp_path,
        """
        import staging
        from staging import Variable as V

        @staging.function
        def f(x):
            v = staging.Variable(1.0)
            for i in range(3):
                w = V(0.0)
            return x + v

        class M:
            @staging.function
            def __call__(self, x):
                self.v = staging.Variable(x)
                return x
    """,
    )
    assert [(f.line, f.code) for f in result] == [(6, "AG004"), (8, "AG004"), (14, "AG004")]
    assert "raises ValueError" in result[0].message


def test_ag004_conditional_variable_is_fine(tmp_path):
    assert (
        codes(
            tmp_path,
            """
        import staging

        v0 = staging.Variable(0.0)

        class M:
            def __init__(self):
                self.v = None

            @staging.function
            def __call__(self, x):
                if self.v is None:
                    self.v = staging.Variable(x)
                w = self.w if self.w is not None else staging.Variable(0.0)
                def make():
                    return staging.Variable(1.0)
                return self.v.assign_add(x)
    """,
        )
        == []
    )


# --- AG005: unrolled loops --------------------------------------------------------------


def test_ag005_loops_over_literals(tmp_path):
    result = findings(
        tmp_path,
        """
        import numpy as np
        import staging

        WEIGHTS = (0.5, 0.25)

        @staging.function
        def f(x):
            for k in [1, 2, 3]:
                x = x + k
            for w in WEIGHTS:
                x = x * w
            table = {"a": 1, "b": 2}
            for key, value in table.items():
                x = x + value
            for i, k in enumerate(np.array([1.0, 2.0])):
                x = x - k
            return x
    """,
    )
    assert [(f.line, f.col, f.code) for f in result] == [
        (8, 14, "AG005"),
        (10, 14, "AG005"),
        (13, 23, "AG005"),
        (15, 17, "AG005"),
    ]
    assert "for loop over a Python list literal" in result[0].message
    assert "Python tuple 'WEIGHTS'" in result[1].message
    assert "Python dict 'table'" in result[2].message
    assert "NumPy array literal" in result[3].message


def test_ag005_staged_loops_are_fine(tmp_path):
    assert (
        codes(
            tmp_path,
            """
        import numpy as np
        import staging

        @staging.function
        def f(x, n, xs):
            for i in range(n):
                x = x + i
            for v in xs:
                x = x + v
            ys = [1, 2]
            ys = np.asarray(xs)
            for y in ys:          # rebound to a non-literal
                x = x + y
            for z in np.array(xs):
                x = x + z
            return x
    """,
        )
        == []
    )


# --- AG006: frozen module-level names ------------------------------------------------------


def test_ag006_module_name_reassigned(tmp_path):
    result = findings(
        tmp_path,
        """
        import staging

        scale = 2.0
        offset = 1.0

        @staging.function
        def f(x):
            return x * scale + offset + scale

        def set_offset(v):
            global offset
            offset = v

        scale = 3.0
    """,
    )
    assert [(f.line, f.col, f.code) for f in result] == [(8, 16, "AG006"), (8, 24, "AG006")]
    assert "reads module-level 'scale', which is reassigned at line 14" in result[0].message
    assert "reassigned at line 12" in result[1].message


def test_ag006_negatives(tmp_path):
    assert (
        codes(
            tmp_path,
            """
        import numpy as np
        import staging

        SCALE = 2.0

        def g(x):
            return x

        g = staging.function(g)

        @staging.function
        def f(x, scale=SCALE):
            scale = scale * 2
            return g(x) * scale * np.float64(SCALE)
    """,
        )
        == []
    )


# --- AG007: recursion -------------------------------------------------------------------


def test_ag007_direct_recursion(tmp_path):
    result = findings(
        tmp_path,
        """
        import staging

        @staging.function
        def fact(n):
            return n * fact(n - 1)

        def fib(n):
            return fib(n - 1) + fib(n - 2)

        fast_fib = staging.function(fib)

        class Tree:
            @staging.function
            def depth(self, x):
                return self.depth(x - 1)
    """,
    )
    assert [(f.line, f.code) for f in result] == [
        (5, "AG007"),
        (8, "AG007"),
        (8, "AG007"),
        (15, "AG007"),
    ]
    assert result[0].message.startswith("staged function 'fact' calls itself")


def test_ag007_negatives(tmp_path):
    assert (
        codes(
            tmp_path,
            """
        import staging

        def helper(x):
            return x

        @staging.function
        def f(x):
            def f(y):          # a local f shadows the staged function
                return y
            return helper(f(x))

        class M:
            @staging.function
            def g(self, x):
                return g(x)    # module-level g, not the method
    """,
        )
        == []
    )


# --- AG008: mutable defaults -------------------------------------------------------------


def test_ag008_mutable_defaults(tmp_path):
    result = findings(
        tmp_path,
        """
        import collections
        import staging

        @staging.function
        def f(x, acc=[], table={}, *, seen=set(), counts=collections.Counter()):
            return x
    """,
    )
    assert [(f.line, f.col, f.code) for f in result] == [
        (5, 14, "AG008"),
        (5, 24, "AG008"),
        (5, 36, "AG008"),
        (5, 50, "AG008"),
    ]
    assert "mutable default argument 'acc' of staged function 'f'" in result[0].message
    assert all(f.fixable for f in result)


def test_ag008_negatives(tmp_path):
    assert (
        codes(
            tmp_path,
            """
        import staging

        @staging.function
        def f(x, acc=None, shape=(2, 3), n=1, name="f"):
            return x

        def plain(x, acc=[]):
            return acc
    """,
        )
        == []
    )


# --- AG009: leaked tensors ----------------------------------------------------------------


def test_ag009_computed_values_stored_outside(tmp_path):
    result = findings(
        tmp_path,
        """
        import staging

        last = None
        history = []
        state = {}

        class M:
            @staging.function
            def __call__(self, x):
                global last
                y = x * 2
                last = y
                history.append(y)
                state["y"] = y + 1
                self.cache = x
                return y
    """,
    )
    assert [(f.line, f.code) for f in result] == [
        (12, "AG009"),
        (13, "AG009"),
        (14, "AG009"),
        (15, "AG009"),
    ]
    assert (
        "staged function '__call__' stores a computed value in global 'last'" in result[0].message
    )
    assert "leaks a symbolic tensor" in result[0].message
    assert "outer object 'self.cache' by attribute assignment" in result[3].message


def test_ag009_negatives(tmp_path):
    # Constant values are AG001 (plain mutation), Variables and locals are fine.
    assert codes(
        tmp_path,
        """
        import staging

        history = []

        class M:
            @staging.function
            def __call__(self, x):
                n = 3
                history.append(n)
                out = []
                out.append(x)
                if self.v is None:
                    self.v = staging.Variable(x)
                self.v.assign(x)
                return out
    """,
    ) == [(9, "AG001")]


# --- AG010: constructs the converter rejects ----------------------------------------------


def test_ag010_generators_and_async(tmp_path):
    result = findings(
        tmp_path,
        """
        import staging

        @staging.function
        def gen(x):
            yield x
            yield from range(3)

        @staging.function
        async def coro(x):
            return x
    """,
    )
    assert [(f.line, f.col, f.code) for f in result] == [
        (5, 5, "AG010"),
        (6, 5, "AG010"),
        (9, 11, "AG010"),
    ]
    assert "'yield' in staged function 'gen'" in result[0].message
    assert "'yield from'" in result[1].message
    assert "'async def'" in result[2].message


def test_ag010_try_and_with_around_symbolic_control_flow(tmp_path):
    result = findings(
        tmp_path,
        """
        import contextlib
        import staging

        @staging.function
        def f(x, n):
            try:
                if x > 0:
                    x = x - 1
            except ValueError:
                pass
            with contextlib.suppress(KeyError):
                for i in range(n):
                    x = x + i
            return x
    """,
    )
    assert [(f.line, f.code) for f in result] == [(6, "AG010"), (11, "AG010")]
    assert "'try' around control flow on 'x'" in result[0].message
    assert "'with contextlib.suppress' around control flow on 'n'" in result[1].message


def test_ag010_try_finally_and_other_context_managers_are_fine(tmp_path):
    assert (
        codes(
            tmp_path,
            """
        import threading
        import staging

        LOCK = threading.Lock()

        @staging.function
        def f(x):
            try:
                if x > 0:
                    x = x - 1
            finally:
                pass
            with LOCK:
                while x > 0:
                    x = x - 1
            return x
    """,
        )
        == []
    )


def test_ag010_negatives(tmp_path):
    assert (
        codes(
            tmp_path,
            """
        import staging

        @staging.function
        def f(x, flag=None):
            try:
                if isinstance(x, int):
                    x = x + 1
                if flag is None:
                    flag = True
                if x.shape[0] == 3:
                    x = x * 2
                for i in range(3):
                    x = x + i
            finally:
                pass
            def gen():
                yield 1
            return x
    """,
        )
        == []
    )


# --- noqa ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "comment, expected",
    [
        ("# noqa: AG002", [(7, "AG003")]),
        ("# noqa: AG003", [(7, "AG002")]),
        ("# noqa:AG002,AG003", []),
        ("# NOQA: ag002 ag003", []),
        ("# noqa", []),
        ("# noqa: E501", [(7, "AG003"), (7, "AG002")]),
        ("# a comment", [(7, "AG003"), (7, "AG002")]),
    ],
)
def test_noqa(tmp_path, comment, expected):
    source = (
        "import time\nimport staging\n\n\n@staging.function\ndef f(x):\n"
        f"    x = x + time.ctime(); log.info('t')  {comment}\n    return x\n"
    )
    assert codes(tmp_path, source) == expected


def test_noqa_inside_a_string_does_not_count(tmp_path):
    assert codes(
        tmp_path,
        """
        import staging

        @staging.function
        def f(x):
            log.info("# noqa")
            return x
    """,
    ) == [(5, "AG002")]
