"""A source file edited after its module was imported: when the definition in the file no longer
compiles to the code that runs (even on the very same lines), converting it would compute
something else than the function called, so it is refused with staging.errors.SourceChangedError
naming the file. Unchanged files, however unusual their functions, convert as before."""

import importlib
import itertools
import linecache
import os
import sys

import numpy as np
import pytest

import autograph
import staging
from staging import errors

_IDS = itertools.count()

ORIGINAL = """\
import numpy as np


def f(x):
    if x.sum() > 0:
        return x * 2
    return x


def g(x):
    return np.sin(x) + 1.0
"""


@pytest.fixture
def module_file(tmp_path, monkeypatch):
    """(write, load): a module in a temporary directory, edited in place after import."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    name = f"ag_source_edits_mod_{next(_IDS)}"
    path = tmp_path / f"{name}.py"

    def write(text, bump=0):
        path.write_text(text)
        if bump:  # a different mtime too, whatever the file system's resolution
            st = os.stat(path)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + bump * 10**9))

    def load():
        importlib.invalidate_caches()
        return importlib.import_module(name)

    yield write, load
    sys.modules.pop(name, None)
    linecache.checkcache(str(path))


@pytest.mark.parametrize(
    "old, new",
    [
        ("x * 2", "x * 100"),  # a constant
        ("x * 2", "x + 2"),  # an operator
        ("x.sum() > 0", "x.sum() < 0"),  # a comparison
        ("return x\n\n\ndef g", "return -x\n\n\ndef g"),  # a unary operator
    ],
)
def test_a_body_edited_on_the_same_lines_is_refused(module_file, old, new):
    write, load = module_file
    write(ORIGINAL)
    mod = load()
    write(ORIGINAL.replace(old, new), bump=10)
    x = np.ones(2)
    np.testing.assert_array_equal(mod.f(x), [2.0, 2.0])  # what runs is the imported code
    for convert in (lambda: staging.function(mod.f)(x), lambda: autograph.convert(mod.f)(x)):
        with pytest.raises(errors.SourceChangedError) as caught:
            convert()
        message = str(caught.value)
        assert message.startswith(
            f"cannot convert 'f' at {mod.__file__}:4: {mod.__file__} was edited"
        )
        assert "now compiles to other code than the running function's" in message
        assert "reload its module to convert the new version" in message
    with pytest.raises(errors.SourceChangedError):
        autograph.to_code(mod.f)


def test_a_called_name_edited_is_refused(module_file):
    write, load = module_file
    write(ORIGINAL)
    mod = load()
    write(ORIGINAL.replace("np.sin(x)", "np.cos(x)"), bump=10)
    with pytest.raises(
        errors.SourceChangedError, match="was edited since the function was defined"
    ):
        staging.function(mod.g)(np.ones(2))


def test_a_source_changed_error_is_a_conversion_error_that_is_raised(module_file):
    """Not the warning and unconverted trace of a function whose source is unavailable."""
    write, load = module_file
    write(ORIGINAL)
    mod = load()
    write(ORIGINAL.replace("x * 2", "x * 3"), bump=10)
    assert issubclass(errors.SourceChangedError, errors.ConversionError)
    with pytest.raises(errors.SourceChangedError):
        staging.function(mod.f)(np.ones(2))


def test_edits_that_change_no_code_are_fine(module_file):
    write, load = module_file
    write(ORIGINAL)
    mod = load()
    write(ORIGINAL.replace("    return x\n", "    return x  # unchanged\n", 1), bump=10)
    np.testing.assert_array_equal(staging.function(mod.f)(np.ones(2)), [2.0, 2.0])


def test_an_edit_of_another_function_is_fine(module_file):
    write, load = module_file
    write(ORIGINAL)
    mod = load()
    write(ORIGINAL.replace("np.sin(x) + 1.0", "np.sin(x) + 2.0"), bump=10)
    np.testing.assert_array_equal(staging.function(mod.f)(np.ones(2)), [2.0, 2.0])
    with pytest.raises(errors.SourceChangedError):
        staging.function(mod.g)(np.ones(2))


def test_an_edited_lambda_is_refused(module_file):
    write, load = module_file
    write(ORIGINAL + "\nh = lambda x: x * 3.0\n")
    mod = load()
    write(ORIGINAL + "\nh = lambda x: x * 4.0\n", bump=10)
    with pytest.raises(errors.SourceChangedError, match="'<lambda>'"):
        autograph.to_code(mod.h)


# Functions of every shape the check compiles again: each must still convert, unedited.
UNUSUAL = '''\
from __future__ import annotations

import functools
import numpy as np
from numpy import float64


def decorate(f):
    return f


class Base:
    def scale(self, x):
        return x * 2.0


class Model(Base):
    """A model."""

    __private = 3.0
    offset = lambda self, x: x + 1.0  # a lambda in a class body

    def __init__(self):
        self.__weight = 2.0

    @decorate
    def apply(self, x: np.ndarray) -> np.ndarray:
        """Applies the model.

        The docstring spans lines, indented as the method is.
        """
        text = """a string
        over lines"""
        y = super().scale(x) + self.__weight * self.__private
        values = [v * 2 for v in range(3)]
        label = f"{len(values)} values, {text!r:.5}"
        return y + float64(1.0) + np.float64(len(label) > 0) + functools.reduce(
            lambda a, b: a + b, values, 0
        )

    def nested(self, x):
        def helper(v, __k=1):
            return v * self.__weight + __k

        return helper(x)


def closure(k):
    def inner(x):
        if x.sum() > k:
            return x * k
        return x - k

    return inner


def keywords(x):
    return functools.partial(np.multiply, x)(x) + np.add(x, 1.0, dtype=None)
'''


def test_unedited_functions_of_every_shape_convert(module_file):
    write, load = module_file
    write(UNUSUAL)
    mod = load()
    write(UNUSUAL, bump=10)  # (the same text, a new time: the file is checked again)
    x = np.ones(2)
    model = mod.Model()
    for func, args in [
        (model.apply, (x,)),
        (model.nested, (x,)),
        (mod.Model.offset.__get__(model), (x,)),
        (mod.closure(0.5), (x,)),
        (mod.keywords, (x,)),
    ]:
        want = func(*args)
        np.testing.assert_array_equal(autograph.convert(func)(*args), want)
        np.testing.assert_array_equal(staging.function(func)(*args), want)
