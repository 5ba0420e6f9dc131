"""The corpus programs, one module per domain.

Each module sets `DOMAIN` (a readable name) and `CASES = {function: [args, ...]}`, where each
`args` is the tuple of positional arguments of one call. The harness finds every module of this
package by itself: adding a module (or a function and its cases to `CASES`) is all it takes.
"""
