"""Emits source from an ast tree and records which original line each emitted line came from."""

from __future__ import annotations

import ast

from .stable_unparser import StableUnparser


class _LineRecordingUnparser(StableUnparser):
    """ast.unparse (the same on every Python: see stable_unparser) that notes the origin line
    of every statement it writes."""

    def __init__(self, **kwargs):  # f-strings unparse with a nested instance (kwargs)
        super().__init__(**kwargs)
        self.line = 0
        self.pending = None
        self.line_map = {}

    def fill(self, text=""):
        self.line += 1
        if self.pending is not None:
            self.line_map[self.line] = self.pending
            self.pending = None
        super().fill(text)

    def traverse(self, node):
        if isinstance(node, ast.stmt):
            self.pending = getattr(node, "lineno", None)
        super().traverse(node)


def to_source(node) -> tuple[str, dict[int, int]]:
    """(source, {emitted line: node line}) for an ast node or list of nodes."""
    tree = ast.Module(body=node if isinstance(node, list) else [node], type_ignores=[])
    unparser = _LineRecordingUnparser()
    text = unparser.visit(tree)
    # fill() emits a newline before each statement; the first line of text is line 1.
    if text.startswith("\n"):
        text = text[1:]
    return text, unparser.line_map
