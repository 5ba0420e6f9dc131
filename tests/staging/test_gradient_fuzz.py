"""Random differentiable programs: staging.grad against jax.grad on the same source.

Programs are drawn from a small grammar of smooth NumPy code with the control flow users write
(branches on values, fixed loops, loops that stop on the data), over a float64 vector. Each is
written once against an array module `xp` and differentiated both ways; the gradients agree to
1e-9 (random inputs keep kinks and ties away). GRADIENT_FUZZ_EXAMPLES sets how many programs
(default 25); GRADIENT_FUZZ_SEED the seed.
"""

from __future__ import annotations

import functools
import importlib.util
import os

import numpy as np
import pytest

import staging

jax = pytest.importorskip("jax")
hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies

EXAMPLES = int(os.environ.get("GRADIENT_FUZZ_EXAMPLES", "25"))
SEED = int(os.environ.get("GRADIENT_FUZZ_SEED", "0"))

UNARY = (
    "xp.sin({0})",
    "xp.cos({0})",
    "xp.tanh({0})",
    "xp.exp(0.3 * {0})",
    "xp.log1p({0} * {0})",
    "xp.sqrt(1.0 + {0} * {0})",
    "xp.arctan({0})",
    "({0} / (1.0 + {0} * {0}))",
    "xp.cumsum({0})",
    "({0} - xp.mean({0}))",
    "xp.where({0} > 0.1, {0} * {0}, -0.5 * {0})",
    "({0} * xp.sum({0} * {0}))",
    "{0}[::-1]",
)
BINARY = (
    "({0} + {1})",
    "({0} - {1})",
    "({0} * {1})",
    "xp.maximum({0}, {1} + 0.05)",
    "({0} * 0.5 + {1} * 0.25)",
)


@st.composite
def expressions(draw, names, depth=2):
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from(names))
    if draw(st.booleans()):
        inner = draw(expressions(names, depth - 1))
        return draw(st.sampled_from(UNARY)).format(inner)
    left = draw(expressions(names, depth - 1))
    right = draw(expressions(names, depth - 1))
    return draw(st.sampled_from(BINARY)).format(left, right)


@st.composite
def statements(draw, names, depth=2):
    """Lines (indented by 4) assigning new names; returns (lines, names after)."""
    kinds = (
        ("assign", "assign", "if", "for", "while", "accumulate", "collect")
        if depth
        else ("assign",)
    )
    kind = draw(st.sampled_from(kinds))
    target = f"v{len(names)}"
    if kind == "assign":
        return [f"{target} = {draw(expressions(names))}"], names + [target]
    if kind == "if":
        test = draw(expressions(names, 1))
        threshold = draw(st.floats(-0.5, 0.5)).__round__(2)
        body, made = draw(statements(names, depth - 1))
        other, made_other = draw(statements(names, depth - 1))
        yes = [f"    {line}" for line in body] + [f"    {target} = {made[-1]}"]
        no = [f"    {line}" for line in other] + [f"    {target} = {made_other[-1]}"]
        return [f"if xp.sum({test}) > {threshold}:", *yes, "else:", *no], names + [target]
    update = draw(expressions(names + [target], 1))
    if kind == "for":
        count = draw(st.integers(1, 4))
        lines = [
            f"{target} = {draw(st.sampled_from(names))}",
            f"for _ in range({count}):",
            f"    {target} = 0.5 * {target} + 0.25 * xp.tanh({update})",
        ]
        return lines, names + [target]
    limit = draw(st.floats(0.5, 3.0)).__round__(2)
    if kind == "collect":  # a list a staged loop appends to, read back and stacked
        lines = [
            f"ys = [{draw(st.sampled_from(names))}]",
            "k = 0",
            f"while k < 5 and xp.sum(ys[k] * ys[k]) < {limit}:",
            f"    ys.append(ys[k] * 1.2 + 0.1 * xp.sin({draw(expressions(names, 1))}))",
            "    k += 1",
            f"{target} = xp.sum(xp.stack(ys), axis=0)",
        ]
        return lines, names + [target]
    if kind == "accumulate":  # a Python float that becomes a NumPy value in a staged loop
        lines = [
            "acc = 0.0",
            "k = 0",
            f"while acc < {limit} and k < 6:",
            f"    acc = acc + 0.3 * xp.sum(xp.tanh({draw(expressions(names, 1))}))",
            "    k += 1",
            f"{target} = {draw(st.sampled_from(names))} * acc",
        ]
        return lines, names + [target]
    lines = [
        f"{target} = {draw(st.sampled_from(names))}",
        "k = 0",
        f"while xp.sum({target} * {target}) < {limit} and k < 6:",
        f"    {target} = {target} * 1.3 + 0.1 * xp.sin({update})",
        "    k += 1",
    ]
    return lines, names + [target]


@st.composite
def programs(draw):
    names = ["x"]
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        more, names = draw(statements(names))
        lines += more
    result = draw(expressions(names))
    body = "\n".join(f"    {line}" for line in lines + [f"return xp.sum({result})"])
    return f"def prog(xp, x):\n{body}\n"


def _load(source: str, directory):
    path = directory / f"prog_{abs(hash(source))}.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.prog


def test_random_programs_agree_with_jax_grad(tmp_path, jax_float64):
    compared = []

    @hypothesis.settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        phases=[hypothesis.Phase.generate],
        suppress_health_check=list(hypothesis.HealthCheck),
    )
    @hypothesis.seed(SEED)
    @hypothesis.given(programs(), st.integers(0, 2**31))
    def check(source, draw_seed):
        prog = _load(source, tmp_path)
        x = np.random.default_rng(draw_seed).uniform(-1.0, 1.0, 3)
        expected = np.asarray(jax.grad(functools.partial(prog, jax.numpy))(jax.numpy.asarray(x)))
        if not np.all(np.isfinite(expected)):
            return
        found = staging.grad(functools.partial(prog, np))(x)
        np.testing.assert_allclose(found, expected, rtol=1e-9, atol=1e-12, err_msg=source)
        compared.append(source)

    check()
    assert len(compared) >= EXAMPLES // 2  # (most programs have a finite gradient)
    assert any("while" in s for s in compared) and any("if" in s for s in compared)
