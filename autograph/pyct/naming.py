"""Deterministic fresh names: `base`, then `base_1`, `base_2` ... avoiding the function's own names."""

from __future__ import annotations

import gast


class Namer:
    def __init__(self, used=()):
        self.used = set(used)

    @classmethod
    def for_tree(cls, node):
        used = set()
        for n in gast.walk(node):
            if isinstance(n, gast.Name):
                used.add(n.id)
            elif isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
                used.add(n.name)
            elif isinstance(n, gast.alias):
                used.add((n.asname or n.name).split(".")[0])
        return cls(used)

    def new(self, base: str) -> str:
        if base not in self.used:
            self.used.add(base)
            return base
        stem = base.rstrip("_")
        k = 1
        while f"{stem}_{k}" in self.used:
            k += 1
        name = f"{stem}_{k}"
        self.used.add(name)
        return name

    def new_group(self, bases) -> tuple:
        """Fresh names sharing one suffix, e.g. ('if_true_2', 'if_false_2')."""
        k = 0
        while True:
            names = tuple(b if k == 0 else f"{b}_{k}" for b in bases)
            if not any(n in self.used for n in names):
                self.used.update(names)
                return names
            k += 1


def source_order(node) -> dict:
    """name -> index of its first occurrence in source order."""
    order = {}

    def walk(n):
        if isinstance(n, gast.Name):
            order.setdefault(n.id, len(order))
        for child in gast.iter_child_nodes(n):
            walk(child)

    walk(node)
    return order
