"""Cell variables of a function (annotation Static.CELLS), from the code objects Python compiled.

They are the names a nested function, lambda, class or generator reads or writes.

Such a name must live in the function's own cell when converted code writes it from a branch
or loop body, or the nested function would read a stale value (see converters/control_flow).
A list, set or dict comprehension runs at once, so names it reads count only when a function
or lambda nested in it reads them.
"""

from __future__ import annotations

import ast
import types

from autograph.pyct import anno, transformer

_IMMEDIATE = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>"})
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _nested_codes(code):
    return [c for c in code.co_consts if isinstance(c, types.CodeType)]


def _deferred_free(code) -> set:
    """Names that code nested in `code`, able to run later, takes from `code`'s scope or above."""
    names = set()
    for inner in _nested_codes(code):
        if inner.co_name in _IMMEDIATE:
            names |= _deferred_free(inner) - set(inner.co_varnames) - set(inner.co_cellvars)
        else:
            names |= set(inner.co_freevars)
    return names


def cell_vars(code) -> frozenset:
    """The cell variables of `code` that a deferred nested scope uses."""
    return frozenset(set(code.co_cellvars) & _deferred_free(code))


def _first_line(node) -> int:
    return min([node.lineno] + [d.lineno for d in node.decorator_list])


def helper_writes(fn_node, cells) -> frozenset:
    """The cell variables of function `fn_node` (of `cells`) that a function nested in it
    assigns through `nonlocal` (`def bump(): nonlocal count; count += 1`): a call of such a
    helper from a staged branch or loop body writes the variable, which the staged statement
    then carries as it carries the cells it assigns itself (converters/control_flow)."""
    found = set()
    for node in transformer.walk(fn_node):
        if node is not fn_node and isinstance(node, (*_DEFS, ast.Lambda)):
            for inner in transformer.walk(node):
                if inner.__class__ is ast.Nonlocal:
                    found.update(inner.names)
    return frozenset(found & cells)


def analyze(fn_node, code) -> None:
    """Annotates fn_node (the parsed source of `code`) and the functions nested in it with
    their cell variables (and those that functions nested in them assign); a nested function
    is matched to its code object by name and line."""
    cells = cell_vars(code)
    anno.setanno(fn_node, anno.Static.CELLS, cells)
    anno.setanno(fn_node, anno.Static.HELPER_WRITES, helper_writes(fn_node, cells))
    by_key = {}
    stack = [code]
    while stack:
        c = stack.pop()
        for inner in _nested_codes(c):
            by_key.setdefault((inner.co_name, inner.co_firstlineno), inner)
            stack.append(inner)
    for node in transformer.walk(fn_node):
        if isinstance(node, _DEFS) and node is not fn_node:
            inner = by_key.get((node.name, _first_line(node)))
            inner_cells = cell_vars(inner) if inner is not None else frozenset()
            anno.setanno(node, anno.Static.CELLS, inner_cells)
            anno.setanno(node, anno.Static.HELPER_WRITES, helper_writes(node, inner_cells))
