"""Nested Python structures (tuple, list, dict, namedtuple, dataclass): one walker for them all.

Containers are tuples and lists (namedtuples included), dicts (walked in sorted key order) and
dataclass instances (their fields in order); everything else is a leaf. Every function takes
`is_leaf`, a predicate that makes some containers leaves (trace keys treat an object with a
`__tracing_type__` as a leaf, whatever its type).
"""

from __future__ import annotations

import collections
import dataclasses


def is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _is_dataclass_instance(x) -> bool:
    return dataclasses.is_dataclass(x) and not isinstance(x, type)


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        return sorted(d, key=repr)


def _children(s, is_leaf):
    """[(path suffix, child)] of a container, or None for a leaf."""
    if is_leaf is not None and is_leaf(s):
        return None
    if is_namedtuple(s):
        return [(f".{name}", item) for name, item in zip(type(s)._fields, s)]
    if isinstance(s, (tuple, list)):
        return [(f"[{i}]", item) for i, item in enumerate(s)]
    if isinstance(s, dict):
        return [(f"[{key!r}]", s[key]) for key in _sorted_keys(s)]
    if _is_dataclass_instance(s):
        return [(f".{f.name}", getattr(s, f.name)) for f in dataclasses.fields(s)]
    return None


def is_leaf(s) -> bool:
    """Whether `s` is a leaf (no container this module walks)."""
    return _children(s, None) is None


def flatten_with_paths(structure, prefix: str = "", is_leaf=None) -> list[tuple[str, object]]:
    """[(path, leaf)] in a deterministic order, paths like `x`, `x[0]`, `x['a']`, `x.field`."""
    out: list = []
    stack = [(prefix, structure)]
    while stack:
        path, s = stack.pop()
        children = _children(s, is_leaf)
        if children is None:
            out.append((path, s))
        else:
            stack.extend((path + suffix, child) for suffix, child in reversed(children))
    return out


def flatten(structure, is_leaf=None) -> list:
    """The leaves, in the order of flatten_with_paths."""
    return [leaf for _, leaf in flatten_with_paths(structure, "", is_leaf)]


def _rebuild(s, items):
    """A container like `s` holding `items` (its children, in _children order)."""
    if is_namedtuple(s):
        return type(s)(*items)
    if isinstance(s, tuple):
        return tuple(items)
    if isinstance(s, list):
        return list(items)
    if isinstance(s, dict):
        packed = dict(zip(_sorted_keys(s), items))
        if type(s) is dict:
            return {k: packed[k] for k in s}  # the caller's key order
        if isinstance(s, collections.defaultdict):  # (its factory first)
            return type(s)(s.default_factory, ((k, packed[k]) for k in s))
        return type(s)((k, packed[k]) for k in s)
    fields = dataclasses.fields(s)
    return dataclasses.replace(s, **{f.name: item for f, item in zip(fields, items) if f.init})


def map_structure(fn, structure, is_leaf=None):
    """`structure` rebuilt with every leaf replaced by fn(leaf)."""
    children = _children(structure, is_leaf)
    if children is None:
        return fn(structure)
    return _rebuild(structure, [map_structure(fn, child, is_leaf) for _, child in children])


def pack_as(structure, leaves, is_leaf=None):
    """Rebuilds `structure` with its leaves replaced by `leaves`, in flatten order."""
    it = iter(leaves)
    return map_structure(lambda _: next(it), structure, is_leaf)


def structure_signature(s, is_leaf=None):
    """A hashable description of the containers only (leaves replaced by '*')."""
    children = _children(s, is_leaf)
    if children is None:
        return "*"
    if isinstance(s, dict):
        return (type(s), tuple((k, structure_signature(s[k], is_leaf)) for k in _sorted_keys(s)))
    return (type(s), tuple(structure_signature(child, is_leaf) for _, child in children))
