"""runtime/_compat: exception notes and NumPy signatures the same way on every Python and NumPy."""

from __future__ import annotations

import inspect
import subprocess
import sys
import traceback

import numpy as np
import pytest

from runtime._compat import add_note, renamed_code, signature


def test_add_note_appends_to_notes_and_keeps_the_message():
    error = KeyError("k")
    add_note(error, "first")
    add_note(error, "second")
    assert error.__notes__ == ["first", "second"]
    assert str(error) == "'k'" and error.args == ("k",)


def test_add_note_refuses_what_is_not_a_str():
    with pytest.raises(TypeError):
        add_note(ValueError(), 3)


def test_a_printed_traceback_shows_the_notes():
    try:
        error = ValueError("boom")
        add_note(error, "user.py:3: raised while running `log`")
        raise error
    except ValueError as caught:
        text = "".join(traceback.format_exception(type(caught), caught, caught.__traceback__))
    assert "ValueError: boom\nuser.py:3: raised while running `log`" in text


def test_an_uncaught_error_shows_its_notes():
    program = (
        "import runtime._compat as c\n"
        "e = ValueError('boom')\nc.add_note(e, 'user.py:3: the note')\nraise e\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        cwd=__file__.rsplit("/tests/", 1)[0],
        timeout=60,
    )
    assert "ValueError: boom\nuser.py:3: the note" in result.stderr


def test_renamed_code_names_the_code():
    code = renamed_code((lambda: 1).__code__, "<staged f>")
    assert code.co_name == "<staged f>"
    assert getattr(code, "co_qualname", "<staged f>") == "<staged f>"


@pytest.mark.parametrize(
    "func", [np.empty_like, np.concatenate, np.where, np.dot, np.zeros, np.arange]
)
def test_numpy_builtins_have_a_signature(func):
    params = signature(func).parameters
    assert params
    try:
        assert list(params) == list(inspect.signature(func).parameters)
    except ValueError:  # NumPy < 2.3: no signature of its own
        pass
