"""Every golden case with input specs saves, loads in a fresh process that never imports its
source (nor autograph), and gives outputs (and printed text, and errors) identical to the staged
function and to eager Python on the same inputs."""

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import staging
from autograph.golden import discover_cases, split_specs

ROOT = Path(__file__).resolve().parents[2]
CASES = discover_cases(ROOT / "golden")
# cases whose graphs the format refuses, with the SaveError message they give (tested below)
REFUSED = {
    "py_function": "calls a Python function (staging.py_function)",
    "random_draws": "random generators cannot be saved",
    "staged_try": "its attribute 'catch' is the Python object numpy.linalg.LinAlgError",
}

CHILD = r"""
import contextlib, io, json, sys
import numpy as np
import staging
manifest = json.load(open(sys.argv[1]))
report = {}
for name, item in manifest.items():
    loaded = staging.load(item["file"])
    texts = {"signatures": loaded.pretty_printed_concrete_signatures(), "graph": str(loaded.signatures[0].graph)}
    arrays = np.load(item["inputs"], allow_pickle=False)
    args = [arrays[a["npz"]] if isinstance(a, dict) else a for a in item["args"]]
    kwargs = {k: arrays[a["npz"]] if isinstance(a, dict) else a for k, a in item["kwargs"].items()}
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            result = loaded(*args, **kwargs)
    except Exception as exc:
        report[name] = {"error": [type(exc).__name__, str(exc).split("\n")[0]], "stdout": out.getvalue(), **texts}
        continue
    leaves = []
    def flat(v):
        if isinstance(v, dict):
            return ["dict", [[k, flat(v[k])] for k in sorted(v)]]
        if isinstance(v, (list, tuple)):
            return [type(v).__name__, [flat(x) for x in v]]
        leaves.append(v)
        return ["leaf", type(v).__name__]
    structure = flat(result)
    np.savez(item["outputs"], *[np.asarray(v) for v in leaves])
    report[name] = {"structure": structure, "stdout": out.getvalue(), **texts}
source_modules = [m for m, mod in sys.modules.items() if "golden" in str(getattr(mod, "__file__", "") or "")]
json.dump({"cases": report, "autograph_imported": "autograph" in sys.modules,
           "source_modules": source_modules}, open(sys.argv[2], "w"))
"""


def _inputs(spec, rng):
    if isinstance(spec, staging.TensorSpec):
        shape = tuple(3 if d is None else d for d in spec.shape)
        if spec.dtype.kind == "b":
            return rng.random(shape) < 0.5 if shape else np.bool_(rng.random() < 0.5)
        if spec.dtype.kind in "iu":
            value = rng.integers(1, 6, size=shape).astype(spec.dtype)
        else:
            value = (rng.random(shape) * 2 + 0.25).astype(spec.dtype)
        return value if shape else value[()]
    return spec


def _flatten(v):
    leaves = []

    def flat(v):
        if isinstance(v, dict):
            return ["dict", [[k, flat(v[k])] for k in sorted(v)]]
        if isinstance(v, (list, tuple)):
            return [type(v).__name__, [flat(x) for x in v]]
        leaves.append(v)
        return ["leaf", type(v).__name__]

    return flat(v), leaves


def _run(call, args, kwargs):
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            result = call(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001  (the error itself is compared)
        return {
            "error": [type(exc).__name__, str(exc).split("\n")[0]],
            "stdout": out.getvalue(),
        }, []
    structure, leaves = _flatten(result)
    return {"structure": structure, "stdout": out.getvalue()}, leaves


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _uses_variables(graph) -> bool:
    return any(n.op in ("read_variable", "assign_variable") for n in graph.walk())


@pytest.fixture(scope="module")
def roundtrip(tmp_path_factory):
    """Saves every case, runs them all loaded in one child process, returns what both sides gave."""
    tmp = tmp_path_factory.mktemp("saved")
    manifest, expected = {}, {}
    for case in CASES:
        func, specs = case.load()
        if specs is None or case.name in REFUSED:
            continue
        function = func if isinstance(func, staging.Function) else staging.function(func)
        spec_args, spec_kwargs = split_specs(specs)
        cf = function.get_concrete_function(*spec_args, **spec_kwargs)
        rng = np.random.default_rng(sum(map(ord, case.name)))
        args = [_inputs(s, rng) for s in spec_args]
        kwargs = {k: _inputs(s, rng) for k, s in spec_kwargs.items()}
        staging.save(cf, tmp / f"{case.name}.stg")
        arrays, encoded_args, encoded_kwargs = {}, [], {}
        for i, a in enumerate(args):
            if isinstance(a, (np.ndarray, np.generic)):
                arrays[f"a{i}"] = a
                encoded_args.append({"npz": f"a{i}"})
            else:
                encoded_args.append(a)
        for k, a in kwargs.items():
            if isinstance(a, (np.ndarray, np.generic)):
                arrays[f"k_{k}"] = a
                encoded_kwargs[k] = {"npz": f"k_{k}"}
            else:
                encoded_kwargs[k] = a
        np.savez(tmp / f"{case.name}.in.npz", **arrays)
        manifest[case.name] = {
            "file": str(tmp / f"{case.name}.stg"),
            "inputs": str(tmp / f"{case.name}.in.npz"),
            "outputs": str(tmp / f"{case.name}.out.npz"),
            "args": encoded_args,
            "kwargs": encoded_kwargs,
        }
        staged, staged_leaves = _run(
            cf, args, kwargs
        )  # first call after the save: same Variable state
        eager = None
        if not _uses_variables(cf.graph):
            eager = _run(function.python_function, args, kwargs)
        staged["signatures"], staged["graph"] = cf.pretty_printed_signature(), str(cf.graph)
        expected[case.name] = (staged, staged_leaves, eager)
    (tmp / "manifest.json").write_text(json.dumps(manifest))
    (tmp / "child.py").write_text(CHILD)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [
            sys.executable,
            str(tmp / "child.py"),
            str(tmp / "manifest.json"),
            str(tmp / "report.json"),
        ],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp / "report.json").read_text())
    return manifest, expected, report


def test_child_never_imported_the_sources(roundtrip):
    _, _, report = roundtrip
    assert report["source_modules"] == []
    assert report["autograph_imported"] is False


def test_enough_cases_round_trip(roundtrip):
    manifest, _, _ = roundtrip
    assert len(manifest) >= 55


@pytest.mark.parametrize("name", [c.name for c in CASES if c.name not in REFUSED])
def test_loaded_outputs_identical(roundtrip, name):
    manifest, expected, report = roundtrip
    if name not in manifest:
        pytest.skip("no input specs")
    staged, staged_leaves, eager = expected[name]
    got = report["cases"][name]
    assert (got["signatures"], got["graph"]) == (staged["signatures"], staged["graph"])
    assert got["stdout"] == staged["stdout"]
    if "error" in staged:
        assert got.get("error") == staged["error"]
        return
    assert got.get("structure") == json.loads(json.dumps(staged["structure"])), got
    with np.load(manifest[name]["outputs"], allow_pickle=False) as out:
        loaded_leaves = [out[f"arr_{i}"] for i in range(len(out.files))]
    assert len(loaded_leaves) == len(staged_leaves)
    for a, b in zip(loaded_leaves, staged_leaves):
        assert _same(a, b), (a, b)
    if eager is not None:
        eager_result, eager_leaves = eager
        assert (
            "error" not in eager_result
        )  # (eager prints differ where Python prints run only while tracing)
        assert len(eager_leaves) == len(staged_leaves)
        for a, b in zip(loaded_leaves, eager_leaves):
            assert _same(a, b), (a, b)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_cases_name_the_line(name, tmp_path):
    case = next(c for c in CASES if c.name == name)
    func, specs = case.load()
    function = func if isinstance(func, staging.Function) else staging.function(func)
    spec_args, spec_kwargs = split_specs(specs)
    cf = function.get_concrete_function(*spec_args, **spec_kwargs)
    with pytest.raises(staging.errors.SaveError, match=re.escape(REFUSED[name])) as info:
        staging.save(cf, tmp_path / "x.stg")
    if name == "py_function":
        assert f"{case.directory / 'source.py'}:13:" in str(info.value)
    assert not (tmp_path / "x.stg").exists()
