"""Source-to-source converters; each file holds one, with a single entry point `transform(node, ctx)`."""
