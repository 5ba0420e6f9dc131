"""State shared by the converters while one function is converted."""

from __future__ import annotations

import dataclasses
from typing import Mapping

from autograph.pyct import naming, parser


@dataclasses.dataclass(frozen=True)
class ConversionContext:
    """What the converters of one function share; no field changes once it is built.

    All fields but `namer` are facts about the function, read only; the namer is the one
    piece of mutable state (it records every name it hands out).
    """

    entity: parser.ParsedEntity
    """The parsed function: its ast node, file name and source lines."""

    namespace: Mapping[str, object]
    """The function's globals (the live dict), to resolve call targets at conversion time."""

    freevars: frozenset[str]
    """Names the function closes over: their values are not known at conversion time."""

    name_order: Mapping[str, int]
    """Name -> index of its first occurrence in source order; orders the names of state tuples."""

    bound: frozenset[str]
    """Names bound anywhere in the function: assigned, deleted, parameters, except targets."""

    features: frozenset
    """What occurs in the function: node classes, attribute names, Name ids, "chained" (a
    chained comparison), "loop_else" (a loop with an else clause), "str_percent" (`%` with a
    literal str on its left). Converters that need a construct skip their work when it is
    absent."""

    namer: naming.Namer
    """The source of fresh names, avoiding the function's own names and those handed out."""

    direct_calls: frozenset[str] = frozenset()
    """Names of the functions converters defined in the converted code (the functions
    comprehensions became): converted already, they are called as they are, not through
    ag__.call."""

    @property
    def filename(self) -> str:
        return self.entity.filename

    def location(self, node) -> str:
        """'file:line' of a node in the user's source."""
        return f"{self.entity.filename}:{self.entity.user_line(getattr(node, 'lineno', 1))}"

    def ordered(self, names) -> list:
        """Names in the order they first appear in the function."""
        big = len(self.name_order)
        return sorted(names, key=lambda n: (self.name_order.get(n, big), n))
