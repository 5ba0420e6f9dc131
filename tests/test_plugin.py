"""The pytest plugin seen from another project: the `golden` fixture and `--update-golden`."""

import pytest

pytest_plugins = ["pytester"]

USER_TEST = """
import numpy as np
import staging

from {module} import scale


def test_scale_code(golden):
    golden.check_code(scale)


def test_scale_graph(golden):
    golden.check_graph(scale, {{"x": staging.TensorSpec([None], np.float64)}})


def test_text(golden):
    golden.check("notes/summary.txt", "scale doubles positive inputs\\n")
"""

SCALE_V1 = """
def scale(x):
    if x.sum() > 0:
        x = x * 2.0
    return x
"""

# The edit moves the function down a line: the converter caches source blocks by
# (file, first line), which an in-process re-run with an edited file would otherwise hit.
SCALE_V2 = "# edited\n" + SCALE_V1.replace("x * 2.0", "x * 2.0 + 1.0")


@pytest.fixture
def project(pytester):
    """A user project: a module with a function and a test using the `golden` fixture."""
    pytester.makepyfile(userlib=SCALE_V1)
    pytester.makepyfile(test_user=USER_TEST.format(module="userlib"))
    pytester.syspathinsert()
    return pytester


def test_update_then_clean_run(project):
    result = project.runpytest("--update-golden")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        ["*rewrote*scale.converted.py.txt", "*rewrote*scale.graph.txt", "*rewrote*summary.txt"]
    )
    golden_dir = project.path / "golden"
    assert (golden_dir / "scale.converted.py.txt").read_text().startswith("def scale(x):")
    assert "cond" in (golden_dir / "scale.graph.txt").read_text()
    assert (golden_dir / "notes" / "summary.txt").read_text() == "scale doubles positive inputs\n"

    again = project.runpytest()
    again.assert_outcomes(passed=3)
    again = project.runpytest("--update-golden")
    again.assert_outcomes(passed=3)
    again.stdout.fnmatch_lines(["*all golden files were already up to date*"])


def test_missing_golden_file_fails_with_hint(project):
    result = project.runpytest()
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        ["*golden file*scale.converted.py.txt does not exist*--update-golden*"]
    )


def test_mismatch_prints_unified_diff(project):
    project.runpytest("--update-golden").assert_outcomes(passed=3)
    project.makepyfile(userlib=SCALE_V2)
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*output differs from golden file*scale.converted.py.txt*--update-golden*",
            "*scale.converted.py.txt (golden)",
            "*scale.converted.py.txt (actual)",
            "@@ *",
            "-        x = x * 2.0",
            "+        x = x * 2.0 + 1.0",
        ]
    )
    result.stdout.fnmatch_lines(["*scale.graph.txt (golden)", "+*add*1.0"])
    # no Python traceback noise from the plugin's own frames
    assert "autograph/golden.py" not in result.stdout.str()
    assert "During handling" not in result.stdout.str()

    project.runpytest("--update-golden").assert_outcomes(passed=3)
    project.runpytest().assert_outcomes(passed=3)


def test_golden_dir_ini_option(project):
    project.makeini("[pytest]\ngolden_dir = testdata/expected\n")
    project.runpytest("--update-golden").assert_outcomes(passed=3)
    assert (project.path / "testdata" / "expected" / "scale.graph.txt").is_file()
    assert not (project.path / "golden").exists()


def test_option_registered_once(pytester):
    result = pytester.runpytest("--help")
    assert result.ret == 0
    assert result.stdout.str().count("--update-golden") == 1


def test_explicit_plugin_flag_with_autoload_is_harmless(project):
    # -p with the entry point's name when it is also auto-loaded: still registered once
    project.runpytest("-p", "autograph_golden", "--update-golden").assert_outcomes(passed=3)


def test_enabled_by_name_without_autoload(project, monkeypatch):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = project.runpytest_subprocess("-p", "autograph_golden", "--update-golden")
    result.assert_outcomes(passed=3)


def test_disabled_plugin_has_no_fixture(project):
    result = project.runpytest("-p", "no:autograph_golden")
    result.stdout.fnmatch_lines(["*fixture 'golden' not found*"])


TWO_CHECKS = """
import numpy as np
import staging

from userlib import scale


def test_code_and_graph(golden):
    golden.check_code(scale)
    golden.check_graph(scale, {"x": staging.TensorSpec([None], np.float64)})
    golden.check("notes/summary.txt", "unchanged\\n")
"""


def test_every_stale_file_of_one_test_is_reported(pytester):
    pytester.makepyfile(userlib=SCALE_V1)
    pytester.makepyfile(test_two=TWO_CHECKS)
    pytester.syspathinsert()
    pytester.runpytest("--update-golden").assert_outcomes(passed=1)
    pytester.makepyfile(userlib=SCALE_V2)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    # both stale files, each with its diff; the file that did not change is not reported
    result.stdout.fnmatch_lines(["*2 golden files are stale:*"])
    result.stdout.fnmatch_lines(
        ["*output differs from golden file*scale.converted.py.txt*", "+        x = x * 2.0 + 1.0"]
    )
    result.stdout.fnmatch_lines(["*output differs from golden file*scale.graph.txt*", "+*add*1.0"])
    assert "summary.txt" not in output
    assert "autograph/golden.py" not in output and "During handling" not in output


def test_stale_files_are_shown_beside_another_failure(pytester):
    pytester.makepyfile(userlib=SCALE_V1)
    pytester.makepyfile(
        test_other="""
from userlib import scale


def test_fails_after_a_stale_check(golden):
    golden.check("a.txt", "new text\\n")
    assert False, "the test's own failure"
"""
    )
    pytester.syspathinsert()
    (pytester.path / "golden").mkdir()
    (pytester.path / "golden" / "a.txt").write_text("old text\n")
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the test's own failure*"])
    result.stdout.fnmatch_lines(
        ["*golden files*", "*output differs from golden file*a.txt*", "+new text"]
    )
