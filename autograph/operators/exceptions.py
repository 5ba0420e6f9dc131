"""assert_stmt: Python's assert on concrete values, a staged assertion on symbolic ones."""

from __future__ import annotations

from staging.core.tensor import is_symbolic
from staging.effects.debugging import assert_true


def assert_stmt(test, message_fn=None):
    """`assert test, message`; message_fn runs only if needed (once, when staged)."""
    if is_symbolic(test):
        message = message_fn() if message_fn is not None else None
        assert_true(test, message)
        return
    if not test:
        if message_fn is None:
            raise AssertionError()
        raise AssertionError(message_fn())
