"""Start positions of reported nodes, resolved per module-level statement when that is cheaper."""

from __future__ import annotations

import ast
import re
import warnings
from typing import Iterable, Mapping

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

_NEWLINE = re.compile(r"\r\n?|\n")  # what libcst's PositionProvider counts as a line break
_FINAL_NEWLINE = re.compile(r"(?:\r\n?|\n)\Z")


class Positions:
    """Start positions of nodes, equal to `PositionProvider` over the whole module.

    Resolving positions for a whole module is a code generation pass with position
    tracking plus a visit of the whole tree (close to half a second for 3,000 lines), so
    only the module-level statements that hold a reported node are resolved. Such a
    statement's code starts at column 0 of a fresh line and does not depend on what
    precedes it, so positions inside it are its positions on its own, moved down by
    the lines before it. That line offset comes from Python's `ast` (the line of the
    statement's first token) and is checked against the source text. The whole module
    is resolved instead when the reported statements are most of it (one pass is then
    cheaper) or when anything does not line up: a source `ast` rejects, a node whose
    statement is unknown, a statement libcst does not reproduce exactly.
    """

    # Above this share of the module's statements or lines, resolve the whole module.
    whole_module_above = 0.5

    def __init__(
        self, module: cst.Module, source: str, tops: Iterable[cst.BaseStatement | None]
    ) -> None:
        """`tops`: the module-level statements of every node that will be asked for."""
        self.module = module
        self.source = source
        self._whole: Mapping[cst.CSTNode, CodeRange] | None = None
        # id(statement) -> (positions in the statement alone, lines before it)
        self._statements: dict[int, tuple[Mapping[cst.CSTNode, CodeRange], int]] = {}
        if not self._resolve_statements(tops):
            self._statements.clear()
            self._resolve_whole()

    def start(self, node: cst.CSTNode, top: cst.BaseStatement | None) -> CodePosition:
        """Where `node` starts; `top` is the module-level statement it is in, if known."""
        found = self._statements.get(id(top)) if top is not None else None
        if found is not None:
            ranges, offset = found
            where = ranges.get(node)
            if where is not None:
                return CodePosition(where.start.line + offset, where.start.column)
        return self._resolve_whole()[node].start

    def _resolve_whole(self) -> Mapping[cst.CSTNode, CodeRange]:
        if self._whole is None:
            self._whole = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(
                PositionProvider
            )
        return self._whole

    def _resolve_statements(self, tops: Iterable[cst.BaseStatement | None]) -> bool:
        """Resolve only the statements `tops`; False when the whole module is needed."""
        module = self.module
        order = {id(stmt): i for i, stmt in enumerate(module.body)}
        wanted: set[int] = set()
        for top in tops:
            i = order.get(id(top))
            if i is None or module.body[i] is not top:
                return False  # a node outside any known statement
            wanted.add(i)
        share = self.whole_module_above
        if len(wanted) > share * len(module.body):
            return False  # findings all over: one pass is cheaper
        lines = self._statement_lines()
        if lines is None:
            return False
        first, last = lines
        if sum(last[i] - first[i] + 1 for i in wanted) > share * last[-1]:
            return False
        line_starts = [0] + [m.end() for m in _NEWLINE.finditer(self.source)]
        for i in sorted(wanted):
            top = module.body[i]
            alone = cst.Module(
                body=[top],
                header=[],
                footer=[],
                encoding=module.encoding,
                default_indent=module.default_indent,
                default_newline=module.default_newline,
            )
            ranges = MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider)
            offset = first[i] - ranges[top].start.line
            # Its code, leading comments and blank lines included, must be the source
            # text from the start of line offset + 1.
            code = alone.code
            if i == len(module.body) - 1 and not module.has_trailing_newline:
                code = _FINAL_NEWLINE.sub("", code)  # no line break at the end of the file
            if not (
                0 <= offset < len(line_starts) and self.source.startswith(code, line_starts[offset])
            ):
                return False
            self._statements[id(top)] = (ranges, offset)
        return True

    def _statement_lines(self) -> tuple[list[int], list[int]] | None:
        """Per module-level statement, the lines of its first and last token (from `ast`)."""
        source = self.source
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # a byte order mark is no line; `ast` accepts one in bytes only
                tree = ast.parse(source[1:] if source.startswith("\ufeff") else source)
        except Exception:  # syntax newer than this Python, ...
            return None
        body = tree.body
        first: list[int] = []
        last: list[int] = []
        j = 0
        for stmt in self.module.body:
            # a line `a = 1; b = 2` is one libcst statement and two `ast` ones
            n = len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
            if j + n > len(body):
                return None
            first.append(body[j].lineno)
            last.append(body[j + n - 1].end_lineno or body[j + n - 1].lineno)
            j += n
        return (first, last) if first and j == len(body) else None
