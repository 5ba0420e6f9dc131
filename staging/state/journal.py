"""The mutation journal: writes into Python objects made while a staged branch or loop body is
traced.

A staged `if` traces both branches and a staged loop traces its body once, whatever the
condition is when the graph runs; a write such as `d["a"] = v` or `obj.n = obj.n + 1` made
while tracing would otherwise happen once, at trace time, for both branches. Instead each
write goes through `write_item` / `write_attr` (converted code calls them for every
subscript and attribute assignment), which note the location and its value before the first
write in the innermost journal. `staging.control_flow` then undoes a branch's writes before
tracing the other branch, and turns the locations written into outputs of the `cond` (or loop
variables of the `while_loop`), writing the merged values back afterwards: the composite
name becomes a branch or loop variable, as in TensorFlow's AutoGraph.

Outside a journal (eager code, or traced code outside staged control flow) the writes are
plain Python writes.
"""

from __future__ import annotations

import sys
import threading

_state = threading.local()


class _Missing:
    """The value of a location that did not exist (a new key, a new attribute)."""

    _is_missing = True

    def __repr__(self):
        return "<missing>"


MISSING = _Missing()


class Location:
    """One written place: item `key` of `obj` (kind "item"), attribute `key` of `obj` ("attr"), or
    the value a symbolic array `obj` holds ("tensor": a Tensor is a mutable reference to a graph
    value, rebound by in-place writes such as `x[i] = v`; see staging.state.aliasing)."""

    __slots__ = ("obj", "kind", "key")

    def __init__(self, obj, kind: str, key):
        self.obj, self.kind, self.key = obj, kind, key

    @property
    def ident(self):
        key = self.key
        try:
            hash(key)
        except TypeError:
            key = ("id", id(key))
        return (id(self.obj), self.kind, key)

    def read(self):
        if self.kind == "tensor":  # a snapshot: a Tensor for the value it holds now
            return type(self.obj)(self.obj._graph, self.obj._value)
        try:
            if self.kind == "item":
                return self.obj[self.key]
            return getattr(self.obj, self.key)
        except (KeyError, IndexError, AttributeError):
            return MISSING

    def write(self, value):
        """Sets the location to `value` (MISSING deletes it) without noting it anywhere."""
        if self.kind == "tensor":
            self.obj._graph, self.obj._value = value._graph, value._value
        elif value is MISSING:
            if self.kind == "item":
                del self.obj[self.key]
            else:
                delattr(self.obj, self.key)
        elif self.kind == "item":
            self.obj[self.key] = value
        else:
            setattr(self.obj, self.key, value)

    def describe(self, names=None) -> str:
        """`d['a']`, `obj.attr`: the location as the user wrote it, as far as it is known."""
        if self.kind == "tensor":
            return "an array written in place"
        base = (names or {}).get(id(self.obj)) or type(self.obj).__name__
        return f"{base}[{self.key!r}]" if self.kind == "item" else f"{base}.{self.key}"


class Journal:
    """The locations written while one branch or loop body was traced, with their values from
    before the first write, in order of first write. `graph` is the branch's or body's graph:
    its own tensors (and those of graphs nested in it) are its values, not outside state."""

    def __init__(self, graph=None):
        self.graph = graph
        self.before: dict = {}  # ident -> (Location, value before the first write)

    def note(self, location: Location) -> None:
        ident = location.ident
        if ident not in self.before:
            self.before[ident] = (location, location.read())

    @property
    def locations(self) -> list[Location]:
        return [loc for loc, _ in self.before.values()]

    def undo(self) -> None:
        """Restores every location to its value from before (latest first); once."""
        if getattr(self, "_undone", False):
            return
        self._undone = True
        for location, value in reversed(list(self.before.values())):
            location.write(value)


def _journals() -> list:
    stack = getattr(_state, "stack", None)
    if stack is None:
        stack = _state.stack = []
    return stack


class recording:
    """Context manager: writes made inside go into a new journal (returned by `with`) for the
    branch or loop body traced into `graph`."""

    def __init__(self, graph=None):
        self.graph = graph

    def __enter__(self) -> Journal:
        self.journal = Journal(self.graph)
        _journals().append(self.journal)
        return self.journal

    def __exit__(self, exc_type, exc, tb):
        _journals().pop()
        if exc_type is not None:  # (a trace given up, or tried again: its writes must not stay)
            self.journal.undo()
        return False


def unobservable(location: Location, known, unread=()) -> bool:
    """Whether nothing but the journal refers to the object written (one the branch or loop body
    made and then dropped, such as `o = Box(); o.a = v` in a branch that does not keep `o`): no
    code can see the write after the staged construct, so it needs no merging. `known`: every
    Location the caller still holds; the object's only references must be theirs. `unread`: the
    objects of local names nothing reads after the construct (each referred to by that name's
    cell and by this tuple)."""
    if location.kind == "tensor":
        return False
    obj = location.obj
    held = len({id(loc) for loc in known if loc.obj is obj}) + 2 * sum(o is obj for o in unread)
    return sys.getrefcount(obj) <= held + 2  # + `obj` here + getrefcount's argument


def note(location: Location) -> None:
    """Notes a write about to happen at `location` in the innermost journal, if any."""
    stack = getattr(_state, "stack", None)
    if stack:
        stack[-1].note(location)


def recording_active() -> bool:
    """True while a staged branch or loop body is traced (its writes are journaled)."""
    return bool(getattr(_state, "stack", None))


def journals(tensor) -> bool:
    """Whether an in-place write into `tensor` would be journaled now (see rebind_tensor)."""
    stack = getattr(_state, "stack", None)
    return bool(stack) and not _is_local(tensor._graph, stack[-1].graph)


def rebind_tensor(tensor, new) -> None:
    """Makes the Tensor object `tensor` hold `new`'s value (an in-place write), noted in the
    innermost journal when the tensor is a value from outside its branch or loop body."""
    stack = getattr(_state, "stack", None)
    if stack and not _is_local(tensor._graph, stack[-1].graph):
        stack[-1].note(Location(tensor, "tensor", None))
    tensor._graph, tensor._value = new._graph, new._value


def _is_local(graph, construct) -> bool:
    """Whether a tensor of `graph` is a value of the construct traced into `construct` (a
    FuncGraph): made in it or in a graph nested in it."""
    while graph is not None:
        if graph is construct:
            return True
        graph = graph.outer
    return False


def write_item(obj, key, value):
    """`obj[key] = value`, noted in the innermost journal."""
    if getattr(_state, "stack", None):
        note(Location(obj, "item", key))
    obj[key] = value


def write_attr(obj, name: str, value):
    """`setattr(obj, name, value)`, noted in the innermost journal."""
    if getattr(_state, "stack", None):
        note(Location(obj, "attr", name))
    setattr(obj, name, value)


def delete_item(obj, key):
    """`del obj[key]`, noted in the innermost journal."""
    if getattr(_state, "stack", None):
        note(Location(obj, "item", key))
    del obj[key]
