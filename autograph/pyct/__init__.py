"""Python code tools: parsing, templates, static analysis and emitting code with a line map."""
