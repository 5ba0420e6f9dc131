"""The layering of the packages: runtime <- staging <- autograph, and no import cycles."""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("runtime", "staging", "autograph")


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, pathlib.Path]:
    return {
        _module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))
    }


MODULES = _modules()


def _resolve(module: str, path: pathlib.Path, node) -> list[str]:
    """The project modules an import statement imports (`from a import b` is a.b when that is a
    module, else a)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join(package + ([base] if base else []))
    return [
        f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
        for alias in node.names
    ]


def _imports() -> dict[str, list[tuple[str, bool]]]:
    """module -> [(imported project module, at module level)]."""
    graph: dict = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top_level = {id(n) for n in tree.body}
        edges = []
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _resolve(module, path, node):
                    while target and target not in MODULES:  # `import a.b.c` -> the deepest module
                        target = target.rpartition(".")[0]
                    if target:
                        edges.append((target, id(node) in top_level))
        graph[module] = edges
    return graph


IMPORTS = _imports()


def _layer(module: str) -> str:
    return module.split(".")[0]


def test_runtime_imports_neither_staging_nor_autograph():
    bad = [
        (m, t)
        for m, edges in IMPORTS.items()
        if _layer(m) == "runtime"
        for t, _ in edges
        if _layer(t) != "runtime"
    ]
    assert not bad


def test_staging_never_imports_autograph_at_module_level():
    bad = [
        (m, t)
        for m, edges in IMPORTS.items()
        if _layer(m) == "staging"
        for t, top in edges
        if _layer(t) == "autograph" and top
    ]
    assert not bad
    lazy = {
        m
        for m, edges in IMPORTS.items()
        if _layer(m) == "staging"
        for t, _ in edges
        if _layer(t) == "autograph"
    }
    assert lazy <= {"staging.functions.function"}  # the autograph=True path converts lazily


CONVERTER = (
    "autograph",
    "autograph.impl",
    "autograph.operators",
    "autograph.converters",
    "autograph.pyct",
)


def test_the_converter_uses_the_staging_core_not_the_function_layer():
    """staging.function converts with autograph; the converter itself builds on the tracing core
    (the command line, golden files and pytest plugin sit on top of both)."""
    converter = [m for m in IMPORTS if m == "autograph" or m.startswith(CONVERTER[1:])]
    assert "autograph.impl.api" in converter
    bad = [
        (m, t)
        for m in converter
        for t, _ in IMPORTS[m]
        if t == "staging" or t.startswith(("staging.functions", "staging.saving"))
    ]
    assert not bad


def test_no_import_cycles_including_function_level_imports():
    graph = {m: sorted({t for t, _ in edges if t != m}) for m, edges in IMPORTS.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles = []

    def visit(module, path):
        state[module] = 1
        for target in graph.get(module, ()):
            if state.get(target) == 1:
                cycles.append(path[path.index(target) :] + [target])
            elif target not in state:
                visit(target, path + [target])
        state[module] = 2

    for module in graph:
        if module not in state:
            visit(module, [module])
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)


def test_the_import_graph_sees_lazy_imports():
    """The checks above would pass vacuously if function-level imports were missed."""
    assert ("autograph", False) in IMPORTS["staging.functions.function"]


# staging's subpackages by role, each importing only those before it (lazily too): the tracing
# core, the per-path model of a value, Python state, control flow, run-time effects, NumPy on
# symbolic tensors, the Function layer, saving; `errors` is below them all, the package face
# above.
STAGING_LAYERS = (
    "errors",
    "core",
    "kinds",
    "state",
    "control_flow",
    "effects",
    "numpy_api",
    "functions",
    "gradients",
    "saving",
)


def _staging_layer(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] != "staging" or len(parts) == 1:
        return None
    return STAGING_LAYERS.index(parts[1])


def test_every_staging_module_is_in_a_layer():
    modules = [m for m in MODULES if m.startswith("staging.")]
    assert modules and all(m.split(".")[1] in STAGING_LAYERS for m in modules)


def test_staging_subpackages_import_only_the_layers_below_them():
    bad = [
        (m, t)
        for m, edges in IMPORTS.items()
        if _staging_layer(m) is not None
        for t, _ in edges
        if _staging_layer(t) is not None and _staging_layer(t) > _staging_layer(m)
    ]
    assert not bad, "\n".join(f"{m} imports {t}" for m, t in bad)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_modules_start_with_a_docstring(module):
    """(How long a function may be, and how branchy, is ruff's to check: tests/test_code_quality.py.)"""
    path = MODULES[module]
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    assert docstring, f"{path.relative_to(ROOT)} has no module docstring"
