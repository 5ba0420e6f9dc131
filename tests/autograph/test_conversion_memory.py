"""Conversion caches let go: memory per converted function does not depend on the length of
its file, converted sources leave linecache when the converted code is gone, the cache keyed
by code object keeps no module alive, and converting and dropping many functions leaves
memory flat (tests/test_stress.py). Bounds are relative (one size against another), with
generous margins."""

import gc
import importlib
import inspect
import itertools
import linecache
import sys
import tracemalloc
import weakref

import numpy as np
import pytest

import autograph
import staging
from autograph.impl import conversion
from staging.core import source_map

_IDS = itertools.count()

FUNCTION = """\
def f{i}(x):
    if x > 0:
        x = x + {i}
    else:
        x = x - {i}
    return x


"""


def _write_module(tmp_path, lines: int):
    """A module of about `lines` lines, made of small functions f0, f1, ..."""
    name = f"ag_memory_mod_{next(_IDS)}"
    per = FUNCTION.count("\n")
    text = "".join(FUNCTION.format(i=i) for i in range(max(lines // per, 6)))
    (tmp_path / f"{name}.py").write_text(text)
    return importlib.import_module(name)


@pytest.fixture
def modules(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    made = []

    def make(lines):
        mod = _write_module(tmp_path, lines)
        made.append(mod.__name__)
        return mod

    yield make
    for name in made:
        sys.modules.pop(name, None)


def _retained_per_function(mod, count=4) -> float:
    """Bytes that stay allocated per function converted (and kept) from `mod`."""
    functions = [getattr(mod, f"f{i}") for i in range(count + 1)]
    autograph.convert(functions[0])(1)  # the file's lines read and cached once
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = [autograph.convert(f) for f in functions[1:]]
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert [k(1) for k in kept] == [1 + i for i in range(1, count + 1)]
    return (after - before) / count


def test_memory_per_converted_function_does_not_grow_with_the_file(modules):
    small = _retained_per_function(modules(10))
    big = _retained_per_function(modules(10_000))
    # Before: a line table of the whole file per function (~1.2 MiB for 10k lines).
    assert big < 2 * small + 16_384, (small, big)


def test_module_globals_are_freed_when_the_module_is_gone(modules):
    mod = modules(20)
    assert autograph.convert(mod.f1)(3) == 4
    assert autograph.to_code(mod.f2)
    staged = staging.function(mod.f3)
    assert staged(np.float64(2.0)) == 5.0
    function, module = weakref.ref(mod.f1), weakref.ref(mod)
    sys.modules.pop(mod.__name__)
    del mod, staged
    gc.collect()
    assert module() is None
    assert function() is None  # the function, its globals and everything they hold


def _pseudo_function(i):
    """A function from a pseudo-file registered in linecache (as tools that generate code do)."""
    filename = f"<ag memory test {next(_IDS)}>"
    source = FUNCTION.format(i=i)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[f"f{i}"], filename


def test_converted_source_leaves_linecache_with_the_function():
    f, user_file = _pseudo_function(7)
    converted = autograph.convert(f)
    assert converted(1) == 8
    generated = conversion._BY_CODE[id(f.__code__)].filename
    assert source_map.is_generated(generated)
    # Tracebacks through the converted code read the user's text at the user's line numbers.
    assert linecache.getline(generated, 3) == "        x = x + 7\n"
    assert linecache.getline(generated, 2) == "    if x > 0:\n"
    assert inspect.getsource(conversion.converted_raw(f, object())).startswith("def f7(x):")
    assert source_map.lookup(generated, 3) == (user_file, 3)
    assert source_map.lookup(generated, 99) == (user_file, 6)  # added lines: the closest user line
    del f, converted
    linecache.cache.pop(user_file)
    gc.collect()
    assert generated not in linecache.cache
    assert not source_map.is_generated(generated)


def test_function_lines_are_only_the_functions_own():
    lines = source_map.FunctionLines(1000, ["def f(x):\n", "    return x\n"])
    assert len(lines) == 1001
    assert lines[999] == "def f(x):\n" and lines[-1] == "    return x\n" and lines[0] == ""
    assert lines[998:] == ["", "def f(x):\n", "    return x\n"]
    with pytest.raises(IndexError):
        lines[1001]
    assert list(lines)[-2:] == ["def f(x):\n", "    return x\n"]
