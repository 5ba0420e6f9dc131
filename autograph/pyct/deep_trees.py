"""Recursive steps on deeply nested syntax trees: a step that runs out of stack (compiling an
AST, unparsing one, a converter's visit_ methods) on a tree nested hundreds of levels deep (a sum
of a thousand terms) runs again on a thread with a large stack and room for the tree's depth
(runtime.headroom). The steps are pure: running one again gives what it would have given."""

from __future__ import annotations

import ast

from runtime import headroom

# Frames a recursive step may use per level of nesting (the unparser uses about four, the
# compiler's conversion of an AST one or two, a converter's visit_ method two), with room.
FRAMES_PER_LEVEL = 8
_MARGIN = 1000  # frames for the step itself, below the tree's deepest node
# The deepest nesting converted: deeper, a step could need more than the worker's stack
# (runtime.headroom.WORKER_STACK_BYTES). Python itself compiles at most about 3000 levels at its
# default recursion limit.
MAX_DEPTH = 50_000


def nesting_depth(tree) -> int:
    """How deeply nodes nest in `tree` (an ast node or a list of them), found without
    recursion."""
    deepest = 0
    stack = [(node, 1) for node in (tree if isinstance(tree, list) else [tree])]
    while stack:
        node, depth = stack.pop()
        if depth > deepest:
            deepest = depth
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def parse(text: str):
    """ast.parse(text); when the text nests too deeply for the stack (building the tree recurses
    through it), again on a large stack with room for its length."""
    try:
        return ast.parse(text)
    except RecursionError as error:
        levels = min(len(text) // 2, MAX_DEPTH)
        return again_with_room(lambda: ast.parse(text), levels, error)


def with_room(work, tree):
    """`work()`, a recursive step on `tree`; when it runs out of stack, `work()` again on a
    large stack with room for the tree's depth."""
    try:
        return work()
    except RecursionError as error:
        return again_with_room(work, nesting_depth(tree), error)


def again_with_room(work, depth: int, error: RecursionError):
    """`work()` (which raised `error`, out of stack) run again on a large stack with room for
    `depth` levels; `error` itself for a tree deeper than MAX_DEPTH (a RecursionError in the
    second run is raised too)."""
    if depth > MAX_DEPTH:
        raise error
    return headroom.on_large_stack(work, frames=FRAMES_PER_LEVEL * depth + _MARGIN)


__all__ = ["MAX_DEPTH", "again_with_room", "nesting_depth", "parse", "with_room"]
