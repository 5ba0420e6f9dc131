"""Why a symbolic value reached Python code that needs a concrete one: the hint that ends a
SymbolicValueError, saying what autograph did not convert and why (as TensorFlow's "AutoGraph
did (not) convert this function" does).

Python control flow on a symbolic value is staged only in converted code. The hint looks at
the innermost user frame (the one the error names) and tells apart:

- a generator expression or comprehension (autograph leaves them as they are),
- a function marked autograph.do_not_convert, a generator function,
- a staged function traced without conversion (autograph=False, or no source),
- a function called by library code or a builtin (map, sorted, ...) rather than directly by
  converted code,
- converted code using a symbolic value in a way autograph does not stage.

Only read while building an error message: nothing here runs on a successful call.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import os
import sys

from staging.core import source_map
from staging.core.source_map import STAGING_DIR

# The attribute autograph.do_not_convert sets: converted code calls such functions as they are.
DO_NOT_CONVERT = "__autograph_do_not_convert__"

STAGE_EXPLICITLY = "staging.cond / staging.while_loop"
GENERAL = (
    "inside a staged function write the control flow with autograph (the default of "
    "staging.function) or explicitly with " + STAGE_EXPLICITLY
)

_COMPREHENSIONS = {
    "<genexpr>": "a generator expression",
    "<listcomp>": "a list comprehension",
    "<setcomp>": "a set comprehension",
    "<dictcomp>": "a dict comprehension",
}
_COMPREHENSION_NODES = {
    ast.GeneratorExp: "a generator expression",
    ast.ListComp: "a list comprehension",
    ast.SetComp: "a set comprehension",
    ast.DictComp: "a dict comprehension",
}
_AUTOGRAPH_DIR = os.path.normpath(os.path.join(STAGING_DIR, "..", "autograph")) + os.sep
_GENERATOR_FLAGS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def hint(depth: int = 1) -> str:
    """The sentence saying what was not converted where the innermost user frame (counted from
    the caller's caller, `depth` frames up) uses a symbolic value, and what to do instead."""
    frame = source_map.user_frame(depth + 1)
    try:
        return _hint(frame) if frame is not None else GENERAL
    finally:
        del frame


def _hint(frame) -> str:
    code = frame.f_code
    generated = source_map.is_generated(code.co_filename)
    inside = _COMPREHENSIONS.get(code.co_name) or (
        _inlined_comprehension(frame) if generated else None
    )
    if inside is not None:
        return (
            f"This is inside {inside}, which autograph does not convert (its `for` and `if` "
            f"run as Python while tracing): write it as a `for` statement, which is staged, "
            f"or with NumPy (np.where, a boolean mask)"
        )
    caller = frame.f_back
    try:
        caller_name = caller.f_code.co_name if caller is not None else None
        ours = caller is not None and source_map.is_own_file(caller.f_code.co_filename)
    finally:
        del caller
    # (a function with nothing to convert is called as it is, by autograph's own wrappers)
    if generated or (ours and caller_name in ("converted", "converted_call")):
        return (
            "autograph converted this function, but this use of a symbolic value is not one "
            "it stages (it stages `if`, `while`, `for`, `and`, `or`, `not`, `x if c else y` "
            "and `assert`): write it with one of those, or explicitly with " + STAGE_EXPLICITLY
        )
    name = code.co_name
    func = _function_of(frame)
    if func is not None and getattr(func, DO_NOT_CONVERT, False):
        return (
            f"autograph did not convert {name!r}: it is marked autograph.do_not_convert, so it "
            f"runs as written. Remove the marker, or write the control flow explicitly with "
            + STAGE_EXPLICITLY
        )
    if code.co_flags & _GENERATOR_FLAGS:
        return (
            f"autograph did not convert {name!r}: generator functions run as written. Return "
            f"a list (or an array) instead of yielding, or write the control flow explicitly "
            f"with " + STAGE_EXPLICITLY
        )
    if ours and caller_name in ("_trace_once", "call_deferring"):
        return (
            f"autograph did not convert {name!r}: it is traced as written "
            f"(staging.function(autograph=False), or autograph could not convert it: see "
            f"the AutographWarning). Let autograph convert it, or write the control flow "
            f"explicitly with " + STAGE_EXPLICITLY
        )
    caller = frame.f_back
    try:
        by = _called_by(caller)
    finally:
        del caller
    return (
        f"autograph did not convert {name!r}: it is called by {by}, not directly by converted "
        f"code, and only the staged function and the functions converted code calls are "
        f"converted. Call it directly from the staged function (e.g. a `for` loop instead of "
        f"itertools.starmap()), or write the control flow explicitly with " + STAGE_EXPLICITLY
    )


def _called_by(caller) -> str:
    if caller is None:
        return "code outside any staged function"
    filename = caller.f_code.co_filename
    # Converted code, and autograph's operators it calls (sum(), list(), a staged `for` over an
    # iterator), do not call an unconverted user function directly: a builtin in between did
    # (builtins have no Python frames).
    if source_map.is_generated(filename) or filename.startswith(_AUTOGRAPH_DIR):
        return (
            "a builtin or library function (such as itertools.starmap() or itertools.accumulate())"
        )
    if source_map.is_own_file(filename):
        return f"staging's {caller.f_code.co_name}() (which calls it as written)"
    module = caller.f_globals.get("__name__", filename)
    return f"library code ({module}.{caller.f_code.co_name}(), which runs as it is)"


def _function_of(frame):
    """The function object running in `frame`, when it can be found by name (its module's
    globals, through its qualified name) or among its caller's local values."""
    code = frame.f_code
    candidates = []
    qualname = getattr(code, "co_qualname", code.co_name)
    if "<locals>" not in qualname:
        obj = frame.f_globals
        for part in qualname.split("."):
            obj = obj.get(part) if isinstance(obj, dict) else getattr(obj, part, None)
            if obj is None:
                break
        candidates.append(obj)
    caller = frame.f_back
    if caller is not None:
        try:
            candidates.extend(caller.f_locals.values())
        except Exception:  # noqa: BLE001  (a frame whose locals cannot be read)
            pass
    del caller
    for obj in candidates:
        for inner in (obj, getattr(obj, "func", None), getattr(obj, "__func__", None)):
            if getattr(inner, "__code__", None) is code:
                return inner
            wrapped = getattr(inner, "__wrapped__", None)
            if getattr(wrapped, "__code__", None) is code and getattr(inner, DO_NOT_CONVERT, False):
                return inner
    return None


def _inlined_comprehension(frame) -> str | None:
    """On Python >= 3.12 comprehensions run in their function's frame (PEP 709): the kind of
    comprehension on the user line the frame is at, if there is one."""
    if sys.version_info < (3, 12):
        return None
    location = source_map.lookup(frame.f_code.co_filename, frame.f_lineno)
    if location is None:
        return None
    text = linecache.getline(*location).strip()
    for candidate in (text, text + " pass"):  # `if any(v > 0 for v in xs):` needs a body
        try:
            tree = ast.parse(candidate)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            kind = _COMPREHENSION_NODES.get(type(node))
            if kind is not None:
                return kind
        return None
    return None
