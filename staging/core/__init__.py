"""The tracing core: the symbolic tensor (tensor), recording nodes into the graph being traced
(recording), the one walker of nested structures (nest), where a node or error is in the
user's code (source_map), hiding staging's frames from tracebacks (tracebacks) and the hints
error messages end with (conversion_hints)."""
