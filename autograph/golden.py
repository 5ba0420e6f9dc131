"""Golden files: compare converted code and staged graphs with checked-in text, or rewrite them.

Shared by the pytest plugin (`autograph.pytest_plugin`, the `golden` fixture), the
project's own corpus test (`tests/test_golden.py`) and the command line.

A corpus case is a directory holding three files:

    source.py          a module defining the function (``f`` unless a header line
                       ``# golden: function=NAME`` names another) and ``SPECS``: a dict
                       (argument name -> staging.TensorSpec or Python value) or a list
                       (positional arguments) giving the inputs the graph is traced for
    converted.py.txt   the expected ``autograph.to_code`` output
    graph.txt          the expected ``str(cf.graph)`` of the concrete function for SPECS
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib.util
import linecache
import os
import re
import sys
import types
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

SOURCE_FILE = "source.py"
CONVERTED_FILE = "converted.py.txt"
GRAPH_FILE = "graph.txt"
DEFAULT_FUNCTION = "f"
UPDATE_HINT = "run `pytest --update-golden` to accept the new output"

_HEADER = re.compile(r"^#\s*golden:\s*function\s*=\s*([A-Za-z_][\w.]*)\s*$", re.MULTILINE)


class GoldenMismatch(AssertionError):
    """Actual text differs from a golden file (the message holds a unified diff)."""


# ---------------------------------------------------------------------------
# Comparing and rewriting text


def normalize(text: str) -> str:
    """Golden text form: Unix newlines, no trailing whitespace on lines, one final newline."""
    lines = text.replace("\r\n", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).rstrip("\n") + "\n"


def unified_diff(expected: str, actual: str, path: str | os.PathLike) -> str:
    """A unified diff from the golden text to the actual text."""
    return "".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            fromfile=f"{path} (golden)",
            tofile=f"{path} (actual)",
        )
    )


def check_text(path: str | os.PathLike, actual: str, *, update: bool = False) -> bool:
    """Compares `actual` with the golden file at `path`; with `update`, rewrites it instead.

    Returns True when the file was (re)written. Raises GoldenMismatch with a unified
    diff when the texts differ (or the file is missing) and `update` is false.
    """
    __tracebackhide__ = True
    path = Path(path)
    actual = normalize(actual)
    expected = path.read_text(encoding="utf-8") if path.is_file() else None
    if expected == actual:
        return False
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8", newline="\n")
        return True
    if expected is None:
        raise GoldenMismatch(f"golden file {path} does not exist; {UPDATE_HINT}")
    raise GoldenMismatch(
        f"output differs from golden file {path}; {UPDATE_HINT}\n"
        + unified_diff(expected, actual, path)
    )


# ---------------------------------------------------------------------------
# Rendering: converted code and graph text


def converted_text(func) -> str:
    """`autograph.to_code(func)` in golden text form."""
    import autograph

    func = _python_function(func)
    _refresh_source(func)
    return normalize(autograph.to_code(func))


def _refresh_source(func) -> None:
    """Drops stale cached lines of `func`'s file (it may have been edited since last read)."""
    filename = getattr(getattr(func, "__code__", None), "co_filename", None)
    if filename:
        linecache.checkcache(filename)


def concrete_function(func, specs: Mapping[str, Any] | Sequence[Any] | None = None):
    """The concrete function of `func` (plain or staging.Function) for `specs`."""
    import staging

    _refresh_source(_python_function(func))
    function = func if isinstance(func, staging.Function) else staging.function(func)
    args, kwargs = split_specs(specs)
    return function.get_concrete_function(*args, **kwargs)


def graph_text(func, specs: Mapping[str, Any] | Sequence[Any] | None = None) -> str:
    """`str(cf.graph)` of `func` traced for `specs`, in golden text form."""
    return normalize(str(concrete_function(func, specs).graph))


def split_specs(specs) -> tuple[tuple, dict]:
    """(args, kwargs) from a dict of keyword specs, a list/tuple of positional ones, or None."""
    if specs is None:
        return (), {}
    if isinstance(specs, Mapping):
        return (), dict(specs)
    if isinstance(specs, (list, tuple)):
        return tuple(specs), {}
    raise TypeError(f"specs must be a dict or a list, not {type(specs).__name__}")


def _python_function(func):
    import staging

    if isinstance(func, staging.Function):
        return func.python_function
    return func


# ---------------------------------------------------------------------------
# Loading user source files (also used by the command line)


def load_module(path: str | os.PathLike, module_name: str | None = None) -> types.ModuleType:
    """Imports the Python file at `path` as a module (its directory goes on sys.path first).

    The module is registered in sys.modules under `module_name` (default: a name derived
    from the file name) so that inspect.getsource and pickling work on its functions.
    """
    path = Path(path).resolve()
    name = module_name or "_autograph_user_" + re.sub(r"\W", "_", path.stem)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    directory = str(path.parent)
    added = directory not in sys.path
    if added:
        sys.path.insert(0, directory)
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    finally:
        if added:
            try:
                sys.path.remove(directory)
            except ValueError:
                pass
    return module


def resolve(module: types.ModuleType, dotted: str):
    """The object named by `dotted` ("f", "Model.call", "model.apply") in `module`."""
    obj: Any = module
    walked = []
    for part in dotted.split("."):
        walked.append(part)
        try:
            obj = getattr(obj, part)
        except AttributeError:
            where = getattr(module, "__file__", module.__name__)
            raise LookupError(f"{where} has no {'.'.join(walked)!r}") from None
    return obj


def function_name(source_text: str) -> str:
    """The function a case's source names in a `# golden: function=NAME` header, else "f"."""
    match = _HEADER.search(source_text)
    return match.group(1) if match else DEFAULT_FUNCTION


# ---------------------------------------------------------------------------
# The corpus


@dataclasses.dataclass(frozen=True)
class GoldenCase:
    """One corpus case: a directory with source.py, converted.py.txt and graph.txt."""

    name: str
    directory: Path

    @property
    def source_path(self) -> Path:
        return self.directory / SOURCE_FILE

    @property
    def converted_path(self) -> Path:
        return self.directory / CONVERTED_FILE

    @property
    def graph_path(self) -> Path:
        return self.directory / GRAPH_FILE

    def load(self):
        """(function, specs) defined by the case's source.py."""
        text = self.source_path.read_text(encoding="utf-8")
        module = load_module(self.source_path, "golden_case_" + re.sub(r"\W", "_", self.name))
        func = resolve(module, function_name(text))
        specs = getattr(module, "SPECS", None)
        return func, specs

    def converted_text(self) -> str:
        func, _ = self.load()
        return converted_text(func)

    def graph_text(self) -> str:
        func, specs = self.load()
        return graph_text(func, specs)


def discover_cases(root: str | os.PathLike) -> list[GoldenCase]:
    """Every case directory under `root` (one holding source.py), sorted by name."""
    root = Path(root)
    if not root.is_dir():
        return []
    return [
        GoldenCase(d.name, d)
        for d in sorted(root.iterdir())
        if d.is_dir() and (d / SOURCE_FILE).is_file()
    ]


def check_case(
    case: GoldenCase, *, update: bool = False, parts: Iterable[str] = ("converted", "graph")
):
    """Checks (or rewrites) a case's golden files; returns the paths rewritten.

    Every part is checked before failing, so one run reports (or updates) them all.
    """
    __tracebackhide__ = True
    func, specs = case.load()
    written, failures = [], []
    for part in parts:
        if part == "converted":
            path, render = case.converted_path, lambda: converted_text(func)
        elif part == "graph":
            path, render = case.graph_path, lambda: graph_text(func, specs)
        else:
            raise ValueError(f"unknown golden part {part!r}")
        try:
            if check_text(path, render(), update=update):
                written.append(path)
        except GoldenMismatch as mismatch:
            failures.append(str(mismatch))
    if failures:
        raise GoldenMismatch("\n".join(failures))
    return written


# ---------------------------------------------------------------------------
# The object behind the `golden` fixture


class Golden:
    """Checks text, converted code and graphs against files under `directory`.

    Names are relative to `directory` (absolute paths are used as they are). With
    `update`, files are rewritten instead of compared; `written` lists them.
    """

    def __init__(self, directory: str | os.PathLike, update: bool = False):
        self.directory = Path(directory)
        self.update = update
        self.written: list[Path] = []

    def path(self, name: str | os.PathLike) -> Path:
        return self.directory / name

    def check(self, name: str | os.PathLike, text: str) -> None:
        """Compares `text` with the golden file `name` (or rewrites it under --update-golden)."""
        __tracebackhide__ = True
        path = self.path(name)
        if check_text(path, text, update=self.update):
            self.written.append(path)

    def check_code(self, func, name: str | os.PathLike | None = None) -> None:
        """Compares `autograph.to_code(func)` with `name` (default `<qualname>.converted.py.txt`)."""
        __tracebackhide__ = True
        self.check(name or f"{_qualname(func)}.converted.py.txt", converted_text(func))

    def check_graph(self, func, specs=None, name: str | os.PathLike | None = None) -> None:
        """Compares the graph of `func` traced for `specs` with `name` (default `<qualname>.graph.txt`).

        `specs`: a dict (argument name -> TensorSpec or value) or a list of positional ones.
        """
        __tracebackhide__ = True
        self.check(name or f"{_qualname(func)}.graph.txt", graph_text(func, specs))

    def check_case(self, case: GoldenCase) -> None:
        """Checks both golden files of a corpus case."""
        __tracebackhide__ = True
        self.written.extend(check_case(case, update=self.update))


def _qualname(func) -> str:
    func = _python_function(func)
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None)
    if not name:
        raise TypeError(f"cannot name a golden file after {func!r}; pass name=...")
    return name.replace("<locals>.", "").replace("<", "").replace(">", "")
