"""A warning for Python state that a trace changes: it changes once, while tracing, not per call.

`self.n += 1` in a staged method runs while the method is traced; the graph that later calls
run does not contain it, and reads `self.n` as the constant it was while tracing. Eagerly `n`
would grow on every call (a running mean divides by it: eager [1, 1], staged [3, 3]). As in
TensorFlow this cannot be staged (the attribute holds a Python number, not a graph value), but
it must not pass silently: after each trace, the plain attributes (numbers, strings, NumPy
scalars and arrays) of the objects the function was called with and of its instance, and the
globals it assigns, are compared with what they were before it; each one the trace changed is
named in a TraceStateWarning at the user's line that assigns it, pointing to staging.Variable.

Attributes a trace creates (`if self.v is None: self.v = staging.Variable(...)`, the pattern
for creating state once) and values of other types are not reported.
"""

from __future__ import annotations

import ast
import collections
import dis
import functools
import inspect
import textwrap
import warnings

import numpy as np

from staging import errors
from staging.core.source_map import user_stacklevel, where_defined
from staging.core.tensor import Tensor

_PLAIN = (bool, int, float, complex, str, bytes, np.generic, np.ndarray)


class TraceStateWarning(UserWarning):
    """A trace changed a Python attribute or global: the change happens once, while tracing."""


def _plain_attributes(obj) -> dict | None:
    attributes = getattr(obj, "__dict__", None)
    if type(attributes) is not dict or isinstance(obj, (type, np.ndarray)) or inspect.ismodule(obj):
        return None
    return {k: v for k, v in attributes.items() if isinstance(v, _PLAIN)}


def _stored_globals(func) -> tuple:
    code = getattr(func, "__code__", None)
    return () if code is None else _globals_stored_by(code)


@functools.lru_cache(
    maxsize=256
)  # (per code object: a function traced again is not disassembled again)
def _globals_stored_by(code) -> tuple:
    return tuple(
        sorted({i.argval for i in dis.get_instructions(code) if i.opname == "STORE_GLOBAL"})
    )


class Snapshot:
    """The plain attributes of the named objects and the assigned globals, before a trace."""

    __slots__ = ("objects", "globals", "namespace")

    def __init__(self, func, named_objects):
        self.objects = []
        for name, obj in named_objects:
            attributes = _plain_attributes(obj)
            if attributes:
                self.objects.append((name, obj, attributes))
        names = _stored_globals(func)
        self.namespace = getattr(func, "__globals__", {})
        self.globals = {
            k: self.namespace[k]
            for k in names
            if k in self.namespace and isinstance(self.namespace[k], _PLAIN)
        }

    def changes(self) -> list:
        """(the expression naming it, attribute or global name, before, after) of each value the
        trace changed."""
        found = []
        for name, obj, before in self.objects:
            after = getattr(obj, "__dict__", {})
            for attr, old in before.items():
                if attr in after and _changed(old, after[attr]):
                    found.append((f"{name}.{attr}", attr, old, after[attr]))
        for name, old in self.globals.items():
            if name in self.namespace and _changed(old, self.namespace[name]):
                found.append((name, name, old, self.namespace[name]))
        return found


def _changed(old, new) -> bool:
    if old is new:
        return False
    if isinstance(old, np.ndarray) or isinstance(new, np.ndarray):
        return True
    try:
        return type(old) is not type(new) or bool(old != new)
    except Exception:  # noqa: BLE001 - incomparable: changed
        return True


_CONTAINERS = (list, dict, set, collections.deque, bytearray)


def _contents(container) -> tuple:
    """What a container holds, by identity (a change of its items, their order or number)."""
    if isinstance(container, dict):
        return tuple((id(k), id(v)) for k, v in container.items())
    return tuple(map(id, container))


def argument_containers(params, args, kwargs) -> list:
    """(name, container, contents) of the lists, dicts, sets, deques and bytearrays a trace of
    a function is called with."""
    named = list(zip(params, args)) + list(kwargs.items())
    return [(name, x, _contents(x)) for name, x in named if isinstance(x, _CONTAINERS)]


def refuse_changed_arguments(before: list, func, function_name: str) -> None:
    """Refuses a trace that changed a container it was called with: the staged function gets
    the container's values while it is traced (a list, a dict: a copy of them), and its graph
    changes no Python object on later calls, where eagerly each call changes the caller's."""
    for name, container, contents in before:
        if _contents(container) != contents:
            kind = type(container).__name__
            raise errors.MutationError(
                f"{where_defined(func)}: {function_name!r} changes the {kind} passed as its "
                f"argument {name!r} (its items) while traced: a staged function does not change "
                f"the caller's Python objects on its calls, where eagerly each call would. "
                f"Return the new items instead (`return result, log + [item]`), or keep the "
                f"state in a staging.Variable"
            )


def snapshot(func, params, args, kwargs, instance=None) -> Snapshot:
    """A Snapshot of the objects a trace of `func` is called with (`params`: the parameter names
    of `args`), and of `instance` (a method's, named by its first parameter)."""
    named = []
    if instance is not None:
        code = getattr(getattr(func, "__func__", func), "__code__", None)
        named.append(
            (code.co_varnames[0] if code is not None and code.co_argcount else "self", instance)
        )
    named.extend(zip(params, args))
    named.extend(kwargs.items())
    return Snapshot(func, named)


def warn_changes(before: Snapshot, func, function_name: str) -> None:
    """Warns once per value the trace changed (see the module docstring)."""
    for expression, name, old, new in before.changes():
        location = _assigning_line(func, name)
        description = f"the global {name!r}" if expression == name else expression
        now = "a symbolic value of the trace" if isinstance(new, Tensor) else _short(new)
        warnings.warn(
            f"{location}tracing {function_name!r} changed {description} from {_short(old)} to "
            f"{now}: Python code runs only while a function is traced, so later calls do not "
            f"change it again, and the graph uses the value it had while tracing (eagerly it would "
            f"change on every call). Keep state that changes on each call in a staging.Variable "
            f"(e.g. `{expression} = staging.Variable(...)` once, then "
            f"`.assign(...)` in the function)",
            TraceStateWarning,
            stacklevel=user_stacklevel(),
        )


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _assigning_line(func, name: str) -> str:
    """'file:line: ' of the first line of `func` that assigns attribute or global `name` (or of
    its definition when none does: the change was made by a function it called)."""
    target = getattr(func, "__func__", func)
    try:
        lines, first = inspect.getsourcelines(target)
        tree = ast.parse(textwrap.dedent("".join(lines)))
        filename = inspect.getsourcefile(target)
    except (OSError, TypeError, SyntaxError):
        return ""
    found = []
    for node in ast.walk(tree):
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, (ast.AugAssign, ast.AnnAssign))
            else []
        )
        found.extend(
            node.lineno
            for t in targets
            if (isinstance(t, ast.Attribute) and t.attr == name)
            or (isinstance(t, ast.Name) and t.id == name)
        )
    return f"{filename}:{first + min(found) - 1}: " if found else f"{where_defined(target)}: "


__all__ = ["Snapshot", "TraceStateWarning", "snapshot", "warn_changes"]
