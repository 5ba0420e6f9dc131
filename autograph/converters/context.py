"""State shared by the converters while one function is converted."""

from __future__ import annotations

from autograph.pyct import naming


class ConversionContext:
    """What a converter may need: the user's file, a line mapper and a fresh-name source."""

    def __init__(self, entity, namer: naming.Namer):
        self.entity = entity  # pyct.parser.ParsedEntity
        self.namer = namer
        self.name_order: dict = {}

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
