"""Every golden case with specs runs on the interpreter and compiled by JAX (jit_compile=True)
on the same inputs, and both agree: integers and bools bitwise, floats within the tolerance of
docs/jax.md; Variables end with the same values; a case one backend cannot run is listed."""

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax")

import staging  # noqa: E402
from autograph.golden import discover_cases, split_specs  # noqa: E402
from runtime.jax_lowering import LoweringError  # noqa: E402
from runtime.jax_lowering.values import called_graphs  # noqa: E402

GOLDEN_ROOT = Path(__file__).resolve().parent.parent / "golden"
CASES = [c for c in discover_cases(GOLDEN_ROOT) if c.load()[1] is not None]

# the documented tolerance (docs/jax.md): XLA may reassociate and fuse float arithmetic
RTOL, ATOL = 1e-6, 1e-12

# cases the JAX backend refuses, each with why (the refusal itself is checked)
REFUSED = {
    "random_draws": "reads a random generator at run time",
    "list_append_staged_loop": "a list appended in a staged loop has no static bound",
    "comprehension_filter": "a comprehension with a staged `if` builds a list with no static bound",
    "comprehension_range": "a comprehension over range(n) builds a list with no static bound",
    "tensor_array_write_stack": "a TensorArray written in a staged loop",
    "loop_variable_changes_shape": "a loop variable whose shape changes between iterations",
    "fstring_in_loop": "a staged string (a Python str is not an array)",
    "staged_try": "a `try` whose `except` clause catches an error raised when the graph runs",
}


def sample(spec, rng):
    """A value of the spec's type: small positive numbers (loops in the corpus count down)."""
    shape = tuple(3 if d is None else d for d in spec.shape)
    dtype = np.dtype(spec.dtype)
    if dtype.kind == "b":
        value = rng.integers(0, 2, size=shape).astype(bool)
    elif dtype.kind in "iu":
        value = rng.integers(1, 9, size=shape).astype(dtype)
    else:
        value = rng.uniform(0.5, 4.0, size=shape).astype(dtype)
    return value[()] if value.ndim == 0 else value


def fill(specs, rng):
    args, kwargs = split_specs(specs)

    def one(s):
        return sample(s, rng) if isinstance(s, staging.TensorSpec) else s

    return tuple(one(a) for a in args), {k: one(v) for k, v in kwargs.items()}


def variables_of(cf):
    found = {}
    for graph in called_graphs(cf.graph):
        for node in graph.walk():
            var = node.attrs.get("var")
            if var is not None:
                found[id(var)] = var
    return list(found.values())


def run(staged, args, kwargs, variables, start):
    for var, value in zip(variables, start):
        var._value = value
    try:
        result = staged(*args, **kwargs)
    except LoweringError:
        raise
    except Exception as error:  # noqa: BLE001 - both backends must raise the same
        result = error
    return result, [np.array(v._value) for v in variables]


def assert_agree(a, b, path="result"):
    if isinstance(a, Exception):
        assert type(b) is type(a), f"{path}: {b!r} vs {a!r}"
        assert str(b) == str(a)
        return
    assert type(a) is type(b), f"{path}: {type(b)} vs {type(a)}"
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for i, (x, y) in enumerate(zip(a, b)):
            assert_agree(x, y, f"{path}[{i}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            assert_agree(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, (np.ndarray, np.generic, int, float, bool, complex)):
        x, y = np.asarray(a), np.asarray(b)
        assert x.dtype == y.dtype and x.shape == y.shape, (
            f"{path}: {y.dtype}{y.shape} vs {x.dtype}{x.shape}"
        )
        if x.dtype.kind in "fc":
            np.testing.assert_allclose(y, x, rtol=RTOL, atol=ATOL, err_msg=path)
        else:
            np.testing.assert_array_equal(y, x, err_msg=path)
    else:
        assert a == b, path


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_case_agrees_on_both_backends(case, capsys):
    func, specs = case.load()
    cf = staging.function(func).get_concrete_function(
        *split_specs(specs)[0], **split_specs(specs)[1]
    )
    variables = variables_of(cf)
    start = [v._value for v in variables]
    interpreted, compiled = staging.function(func), staging.function(func, jit_compile=True)
    for seed in range(3):
        args, kwargs = fill(specs, np.random.default_rng(seed))
        capsys.readouterr()
        expected, expected_vars = run(interpreted, args, kwargs, variables, start)
        expected_out = capsys.readouterr().out
        if case.name in REFUSED:
            with pytest.raises(LoweringError, match=r"source\.py:\d+: cannot compile"):
                run(compiled, args, kwargs, variables, start)
            return
        got, got_vars = run(compiled, args, kwargs, variables, start)
        assert capsys.readouterr().out == expected_out  # staged prints: same text, same order
        assert_agree(expected, got)
        assert_agree(expected_vars, got_vars, "variables")
    for var, value in zip(variables, start):
        var._value = value
