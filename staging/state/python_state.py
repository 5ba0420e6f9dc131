"""Python state that a staged branch or loop body changes while it is traced: found and refused.

A staged `if` traces both of its branches, and a staged loop its body once, whatever the
condition turns out to be when the graph runs. A write into Python state made while one is
traced happens once, at trace time, on both paths: `count += 1` in a helper declaring
`nonlocal count`, `LOG.append(x)`, `self.items.append(x)`, `setattr(obj, name, v)` in library
code. The writes staging can make when the graph runs go through the journal
(staging.state.journal: items and attributes written by converted code, arrays written in place,
staged containers), which undoes them after each trace; every other write is refused.

`Snapshot` records, before the construct is traced, the state its code can reach: the closure
cells of its functions and of the user functions they reach (their closures, the globals they
name, their default values), the globals they name, and the containers and objects of user
classes these hold (and the values the construct is given): a shallow fingerprint of each
container (its items, by identity) and of each object's `__dict__`. After each trace, once the
journal has undone its writes, `check` compares: anything that differs was written by a route
the journal does not see, and is refused naming the construct's line, the variable or object
written (and the line of the write, when the code that makes it can be found) and what to do
instead.

Library code (the standard library, installed packages, this project) is not walked: its own
caches are not the user's state. Cells that a construct carries itself (the cell variables a
branch or body assigns, see autograph's `cells=`) are exempt, and so is a cell empty before the
construct, or holding converted code's marker of a name not assigned yet (a name first assigned
inside it: a loop target).
"""

from __future__ import annotations

import collections
import dis
import functools
import operator
import sys
import types
import weakref

import numpy as np

from staging import errors
from staging.core.source_map import is_user_file, lookup, where
from staging.core.tensor import Tensor

MAX_DEPTH = 4  # containers and objects walked into, from a root
MAX_ITEMS = 1000  # the items of one container walked into (all are fingerprinted)
MAX_NODES = 5000  # objects fingerprinted for one construct

_EMPTY = object()  # an empty cell, a global not set
_CONTAINERS = (list, dict, set, collections.deque, bytearray)
_SKIP = (
    type(None),
    bool,
    int,
    float,
    complex,
    str,
    bytes,
    range,
    np.ndarray,
    np.generic,
    Tensor,
    types.ModuleType,
    type,
    types.BuiltinFunctionType,
    types.CodeType,
)


class Snapshot:
    """The fingerprint of the Python state reachable from `functions` (and `values`, pairs of the
    name holding it, or None, and the value), before a staged construct is traced; `exempt`:
    cells the construct carries itself."""

    __slots__ = ("cells", "names", "items", "objects", "functions", "_seen", "_count")

    def __init__(self, functions, values=(), exempt=()):
        self.cells = []  # (cell, contents, (name, owner))
        self.names = []  # (namespace dict, name, value, module name)
        self.items = []  # (container, fingerprint, path)
        self.objects = []  # (object, attributes, path)
        self.functions = []  # the user functions reached (to find the line of a write)
        self._seen = {id(c) for c in exempt}
        self._count = 0
        for fn in functions:
            self._visit(fn, None, 0)
        for name, value in values:
            self._visit(value, ("cell", name, None) if name else None, 0)
        self._seen = None

    # -- walking --------------------------------------------------------------------------------

    def _visit(self, x, path, depth):
        if isinstance(x, _SKIP) or id(x) in self._seen or self._count >= MAX_NODES:
            return
        self._seen.add(id(x))
        if isinstance(x, types.FunctionType):
            self._visit_function(x, depth)
        elif isinstance(x, types.MethodType):
            self._visit(x.__self__, path, depth)
            self._visit(x.__func__, path, depth)
        elif type(x) is functools.partial:
            self._visit(x.func, path, depth)
            for i, arg in enumerate(x.args):
                self._visit(arg, path, depth)
        elif type(x) is tuple:
            if depth < MAX_DEPTH:
                for i, item in enumerate(x[:MAX_ITEMS]):
                    self._visit(item, (path, "item", i), depth + 1)
        elif isinstance(x, _CONTAINERS):
            self._visit_container(x, path, depth)
        else:
            self._visit_object(x, path, depth)

    def _visit_function(self, fn, depth):
        code = fn.__code__
        if not is_user_file(code.co_filename):
            return
        self.functions.append(fn)
        if fn.__closure__:
            self._visit_cells(fn, depth)
        namespace = fn.__globals__
        for name in _global_names(code):
            key = (id(namespace), name)
            if key in self._seen:
                continue
            self._seen.add(key)
            value = namespace.get(name, _EMPTY)
            self.names.append((namespace, name, value, namespace.get("__name__", "?")))
            if value is not _EMPTY:
                self._visit(value, ("global", name), depth)
        for default in fn.__defaults__ or ():
            self._visit(default, ("default", fn), depth)

    def _visit_cells(self, fn, depth):
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            if id(cell) in self._seen:
                continue
            self._seen.add(id(cell))
            try:
                contents = cell.cell_contents
            except ValueError:  # empty: a name first assigned later, not outside state
                continue
            if getattr(type(contents), "_is_undefined", False):
                continue  # (converted code's marker of a name not assigned yet: the same)
            self.cells.append((cell, contents, (name, fn)))
            self._visit(contents, ("cell", name, fn), depth)

    def _visit_container(self, x, path, depth):
        self._count += 1
        if isinstance(x, dict):
            keys, values = tuple(x), tuple(x.values())
            self.items.append((x, (keys, values), path))
            children = values
        elif isinstance(x, set):
            self.items.append((x, x.copy(), path))
            children = ()
        else:
            children = tuple(x)
            self.items.append((x, children, path))
        if depth < MAX_DEPTH:
            for i, item in enumerate(children[:MAX_ITEMS]):
                if not isinstance(item, _SKIP):
                    self._visit(
                        item, (path, "item", keys[i] if isinstance(x, dict) else i), depth + 1
                    )

    def _visit_object(self, x, path, depth):
        attributes = getattr(x, "__dict__", None)
        if type(attributes) is not dict or not _is_user_class(type(x)):
            return
        self._count += 1
        copy = tuple(attributes.items())
        self.objects.append((x, copy, path))
        if depth < MAX_DEPTH:
            for name, value in copy:
                self._visit(value, (path, "attr", name), depth + 1)

    # -- comparing --------------------------------------------------------------------------------

    def changes(self) -> list:
        """What differs now from the fingerprint: (description, the line writing it or '')."""
        found = []
        for cell, contents, (name, fn) in self.cells:
            try:
                now = cell.cell_contents
            except ValueError:
                now = _EMPTY
            if now is not contents:
                found.append(
                    (
                        f"the variable '{name}' of '{_owner(fn, name)}' (a closure variable)",
                        _store_line(self.functions, name, "STORE_DEREF"),
                        "cell",
                    )
                )
        for namespace, name, value, module in self.names:
            if namespace.get(name, _EMPTY) is not value:
                found.append(
                    (
                        f"the global '{name}' of module '{module}'",
                        _store_line(self.functions, name, "STORE_GLOBAL"),
                        "global",
                    )
                )
        for container, before, path in self.items:
            if _container_changed(container, before):
                found.append((_describe(container, path), "", "container"))
        for obj, before, path in self.objects:
            if _attributes_changed(obj, before):
                found.append((_describe(obj, path), "", "object"))
        return found

    def check(self, construct: str) -> None:
        """Raises errors.MutationError when the state differs from the fingerprint."""
        found = self.changes()
        if found:
            raise refusal(construct, found)


def check(snapshot: Snapshot | None, construct: str) -> None:
    """snapshot.check(construct), when there is a snapshot."""
    if snapshot is not None:
        snapshot.check(construct)


def refusal(construct: str, found) -> errors.MutationError:
    what, line, kind = found[0]
    more = (
        f" (and {len(found) - 1} more place{'s' if len(found) > 2 else ''})"
        if len(found) > 1
        else ""
    )
    written = f" (written at {line})" if line else ""
    return errors.MutationError(
        f"{where()}this staged {construct} (its condition is symbolic) changes {what}{written} "
        f"while it is traced{more}: a staged branch or loop body is traced once, whatever its "
        f"condition, so the change would happen once, at trace time, and not on each call that "
        f"takes this path. {_ADVICE[kind]}"
    )


_ADVICE = {
    "cell": "Return the value from the function that changes it (and assign it where it is "
    "called), keep it in a staging.Variable, or make it a variable of the staged function "
    "itself (a `nonlocal` of a function nested in it is staged)",
    "global": "Return the value instead of assigning a global, or keep it in a staging.Variable",
    "container": "A list, dict, set or deque made in the staged function and changed there "
    "through its own name is staged; one passed in, held elsewhere or changed by a library "
    "function is not: make it in the function (and return it), or return the values instead",
    "object": "Assign the attribute in converted code (`obj.attr = value` in the function or a "
    "function it calls, which is staged), return the value instead, or keep it in a "
    "staging.Variable",
}


_BY_CODE: dict = {}  # (id(code), what) -> (weak reference to the code, facts found in it)


def _cached(code, what: str, compute):
    """compute(code), once per code object (keyed by identity: hashing or comparing a code
    object walks all the code nested in it)."""
    key = (id(code), what)
    entry = _BY_CODE.get(key)
    if entry is None or entry[0]() is not code:
        entry = _BY_CODE[key] = (
            weakref.ref(code, lambda _, key=key: _BY_CODE.pop(key, None)),
            compute(code),
        )
    return entry[1]


def _global_names(code) -> tuple:
    return _cached(code, "globals", _find_global_names)


def _find_global_names(code) -> frozenset:
    """The names `code` (and the code nested in it) may load or store as globals: its
    `co_names` (attribute names too: a superset, read without disassembling). Walked without
    recursion: code nests as deeply as the user's `elif` chains."""
    names: set = set()
    stack = [code]
    while stack:
        current = stack.pop()
        names.update(current.co_names)
        stack.extend(c for c in current.co_consts if isinstance(c, types.CodeType))
    return frozenset(names)


def _stores(code, opname: str) -> tuple:
    return _cached(code, opname, functools.partial(_find_stores, opname=opname))


def _find_stores(code, opname: str) -> tuple:
    """(name, line) of the stores `opname` in `code` and the code nested in it."""
    found = []
    stack = [code]
    while stack:
        c = stack.pop()
        line = None
        for ins in dis.get_instructions(c):
            if ins.starts_line:
                line = ins.starts_line if isinstance(ins.starts_line, int) else line
            if getattr(ins, "line_number", None):
                line = ins.line_number
            if ins.opname == opname:
                found.append((ins.argval, line, c.co_filename))
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return tuple(found)


def _store_line(functions, name: str, opname: str) -> str:
    """'file:line' of a store of `name` in one of the user functions reached, or ''."""
    for fn in functions:
        for stored, line, filename in _stores(fn.__code__, opname):
            if stored == name and line is not None:
                mapped = lookup(filename, line)
                file, line = mapped if mapped else (filename, line)
                return f"{file}:{line}"
    return ""


def _owner(fn, name: str) -> str:
    """The function whose variable the closure cell `name` of `fn` is (the outermost function
    of its qualified name that is not `fn` itself, as far as the name tells)."""
    parts = fn.__qualname__.split(".<locals>.")
    return parts[-2] if len(parts) > 1 else fn.__qualname__


def _is_user_class(cls) -> bool:
    module = getattr(cls, "__module__", "") or ""
    if module == "types" and cls is types.SimpleNamespace:
        return True
    mod = sys.modules.get(module)
    filename = getattr(mod, "__file__", None)
    return filename is not None and is_user_file(filename)


def _container_changed(container, before) -> bool:
    if isinstance(container, dict):
        keys, values = before
        return (
            len(container) != len(keys)
            or not all(map(operator.is_, container, keys))
            or not all(map(operator.is_, container.values(), values))
        )
    if isinstance(container, set):
        return len(container) != len(before) or {id(v) for v in container} != {
            id(v) for v in before
        }
    return len(container) != len(before) or not all(map(operator.is_, container, before))


def _attributes_changed(obj, before) -> bool:
    now = obj.__dict__
    return len(now) != len(before) or any(now.get(k, _EMPTY) is not v for k, v in before)


def _describe(obj, path) -> str:
    kind = type(obj).__name__
    shown = _path_text(path)
    return f"the {kind} {shown}" if shown else f"a {kind}"


def _path_text(path) -> str:
    """The expression reaching an object from a root, as far as it can be written."""
    if path is None:
        return ""
    if path[0] == "cell":
        return f"'{path[1]}'"
    if path[0] == "global":
        return f"'{path[1]}' (a global)"
    if path[0] == "default":
        return f"(a default argument of '{path[1].__qualname__}')"
    parent, kind, key = path
    base = _path_text(parent)
    if not base:
        return ""
    base = base.split(" (")[0].strip("'")
    return f"'{base}[{key!r}]'" if kind == "item" else f"'{base}.{key}'"
