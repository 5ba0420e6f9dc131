"""Only user code is converted: the standard library and installed packages run as they are,
and when one of them cannot take a symbolic value the error names the user's call site."""

import functools
import heapq
import logging
import os
import statistics
import sys
import textwrap

import numpy as np
import pytest

from autograph.impl import conversion
from staging import errors

HERE = __file__


def uses_logging(x):
    logging.getLogger("autograph-test").info("value %s", x)
    if x > 0:
        x = x * 2.0
    return x


def uses_os_path(x, name):
    return x + len(os.path.join("a", name))


def uses_statistics_on_concrete_values(x):
    return x * statistics.mean([1.0, 2.0])


def uses_heapq(x):
    h = []
    heapq.heappush(h, 3.0)
    heapq.heappush(h, 1.0)
    return x + h[0]


def uses_reduce(x):
    return functools.reduce(lambda a, b: a * b, [x, x, 2.0])


@pytest.mark.parametrize(
    "f, args",
    [
        (uses_logging, (np.float64(2.0),)),
        (uses_logging, (np.float64(-2.0),)),
        (uses_os_path, (np.float64(2.0), "bc")),
        (uses_statistics_on_concrete_values, (np.float64(2.0),)),
        (uses_heapq, (np.float64(2.0),)),
        (uses_reduce, (np.float64(2.0),)),
    ],
)
def test_standard_library_runs_as_it_is(same_as_eager, f, args):
    same_as_eager(f, args)


def test_library_files():
    for module in (logging, statistics, os, functools, np):
        assert conversion.is_library_file(module.__file__), module
    assert conversion.is_library_file(conversion.__file__)  # this project
    assert not conversion.is_library_file(HERE)
    assert conversion.is_user_code(uses_heapq)
    assert not conversion.is_user_code(statistics.mean)
    assert not conversion.is_user_code(logging.info)


def statistics_on_symbolic(x):
    return statistics.mean([x, x * 3.0])


def test_library_failing_on_a_symbolic_value_names_the_call_site():
    staging = pytest.importorskip("staging")
    with pytest.raises(errors.SymbolicValueError) as e:
        staging.function(statistics_on_symbolic)(np.float64(2.0))
    line = statistics_on_symbolic.__code__.co_firstlineno + 1
    assert str(e.value).startswith(f"{HERE}:{line}: statistics.mean() is library code")


@pytest.fixture
def installed_package(tmp_path, monkeypatch):
    """A module in a site-packages directory: an installed package, not converted."""
    site = tmp_path / "site-packages"
    site.mkdir()
    (site / "ag_test_installed.py").write_text(
        textwrap.dedent("""\
        def clip_positive(x):
            if x > 0:
                return x
            return 0.0
        """)
    )
    monkeypatch.syspath_prepend(str(site))
    import ag_test_installed

    yield ag_test_installed
    sys.modules.pop("ag_test_installed", None)


def test_installed_package_is_not_converted(installed_package, same_as_eager):
    staging = pytest.importorskip("staging")
    assert not conversion.is_user_code(installed_package.clip_positive)

    def calls_installed(x):
        return installed_package.clip_positive(x * 2.0)

    same_as_eager(calls_installed, (2.0,))  # concrete: runs as it is
    with pytest.raises(errors.SymbolicValueError) as e:
        staging.function(calls_installed)(np.float64(2.0))
    line = calls_installed.__code__.co_firstlineno + 1
    message = str(e.value)
    assert message.startswith(f"{HERE}:{line}: in ag_test_installed.clip_positive(), called here: ")
    assert "ag_test_installed.py:2" in message
