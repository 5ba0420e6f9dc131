"""Source caches: an edited file is re-read for a new code object, the same code object
is converted once, and functions from pseudo-files registered in linecache convert."""

import importlib
import itertools
import linecache
import os
import sys
import types

import pytest

import autograph
from autograph.impl import api
from autograph.pyct import parser
from staging import errors

_IDS = itertools.count()

OLD = """\
import math


def f(x):
    if x > 0:
        return x + 1
    return x - 1


g = lambda x: x + 1


def other(x):
    return x
"""

# Same first lines for `f` and `g`, different bodies, different length.
NEW = """\
import math


def f(x):
    if x > 0:
        y = x * 100
        return y - 7
    return x - 1000


g = lambda x: x * 2 + 5


def other(x):
    return x
"""


@pytest.fixture
def module_file(tmp_path, monkeypatch):
    """(write, load, reload): a module in a temporary directory, edited in place."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    name = f"ag_source_cache_mod_{next(_IDS)}"
    path = tmp_path / f"{name}.py"

    def write(text, bump=0):
        path.write_text(text)
        if bump:  # a different mtime too, whatever the file system's resolution
            st = os.stat(path)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + bump * 10**9))

    def load():
        importlib.invalidate_caches()
        return importlib.import_module(name)

    yield write, load, importlib.reload
    sys.modules.pop(name, None)
    linecache.checkcache(str(path))


def test_to_code_sees_edited_file_after_reload(module_file):
    write, load, reload = module_file
    write(OLD)
    mod = load()
    old_f, old_g = mod.f, mod.g
    assert "x + 1" in autograph.to_code(old_f)
    assert "x + 1" in autograph.to_code(old_g)
    write(NEW, bump=10)
    mod = reload(mod)
    assert mod.f.__code__ is not old_f.__code__
    code = autograph.to_code(mod.f)
    assert "x * 100" in code and "y - 7" in code and "x - 1000" in code
    assert "x + 1" not in code
    assert "x * 2 + 5" in autograph.to_code(mod.g)
    # The old function objects keep their conversion (cached per code object).
    assert "x + 1" in autograph.to_code(old_f)


def test_convert_runs_edited_body_after_reload(module_file):
    write, load, reload = module_file
    write(OLD)
    mod = load()
    assert autograph.convert(mod.f)(3) == 4
    assert autograph.convert(mod.f)(-3) == -4
    assert autograph.convert(mod.g)(3) == 4
    write(NEW, bump=10)
    mod = reload(mod)
    assert mod.f(3) == 293 and mod.f(-3) == -1003 and mod.g(3) == 11
    assert autograph.convert(mod.f)(3) == 293
    assert autograph.convert(mod.f)(-3) == -1003
    assert autograph.convert(mod.g)(3) == 11


def test_stale_linecache_is_rechecked(module_file):
    """linecache holds the old text (another function of the file was converted), `f` never was."""
    write, load, reload = module_file
    write(OLD)
    mod = load()
    assert "return x" in autograph.to_code(mod.other)
    assert linecache.getlines(mod.__file__) == OLD.splitlines(True)
    write(NEW, bump=10)
    mod = reload(mod)
    assert autograph.convert(mod.f)(3) == 293
    assert "y - 7" in autograph.to_code(mod.f)


def _exec_pseudo(filename, source, name):
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def test_pseudo_file_in_linecache_converts():
    filename = f"<source cache test {next(_IDS)}>"
    try:
        f = _exec_pseudo(filename, OLD, "f")
        assert autograph.convert(f)(3) == 4
        assert "x + 1" in autograph.to_code(f)
        g = _exec_pseudo(filename, OLD, "g")
        assert autograph.convert(g)(3) == 4
        assert filename in linecache.cache  # checkcache leaves entries with no mtime alone
        # Registered again under the same name with other text: the new text is used.
        f = _exec_pseudo(filename, NEW, "f")
        assert autograph.convert(f)(3) == 293
        assert "y - 7" in autograph.to_code(f)
        g = _exec_pseudo(filename, NEW, "g")
        assert autograph.convert(g)(3) == 11
    finally:
        linecache.cache.pop(filename, None)


def test_unavailable_source_still_an_error():
    namespace = {}
    # (a function with control flow: one with nothing to convert is traced as it is)
    exec(
        compile("def h(x):\n    return x if x else -x\n", f"<no such source {next(_IDS)}>", "exec"),
        namespace,
    )
    with pytest.raises(errors.ConversionError, match="unavailable"):
        autograph.convert(namespace["h"])


def test_functions_with_nothing_to_convert_are_traced_as_they_are():
    namespace = {}
    exec(
        compile(
            "def h(x):\n    y = x * 2 + 1\n    return -y\n",
            f"<no such source {next(_IDS)}>",
            "exec",
        ),
        namespace,
    )
    h = namespace["h"]
    assert api.converted_raw(h) is h  # no source needed: nothing in it behaves differently staged
    namespace = {}
    exec(
        compile("def k(x):\n    return print(x)\n", f"<no such source {next(_IDS)}>", "exec"),
        namespace,
    )
    with pytest.raises(errors.ConversionError, match="unavailable"):
        api.converted_raw(namespace["k"])  # a call: it may be print, which is staged differently


def test_same_code_object_hits_cache_without_parse_or_stat(module_file, monkeypatch):
    write, load, _ = module_file
    write(OLD)
    mod = load()
    raw = api.converted_raw(mod.f)
    text = autograph.to_code(mod.f)

    counts = {"parse": 0, "checkcache": 0, "stat": 0}
    real_parse, real_checkcache, real_stat = parser.ast.parse, linecache.checkcache, os.stat

    def parse(*a, **k):
        counts["parse"] += 1
        return real_parse(*a, **k)

    def checkcache(*a, **k):
        counts["checkcache"] += 1
        return real_checkcache(*a, **k)

    def stat(path, *a, **k):
        if os.fspath(path) == mod.__file__:
            counts["stat"] += 1
        return real_stat(path, *a, **k)

    monkeypatch.setattr(parser.ast, "parse", parse)
    monkeypatch.setattr(linecache, "checkcache", checkcache)
    monkeypatch.setattr(os, "stat", stat)

    # The converted code is made once per code object (the function object around it per call,
    # so that no cache holds a module's globals).
    assert api.converted_raw(mod.f).__code__ is raw.__code__
    assert autograph.convert(mod.f)(3) == 4
    assert autograph.to_code(mod.f) == text
    # Another function object of the same code object: converted once per code object.
    twin = types.FunctionType(mod.f.__code__, mod.f.__globals__, "f")
    assert api.converted_raw(twin).__code__ is raw.__code__
    assert autograph.convert(twin)(-3) == -4
    monkeypatch.undo()
    assert counts == {"parse": 0, "checkcache": 0, "stat": 0}


RENAMED = OLD.replace("def f(x):", "def f2(x):")
NEW_ARGS = OLD.replace("def f(x):", "def f(x, scale=2):")
SHORTER = OLD.replace("    if x > 0:\n        return x + 1\n", "")


@pytest.mark.parametrize(
    "edited, problem",
    [
        (RENAMED, "the source at that line now defines 'f2'"),
        (NEW_ARGS, "its source now takes (x, scale), the running function takes (x)"),
        (SHORTER, "its source now ends at line 5, the running function has code on line 7"),
    ],
)
def test_edited_without_reload_is_refused(module_file, edited, problem):
    """The file changed and the module was not reloaded: the running `f` is not the one in the
    file, and converting the file's version would run other code."""
    write, load, _ = module_file
    write(OLD)
    mod = load()
    write(edited, bump=10)
    with pytest.raises(errors.ConversionError) as e:
        autograph.convert(mod.f)
    message = str(e.value)
    assert f"cannot convert 'f' at {mod.__file__}:4: " in message and problem in message
    assert "reload its module" in message


def test_edited_lambda_without_reload_is_refused(module_file):
    write, load, _ = module_file
    write(OLD)
    mod = load()
    write(OLD.replace("g = lambda x: x + 1", "g = lambda y: y + 1"), bump=10)
    with pytest.raises(errors.ConversionError) as e:
        autograph.to_code(mod.g)
    assert f"the lambda at {mod.__file__}:10" in str(e.value)


def test_edited_body_below_the_function_is_fine(module_file):
    write, load, _ = module_file
    write(OLD)
    mod = load()
    write(OLD.replace("def other(x):\n    return x", "def other(x):\n    return x * 3"), bump=10)
    assert autograph.convert(mod.f)(3) == 4
