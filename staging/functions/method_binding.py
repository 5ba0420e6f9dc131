"""Staged methods: one set of traces per instance, bound objects that hold their instance.

`instance.method` for a staged method returns a bound object (like a bound method) that holds
the instance strongly for as long as it is alive, so `Model(3.0).apply(x)` and
`m = Model(2.0).apply; m(x)` work. Each instance has one per-instance state (its traces),
created on first access and shared by every bound object of that instance. The cache of those
states itself never keeps an instance alive:

- weak-referenceable instances are cached by id with a weak reference (and a weak reference
  to the live bound object, so `obj.apply is obj.apply`); the entry goes away when the
  instance dies;
- other instances (a class with __slots__ and no __weakref__) are cached in a small LRU
  (STRONG_MAX entries) that holds them strongly: such an instance stays alive while it is in
  that cache, and a method of an instance evicted from it is bound (and traced) anew on its
  next access.
"""

from __future__ import annotations

import collections
import threading
import weakref

STRONG_MAX = 64  # methods of non-weak-referenceable instances cached per method (LRU)
_weakref = weakref.ref


def instance_ref(instance):
    """A callable returning `instance`: a weak reference when it can be one."""
    try:
        return weakref.ref(instance)
    except TypeError:
        return lambda: instance


class MethodBinder:
    """Binds one staged method to instances.

    new_state(ref) makes the per-instance state (the __dict__ of a per-instance Function that
    reaches its instance through `ref()`); bound_type is the class of the bound objects, whose
    __dict__ is that state and whose `__self__` is the instance.
    """

    def __init__(self, new_state, bound_type):
        self.new_state = new_state
        self.bound_type = bound_type
        # id(instance) -> [weak ref to the instance, its state, weak ref to the last bound
        # object handed out]; nothing here holds the instance
        self.weak: dict = {}
        # id(instance) -> (instance, bound object), least recently used first
        self.strong: collections.OrderedDict = collections.OrderedDict()
        self.lock = threading.Lock()

    def _bound(self, state, instance):
        bound = self.bound_type()
        bound.__dict__ = state
        bound.__self__ = instance
        return bound

    def bind(self, instance):  # noqa: C901
        """The bound object for `instance` (the same one while it is alive)."""
        key = id(instance)
        entry = self.weak.get(key)
        if entry is not None:
            bound = entry[2]()
            if bound is not None and bound.__self__ is instance:
                return bound
            if entry[0]() is instance:  # the state lives on; its last bound object died
                bound = self._bound(entry[1], instance)
                entry[2] = _weakref(bound)
                return bound
        strong = self.strong
        if strong:
            with self.lock:
                hit = strong.get(key)
                if hit is not None and hit[0] is instance:  # identity, not just a reused id
                    strong.move_to_end(key)
                    return hit[1]
        cache = self.weak

        def forget(ref, key=key, cache=cache):
            entry = cache.get(key)
            if entry is not None and entry[0] is ref:
                del cache[key]

        try:
            ref = weakref.ref(instance, forget)
        except TypeError:  # not weak-referenceable: keep it (bounded) in the strong LRU
            ref = None
        # The state reaches its instance through a weak reference (or, for an instance held
        # by the strong LRU, a strong one): the cache must not keep it alive.
        bound = self._bound(
            self.new_state(ref if ref is not None else instance_ref(instance)), instance
        )
        if ref is None:
            with self.lock:
                hit = strong.get(key)
                if hit is not None and hit[0] is instance:  # another thread bound it meanwhile
                    strong.move_to_end(key)
                    return hit[1]
                strong[key] = (instance, bound)
                strong.move_to_end(key)
                while len(strong) > STRONG_MAX:
                    strong.popitem(last=False)
            return bound
        entry = cache.get(key)
        if entry is not None and entry[0]() is instance:  # another thread bound it meanwhile
            other = entry[2]()
            if other is not None and other.__self__ is instance:
                return other
            bound.__dict__ = entry[1]
            entry[2] = _weakref(bound)
            return bound
        cache[key] = [ref, bound.__dict__, _weakref(bound)]
        return bound
