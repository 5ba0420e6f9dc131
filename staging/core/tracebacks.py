"""Traceback filtering: an error raised out of a staged function or out of conversion shows the
user's frames, not this project's.

As TensorFlow does for its own frames, the frames of staging/, runtime/ and autograph/ and of
generated graph code are dropped from the traceback of an error leaving a public entry point
(a staged function's call, `get_concrete_function`, `autograph.convert`, `autograph.to_code`,
a converted function's call). The entry point's own `raise` line stays: it is the one line of
context, and says how to see everything. Frames of converted code (which stand for the user's
lines) stay.

Filtering happens only on the way out of an `except` clause: a call that succeeds pays nothing.
`disable_traceback_filtering()`, or the environment variable STAGING_TRACEBACK_FILTERING=0,
shows every frame.
"""

from __future__ import annotations

import os
import types

from staging.core.source_map import is_own_file

ENVIRONMENT_VARIABLE = "STAGING_TRACEBACK_FILTERING"
_SWITCH: list = [None]  # None: follow the environment variable; else set by the functions below
_GENERATED_GRAPH = "<staged graph "


def enable_traceback_filtering() -> None:
    """Hide this project's frames from tracebacks of errors raised out of staged functions and
    conversion (the default)."""
    _SWITCH[0] = True


def disable_traceback_filtering() -> None:
    """Show every frame, this project's included (for debugging staging itself). The environment
    variable STAGING_TRACEBACK_FILTERING=0 does the same for a whole process."""
    _SWITCH[0] = False


def is_traceback_filtering_enabled() -> bool:
    """Whether tracebacks are filtered: the last enable/disable call, else the environment
    variable STAGING_TRACEBACK_FILTERING (`0`, `false`, `no` or `off` turn filtering off)."""
    if _SWITCH[0] is not None:
        return _SWITCH[0]
    return os.environ.get(ENVIRONMENT_VARIABLE, "1").strip().lower() not in (
        "0",
        "false",
        "no",
        "off",
    )


def is_internal_frame(filename: str) -> bool:
    """A frame of this project's modules or of a generated graph (not converted user code)."""
    return filename.startswith(_GENERATED_GRAPH) or is_own_file(filename)


def filtered(error: BaseException) -> BaseException:
    """`error`, ready to be raised again by the `except` clause that caught it.

    The traceback loses its first entry (the frame of that clause, which `raise` adds back) and,
    when filtering is on, every internal frame; so do the tracebacks of the errors it was raised
    from or during (__cause__, __context__). Use as `raise filtered(error)`.
    """
    tb = error.__traceback__
    tb = tb.tb_next if tb is not None else None
    if not is_traceback_filtering_enabled():
        return error.with_traceback(tb)
    error.with_traceback(_without_internal_frames(tb))
    seen = {id(error)}
    chained = [error.__cause__, error.__context__]
    while chained:
        other = chained.pop()
        if other is None or id(other) in seen:
            continue
        seen.add(id(other))
        other.with_traceback(_without_internal_frames(other.__traceback__))
        chained += [other.__cause__, other.__context__]
    return error


def _without_internal_frames(tb):
    kept = []
    while tb is not None:
        if not is_internal_frame(tb.tb_frame.f_code.co_filename):
            kept.append(tb)
        tb = tb.tb_next
    result = None
    for entry in reversed(kept):
        result = types.TracebackType(result, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return result
