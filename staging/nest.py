"""Flattening and packing of nested Python structures (tuple, list, dict, namedtuple, dataclass)."""

from __future__ import annotations

import dataclasses


def is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def flatten(structure) -> list:
    """Leaves in a deterministic order (dict keys sorted)."""
    out: list = []
    _flatten(structure, out)
    return out


def _flatten(s, out):
    if isinstance(s, (tuple, list)):
        for item in s:
            _flatten(item, out)
    elif isinstance(s, dict):
        for key in _sorted_keys(s):
            _flatten(s[key], out)
    elif dataclasses.is_dataclass(s) and not isinstance(s, type):
        for f in dataclasses.fields(s):
            _flatten(getattr(s, f.name), out)
    else:
        out.append(s)


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        return sorted(d, key=repr)


def flatten_with_paths(structure, prefix: str = "") -> list[tuple[str, object]]:
    """[(path, leaf)], paths like `x`, `x[0]`, `x['a']`, `x.field`."""
    out: list = []
    _flatten_paths(structure, prefix, out)
    return out


def _flatten_paths(s, path, out):
    if is_namedtuple(s):
        for name, item in zip(type(s)._fields, s):
            _flatten_paths(item, f"{path}.{name}", out)
    elif isinstance(s, (tuple, list)):
        for i, item in enumerate(s):
            _flatten_paths(item, f"{path}[{i}]", out)
    elif isinstance(s, dict):
        for key in _sorted_keys(s):
            _flatten_paths(s[key], f"{path}[{key!r}]", out)
    elif dataclasses.is_dataclass(s) and not isinstance(s, type):
        for f in dataclasses.fields(s):
            _flatten_paths(getattr(s, f.name), f"{path}.{f.name}", out)
    else:
        out.append((path, s))


def pack_as(structure, leaves):
    """Rebuilds `structure` with its leaves replaced, in flatten order."""
    it = iter(leaves)
    result = _pack(structure, it)
    return result


def _pack(s, it):
    if is_namedtuple(s):
        return type(s)(*[_pack(item, it) for item in s])
    if isinstance(s, tuple):
        return tuple(_pack(item, it) for item in s)
    if isinstance(s, list):
        return [_pack(item, it) for item in s]
    if isinstance(s, dict):
        packed = {key: _pack(s[key], it) for key in _sorted_keys(s)}
        return type(s)((key, packed[key]) for key in s) if type(s) is not dict else {k: packed[k] for k in s}
    if dataclasses.is_dataclass(s) and not isinstance(s, type):
        return dataclasses.replace(s, **{f.name: _pack(getattr(s, f.name), it) for f in dataclasses.fields(s)
                                         if f.init})
    return next(it)


def structure_signature(s):
    """A hashable description of the containers only (leaves replaced by '*')."""
    if is_namedtuple(s):
        return (type(s), tuple(structure_signature(i) for i in s))
    if isinstance(s, (tuple, list)):
        return (type(s), tuple(structure_signature(i) for i in s))
    if isinstance(s, dict):
        return (type(s), tuple((k, structure_signature(s[k])) for k in _sorted_keys(s)))
    if dataclasses.is_dataclass(s) and not isinstance(s, type):
        return (type(s), tuple(structure_signature(getattr(s, f.name)) for f in dataclasses.fields(s)))
    return "*"
