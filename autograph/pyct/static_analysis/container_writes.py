"""Which names a branch or loop body changes through a container method: `seen.add(i)`,
`dq.popleft()`, `heapq.heappush(heap, x)`, `d.setdefault(k, [])`, `s |= other`.

A container the function made that a staged `if`, loop or `try` changes this way becomes a
staged value at the entry of the construct (staging.state.containers), so that its methods run
when the graph runs, on the path taken. The names found here are candidates: only a list,
deque, set or dict nothing else refers to is promoted, at run time. The names the lists
converter gave `lst = ag__.list_append(lst, x)` / `ag__.list_pop(lst)` are found apart
(`appended`): a list there is a staged list already (a TensorArray), while a deque, set or
dict needs promoting (the converter passes those it sees made by `collections.deque(...)`).
The names whose items a construct writes (`d[k] = v`) are the ones it passes for arrays written
in place (converters/control_flow's `arrays`): a list or dict among them is promoted when its
items are of types one value can have, and otherwise written through the journal
(staging.state.journal), place by place.
"""

from __future__ import annotations

import ast
import collections

from autograph.pyct import transformer
from staging.state.containers import CHANGING, FUNCTIONS

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_IN_PLACE = (ast.BitOr, ast.BitAnd, ast.BitXor, ast.Sub)  # (`+=` of a list: a staged list's)
_LIST_OPERATORS = ("list_append", "list_pop")


def _walk(stmts):
    """The nodes of `stmts`, not inside nested functions, lambdas or classes."""
    for statement in stmts:
        yield from transformer.walk(statement, _SCOPES)


def _resolve(func, namespace):
    """The object an attribute chain or a global name calls, if known now; else None."""
    chain = []
    while isinstance(func, ast.Attribute):
        chain.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    obj = namespace.get(func.id)
    for attr in reversed(chain):
        obj = getattr(obj, attr, None)
    return obj


def _changed_by_call(node, namespace):
    """("changed" or "appended", name) for a call that changes a container named by a name, or
    None."""
    func = node.func
    first = node.args[0].id if node.args and isinstance(node.args[0], ast.Name) else None
    if _is_function(func, namespace):  # heapq.heappush(h, x): h, not heapq
        return ("changed", first) if first else None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        if func.value.id == "ag__":
            return ("appended", first) if func.attr in _LIST_OPERATORS and first else None
        if func.attr in CHANGING:
            return "changed", func.value.id
    return None


def _is_function(func, namespace) -> bool:
    """Whether `func` names one of heapq's or bisect's functions of a list."""
    try:
        return _resolve(func, namespace) in FUNCTIONS
    except TypeError:  # an unhashable object
        return False


def changed(stmts, namespace) -> tuple[set, set]:
    """(names changed through a container method or an in-place operator, names only the list
    operators change)."""
    found = {"changed": set(), "appended": set()}
    for node in _walk(stmts):
        if (
            isinstance(node, ast.AugAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(node.op, _IN_PLACE)
        ):
            found["changed"].add(node.target.id)
        elif isinstance(node, ast.Call):
            hit = _changed_by_call(node, namespace)
            if hit is not None:
                found[hit[0]].add(hit[1])
    return found["changed"], found["appended"] - found["changed"]


def deques(fn_node, namespace) -> frozenset:
    """The names `fn_node` assigns a `collections.deque(...)` to (an append or a pop of one in a
    staged construct needs it promoted: a list there is a staged list already)."""
    found = set()
    for node in _walk(fn_node.body):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            try:
                made = _resolve(node.value.func, namespace) is collections.deque
            except TypeError:
                made = False
            if made:
                found.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return frozenset(found)


def changed_by_helpers(fn_node, cells) -> frozenset:
    """The cell variables of `fn_node` (of `cells`) that a function nested in it changes through
    a container method (`def visit(u): visited.add(u)`): a staged statement calling anything may
    call it, and then changes them."""
    found = set()
    for node in transformer.walk(fn_node):
        if node is not fn_node and isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
        ):
            body = node.body if isinstance(node.body, list) else [node.body]
            names, _ = changed(body, {})
            found |= names
    return frozenset(found & cells)
