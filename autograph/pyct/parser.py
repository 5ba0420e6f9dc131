"""Finds and parses the source of a function or lambda into a gast tree."""

from __future__ import annotations

import inspect
import linecache

import gast

from staging import errors

_BLOCK_CACHE: dict[tuple[str, int], tuple[str, ...]] = {}


class ParsedEntity:
    """A parsed function: its gast node, the file it came from and the line offset."""

    __slots__ = ("node", "filename", "line_offset", "source")

    def __init__(self, node, filename, line_offset, source):
        self.node = node
        self.filename = filename
        self.line_offset = line_offset  # user line = node line + line_offset
        self.source = source

    def user_line(self, lineno: int) -> int:
        return lineno + self.line_offset


def _block_lines(code) -> tuple[str, ...]:
    """The source lines of the block that starts at code.co_firstlineno (cached)."""
    key = (code.co_filename, code.co_firstlineno)
    lines = _BLOCK_CACHE.get(key)
    if lines is None:
        all_lines = linecache.getlines(code.co_filename)
        if not all_lines:
            raise errors.ConversionError(
                f"cannot convert {code.co_name!r}: source of {code.co_filename} is unavailable "
                "(functions defined in the interactive interpreter or with exec cannot be converted)")
        start = code.co_firstlineno - 1
        try:
            lines = tuple(inspect.getblock(all_lines[start:]))
        except Exception:  # tokenizer trouble: fall back to the single line
            lines = (all_lines[start],)
        _BLOCK_CACHE[key] = lines
    return lines


def _dedent(lines) -> str:
    """Removes the first line's indentation from every line that starts with it."""
    first = lines[0]
    indent = first[: len(first) - len(first.lstrip())]
    if not indent:
        return "".join(lines)
    n = len(indent)
    return "".join(l[n:] if l.startswith(indent) else l for l in lines)


def _parse(text, code):
    try:
        return gast.parse(text)
    except SyntaxError as e:
        raise errors.ConversionError(
            f"cannot convert {code.co_name!r} at {code.co_filename}:{code.co_firstlineno}: "
            f"its source does not parse on its own ({e.msg})") from None


def parse_function(fn) -> ParsedEntity:
    """Parses `fn` (a plain function or lambda); decorators are dropped."""
    code = fn.__code__
    lines = _block_lines(code)
    text = _dedent(lines)
    line_offset = code.co_firstlineno - 1
    if code.co_name == "<lambda>":
        return _parse_lambda(fn, text, line_offset)
    tree = _parse(text, code)
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        raise errors.ConversionError(
            f"cannot convert {code.co_name!r} at {code.co_filename}:{code.co_firstlineno}: "
            "no function definition found at that line")
    node.decorator_list = []
    return ParsedEntity(node, code.co_filename, line_offset, text)


def _parse_lambda(fn, text, line_offset):
    code = fn.__code__
    tree = None
    candidates = [text, "(" + text.strip() + "\n)"]
    stripped = text.strip()
    if "lambda" in stripped:
        candidates.append("(" + stripped[stripped.index("lambda"):].rstrip(",;\\") + "\n)")
    for candidate in candidates:
        try:
            tree = gast.parse(candidate)
            break
        except SyntaxError:
            continue
    if tree is None:
        raise errors.ConversionError(
            f"cannot convert the lambda at {code.co_filename}:{code.co_firstlineno}: "
            "its source line does not parse on its own")
    want = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    found = []
    for node in gast.walk(tree):
        if isinstance(node, gast.Lambda) and node.lineno == 1:
            names = [a.id for a in node.args.args + node.args.kwonlyargs]
            if names == want:
                found.append(node)
    if len(found) != 1:
        raise errors.ConversionError(
            f"cannot convert the lambda at {code.co_filename}:{code.co_firstlineno}: "
            f"{'several lambdas' if found else 'no lambda'} with arguments {want} on that line")
    return ParsedEntity(found[0], code.co_filename, line_offset, text)
