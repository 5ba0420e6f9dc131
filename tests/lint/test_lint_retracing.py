"""AG011 retracing-argument: staged functions called in loops with a changing Python number or
a new object, and the calls that are fine."""

from __future__ import annotations

import textwrap

from autograph.lint import lint_paths


def findings(tmp_path, source: str):
    path = tmp_path / "mod.py"
    path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return [f for f in lint_paths([path]) if f.code == "AG011"]


HEADER = """
    import numpy as np
    import staging


    @staging.function
    def step(x, lr):
        return x - lr * x


    class Config:
        def __init__(self, k):
            self.k = k
"""


def lines(result):
    return [f.line for f in result]


def marked(tmp_path):
    """The lines of mod.py marked `# AG011`."""
    text = (tmp_path / "mod.py").read_text(encoding="utf-8")
    return [i for i, line in enumerate(text.splitlines(), 1) if line.rstrip().endswith("# AG011")]


def test_changing_python_numbers(tmp_path):
    result = findings(
        tmp_path,
        HEADER
        + """
    def train(x):
        lr = 0.1
        for i in range(10):
            x = step(x, lr)        # AG011
            lr *= 0.9
            x = step(x, i)         # AG011
            x = step(x, i * 0.5)   # AG011
            x = step(x, lr=float(i))  # AG011
        t = 0.0
        while t < 1.0:
            x = step(x, t)         # AG011
            t += 0.1
        for j, row in enumerate([x, x]):
            step(row, j)           # AG011
        return [step(x, k) for k in range(3)]   # AG011
    """,
    )
    assert lines(result) == marked(tmp_path) and len(result) == 7
    assert result[0].col == 21  # the argument
    assert result[0].message == (
        "staged function 'step' is called in a loop with 'lr', a Python number that changes on "
        "every iteration: Python numbers are trace keys by value, so every iteration traces "
        "'step' again; pass a NumPy value instead, such as np.asarray(lr)"
    )
    assert "'i'" in result[1].message and "'t'" in result[4].message and "'k'" in result[6].message


def test_new_objects(tmp_path):
    result = findings(
        tmp_path,
        HEADER
        + """
    for i in range(3):
        step(np.ones(2), lambda v: v)   # AG011
        cfg = Config(i)
        step(np.ones(2), cfg)           # AG011
        step(np.ones(2), Config(2))     # AG011
    """,
    )
    assert lines(result) == marked(tmp_path) and len(result) == 3
    assert "a new lambda on every iteration" in result[0].message
    assert "a new object ('cfg') on every iteration" in result[1].message
    assert "a new Config object on every iteration" in result[2].message
    assert "objects are trace keys by identity" in result[2].message
    assert "create it once before the loop" in result[2].message


def test_fine_calls(tmp_path):
    result = findings(
        tmp_path,
        HEADER
        + """
    import dataclasses


    @dataclasses.dataclass
    class Params:
        lr: float


    class Keyed:
        def __eq__(self, other):
            return isinstance(other, Keyed)

        __hash__ = object.__hash__


    def train(x, lr):
        for i in range(10):
            x = step(x, np.float64(i))      # a NumPy value
            x = step(x, 0.5)                # a constant
            x = step(x, lr)                 # a parameter: not a Python number we know of
            x = step(x, Params(0.1))        # keyed by its fields
            x = step(x, Keyed())            # keyed by ==
            x = step(x, len(x))             # same value every iteration
        step(x, 0.1)                        # not in a loop
        return x


    @staging.function
    def staged_loop(x, n):
        for i in range(n):                  # a staged loop: i is symbolic
            x = step(x, i)
        return x
    """,
    )
    assert result == []


def test_staged_methods_and_wrapped_functions(tmp_path):
    result = findings(
        tmp_path,
        """
        import staging


        class Model:
            @staging.function
            def apply(self, x, k):
                return x * k


        def plain(x, k):
            return x + k


        fast = staging.function(plain)


        def run(model, x):
            for k in range(4):
                model.apply(x, k)   # AG011
                fast(x, k)          # AG011
                plain(x, k)         # not staged
    """,
    )
    assert lines(result) == marked(tmp_path) and len(result) == 2
    assert "staged function 'apply'" in result[0].message
    assert "staged function 'plain'" in result[1].message


def test_noqa_and_select(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text(
        textwrap.dedent(
            HEADER
            + """
    for i in range(3):
        step(np.ones(2), i)  # noqa: AG011
        step(np.ones(2), i)
    """
        ).lstrip("\\n"),
        encoding="utf-8",
    )
    last = len(path.read_text(encoding="utf-8").splitlines())
    assert [(f.line, f.code) for f in lint_paths([path])] == [(last, "AG011")]
    assert lint_paths([path], select=frozenset({"AG001"})) == []
