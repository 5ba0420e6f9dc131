"""Warnings about retracing: a function traced on every call, and a function staged anew on
every call (a staging.function made inside a loop), each naming the cause."""

from __future__ import annotations

import threading
import warnings
import weakref

from staging.core.source_map import user_stacklevel, where_defined
from staging.functions.trace_key import retrace_cause


class RetracingWarning(UserWarning):
    """A Function keeps tracing new graphs; each trace is slow."""


def note_trace(function, previous, current, key_source) -> None:
    """Called after `function` traced for the arguments `key_source` (trace key `current`; the key
    of its previous trace `previous`, or None). Warns (once) when its last 5 calls all traced,
    naming what changed, and when its Python function is staged anew again and again."""
    function._recent.append(1)
    if previous is not None:
        function._last_cause = retrace_cause(
            previous, current, key_source, list(function._signature.parameters)
        )
    if (
        len(function._recent) == 5
        and all(function._recent)
        and function._traces > 5
        and not function._warned_retracing
    ):
        function._warned_retracing = True
        warnings.warn(
            f"5 out of the last 5 calls to {function._name!r} ({where_defined(function.python_function)}) "
            f"traced it again: {function._last_cause}. Tracing is slow.",
            RetracingWarning,
            stacklevel=user_stacklevel(),
        )
    if function._instance_ref is None and function._traces == 1:
        _note_new_function(function)


# Python functions (by code object, held weakly: a count goes with its code) -> how many
# distinct Functions staging them have traced: a staging.function made anew on every call of a
# loop traces every time.
_STAGED_ANEW: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_STAGED_ANEW_LOCK = threading.Lock()


def _note_new_function(function) -> None:
    code = getattr(function.python_function, "__code__", None)
    if code is None:
        return
    with _STAGED_ANEW_LOCK:
        count = _STAGED_ANEW[code] = _STAGED_ANEW.get(code, 0) + 1
    if count == 5:
        warnings.warn(
            f"{function._name!r} ({where_defined(function.python_function)}) was staged by 5 different "
            f"staging.function objects, and each traced it again: staging.function is called anew "
            f"each time (inside a loop, or in a function called repeatedly). Create the staged "
            f"function once and reuse it.",
            RetracingWarning,
            stacklevel=user_stacklevel(),
        )
